// A sale day at the RPC level with an injected clock: pre-queue, sale start, two scheduled changes
// that overlap on different settings, a maintenance hour (the `reject` method) and the close. The
// room runs on its own alarm alone between the organizer's calls, and its state is checked at each
// boundary.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { RoomStats } from '../../durable-objects/waiting-room/room-types';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const armedAt = (q: QueueHarness) => runInDurableObject(q.room, (_o, s) => s.storage.getAlarm());
const stats = async (q: QueueHarness) => (await q.room.stats()) as RoomStats;

/** Fires the armed alarm at its own time (every clock set there) and returns that time. */
async function fireArmed(q: QueueHarness): Promise<number> {
  const at = await armedAt(q);
  if (at === null) throw new Error('no alarm armed');
  await q.at(at);
  expect(await runDurableObjectAlarm(q.room)).toBe(true);
  return at;
}

/**
 * Fires armed alarms until the next one is at or after `untilMs` (the release ticks between
 * boundaries, and the stock refresh every STOCK_REFRESH_MS while the line waits for a slot).
 */
async function runUntil(q: QueueHarness, untilMs: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const at = await armedAt(q);
    if (at === null || at >= untilMs) return;
    await fireArmed(q);
  }
  throw new Error('the room kept ticking');
}

describe('a scripted sale day', () => {
  it('pre-queue, sale start, two changes, a maintenance hour and the close, each applied by the alarm at its time', async () => {
    const eventId = freshEventId('day');
    const q = new QueueHarness(eventId);
    const t0 = Math.floor(Date.now() / MIN) * MIN + MIN;
    const start = t0 + 30 * MIN;
    await q.room.configure(
      queueConfig(eventId, {
        saleStartsAt: iso(start),
        releaseRatePerMinute: 600,
        minReleaseRatePerMinute: 600,
        maxActiveVisitors: 100,
        admissionTtlSeconds: 7200,
      }),
    );
    await q.at(t0);
    for (const [id, body] of [
      ['second-wave', { reason: 'second wave', startsAt: iso(t0 + 45 * MIN), endsAt: iso(t0 + 75 * MIN), releaseRatePerMinute: 1200 }],
      [
        'small-room',
        {
          reason: 'checkout slow',
          startsAt: iso(t0 + 50 * MIN),
          endsAt: iso(t0 + 70 * MIN),
          maxActiveVisitors: 2,
          page: { message: 'Checkout is slow' },
        },
      ],
      [
        'maintenance',
        {
          reason: 'payment provider upgrade',
          startsAt: iso(t0 + 120 * MIN),
          endsAt: iso(t0 + 180 * MIN),
          method: 'reject',
          page: { message: 'Back at noon' },
        },
      ],
    ] as const) {
      expect(await q.room.scheduleOverride(id, body)).toMatchObject({ kind: 'ok', created: true });
    }

    // Pre-queue: visitors arrive before the sale start and wait; the room sleeps until the start.
    for (const v of ['a', 'b', 'c']) await q.join(v);
    // The joins' tick counts them (tests tick once an hour unless fired: RELEASE_TICK_MS).
    await q.tick(t0 + 1000);
    expect(await armedAt(q)).toBe(start);
    expect((await q.poll('a')).kind).toBe('waiting');

    // Sale start: the pre-queue is released in arrival order.
    expect(await fireArmed(q)).toBe(start);
    await q.tick(start + 1000);
    expect(await q.poll('a')).toMatchObject({ kind: 'admitted' });
    expect(await q.poll('b')).toMatchObject({ kind: 'admitted' });
    const open = await stats(q);
    expect(open.inEffect?.maxReleaseRatePerMinute).toBe(600);
    // Nobody waits: the room sleeps until the next scheduled change.
    await runUntil(q, t0 + 45 * MIN);
    expect(await armedAt(q)).toBe(t0 + 45 * MIN);

    // 10:15-like boundary: the second wave's maximum is in effect, logged with its reason.
    expect(await fireArmed(q)).toBe(t0 + 45 * MIN);
    const wave = await stats(q);
    expect(wave.inEffect?.maxReleaseRatePerMinute).toBe(1200);
    expect(wave.rateLog.map((l) => l.reason)).toContain('scheduled change "second-wave" started: second wave (max 1200/min)');

    // Overlapping change of another setting: the active limit and the page change, the maximum stays.
    await runUntil(q, t0 + 50 * MIN);
    expect(await fireArmed(q)).toBe(t0 + 50 * MIN);
    const small = await stats(q);
    expect([small.inEffect?.maxActiveVisitors, small.inEffect?.maxReleaseRatePerMinute, small.activeLimit]).toEqual([2, 1200, 2]);
    expect((await q.cursor()).page.message).toBe('Checkout is slow');
    await q.join('d');
    await q.tick(t0 + 51 * MIN);
    // Two active visitors (admissions last two hours) fill both slots: d waits.
    expect((await q.poll('d')).kind).toBe('waiting');

    await runUntil(q, t0 + 70 * MIN);
    expect(await fireArmed(q)).toBe(t0 + 70 * MIN);
    expect((await stats(q)).inEffect?.maxActiveVisitors).toBe(100);
    expect((await q.cursor()).page.message).toBeUndefined();
    await runUntil(q, t0 + 75 * MIN);
    expect(await fireArmed(q)).toBe(t0 + 75 * MIN);
    expect((await stats(q)).inEffect?.maxReleaseRatePerMinute).toBe(600);

    // The maintenance hour: the method is `reject` until its end, releases stop, places are kept.
    await q.join('e');
    await q.tick(t0 + 119 * MIN);
    await runUntil(q, t0 + 120 * MIN);
    expect(await fireArmed(q)).toBe(t0 + 120 * MIN);
    const cursor = await q.cursor();
    expect([cursor.method, cursor.methodEndsAtMs, cursor.page.message]).toEqual(['reject', t0 + 180 * MIN, 'Back at noon']);
    const down = await stats(q);
    const waitingBefore = down.waiting;
    expect(down.mode).toBe('paused');
    // The room sleeps through the hour (nothing is released) and wakes at its end.
    expect(await armedAt(q)).toBe(t0 + 180 * MIN);
    expect((await stats(q)).waiting).toBe(waitingBefore);

    expect(await fireArmed(q)).toBe(t0 + 180 * MIN);
    const back = await q.cursor();
    expect([back.method, back.methodEndsAtMs, back.mode]).toEqual(['queue', null, 'open']);
    await q.tick(t0 + 181 * MIN);
    expect(await q.poll('e')).toMatchObject({ kind: 'admitted' });

    // The close: releases stop for good, and the room keeps no alarm.
    await q.at(t0 + 240 * MIN);
    expect(await q.room.close()).toMatchObject({ kind: 'ok', previous: 'open' });
    await q.tick(t0 + 240 * MIN + 1000);
    const closed = await stats(q);
    expect(closed.mode).toBe('closed');
    expect(closed.schedule?.map((o) => [o.id, o.state])).toEqual([
      ['second-wave', 'ended'],
      ['small-room', 'ended'],
      ['maintenance', 'ended'],
    ]);
    expect(await armedAt(q)).toBeNull();
  });
});
