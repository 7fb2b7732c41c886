// WaitingRoom and QueueShards inside workerd: FIFO order (one and four shards), lottery draw at sale
// start, limits, lapsed places.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { lotteryOrder, verifyDraw } from '../../contracts/queue/queue-policy';
import { comparePlaces, type FifoPlace, type Place } from '../../contracts/queue/cursor';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

/** Release tick (1-based) at which each visitor was admitted, polling everyone in random order each tick. */
async function releaseTicks(
  q: QueueHarness,
  ids: readonly string[],
  t0: number,
  ticks: number,
  stepMs = 5000,
): Promise<Map<string, number>> {
  const admittedAt = new Map<string, number>();
  for (let k = 1; k <= ticks; k++) {
    await q.tick(t0 + k * stepMs);
    const order = [...ids].filter((id) => !admittedAt.has(id)).sort(() => Math.random() - 0.5);
    for (const id of order) if ((await q.poll(id)).kind === 'admitted') admittedAt.set(id, k);
  }
  return admittedAt;
}

/** Pairs admitted at a later tick although they arrived earlier. */
function inversions(ids: readonly string[], admittedAt: ReadonlyMap<string, number>): number {
  let n = 0;
  for (let a = 0; a < ids.length; a++)
    for (let b = a + 1; b < ids.length; b++) if (admittedAt.get(ids[a]!)! > admittedAt.get(ids[b]!)!) n++;
  return n;
}

describe('WaitingRoom', () => {
  it('admits 300 FIFO visitors in exact arrival order (Kendall tau distance 0)', { timeout: 60_000 }, async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId));
    const t0 = Date.now();
    const arrivals = Array.from({ length: 300 }, (_, i) => `v${String(i).padStart(4, '0')}-${crypto.randomUUID().slice(0, 4)}`);
    for (const [i, id] of arrivals.entries()) {
      await q.at(t0 + i * 7);
      await q.join(id);
    }
    // 600/min = 50 per 5 s tick; everyone polls after every tick.
    // Everyone polls after every tick, in random order: who gets in is decided by the place alone.
    const admittedAt = await releaseTicks(q, arrivals, t0 + 5000, 7);
    expect(admittedAt.size).toBe(300);
    expect(inversions(arrivals, admittedAt)).toBe(0);
    for (const [i, id] of arrivals.entries()) expect(admittedAt.get(id)).toBe(Math.floor(i / 50) + 1);
  });

  it('keeps FIFO across 4 shards to within one 1 s bucket, and K = 1 and K = 4 admit the same set at every tick', async () => {
    // 50 arrivals per bucket (one every 20 ms) and 50 releases per tick: every tick ends on a bucket edge.
    const ids = Array.from({ length: 400 }, (_, i) => `a${String(i).padStart(3, '0')}-${crypto.randomUUID().slice(0, 6)}`);
    const runs = new Map<number, Map<string, number>>();
    for (const shards of [1, 4]) {
      // Each run starts on a bucket edge of its own.
      const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
      const eventId = freshEventId();
      const q = new QueueHarness(eventId);
      await q.room.configure(queueConfig(eventId, { queueShards: shards }));
      for (const [i, id] of ids.entries()) {
        await q.at(t0 + i * 20);
        await q.join(id);
      }
      runs.set(shards, await releaseTicks(q, ids, t0 + 8000, 9));
    }
    const one = runs.get(1)!;
    const four = runs.get(4)!;
    expect(one.size).toBe(400);
    expect(inversions(ids, one)).toBe(0);
    // Across shards: never a later bucket before an earlier one.
    const bucketOf = (i: number) => Math.floor((i * 20) / 1000);
    for (let a = 0; a < ids.length; a++)
      for (let b = a + 1; b < ids.length; b++)
        if (bucketOf(a) < bucketOf(b)) expect(four.get(ids[a]!)!).toBeLessThanOrEqual(four.get(ids[b]!)!);
    // Same set at every tick.
    for (let k = 1; k <= 9; k++) {
      const set = (m: Map<string, number>) => ids.filter((id) => m.get(id)! <= k);
      expect(set(four)).toEqual(set(one));
    }
  });

  it('ranks the pre-queue by the committed seed at sale start, then later arrivals in arrival order', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    const start = Date.now() + 3_600_000;
    await q.room.configure(queueConfig(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString(), queueShards: 2 }));
    await q.at(start - 60_000);
    const early = Array.from({ length: 40 }, (_, i) => `early-${i}`);
    for (const id of early) expect(await q.join(id)).toEqual({ pre: true });
    expect(await q.join('early-3')).toEqual({ pre: true });
    expect(await q.poll('early-3')).toEqual({ kind: 'waiting', position: null });
    const before = (await q.room.stats())!;
    expect(before).toMatchObject({ waiting: 40, lottery: { drawn: false, seed: null } });

    await q.tick(start + 1);
    const late = ['late-1', 'late-2'];
    for (const id of late) {
      await q.at(start + 2000 + late.indexOf(id) * 1000);
      expect(isFifo(await q.join(id))).toBe(true);
    }
    const after = (await q.room.stats())!;
    expect(after.lottery!.drawn).toBe(true);
    const seed = after.lottery!.seed!;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(seed));
    expect([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')).toBe(before.lottery!.commitment);

    const expected = [...(await lotteryOrder(seed, early)), ...late];
    const admittedAt = await releaseTicks(q, expected, start + 5000, 3, 4000);
    expect(inversions(expected, admittedAt)).toBe(0);
    expect(expected.slice(0, 40)).not.toEqual(early);
  });

  it('never exceeds max active visitors (released but unclaimed count), and frees slots when admissions expire', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId, { maxActiveVisitors: 5, admissionTtlSeconds: 60 }));
    const t0 = Date.now();
    await q.at(t0);
    const ids = Array.from({ length: 20 }, (_, i) => `v${i}`);
    for (const id of ids) await q.join(id);
    await q.tick(t0 + 5000);
    await q.tick(t0 + 10_000);
    expect((await q.room.stats())!).toMatchObject({ active: 0, pending: 5, waiting: 15 });
    for (const id of ids) await q.poll(id);
    expect((await q.room.stats())!).toMatchObject({ active: 5, pending: 0, waiting: 15 });
    await q.tick(t0 + 15_000);
    expect((await q.room.stats())!).toMatchObject({ active: 5, waiting: 15 });
    await q.tick(t0 + 10_000 + 60_000);
    for (const id of ids.slice(5)) await q.poll(id);
    expect((await q.room.stats())!).toMatchObject({ active: 5, waiting: 10 });
    // v0's admission ended: its next poll puts it at the back.
    expect(await q.poll('v0')).toMatchObject({ kind: 'requeued' });
  });

  it('sends a released visitor who never came back within the idle timeout to the back', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId, { idleTimeoutSeconds: 60, maxActiveVisitors: 10, admissionTtlSeconds: 7200 }));
    const t0 = Date.now();
    await q.at(t0);
    for (const id of ['quiet', 'prompt', 'third']) await q.join(id);
    await q.tick(t0 + 5000); // releases all three
    await q.at(t0 + 20_000);
    expect(await q.poll('prompt')).toMatchObject({ kind: 'admitted' });
    await q.at(t0 + 70_000);
    expect(await q.poll('third')).toMatchObject({ kind: 'requeued' });
    await q.tick(t0 + 80_000);
    expect(await q.poll('quiet')).toMatchObject({ kind: 'requeued' });
    // Back in line after `third`, who re-joined first.
    const places = [q.places.get('third')!, q.places.get('quiet')!] as FifoPlace[];
    expect(comparePlaces(places[0]!, places[1]!)).toBeLessThan(0);
  });

  it('refuses to change the policy or the shard count once visitors joined, and stops its alarm when idle', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId));
    await q.join('someone');
    await q.room.stats();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect(await q.room.configure(queueConfig(eventId, { policy: 'random', saleStartsAt: later }))).toMatchObject({ kind: 'conflict' });
    expect(await q.room.configure(queueConfig(eventId, { queueShards: 2 }))).toMatchObject({ kind: 'conflict' });

    const idle = env.WAITING_ROOM.getByName(freshEventId());
    await idle.configure(queueConfig('idle'));
    expect(await runDurableObjectAlarm(idle)).toBe(true);
    expect(await runDurableObjectAlarm(idle)).toBe(false);
  });

  it('gives the same admission to a retried claim, and a fresh place once the admission ran out (was a 500)', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId, { admissionTtlSeconds: 30 }));
    const t0 = Date.now();
    await q.at(t0);
    await q.join('early');
    await q.tick(t0 + 1000);
    const place = q.places.get('early')!;
    const first = await q.room.admit('early', place);
    expect(await q.room.admit('early', place)).toEqual(first);
    // 31 s later the admission is over but no tick has marked it yet.
    await q.at(t0 + 31_000);
    expect(await q.room.admit('early', place)).toEqual({ kind: 'requeue', reason: 'ended' });
  });

  it('resuming a room that is not paused does not reset its release budget', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId, { releaseRatePerMinute: 60, minReleaseRatePerMinute: 60 }));
    const t0 = Date.now();
    await q.at(t0);
    await q.join('a');
    await q.at(t0 + 1500);
    for (let i = 0; i < 5; i++) await q.room.resume();
    await q.tick(t0 + 1500);
    expect(await q.poll('a')).toMatchObject({ kind: 'admitted' });
  });

  it('admits 1,000 FIFO visitors in arrival order, drop-outs excluded (Kendall tau distance 0)', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    await q.room.configure(queueConfig(eventId, { idleTimeoutSeconds: 30, releaseRatePerMinute: 1200, minReleaseRatePerMinute: 1200 }));
    const t0 = Date.now();
    const ids = Array.from({ length: 1000 }, (_, i) => `v${String(i).padStart(4, '0')}`);
    for (const [i, id] of ids.entries()) {
      if (i % 50 === 0) await q.at(t0 + i * 3);
      await q.join(id);
    }
    // 950 keep polling; 50 (every 20th) never come back, and their places lapse.
    const quiet = new Set(ids.filter((_, i) => i % 20 === 7));
    const active = ids.filter((id) => !quiet.has(id));
    const admittedAt = await releaseTicks(q, active, t0 + 5000, 11);
    const order = (await q.admittedOrder()).filter((id) => admittedAt.has(id));
    expect(order).toHaveLength(950);
    const discordant = inversions(active, admittedAt);
    console.log(`FIFO: 1,000 arrivals, ${quiet.size} drop-outs, Kendall tau distance between arrival and admission order = ${discordant}`);
    expect(discordant).toBe(0);
    expect(order.some((id) => quiet.has(id))).toBe(false);
  });

  it('bases wait estimates on admissions since the sale start only, not on the minutes before it', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    const start = Date.now() + 3_600_000;
    await q.room.configure(
      queueConfig(eventId, {
        policy: 'random',
        saleStartsAt: new Date(start).toISOString(),
        releaseRatePerMinute: 6,
        minReleaseRatePerMinute: 6,
      }),
    );
    // A sample from before the sale start, and 3 admissions since: 3 in 40 s would read as 4.5/min.
    await runInDurableObject(q.room, (_o, state) => {
      state.storage.sql.exec('INSERT INTO wr_samples VALUES (?, 6, 6, 10, NULL, NULL, 0, 0, 0, NULL, NULL, NULL)', start - 30_000);
      state.storage.sql.exec('UPDATE wr_room SET admitted_total = 3');
    });
    await q.at(start + 10_000);
    expect((await q.cursor()).admitPerMinute).toBe(6);
  });

  it('publishes the draw so that anyone can recompute it, and a tampered record fails the check', async () => {
    const eventId = freshEventId();
    const q = new QueueHarness(eventId);
    const start = Date.now() + 3_600_000;
    await q.room.configure(queueConfig(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString(), queueShards: 3 }));
    await q.at(start - 1000);
    for (let i = 0; i < 30; i++) await q.join(`entrant-${i}`);
    const before = (await q.room.drawRecord())!;
    expect(before).toMatchObject({ drawn: false, seed: null, entrants: null });
    await q.tick(start + 1);
    const after = (await q.room.drawRecord())!;
    expect(after.commitment).toBe(before.commitment);
    expect(after.entrants).toHaveLength(30);
    expect(await verifyDraw(after)).toEqual([]);
    const swapped = [...after.entrants!];
    [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
    expect(await verifyDraw({ ...after, entrants: swapped })).toEqual([expect.stringContaining('place 1')]);
    expect(await verifyDraw({ ...after, seed: '00'.repeat(32) })).toContain(
      'the seed does not match the commitment published before the draw',
    );
  });
});

function isFifo(place: Place): place is FifoPlace {
  return !('pre' in place);
}
