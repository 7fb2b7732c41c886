// WaitingRoom adapter inside workerd: FIFO order, lottery draw at sale start, limits, drop-outs.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { lotteryOrder, verifyDraw } from '../../durable-objects/waiting-room/queue-policy';
import { splitConfig, eventConfigInput } from '../../src/lib/event-config';
import { freshEventId } from '../helpers/client';

function queueConfig(eventId: string, overrides: Record<string, unknown> = {}) {
  const input = eventConfigInput.parse({
    releaseRatePerMinute: 600,
    minReleaseRatePerMinute: 600,
    maxActiveVisitors: 10_000,
    seats: 10,
    ...overrides,
  });
  return splitConfig(eventId, input).queue;
}

/** Sets the room's clock (epoch ms) and fires one release tick as the runtime would. */
async function tickAt(room: DurableObjectStub<WaitingRoom>, nowMs: number): Promise<void> {
  await runInDurableObject(room, async (obj: WaitingRoom, state) => {
    obj.clock = () => nowMs;
    await state.storage.setAlarm(Date.now() + 60_000);
  });
  if (!(await runDurableObjectAlarm(room))) throw new Error('the release tick did not run');
}

async function admittedOrder(room: DurableObjectStub<WaitingRoom>): Promise<string[]> {
  return runInDurableObject(room, (_obj, state) =>
    state.storage.sql
      .exec<{ visitor_id: string }>(`SELECT visitor_id FROM wr_visitors WHERE state = 'admitted' ORDER BY admitted_at, rank`)
      .toArray()
      .map((r) => r.visitor_id),
  );
}

describe('WaitingRoom', () => {
  it('admits 300 FIFO visitors in exact arrival order (Kendall tau distance 0)', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId));
    const t0 = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0));
    const arrivals = Array.from({ length: 300 }, (_, i) => `v${String(i).padStart(4, '0')}-${crypto.randomUUID().slice(0, 4)}`);
    for (const id of arrivals) await room.join(id);
    // 600/min = 50 per 5 s tick.
    for (let i = 1; i <= 6; i++) await tickAt(room, t0 + i * 5000);
    const order = await admittedOrder(room);
    expect(order).toEqual(arrivals);
  });

  it('ranks the pre-queue by the committed seed at sale start, then later arrivals in arrival order', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    const start = Date.now() + 3_600_000;
    await room.configure(queueConfig(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString() }));
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => start - 60_000));
    const early = Array.from({ length: 40 }, (_, i) => `early-${i}`);
    for (const id of early) {
      const s = await room.join(id);
      expect(s).toMatchObject({ kind: 'status', state: 'not_open', position: null });
    }
    expect(await room.join('early-3')).toMatchObject({ position: null });
    const before = (await room.stats())!;
    expect(before.lottery).toMatchObject({ drawn: false, seed: null });

    await tickAt(room, start + 1);
    const late = ['late-1', 'late-2'];
    for (const id of late) await room.join(id);
    const after = (await room.stats())!;
    expect(after.lottery!.drawn).toBe(true);
    const seed = after.lottery!.seed!;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(seed));
    expect([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')).toBe(before.lottery!.commitment);

    const expected = [...(await lotteryOrder(seed, early)), ...late];
    const ranks = await runInDurableObject(room, (_obj, state) =>
      state.storage.sql
        .exec<{ visitor_id: string }>('SELECT visitor_id FROM wr_visitors ORDER BY rank')
        .toArray()
        .map((r) => r.visitor_id),
    );
    // Admitted visitors left the waiting list; ranks keep the whole order.
    expect(ranks).toEqual(expected);
    expect(expected.slice(0, 40)).not.toEqual(early);
  });

  it('never exceeds max active visitors, and frees slots when admissions expire', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { maxActiveVisitors: 5, admissionTtlSeconds: 60 }));
    const t0 = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0));
    for (let i = 0; i < 20; i++) await room.join(`v${i}`);
    await tickAt(room, t0 + 5000);
    await tickAt(room, t0 + 10_000);
    expect((await room.stats())!).toMatchObject({ active: 5, waiting: 15 });
    await tickAt(room, t0 + 5000 + 60_000);
    expect((await room.stats())!).toMatchObject({ active: 5, waiting: 10 });
    expect(await room.status('v0')).toEqual({ kind: 'unknown_visitor' });
  });

  it('drops visitors who stop polling, and a returning one joins at the back', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { idleTimeoutSeconds: 60, maxActiveVisitors: 1, admissionTtlSeconds: 7200 }));
    const t0 = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0));
    for (const id of ['head', 'quiet', 'polling']) await room.join(id);
    await tickAt(room, t0 + 5000); // admits `head`, the only slot
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0 + 40_000));
    await room.status('polling');
    await tickAt(room, t0 + 70_000);
    expect(await room.status('quiet')).toEqual({ kind: 'unknown_visitor' });
    expect(await room.status('polling')).toMatchObject({ position: 1 });
    expect(await room.join('quiet')).toMatchObject({ position: 2 });
  });

  it('refuses to change the policy once visitors joined, and stops its alarm when idle', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId));
    await room.join('someone');
    expect(await room.configure(queueConfig(eventId, { policy: 'random' }))).toMatchObject({ kind: 'conflict' });

    const idle = env.WAITING_ROOM.getByName(freshEventId());
    await idle.configure(queueConfig('idle'));
    expect(await runDurableObjectAlarm(idle)).toBe(false);
  });

  it('lets a visitor whose admission ran out join again at once, before any tick ran (was a 500)', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { admissionTtlSeconds: 30 }));
    const t0 = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0));
    await room.join('early');
    await room.join('next');
    await tickAt(room, t0 + 1000);
    // 31 s later the admission is over but no tick has marked it yet.
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0 + 31_000));
    expect(await room.status('early')).toEqual({ kind: 'unknown_visitor' });
    expect(await room.join('early')).toMatchObject({ kind: 'status', state: 'waiting' });
  });

  it('never drops a visitor who polls at the interval it is told, even with the shortest idle timeout', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { idleTimeoutSeconds: 30, maxActiveVisitors: 1, admissionTtlSeconds: 7200 }));
    let now = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => now));
    await room.join('head');
    await room.join('poller');
    await tickAt(room, now + 1000); // `head` takes the only slot; `poller` waits
    for (let i = 0; i < 20; i++) {
      const s = await room.status('poller');
      expect(s).toMatchObject({ kind: 'status', position: 1 });
      now += (s as { pollAfterMs: number }).pollAfterMs * 1.2;
      await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => now));
      await tickAt(room, now);
    }
  });

  it('resuming a room that is not paused does not reset its release budget', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { releaseRatePerMinute: 60, minReleaseRatePerMinute: 60 }));
    const t0 = Date.now();
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0));
    await room.join('a');
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0 + 1500));
    for (let i = 0; i < 5; i++) await room.resume();
    await tickAt(room, t0 + 1500);
    expect(await room.status('a')).toMatchObject({ state: 'admitted' });
  });

  it('admits 1,000 FIFO visitors in arrival order, drop-outs excluded (Kendall tau distance 0)', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.configure(queueConfig(eventId, { idleTimeoutSeconds: 30, releaseRatePerMinute: 1200, minReleaseRatePerMinute: 1200 }));
    const t0 = Date.now();
    const ids = Array.from({ length: 1000 }, (_, i) => `v${String(i).padStart(4, '0')}`);
    for (const [i, id] of ids.entries()) {
      await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0 + i));
      await room.join(id);
    }
    // 950 keep polling; 50 (every 20th) stop and drop out after the idle timeout.
    const quiet = new Set(ids.filter((_, i) => i % 20 === 7));
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => t0 + 20_000));
    for (const id of ids) if (!quiet.has(id)) await room.status(id);
    await tickAt(room, t0 + 40_000);
    await room.configure(queueConfig(eventId, { idleTimeoutSeconds: 3600, releaseRatePerMinute: 1200, minReleaseRatePerMinute: 1200 }));
    for (let k = 1; k <= 12; k++) await tickAt(room, t0 + 40_000 + k * 5000);
    const admitted = await admittedOrder(room);
    const expected = ids.filter((id) => !quiet.has(id));
    expect(admitted).toHaveLength(950);
    let discordant = 0;
    const pos = new Map(admitted.map((id, i) => [id, i]));
    for (let a = 0; a < expected.length; a++)
      for (let b = a + 1; b < expected.length; b++) if (pos.get(expected[a]!)! > pos.get(expected[b]!)!) discordant++;
    console.log(`FIFO: 1,000 arrivals, ${quiet.size} drop-outs, Kendall tau distance between arrival and admission order = ${discordant}`);
    expect(discordant).toBe(0);
    expect(admitted.some((id) => quiet.has(id))).toBe(false);
  }, 60_000);

  it('publishes the draw so that anyone can recompute it, and a tampered record fails the check', async () => {
    const eventId = freshEventId();
    const room = env.WAITING_ROOM.getByName(eventId);
    const start = Date.now() + 3_600_000;
    await room.configure(queueConfig(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString() }));
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => start - 1000));
    for (let i = 0; i < 30; i++) await room.join(`entrant-${i}`);
    const before = (await room.drawRecord())!;
    expect(before).toMatchObject({ drawn: false, seed: null, entrants: null });
    await tickAt(room, start + 1);
    const after = (await room.drawRecord())!;
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
