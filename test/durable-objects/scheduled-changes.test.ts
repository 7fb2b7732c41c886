// Scheduled changes in the WaitingRoom: stored, applied at their start and ended at their end by
// the room's own alarm (no request), each start and end written to the rate log with its reason,
// and the release rate kept inside the bounds in effect.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { OverrideInput } from '../../contracts/schedule';
import type { RoomStats } from '../../durable-objects/waiting-room/room-types';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

const MIN = 60_000;
const armedAt = (q: QueueHarness) => runInDurableObject(q.room, (_o, s) => s.storage.getAlarm());
const iso = (ms: number) => new Date(ms).toISOString();
const stats = async (q: QueueHarness) => (await q.room.stats()) as RoomStats;

async function room(overrides: Record<string, unknown> = {}): Promise<{ q: QueueHarness; t0: number }> {
  const eventId = freshEventId('sched');
  const q = new QueueHarness(eventId);
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.room.configure(
    queueConfig(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 60, maxActiveVisitors: 100, ...overrides }),
  );
  await q.at(t0);
  return { q, t0 };
}

/** Fires the armed alarm at its own time (clocks set there); fails if none is armed. Returns that time. */
async function fireArmed(q: QueueHarness): Promise<number> {
  const at = await armedAt(q);
  if (at === null) throw new Error('no alarm armed');
  await q.at(at);
  expect(await runDurableObjectAlarm(q.room)).toBe(true);
  return at;
}

describe('scheduled changes', () => {
  it('a change starts and ends at its times by the alarm alone, logged with its reason both times', async () => {
    const { q, t0 } = await room();
    await q.tick(t0 + 1000); // the configure's tick: the room then sleeps (nobody waiting)
    expect(await armedAt(q)).toBeNull();
    const body: OverrideInput = {
      reason: 'doors open late',
      startsAt: iso(t0 + 10 * MIN),
      endsAt: iso(t0 + 20 * MIN),
      maxActiveVisitors: 5,
      page: { message: 'Late doors tonight' },
    };
    const answer = await q.room.scheduleOverride('late-doors', body);
    expect(answer).toMatchObject({ kind: 'ok', created: true, override: { id: 'late-doors', state: 'scheduled' } });
    // The same change again is answered as stored, and stores nothing new.
    expect(await q.room.scheduleOverride('late-doors', body)).toMatchObject({ kind: 'ok', created: false });

    // Not on yet: the waiting page and the active limit are the event's own.
    expect((await q.cursor()).page.message).toBeUndefined();
    expect((await stats(q)).activeLimit).toBe(100);
    expect(await armedAt(q)).toBe(t0 + 10 * MIN);

    expect(await fireArmed(q)).toBe(t0 + 10 * MIN);
    expect((await q.cursor()).page.message).toBe('Late doors tonight');
    const during = await stats(q);
    expect(during.activeLimit).toBe(5);
    expect(during.binding.maxActiveVisitors).toBe(5);
    // The organizer's own settings are unchanged: the change is on top of them.
    expect(during.config.maxActiveVisitors).toBe(100);
    expect(during.schedule?.map((o) => o.state)).toEqual(['active']);
    expect(during.rateLog.map((l) => l.reason)).toContain('scheduled change "late-doors" started: doors open late (max active 5, page)');
    expect(await armedAt(q)).toBe(t0 + 20 * MIN);

    expect(await fireArmed(q)).toBe(t0 + 20 * MIN);
    const after = await stats(q);
    expect((await q.cursor()).page.message).toBeUndefined();
    // The organizer's maximum is back; the controller's own limit, cut to 5 meanwhile, grows again
    // by its law (release-controller.ts) as health reports come, never by the schedule's end alone.
    expect(after.binding.maxActiveVisitors).toBe(100);
    expect(after.activeLimit).toBe(5);
    expect(after.schedule?.map((o) => o.state)).toEqual(['ended']);
    expect(after.rateLog.map((l) => l.reason)).toContain('scheduled change "late-doors" ended: doors open late (max active 5, page)');
    expect(await armedAt(q)).toBeNull();
  });

  it('a lower maximum brings the release rate down at its start, logged; the rate may climb again after its end', async () => {
    const { q, t0 } = await room({ releaseRatePerMinute: 600, minReleaseRatePerMinute: 600 });
    expect((await stats(q)).releaseRatePerMinute).toBe(600);
    await q.room.scheduleOverride('slow', {
      reason: 'payment provider maintenance',
      startsAt: iso(t0 + MIN),
      endsAt: iso(t0 + 2 * MIN),
      releaseRatePerMinute: 120,
    });
    // The start comes before the configure's tick (an hour in tests): the alarm moved to it.
    expect(await fireArmed(q)).toBe(t0 + MIN);
    const during = await stats(q);
    expect(during.releaseRatePerMinute).toBe(120);
    expect(during.rateLog.slice(0, 2).map((l) => [l.rate, l.reason])).toEqual([
      [120, 'by the schedule, organizer bounds changed: 120-120/min'],
      [120, 'scheduled change "slow" started: payment provider maintenance (max 120/min)'],
    ]);
    expect(await fireArmed(q)).toBe(t0 + 2 * MIN);
    // The minimum (600) is back in effect: the rate returns inside it.
    expect((await stats(q)).releaseRatePerMinute).toBe(600);
  });

  it('a change with no start begins at once; cancelling it while on ends it at once, logged as an early end; an ended change cannot be cancelled', async () => {
    const { q, t0 } = await room();
    const answer = await q.room.scheduleOverride('now', { reason: 'hot sale', endsAt: iso(t0 + 30 * MIN), admissionTtlSeconds: 120 });
    expect(answer).toMatchObject({ kind: 'ok', override: { startsAtMs: t0, state: 'active' } });
    expect((await stats(q)).rateLog[0]?.reason).toContain('scheduled change "now" started: hot sale (admission 120 s)');
    await q.at(t0 + 5 * MIN);
    expect(await q.room.cancelOverride('now')).toMatchObject({
      kind: 'ok',
      removed: false,
      override: { state: 'ended', endsAtMs: t0 + 5 * MIN },
    });
    expect((await stats(q)).rateLog[0]?.reason).toContain('scheduled change "now" ended early (cancelled): hot sale');
    expect(await q.room.cancelOverride('now')).toMatchObject({ kind: 'conflict' });
    expect(await q.room.cancelOverride('nope')).toEqual({ kind: 'override_not_found' });
  });

  it('an ended change is kept as long as the history (30 days), then forgotten when a later one ends', async () => {
    const { q, t0 } = await room();
    const DAY = 24 * 60 * MIN;
    await q.room.scheduleOverride('old', { reason: 'r', endsAt: iso(t0 + MIN), maxActiveVisitors: 50 });
    await q.tick(t0 + MIN);
    await q.at(t0 + 29 * DAY);
    await q.room.scheduleOverride('mid', { reason: 'r', endsAt: iso(t0 + 29 * DAY + MIN), maxActiveVisitors: 50 });
    await q.tick(t0 + 29 * DAY + MIN);
    expect((await q.room.overrides())?.map((o) => o.id)).toEqual(['old', 'mid']);
    await q.at(t0 + 31 * DAY);
    await q.room.scheduleOverride('new', { reason: 'r', endsAt: iso(t0 + 31 * DAY + MIN), maxActiveVisitors: 50 });
    await q.tick(t0 + 31 * DAY + MIN);
    expect((await q.room.overrides())?.map((o) => [o.id, o.state])).toEqual([
      ['mid', 'ended'],
      ['new', 'ended'],
    ]);
  });

  it('a lower maximum holds an operator’s fixed rate down while on, and the fixed rate is back after it', async () => {
    const { q, t0 } = await room({ releaseRatePerMinute: 100, minReleaseRatePerMinute: 6 });
    expect(await q.room.setFixedRate(30)).toMatchObject({ kind: 'ok' });
    await q.room.scheduleOverride('cap', { reason: 'cap', startsAt: iso(t0 + 2000), endsAt: iso(t0 + 7000), releaseRatePerMinute: 12 });
    await q.tick(t0 + 2000);
    const during = await stats(q);
    expect([during.fixedRatePerMinute, during.releaseRatePerMinute]).toEqual([30, 12]);
    await q.tick(t0 + 7000);
    const after = await stats(q);
    expect([after.fixedRatePerMinute, after.releaseRatePerMinute]).toEqual([30, 30]);
    expect(after.rateLog.map((l) => l.reason)).toEqual(
      expect.arrayContaining([
        'by the schedule, fixed rate of 30/min held to the maximum in effect of 12/min',
        'by the schedule, fixed rate of 30/min in effect again',
      ]),
    );
  });

  it('a change not started yet is removed by a cancel and never applied', async () => {
    const { q, t0 } = await room();
    await q.room.scheduleOverride('later', { reason: 'r', startsAt: iso(t0 + MIN), endsAt: iso(t0 + 2 * MIN), maxActiveVisitors: 1 });
    expect(await q.room.cancelOverride('later')).toMatchObject({
      kind: 'ok',
      removed: true,
      override: { id: 'later', state: 'scheduled' },
    });
    expect(await q.room.overrides()).toEqual([]);
  });

  it('refuses an overlap on the same field, a start in the past and a reused id, changing nothing', async () => {
    const { q, t0 } = await room();
    await q.room.scheduleOverride('a', { reason: 'r', startsAt: iso(t0 + MIN), endsAt: iso(t0 + 10 * MIN), releaseRatePerMinute: 300 });
    const before = await q.room.overrides();
    const armed = await armedAt(q);
    expect(
      await q.room.scheduleOverride('b', {
        reason: 'r',
        startsAt: iso(t0 + 5 * MIN),
        endsAt: iso(t0 + 15 * MIN),
        releaseRatePerMinute: 200,
      }),
    ).toMatchObject({
      kind: 'conflict',
      detail: expect.stringContaining('overlaps the scheduled change "a"'),
    });
    expect(
      await q.room.scheduleOverride('c', { reason: 'r', startsAt: iso(t0 - 1), endsAt: iso(t0 + MIN), maxActiveVisitors: 2 }),
    ).toMatchObject({ kind: 'invalid' });
    expect(
      await q.room.scheduleOverride('a', {
        reason: 'other',
        startsAt: iso(t0 + MIN),
        endsAt: iso(t0 + 10 * MIN),
        releaseRatePerMinute: 300,
      }),
    ).toMatchObject({ kind: 'conflict' });
    expect(await q.room.overrides()).toEqual(before);
    expect(await armedAt(q)).toBe(armed);
  });
});
