// The `passthrough` and `reject` queueing methods in the WaitingRoom: who passes straight through,
// when the room queues instead, what happens to visitors already in line when passthrough starts,
// and that a maintenance window takes no place and keeps every place.
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { RoomStats } from '../../durable-objects/waiting-room/room-types';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const stats = async (q: QueueHarness) => (await q.room.stats()) as RoomStats;

async function room(overrides: Record<string, unknown> = {}): Promise<{ q: QueueHarness; t0: number }> {
  const eventId = freshEventId('method');
  const q = new QueueHarness(eventId);
  await q.room.configure(
    queueConfig(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 60, maxActiveVisitors: 2, ...overrides }),
  );
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.at(t0);
  return { q, t0 };
}

describe('passthrough', () => {
  it('admits newcomers at once, counted as active and admitted, until the room is full; then it queues them', async () => {
    const { q } = await room({ method: 'passthrough' });
    expect(await q.room.passThrough('p1')).toMatchObject({ kind: 'admitted' });
    expect(await q.room.passThrough('p2')).toMatchObject({ kind: 'admitted' });
    const s = await stats(q);
    expect([s.active, s.admittedTotal]).toEqual([2, 2]);
    expect(await q.room.passThrough('p3')).toEqual({ kind: 'queue', reason: 'full' });
    // The admission is an ordinary one: the session check knows it.
    const row = await runInDurableObject(q.room, (_o, st) =>
      st.storage.sql.exec<{ place: string }>(`SELECT place FROM wr_admissions WHERE visitor_id = 'p1'`).one(),
    );
    expect(row.place).toBe('pre');
  });

  it('a switch to passthrough while people wait: newcomers join the back, and the line is released in order at the maximum rate', async () => {
    // 20 a minute: the tick that counts w1 (a second after the last) releases nobody yet.
    const { q, t0 } = await room({ maxActiveVisitors: 100, releaseRatePerMinute: 20, minReleaseRatePerMinute: 1 });
    await q.join('w1');
    await q.tick(t0 + 1000);
    expect((await stats(q)).waiting).toBe(1);
    await q.room.scheduleOverride('count-only', { reason: 'quiet hour', endsAt: iso(t0 + 60 * MIN), method: 'passthrough' });
    const s = await stats(q);
    // The minimum is raised to the maximum while passthrough is on: the line drains at the maximum.
    expect([s.inEffect?.minReleaseRatePerMinute, s.releaseRatePerMinute]).toEqual([20, 20]);
    expect(s.rateLog.map((l) => l.reason)).toContain('scheduled change "count-only" started: quiet hour (method passthrough)');
    expect(await q.room.passThrough('n1')).toEqual({ kind: 'queue', reason: 'people_waiting' });
    await q.tick(t0 + 6000);
    expect((await q.poll('w1')).kind).toBe('admitted');
    expect(await q.room.passThrough('n1')).toMatchObject({ kind: 'admitted' });
  });

  it('cannot be scheduled on a lottery event (its pre-queue is drawn, not passed)', async () => {
    const { q, t0 } = await room({ policy: 'random', saleStartsAt: iso(Date.now() + 3_600_000) });
    expect(await q.room.scheduleOverride('x', { reason: 'r', endsAt: iso(t0 + MIN), method: 'passthrough' })).toMatchObject({
      kind: 'invalid',
    });
  });
});

describe('reject', () => {
  it('stops releases while on and keeps every place; they are released after it ends', async () => {
    const { q, t0 } = await room({ maxActiveVisitors: 100 });
    for (const v of ['r1', 'r2']) await q.join(v);
    await q.room.scheduleOverride('down', { reason: 'maintenance', endsAt: iso(t0 + 10 * MIN), method: 'reject' });
    await q.tick(t0 + 1000);
    expect((await q.cursor()).method).toBe('reject');
    const during = await stats(q);
    expect([during.mode, during.admittedTotal]).toEqual(['paused', 0]);
    expect(await q.room.passThrough('x')).toEqual({ kind: 'queue', reason: 'not_passthrough' });
    await q.tick(t0 + 10 * MIN);
    await q.tick(t0 + 10 * MIN + 1000);
    expect((await q.poll('r1')).kind).toBe('admitted');
    expect((await q.poll('r2')).kind).toBe('admitted');
  });

  it('is not the organizer pause: a pause during the window stays after it', async () => {
    const { q, t0 } = await room();
    await q.room.scheduleOverride('down', { reason: 'maintenance', endsAt: iso(t0 + 10 * MIN), method: 'reject' });
    expect(await q.room.pause()).toMatchObject({ kind: 'ok', previous: 'open' });
    await q.tick(t0 + 10 * MIN);
    expect((await stats(q)).mode).toBe('paused');
  });

  it('stops the lapse clock: a place released just before a window longer than the idle timeout is claimable after it', async () => {
    const { q, t0 } = await room({ maxActiveVisitors: 100, idleTimeoutSeconds: 60 });
    await q.join('just-before');
    await q.tick(t0 + 1000);
    expect((await stats(q)).pending).toBe(1);
    // 20 minutes behind the maintenance page, ticking: past the idle timeout and the records' keep time.
    const end = t0 + 2000 + 20 * MIN;
    await q.room.scheduleOverride('down', { reason: 'maintenance', startsAt: iso(t0 + 2000), endsAt: iso(end), method: 'reject' });
    for (let t = t0 + 2000; t < end; t += 2 * MIN) await q.tick(t);
    await q.tick(end);
    await q.tick(end + 30_000);
    expect((await q.poll('just-before')).kind).toBe('admitted');
  });

  it('a place left unclaimed after the window lapses after the rest of its idle timeout', async () => {
    const { q, t0 } = await room({ maxActiveVisitors: 100, idleTimeoutSeconds: 60 });
    await q.join('gone');
    await q.tick(t0 + 1000);
    const end = t0 + 31_000 + 10 * MIN;
    await q.room.scheduleOverride('down', { reason: 'maintenance', startsAt: iso(t0 + 31_000), endsAt: iso(end), method: 'reject' });
    await q.tick(t0 + 31_000);
    await q.tick(end);
    // 30 s of its 60 s were spent before the window: it lapses 30 s after it.
    await q.tick(end + 31_000);
    expect((await q.poll('gone')).kind).toBe('requeued');
  });
});
