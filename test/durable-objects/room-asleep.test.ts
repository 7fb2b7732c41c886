// A WaitingRoom keeps no alarm while nothing can change (paused, closed, sold out,
// before its sale start, nobody in line, every slot taken by visitors who never came back), the
// event that can change it re-arms it, and nobody waiting is lost on the way.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';
import { DEFAULT_CLAIM_SPREAD_MS } from '../../durable-objects/waiting-room/unclaimed-places';
import { STOCK_REFRESH_MS } from '../../durable-objects/waiting-room/alarm-plan';

/** The tick interval of the test environment (vitest.config.ts sets it long, so no alarm fires by itself). */
const TICK_MS = Number(env.RELEASE_TICK_MS);
const armedAt = (q: QueueHarness) => runInDurableObject(q.room, (_o, s) => s.storage.getAlarm());

/** A fresh harness at a whole second, configured with `overrides` (PUT body fields). */
async function room(overrides: Record<string, unknown> = {}): Promise<{ q: QueueHarness; t0: number }> {
  const eventId = freshEventId('asleep');
  const q = new QueueHarness(eventId);
  await q.room.configure(queueConfig(eventId, { maxActiveVisitors: 100, ...overrides }));
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.at(t0);
  return { q, t0 };
}

/** Polls each visitor; returns the ones admitted now. */
async function admitted(q: QueueHarness, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) if ((await q.poll(id)).kind === 'admitted') out.push(id);
  return out;
}

/** Runs the armed alarm at `nowMs` (clocks set there); fails if none is armed. */
async function fireArmed(q: QueueHarness, nowMs: number): Promise<void> {
  await q.at(nowMs);
  expect(await runDurableObjectAlarm(q.room)).toBe(true);
}

describe('a WaitingRoom with nothing to do keeps no alarm', () => {
  it('paused: the tick after the pause leaves no alarm; resume re-arms it and releases everyone who waited', async () => {
    const { q, t0 } = await room();
    const ids = ['p1', 'p2', 'p3'];
    for (const id of ids) await q.join(id);
    expect(await q.room.pause()).toEqual({ kind: 'ok', previous: 'open' });
    await q.tick(t0 + 1_000);
    expect(await armedAt(q)).toBeNull();
    expect(await runDurableObjectAlarm(q.room)).toBe(false);
    // A health report to a paused room changes nothing now: it wakes nobody.
    await q.room.recordHealth({ p99LatencyMs: 100, errorRate: 0, activeBuyers: 0 }, t0 + 1_500);
    expect(await armedAt(q)).toBeNull();
    expect(await admitted(q, ids)).toEqual([]);

    expect(await q.room.resume()).toEqual({ kind: 'ok', previous: 'paused' });
    expect(await armedAt(q)).not.toBeNull();
    await fireArmed(q, t0 + 2_000);
    await q.tick(t0 + 3_000);
    expect(await admitted(q, ids)).toEqual(ids);
  });

  it('closed: no alarm after the tick; reopening re-arms it', async () => {
    const { q, t0 } = await room();
    await q.join('c1');
    await q.room.close();
    await q.tick(t0 + 1_000);
    expect(await armedAt(q)).toBeNull();
    await q.room.resume();
    expect(await armedAt(q)).not.toBeNull();
  });

  it('sold out: no alarm after the tick; seats back on sale re-arm it and the visitor is released', async () => {
    const { q, t0 } = await room();
    await q.join('s1');
    await q.room.setSoldOut(true);
    await q.tick(t0 + 1_000);
    expect(await armedAt(q)).toBeNull();
    await q.room.setSoldOut(false);
    expect(await armedAt(q)).not.toBeNull();
    await fireArmed(q, t0 + 2_000);
    expect(await admitted(q, ['s1'])).toEqual(['s1']);
  });

  it('before the sale start: a join earns one tick, then the alarm waits for the sale start, which releases the line', async () => {
    const saleStartsAtMs = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
    const { q, t0 } = await room({ saleStartsAt: new Date(saleStartsAtMs).toISOString() });
    const ids = ['b1', 'b2'];
    for (const id of ids) await q.join(id);
    // The join's wake: one tick to count the arrival (positions need the counts).
    const wake = await armedAt(q);
    expect(wake).not.toBeNull();
    await fireArmed(q, t0 + 1_000);
    expect(await armedAt(q)).toBe(saleStartsAtMs);
    // Health reports before the sale wake nobody either.
    await q.room.recordHealth({ p99LatencyMs: 100, errorRate: 0, activeBuyers: 0 }, t0 + 2_000);
    expect(await armedAt(q)).toBe(saleStartsAtMs);
    expect(await admitted(q, ids)).toEqual([]);
    await fireArmed(q, saleStartsAtMs);
    expect(await admitted(q, ids)).toEqual(ids);
  });

  it('nobody in line: no alarm, however many visitors are active; the next join re-arms it', async () => {
    const { q, t0 } = await room();
    await q.join('n1');
    await q.tick(t0 + 1_000);
    expect(await admitted(q, ['n1'])).toEqual(['n1']);
    await q.tick(t0 + 2_000);
    expect(await armedAt(q)).toBeNull();
    await q.at(t0 + 3_000);
    await q.join('n2');
    expect(await armedAt(q)).not.toBeNull();
  });

  it('every slot taken while the page shows the stock: wakes every STOCK_REFRESH_MS to read the seats left', async () => {
    const { q, t0 } = await room({ maxActiveVisitors: 1, admissionTtlSeconds: 7_200 });
    for (const id of ['s1', 's2']) await q.join(id);
    await q.tick(t0 + 1_000);
    expect(await admitted(q, ['s1'])).toEqual(['s1']);
    await q.tick(t0 + 2_000);
    // s1 holds the only slot for 2 h and s2 waits: the room still wakes within the refresh.
    expect(await armedAt(q)).toBe(t0 + 2_000 + STOCK_REFRESH_MS);
    await fireArmed(q, t0 + 2_000 + STOCK_REFRESH_MS);
    expect(await armedAt(q)).toBe(t0 + 2_000 + 2 * STOCK_REFRESH_MS);
  });

  it('every slot taken by released visitors who never came back: sleeps until they are expected no more, then releases the next', async () => {
    // Two slots, a 30 s idle timeout, five in line; the first two are released and never claim.
    // No stock on the page, so nothing but a slot wakes the room (the next test has the stock).
    const { q, t0 } = await room({
      maxActiveVisitors: 2,
      idleTimeoutSeconds: 30,
      admissionTtlSeconds: 7_200,
      page: { showStock: false },
    });
    const ids = ['g1', 'g2', 'g3', 'g4', 'g5'];
    for (const id of ids) await q.join(id);
    await q.tick(t0 + 1_000);
    await q.tick(t0 + 2_000);
    // Released at t0 + 1 s with no claim measured yet: expected for one longest poll
    // (DEFAULT_CLAIM_SPREAD_MS, 18 s; claimable through t0 + 31 s), so the slots free 1 ms after it.
    const free = t0 + 1_000 + DEFAULT_CLAIM_SPREAD_MS + 1;
    expect(await armedAt(q)).toBe(free);
    await fireArmed(q, free);
    expect(await admitted(q, ['g3', 'g4', 'g5'])).toEqual(['g3', 'g4']);
    // g3 and g4 hold both slots now; g4 leaving frees one, which re-arms the sleeping room at once.
    await q.tick(free + 1_000);
    // Admitted just after `free` for 2 h: the admission ends on the whole second (contracts/queue/lifetimes.ts).
    expect(await armedAt(q)).toBe(Math.floor(free / 1000) * 1000 + 7_200_000);
    await q.at(free + 2_000);
    expect(await q.room.leave('g4')).toBe(true);
    expect(await armedAt(q)).toBe(free + 2_000 + TICK_MS);
    await fireArmed(q, free + 3_000);
    expect(await admitted(q, ['g5'])).toEqual(['g5']);
    // The first two never lost their place: one coming back within the idle timeout waits for a
    // free slot with its place kept (such late claims were let in past
    // the max) and gets the next one; one coming back after it is sent to the back.
    expect(await q.poll('g1')).toEqual({ kind: 'waiting', position: null });
    expect(await q.room.leave('g3')).toBe(true);
    expect((await q.poll('g1')).kind).toBe('admitted');
    await q.at(t0 + 1_000 + 30_000 + 1);
    expect((await q.poll('g2')).kind).toBe('requeued');
  });
});
