// The release tick's rules: free slots, eligible and waiting counts, the plan (hold or release,
// draw ranks before FIFO places, never over budget, slots or eligible), and the gateway signals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparePlaces } from '../../contracts/queue/cursor';
import {
  MAX_TICK_GAP_MS,
  MIN_CONFLICT_HOLDS,
  MIN_NO_SHOW_SAMPLE,
  NO_SHOW_AFTER_MS,
  NO_SHOW_WINDOW_MS,
  eligibleCount,
  freeSlots,
  gatewaySignals,
  holdReason,
  noShowWindow,
  planRelease,
  releaseKeepMs,
  waitingCount,
  type QueueCounts,
  type TickInput,
} from '../../durable-objects/waiting-room/tick-plan';

const T0 = 1_800_000_000_000;

/** Counts: shard -> bucket -> count, from [shard, bucket, count] triples. */
function counts(...rows: [number, number, number][]): Map<number, Map<number, number>> {
  const m = new Map<number, Map<number, number>>();
  for (const [shard, bucket, count] of rows) {
    if (!m.has(shard)) m.set(shard, new Map());
    m.get(shard)!.set(bucket, count);
  }
  return m;
}

function tick(overrides: Partial<TickInput> = {}): TickInput {
  return {
    nowMs: T0 + 1_000,
    mode: 'open',
    soldOut: false,
    saleStartsAtMs: 0,
    admitPerMinute: 600,
    carry: 0,
    lastTickAtMs: T0,
    occupancy: { maxActiveVisitors: 100, activeLimit: 100, active: 0, pending: 0, expected: 0, pendingLimit: 1000 },
    lanes: [],
    draw: { size: 0, released: 0 },
    queue: { cursor: { bucket: 10, idx: 0, shard: 0 }, counts: counts([0, 10, 50]), sealedBefore: 11 },
    ...overrides,
  };
}

/** Unclaimed places all expected to arrive (no measured no-shows), no binding bound of their own (admission-pace.test.ts covers both). */
const allExpected = (pending: number) => ({ pending, expected: pending, pendingLimit: 1000 });

describe('freeSlots', () => {
  it.each([
    { name: 'the organizer cap binds', o: { maxActiveVisitors: 10, activeLimit: 50, active: 3, ...allExpected(2) }, want: 5 },
    { name: 'the controller limit binds', o: { maxActiveVisitors: 50, activeLimit: 10, active: 3, ...allExpected(2) }, want: 5 },
    {
      name: 'pending visitors count as active while the no-show share is unknown',
      o: { maxActiveVisitors: 10, activeLimit: 10, active: 0, ...allExpected(10) },
      want: 0,
    },
    {
      name: 'over the limit gives a negative number',
      o: { maxActiveVisitors: 10, activeLimit: 5, active: 7, ...allExpected(1) },
      want: -3,
    },
  ])('$name', ({ o, want }) => expect(freeSlots(o)).toBe(want));
});

describe('holdReason', () => {
  it.each([
    { mode: 'closed', soldOut: true, saleStartsAtMs: T0 + 1, want: 'closed' },
    { mode: 'paused', soldOut: true, saleStartsAtMs: 0, want: 'paused' },
    { mode: 'open', soldOut: true, saleStartsAtMs: T0 + 1, want: 'sold_out' },
    { mode: 'open', soldOut: false, saleStartsAtMs: T0 + 1, want: 'not_on_sale' },
    { mode: 'open', soldOut: false, saleStartsAtMs: T0, want: null },
    { mode: 'open', soldOut: false, saleStartsAtMs: 0, want: null },
  ] as const)('$mode, sold out $soldOut, sale at $saleStartsAtMs -> $want', ({ want, ...room }) => {
    expect(holdReason(room, T0)).toBe(want);
  });
});

describe('eligibleCount and waitingCount', () => {
  const q: QueueCounts = { cursor: { bucket: 10, idx: 2, shard: 0 }, counts: counts([0, 10, 5], [1, 10, 3], [0, 11, 4]), sealedBefore: 11 };
  it('counts unreleased draw ranks plus unreleased places in sealed buckets only', () => {
    // Bucket 10: 5 + 3 places, (idx 0..1) x 2 shards = 4 released; bucket 11 is not sealed.
    expect(eligibleCount(q, { size: 7, released: 2 })).toBe(5 + 4);
  });
  it('counts every counted unreleased arrival, and pre-queue entrants before the draw', () => {
    expect(waitingCount(q, { drawn: false, preQueue: 6, draw: { size: 0, released: 0 } })).toBe(6 + 4 + 4);
    expect(waitingCount(q, { drawn: true, preQueue: 6, draw: { size: 7, released: 2 } })).toBe(5 + 4 + 4);
  });
});

describe('planRelease', () => {
  it.each([
    { name: 'a closed room', t: { mode: 'closed' as const }, reason: 'closed' },
    { name: 'a paused room', t: { mode: 'paused' as const }, reason: 'paused' },
    { name: 'a sold-out room', t: { soldOut: true }, reason: 'sold_out' },
    { name: 'before the sale start', t: { saleStartsAtMs: T0 + 2_000 }, reason: 'not_on_sale' },
  ])('holds $name and drops the carry', ({ t, reason }) => {
    expect(planRelease(tick({ ...t, carry: 0.7 }))).toEqual({ kind: 'hold', reason, carry: 0 });
  });

  it.each([
    // 600/min over 1 s = 10 visitors.
    { name: 'rate x elapsed', t: {}, admit: 10, carry: 0 },
    { name: 'the carry adds to the budget', t: { admitPerMinute: 90, carry: 0.5 }, admit: 2, carry: 0 },
    {
      name: 'free slots bound it',
      t: { occupancy: { maxActiveVisitors: 100, activeLimit: 4, active: 1, ...allExpected(1) } },
      admit: 2,
      carry: 0.999,
    },
    {
      name: 'a late alarm earns at most MAX_TICK_GAP_MS',
      t: { lastTickAtMs: T0 - 60_000 },
      admit: (600 * MAX_TICK_GAP_MS) / 60_000,
      carry: 0,
    },
    {
      name: 'eligible visitors bound it',
      t: { queue: { cursor: { bucket: 10, idx: 0, shard: 0 }, counts: counts([0, 10, 3]), sealedBefore: 11 } },
      admit: 3,
      carry: 0.999,
    },
  ])('releases by $name', ({ t, admit, carry }) => {
    const plan = planRelease(tick(t));
    expect(plan.kind).toBe('release');
    if (plan.kind !== 'release') return;
    expect(plan.admit).toBe(admit);
    expect(plan.fromDraw + plan.fromQueue).toBe(admit);
    expect(plan.carry).toBeCloseTo(carry, 9);
  });

  it('releases draw ranks before FIFO places', () => {
    const plan = planRelease(tick({ draw: { size: 8, released: 2 } }));
    expect(plan).toMatchObject({ kind: 'release', fromDraw: 6, fromQueue: 4, cursor: { bucket: 10, idx: 3, shard: 1 } });
  });

  it('moves the cursor just past the last place released, never past what the budget covers', () => {
    const plan = planRelease(tick({ queue: { cursor: { bucket: 10, idx: 0, shard: 0 }, counts: counts([0, 10, 2]), sealedBefore: 14 } }));
    expect(plan).toMatchObject({ kind: 'release', admit: 2, fromQueue: 2, cursorMoved: true, cursor: { bucket: 10, idx: 1, shard: 1 } });
  });

  it('moves nothing when nobody is eligible', () => {
    const plan = planRelease(tick({ queue: { cursor: { bucket: 10, idx: 0, shard: 0 }, counts: counts([0, 15, 4]), sealedBefore: 14 } }));
    expect(plan).toMatchObject({ kind: 'release', eligible: 0, admit: 0, cursorMoved: false });
  });

  it('never releases more than the budget, the free slots or the eligible visitors, and never moves the cursor back', () => {
    const arrivals = fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 10, max: 16 }), fc.integer({ min: 1, max: 6 })), { maxLength: 15 });
    fc.assert(
      fc.property(
        arrivals,
        fc.integer({ min: 10, max: 18 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.record({
          maxActiveVisitors: fc.nat(200),
          activeLimit: fc.nat(200),
          active: fc.nat(200),
          pending: fc.nat(200),
          expected: fc.nat(200),
          pendingLimit: fc.nat(400),
        }),
        fc.nat(20).chain((size) => fc.record({ size: fc.constant(size), released: fc.nat(size) })),
        (rows, sealedBefore, rate, carry, elapsedMs, occupancy, draw) => {
          const t = tick({
            admitPerMinute: rate,
            carry,
            lastTickAtMs: T0 + 1_000 - elapsedMs,
            occupancy,
            draw,
            queue: { cursor: { bucket: 10, idx: 0, shard: 0 }, counts: counts(...rows), sealedBefore },
          });
          const plan = planRelease(t);
          if (plan.kind !== 'release') throw new Error('an open room on sale must plan a release');
          const earned = carry + (rate * Math.min(elapsedMs, MAX_TICK_GAP_MS)) / 60_000;
          expect(plan.admit).toBeLessThanOrEqual(Math.floor(earned));
          expect(plan.admit).toBeLessThanOrEqual(Math.max(0, freeSlots(occupancy)));
          expect(plan.admit).toBeLessThanOrEqual(eligibleCount(t.queue, draw));
          expect(plan.fromDraw + plan.fromQueue).toBe(plan.admit);
          expect(plan.fromDraw).toBeLessThanOrEqual(draw.size - draw.released);
          expect(plan.carry).toBeGreaterThanOrEqual(0);
          expect(plan.carry).toBeLessThan(1);
          expect(comparePlaces(plan.cursor, t.queue.cursor)).toBeGreaterThanOrEqual(0);
          expect(plan.cursorMoved).toBe(comparePlaces(plan.cursor, t.queue.cursor) !== 0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('gatewaySignals', () => {
  it.each([
    {
      name: 'no holds: no p99, no conflict rate',
      s: { holds: 0, conflicts: 0, worstHoldP99Ms: 12, released: 0, claimed: 0 },
      want: { holdP99Ms: null, conflictRate: null, noShowRate: null },
    },
    {
      name: 'few holds: p99 but no conflict rate',
      s: { holds: MIN_CONFLICT_HOLDS - 1, conflicts: 9, worstHoldP99Ms: 40, released: 0, claimed: 0 },
      want: { holdP99Ms: 40, conflictRate: null, noShowRate: null },
    },
    {
      name: 'enough holds: conflict rate',
      s: { holds: 20, conflicts: 5, worstHoldP99Ms: 40, released: 0, claimed: 0 },
      want: { holdP99Ms: 40, conflictRate: 0.25, noShowRate: null },
    },
    {
      name: 'few releases: no no-show rate',
      s: { holds: 0, conflicts: 0, worstHoldP99Ms: null, released: MIN_NO_SHOW_SAMPLE - 1, claimed: 0 },
      want: { holdP99Ms: null, conflictRate: null, noShowRate: null },
    },
    {
      name: 'enough releases: no-show rate',
      s: { holds: 0, conflicts: 0, worstHoldP99Ms: null, released: 20, claimed: 15 },
      want: { holdP99Ms: null, conflictRate: null, noShowRate: 0.25 },
    },
    {
      name: 'more claims than releases never go negative',
      s: { holds: 0, conflicts: 0, worstHoldP99Ms: null, released: 10, claimed: 12 },
      want: { holdP99Ms: null, conflictRate: null, noShowRate: 0 },
    },
  ])('$name', ({ s, want }) => expect(gatewaySignals(s)).toEqual(want));

  it('counts no-shows among visitors released between the window start and a minute ago', () => {
    expect(noShowWindow(T0)).toEqual({ fromMs: T0 - NO_SHOW_WINDOW_MS, toMs: T0 - NO_SHOW_AFTER_MS });
  });

  it('keeps release records for the idle timeout or the no-show window, whichever is longer', () => {
    expect(releaseKeepMs(60_000)).toBe(NO_SHOW_WINDOW_MS);
    expect(releaseKeepMs(NO_SHOW_WINDOW_MS + 1)).toBe(NO_SHOW_WINDOW_MS + 1);
  });
});
