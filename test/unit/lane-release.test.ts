// Presale lanes in the tick (property): planRelease splits its budget among the lanes in order and
// then the public queue, releases nobody of a line before its sale start, never over the budget,
// wastes nothing, and moves each lane's cursor by exactly what the lane released. Also the lane
// parts of places: keys, release order across lanes, and a lane place's view from the cursor.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparePlaces, parsePlaceKey, placeKey, releasedBefore, type AdmissionCursor, type FifoPlace } from '../../contracts/queue/cursor';
import { viewPlace } from '../../contracts/queue/place-view';
import {
  planRelease,
  unreleasedArrivals,
  type LaneTick,
  type QueueCounts,
  type TickInput,
} from '../../durable-objects/waiting-room/tick-plan';

const T0 = 1_800_000_000_000;
const NOW = T0 + 1_000;
const BUCKET = Math.floor(T0 / 1000);

/** A line's counts: 1-3 shards, arrivals in a few buckets from BUCKET on, all sealed. */
const lineArb: fc.Arbitrary<QueueCounts> = fc
  .array(fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 3 }), fc.integer({ min: 1, max: 40 })), { maxLength: 6 })
  .map((rows) => {
    const counts = new Map<number, Map<number, number>>();
    for (const [shard, b, n] of rows) {
      if (!counts.has(shard)) counts.set(shard, new Map());
      counts.get(shard)!.set(BUCKET + b, n);
    }
    return { cursor: { bucket: BUCKET, idx: 0, shard: 0 }, counts, sealedBefore: BUCKET + 10 };
  });

/** 0-3 lanes whose shares add up to at most 100 %, each open now or not yet. */
const lanesArb = fc.array(fc.record({ share: fc.nat({ max: 100 }), open: fc.boolean(), queue: lineArb }), { maxLength: 3 }).map((ls) => {
  let left = 100;
  return ls.map((l, i): LaneTick => {
    const sharePercent = Math.min(l.share, left);
    left -= sharePercent;
    return { lane: `lane-${i}`, saleStartsAtMs: l.open ? T0 : NOW + 60_000, sharePercent, queue: l.queue };
  });
});

const tickArb = fc
  .record({
    lanes: lanesArb,
    queue: lineArb,
    publicOpen: fc.boolean(),
    rate: fc.integer({ min: 0, max: 12_000 }),
    slots: fc.integer({ min: 0, max: 400 }),
  })
  .map((t): TickInput => ({
    nowMs: NOW,
    mode: 'open',
    soldOut: false,
    saleStartsAtMs: t.publicOpen ? T0 : NOW + 60_000,
    admitPerMinute: t.rate,
    carry: 0,
    lastTickAtMs: T0,
    occupancy: { maxActiveVisitors: t.slots, activeLimit: t.slots, active: 0, pending: 0, expected: 0, pendingLimit: 10_000 },
    draw: { size: 0, released: 0 },
    queue: t.queue,
    lanes: t.lanes,
  }));

const waitingIn = (q: QueueCounts) => unreleasedArrivals(q, { onlySealed: true });

describe('planRelease with presale lanes', () => {
  it('releases exactly its budget over the open lines, none of a line before its start, each lane cursor by what it released', () => {
    fc.assert(
      fc.property(tickArb, (t) => {
        const plan = planRelease(t);
        const anyOpen = t.saleStartsAtMs <= NOW || t.lanes.some((l) => l.saleStartsAtMs <= NOW);
        if (!anyOpen) {
          expect(plan).toMatchObject({ kind: 'hold', reason: 'not_on_sale' });
          return;
        }
        if (plan.kind !== 'release') throw new Error('expected a release');
        const laneTotal = plan.lanes.reduce((a, l) => a + l.released, 0);
        expect(laneTotal + plan.fromDraw + plan.fromQueue).toBe(plan.admit);
        const openEligible =
          (t.saleStartsAtMs <= NOW ? waitingIn(t.queue) : 0) +
          t.lanes.reduce((a, l) => a + (l.saleStartsAtMs <= NOW ? waitingIn(l.queue) : 0), 0);
        expect(plan.eligible).toBe(openEligible);
        expect(plan.admit).toBeLessThanOrEqual(Math.min(openEligible, t.occupancy.maxActiveVisitors));
        if (t.saleStartsAtMs > NOW) expect(plan.fromQueue).toBe(0);
        plan.lanes.forEach((l, i) => {
          const lane = t.lanes[i]!;
          if (lane.saleStartsAtMs > NOW) expect(l.released).toBe(0);
          expect(l.released).toBeLessThanOrEqual(waitingIn(lane.queue));
          // The lane's cursor passed exactly the places it released.
          expect(unreleasedArrivals({ ...lane.queue, cursor: l.cursor }, { onlySealed: true })).toBe(waitingIn(lane.queue) - l.released);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('gives every open lane with enough visitors at least its share, and more than it rounded up only when every line before it is served', () => {
    fc.assert(
      fc.property(tickArb, (t) => {
        const plan = planRelease(t);
        if (plan.kind !== 'release') return;
        plan.lanes.forEach((l, i) => {
          const lane = t.lanes[i]!;
          const eligible = lane.saleStartsAtMs <= NOW ? waitingIn(lane.queue) : 0;
          const share = Math.floor((plan.admit * lane.sharePercent) / 100);
          expect(l.released).toBeGreaterThanOrEqual(Math.min(eligible, share));
          // Rounding gives a line its share rounded up or down (lane-split.ts: largest remainder).
          if (l.released > Math.ceil((plan.admit * lane.sharePercent) / 100)) {
            // Extra share flows on in order: every lane before this one got all it could.
            for (let j = 0; j < i; j++) {
              const before = t.lanes[j]!;
              expect(plan.lanes[j]!.released).toBe(before.saleStartsAtMs <= NOW ? waitingIn(before.queue) : 0);
            }
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a presale lane at 50 % before the public start takes the whole budget; after it, half each', () => {
    const line = (n: number): QueueCounts => ({
      cursor: { bucket: BUCKET, idx: 0, shard: 0 },
      counts: new Map([[0, new Map([[BUCKET, n]])]]),
      sealedBefore: BUCKET + 1,
    });
    const base: TickInput = {
      nowMs: NOW,
      mode: 'open',
      soldOut: false,
      saleStartsAtMs: NOW + 60_000,
      admitPerMinute: 600,
      carry: 0,
      lastTickAtMs: T0,
      occupancy: { maxActiveVisitors: 1000, activeLimit: 1000, active: 0, pending: 0, expected: 0, pendingLimit: 10_000 },
      draw: { size: 0, released: 0 },
      queue: line(100),
      lanes: [{ lane: 'presale', saleStartsAtMs: T0, sharePercent: 50, queue: line(100) }],
    };
    const before = planRelease(base);
    expect(before).toMatchObject({ kind: 'release', admit: 10, fromQueue: 0, lanes: [{ lane: 'presale', released: 10 }] });
    const after = planRelease({ ...base, saleStartsAtMs: T0 });
    expect(after).toMatchObject({ kind: 'release', admit: 10, fromQueue: 5, lanes: [{ lane: 'presale', released: 5 }] });
  });
});

describe('lane places', () => {
  it('keeps the lane in the place key, and parses back what it prints', () => {
    const place: FifoPlace = { bucket: 12, idx: 3, shard: 1, lane: 'presale' };
    expect(placeKey(place)).toBe('presale/12:3:1');
    expect(parsePlaceKey('presale/12:3:1')).toEqual(place);
    expect(parsePlaceKey('12:3:1')).toEqual({ bucket: 12, idx: 3, shard: 1 });
    for (const bad of ['Presale/1:2:3', '/1:2:3', 'a b/1:2:3', 'presale/1:2', 'x'.repeat(33) + '/1:2:3'])
      expect(parsePlaceKey(bad)).toBeNull();
  });

  it('never orders places of two lines: a lane place and a public one, or two lanes', () => {
    const a: FifoPlace = { bucket: 1, idx: 0, shard: 0, lane: 'presale' };
    const b: FifoPlace = { bucket: 2, idx: 0, shard: 0 };
    expect(releasedBefore(a, b)).toBe(false);
    expect(releasedBefore(b, a)).toBe(false);
    expect(releasedBefore(a, { ...b, lane: 'members' })).toBe(false);
    expect(releasedBefore(a, { ...b, lane: 'presale' })).toBe(true);
    expect(releasedBefore({ pre: true }, a)).toBe(false);
    expect(comparePlaces(a, b)).toBeLessThan(0);
  });

  it('views a lane place against its lane: released by the lane cursor, open from the lane start, unknown lanes left to the room', () => {
    const cursor = {
      eventId: 'e',
      eventName: 'E',
      policy: 'fifo',
      saleStartsAtMs: NOW + 3_600_000,
      page: {},
      pageStatus: 200,
      commitment: null,
      mode: 'open',
      soldOut: false,
      shards: 1,
      idleTimeoutMs: 60_000,
      fifo: { bucket: BUCKET, idx: 0, shard: 0 },
      draw: null,
      queue: [[BUCKET, 500]],
      admitPerMinute: 600,
      publishedAtMs: NOW,
      lanes: [{ lane: 'presale', saleStartsAtMs: T0, fifo: { bucket: BUCKET, idx: 5, shard: 0 }, queue: [[BUCKET, 10]] }],
    } satisfies AdmissionCursor;
    const lanePlace = (idx: number): FifoPlace => ({ bucket: BUCKET, idx, shard: 0, lane: 'presale' });
    expect(viewPlace(cursor, lanePlace(4), null, NOW)).toMatchObject({ state: 'waiting', released: true });
    expect(viewPlace(cursor, lanePlace(8), null, NOW)).toMatchObject({ state: 'waiting', released: false, position: 4, ahead: 3 });
    // The public queue is not open yet, and its place is not released by the lane's cursor.
    expect(viewPlace(cursor, { bucket: BUCKET, idx: 4, shard: 0 }, null, NOW)).toMatchObject({ state: 'not_open', released: false });
    expect(viewPlace(cursor, { ...lanePlace(0), lane: 'gone' }, null, NOW)).toMatchObject({ released: true, position: null });
  });
});
