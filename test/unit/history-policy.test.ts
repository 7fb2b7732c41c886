// The per-minute history's pure rules: which minute a tick records, percentiles, queue times from
// place keys, and the ranges an organizer may ask for with the step that bounds the answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_KEEP_MS,
  HISTORY_MAX_POINTS,
  MINUTE_MS,
  historyRange,
  minuteToRecord,
  percentile,
  queueTimesMs,
  refusalCounts,
} from '../../durable-objects/waiting-room/history-policy';

const T0 = 1_800_000_000_000; // a whole minute

describe('minuteToRecord', () => {
  it('records the minute before the tick once, and nothing again in the same minute', () => {
    expect(minuteToRecord(0, T0 + 5_000)).toBe(T0 - MINUTE_MS);
    expect(minuteToRecord(T0 - MINUTE_MS, T0 + 59_000)).toBeNull();
    expect(minuteToRecord(T0 - MINUTE_MS, T0 + MINUTE_MS)).toBe(T0);
    // After a sleep of an hour: the minute before the tick (the events in between are folded into it).
    expect(minuteToRecord(T0, T0 + 60 * MINUTE_MS + 1)).toBe(T0 + 59 * MINUTE_MS);
  });
});

describe('percentile', () => {
  it.each<[number[], number, number | null]>([
    [[], 0.5, null],
    [[7], 0.9, 7],
    [[1, 2, 3, 4], 0.5, 2],
    [[4, 3, 2, 1, 10, 9, 8, 7, 6, 5], 0.9, 9],
  ])('%j at %f is %j', (values, p, want) => expect(percentile(values, p)).toBe(want));

  it('is one of the values, and the p90 is never below the p50', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000_000), { minLength: 1, maxLength: 200 }), (values) => {
        const p50 = percentile(values, 0.5)!;
        const p90 = percentile(values, 0.9)!;
        expect(values).toContain(p50);
        expect(p90).toBeGreaterThanOrEqual(p50);
      }),
    );
  });
});

describe('queueTimesMs', () => {
  it('counts from the arrival second a FIFO or lane place names, and leaves pre-queue places out', () => {
    const bucket = T0 / 1000;
    expect(
      queueTimesMs([
        { place: `${bucket}:0:0`, admittedAtMs: T0 + 90_000 },
        { place: `vip/${bucket + 30}:2:1`, admittedAtMs: T0 + 90_000 },
        { place: 'pre', admittedAtMs: T0 },
      ]),
    ).toEqual([90_000, 60_000]);
  });
});

describe('historyRange', () => {
  const now = T0 + 40 * 24 * 60 * MINUTE_MS;
  it('refuses a range that starts before the 30 days kept, an inverted one, and times that are not times', () => {
    expect(historyRange(now - HISTORY_KEEP_MS - 1, now, now)).toMatchObject({
      kind: 'invalid',
      detail: expect.stringContaining('30 days'),
    });
    expect(historyRange(now, now - 1, now)).toMatchObject({ kind: 'invalid' });
    expect(historyRange(Number.NaN, now, now)).toMatchObject({ kind: 'invalid' });
  });

  it('answers any range within the 30 days in whole-minute steps of at most HISTORY_MAX_POINTS points', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: HISTORY_KEEP_MS - MINUTE_MS }),
        fc.integer({ min: 1, max: HISTORY_KEEP_MS }),
        (back, length) => {
          const from = now - HISTORY_KEEP_MS + back;
          const got = historyRange(from, from + length, now);
          if (got.kind !== 'ok') throw new Error(got.detail);
          expect(got.stepMs % MINUTE_MS).toBe(0);
          expect(Math.ceil((got.toMs - got.fromMs) / got.stepMs)).toBeLessThanOrEqual(HISTORY_MAX_POINTS + 1);
        },
      ),
    );
    expect(historyRange(now - MINUTE_MS, now, now)).toMatchObject({ kind: 'ok', stepMs: MINUTE_MS });
    expect(historyRange(now - HISTORY_KEEP_MS, now, now)).toMatchObject({ kind: 'ok', stepMs: 30 * MINUTE_MS });
  });
});

describe('refusalCounts', () => {
  it('keeps whole counts and takes anything else in a report as 0', () => {
    expect(refusalCounts({ proofOfWork: 3, entryToken: 0, rateLimit: 1_000_000, other: 7 })).toEqual({
      proofOfWork: 3,
      entryToken: 0,
      rateLimit: 1_000_000,
      other: 7,
    });
    expect(refusalCounts({ proofOfWork: -1, entryToken: 1.5, rateLimit: 1_000_001, other: Number.NaN })).toEqual({
      proofOfWork: 0,
      entryToken: 0,
      rateLimit: 0,
      other: 0,
    });
  });
});
