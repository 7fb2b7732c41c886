// Scheduled changes as pure rules: the config in effect at any instant, the next instant it can
// change, the transitions the alarm applies, and which new changes are refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueueConfig } from '../../contracts/event-config';
import type { OverrideSettings, StoredOverride } from '../../contracts/schedule';
import {
  effectiveConfig,
  fieldsOf,
  isOn,
  nextBoundaryMs,
  overrideProblem,
  scheduledMinimumConflict,
  scheduleTransitions,
  wakeAtBoundary,
} from '../../durable-objects/waiting-room/schedule-policy';

const T0 = 1_800_000_000_000;
const MIN = 60_000;

const CONFIG: QueueConfig = {
  eventId: 'e',
  name: 'E',
  policy: 'fifo',
  saleStartsAtMs: 0,
  maxReleaseRatePerMinute: 600,
  minReleaseRatePerMinute: 60,
  maxActiveVisitors: 1000,
  admissionTtlMs: 600_000,
  idleTimeoutMs: 300_000,
  targetP99Ms: 800,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  waitingPageStatus: 200,
  page: { message: 'base' },
};

function change(
  id: string,
  startMin: number,
  endMin: number,
  settings: OverrideSettings,
  state: StoredOverride['state'] = 'scheduled',
): StoredOverride {
  return { id, startsAtMs: T0 + startMin * MIN, endsAtMs: T0 + endMin * MIN, reason: `why ${id}`, settings, state };
}

const settingsArb: fc.Arbitrary<OverrideSettings> = fc
  .record(
    {
      maxReleaseRatePerMinute: fc.integer({ min: 1, max: 5000 }),
      minReleaseRatePerMinute: fc.integer({ min: 0, max: 5000 }),
      maxActiveVisitors: fc.integer({ min: 1, max: 10_000 }),
      admissionTtlMs: fc.integer({ min: 30, max: 7200 }).map((s) => s * 1000),
      page: fc.record({ message: fc.string({ maxLength: 20 }) }),
    },
    { requiredKeys: [] },
  )
  .filter((s) => Object.keys(s).length > 0);

/** A schedule the API could have built: each change added only if overrideProblem let it in. */
const scheduleArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1, max: 240 }), settingsArb), { maxLength: 12 })
  .map((specs) => {
    const stored: StoredOverride[] = [];
    specs.forEach(([start, length, settings], i) => {
      const c = change(`c${i}`, start, start + length, settings);
      if (overrideProblem(stored, c, T0) === null) stored.push(c);
    });
    return stored;
  });

describe('effectiveConfig', () => {
  it('is the stored config at any instant no change is on', () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: -60, max: 900 }), (schedule, atMin) => {
        const at = T0 + atMin * MIN;
        fc.pre(!schedule.some((o) => isOn(o, at)));
        expect(effectiveConfig(CONFIG, schedule, at)).toBe(CONFIG);
      }),
    );
  });

  it('takes each field from the change on that sets it, else from the stored config, with the minimum never over the maximum', () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: -60, max: 900 }), (schedule, atMin) => {
        const at = T0 + atMin * MIN;
        const got = effectiveConfig(CONFIG, schedule, at);
        const on = schedule.filter((o) => isOn(o, at));
        for (const f of ['maxReleaseRatePerMinute', 'maxActiveVisitors', 'admissionTtlMs', 'page'] as const) {
          const setters = on.filter((o) => fieldsOf(o).includes(f));
          expect(setters.length).toBeLessThanOrEqual(1);
          expect(got[f]).toEqual(setters[0]?.settings[f] ?? CONFIG[f]);
        }
        const min =
          on.find((o) => o.settings.minReleaseRatePerMinute !== undefined)?.settings.minReleaseRatePerMinute ??
          CONFIG.minReleaseRatePerMinute;
        expect(got.minReleaseRatePerMinute).toBe(Math.min(min, got.maxReleaseRatePerMinute));
        expect(got.minReleaseRatePerMinute).toBeLessThanOrEqual(got.maxReleaseRatePerMinute);
        // Settings no change may set stay as stored.
        expect(got.policy).toBe(CONFIG.policy);
        expect(got.saleStartsAtMs).toBe(CONFIG.saleStartsAtMs);
      }),
    );
  });

  it('stays the same from any instant up to the next boundary, so waking only at boundaries misses no change', () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: -60, max: 900 }), fc.double({ min: 0, max: 1, noNaN: true }), (schedule, atMin, f) => {
        const at = T0 + atMin * MIN;
        const next = nextBoundaryMs(schedule, at);
        const until = next ?? at + 1000 * MIN;
        const between = at + Math.floor((until - 1 - at) * f);
        expect(effectiveConfig(CONFIG, schedule, between)).toEqual(effectiveConfig(CONFIG, schedule, at));
        if (next !== null) expect(next).toBeGreaterThan(at);
      }),
    );
  });
});

describe('nextBoundaryMs', () => {
  it('is the first start or end after now, and null when every change is over', () => {
    const s = [change('a', 10, 20, { maxActiveVisitors: 5 }), change('b', 15, 40, { admissionTtlMs: 60_000 })];
    expect(nextBoundaryMs(s, T0)).toBe(T0 + 10 * MIN);
    expect(nextBoundaryMs(s, T0 + 10 * MIN)).toBe(T0 + 15 * MIN);
    expect(nextBoundaryMs(s, T0 + 20 * MIN)).toBe(T0 + 40 * MIN);
    expect(nextBoundaryMs(s, T0 + 40 * MIN)).toBeNull();
  });
});

describe('wakeAtBoundary', () => {
  it('wakes a sleeping room at the next boundary and leaves an earlier tick alone', () => {
    expect(wakeAtBoundary({ kind: 'sleep', atMs: null, reason: 'nobody_waiting' }, T0 + MIN)).toEqual({
      kind: 'sleep',
      atMs: T0 + MIN,
      reason: 'schedule',
    });
    expect(wakeAtBoundary({ kind: 'tick', atMs: T0 + 1000, reason: 'releasing' }, T0 + MIN)).toEqual({
      kind: 'tick',
      atMs: T0 + 1000,
      reason: 'releasing',
    });
    expect(wakeAtBoundary({ kind: 'sleep', atMs: T0 + 5 * MIN, reason: 'sale_start' }, T0 + MIN)).toEqual({
      kind: 'sleep',
      atMs: T0 + MIN,
      reason: 'schedule',
    });
    expect(wakeAtBoundary({ kind: 'sleep', atMs: null, reason: 'paused' }, null)).toEqual({ kind: 'sleep', atMs: null, reason: 'paused' });
  });
});

describe('scheduleTransitions', () => {
  it('starts what is on and still scheduled, ends what is past, and leaves ended changes alone', () => {
    const s = [
      change('on', -5, 5, { maxActiveVisitors: 1 }),
      change('past-active', -20, -1, { admissionTtlMs: 60_000 }, 'active'),
      change('past-never', -20, -10, { page: {} }),
      change('done', -30, -25, { page: {} }, 'ended'),
      change('later', 5, 10, { page: {} }),
      change('running', -5, 10, { maxReleaseRatePerMinute: 5 }, 'active'),
    ];
    const t = scheduleTransitions(s, T0);
    expect(t.started.map((o) => o.id)).toEqual(['on']);
    expect(t.ended.map((e) => [e.override.id, e.wasOn])).toEqual([
      ['past-active', true],
      ['past-never', false],
    ]);
  });
});

describe('overrideProblem', () => {
  const stored = [
    change('rate-up', 15, 60, { maxReleaseRatePerMinute: 1200 }),
    change('old', -60, -30, { maxReleaseRatePerMinute: 10 }, 'ended'),
  ];
  it.each<{ name: string; c: StoredOverride; want: { kind: 'invalid' | 'conflict'; detail: RegExp } | null }>([
    { name: 'another field in the same window is allowed', c: change('cap', 20, 30, { maxActiveVisitors: 50 }), want: null },
    { name: 'the same field right after the end is allowed', c: change('next', 60, 70, { maxReleaseRatePerMinute: 900 }), want: null },
    {
      name: 'the same field in a window that shares an instant is refused',
      c: change('x', 59, 70, { maxReleaseRatePerMinute: 900 }),
      want: { kind: 'conflict', detail: /overlaps the scheduled change "rate-up".*sets releaseRatePerMinute$/ },
    },
    { name: 'the same field over an ended change is allowed', c: change('y', 1, 5, { maxReleaseRatePerMinute: 900 }), want: null },
    {
      name: 'an end before the start is refused',
      c: change('z', 10, 5, { page: {} }),
      want: { kind: 'invalid', detail: /endsAt must be after startsAt/ },
    },
    {
      name: 'an empty window is refused',
      c: change('z', 10, 10, { page: {} }),
      want: { kind: 'invalid', detail: /endsAt must be after startsAt/ },
    },
    { name: 'a start in the past is refused', c: change('z', -1, 10, { page: {} }), want: { kind: 'invalid', detail: /in the past/ } },
    {
      name: 'an end more than 5 years ahead is refused',
      c: change('z', 1, 6 * 366 * 24 * 60, { page: {} }),
      want: { kind: 'invalid', detail: /within 5 years/ },
    },
    {
      name: 'an id of another change is refused',
      c: change('rate-up', 100, 110, { page: {} }),
      want: { kind: 'conflict', detail: /exists with other settings/ },
    },
    { name: 'the same change again is no problem (a repeat)', c: stored[0]!, want: null },
  ])('$name', ({ c, want }) => {
    const got = overrideProblem(stored, c, T0);
    if (want === null) expect(got).toBeNull();
    else {
      expect(got?.kind).toBe(want.kind);
      expect(got?.detail).toMatch(want.detail);
    }
  });

  it('refuses a change past the number of open changes an event may have', () => {
    const many = Array.from({ length: 100 }, (_, i) => change(`c${i}`, 10 + i, 11 + i, { page: {} }));
    expect(overrideProblem(many, change('one-more', 500, 510, { maxActiveVisitors: 1 }), T0)?.kind).toBe('conflict');
  });
});

describe('scheduledMinimumConflict', () => {
  const floor = change('floor', 10, 20, { minReleaseRatePerMinute: 90 });
  it.each([
    {
      name: 'a new maximum under a scheduled minimum is refused',
      max: 50,
      list: [floor],
      want: /"floor" sets a minimum of 90\/min, above the maximum of 50\/min/,
    },
    { name: 'a new maximum at or over it is not', max: 90, list: [floor], want: null },
    {
      name: 'a change with its own maximum keeps its own',
      max: 50,
      list: [change('own', 10, 20, { minReleaseRatePerMinute: 90, maxReleaseRatePerMinute: 120 })],
      want: null,
    },
    {
      name: 'an ended change no longer counts',
      max: 50,
      list: [change('old', -20, -10, { minReleaseRatePerMinute: 90 }, 'ended')],
      want: null,
    },
  ])('$name', ({ max, list, want }) => {
    const got = scheduledMinimumConflict(max, list);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });
});
