// Admission cursor: advancing it releases exactly a prefix of the global arrival order, never past
// the seal, and one shard behaves exactly like a single queue; polls are answered from place + cursor.
import fc from 'fast-check';
import { testCursor } from '../helpers/cursor';
import { describe, expect, it } from 'vitest';
import { advanceCursor, comparePlaces, releasedInBucket, shardOf, viewPlace, type FifoPlace } from '../../contracts/queue/cursor';
import { MAX_POLL_MS } from '../../contracts/queue/queue-policy';

/** Arrivals: per shard, per bucket, a count. */
const arrivalsArb = fc.array(fc.record({ shard: fc.nat(3), bucket: fc.nat(6), count: fc.integer({ min: 1, max: 6 }) }), { maxLength: 20 });

function countsOf(arrivals: { shard: number; bucket: number; count: number }[]): Map<number, Map<number, number>> {
  const counts = new Map<number, Map<number, number>>();
  for (const a of arrivals) {
    if (!counts.has(a.shard)) counts.set(a.shard, new Map());
    counts.get(a.shard)!.set(a.bucket, a.count);
  }
  return counts;
}

/** Every place of the arrivals, in release order. */
function allPlaces(counts: Map<number, Map<number, number>>): FifoPlace[] {
  const places: FifoPlace[] = [];
  for (const [shard, buckets] of counts)
    for (const [bucket, n] of buckets) for (let idx = 0; idx < n; idx++) places.push({ bucket, idx, shard });
  return places.sort(comparePlaces);
}

describe('advanceCursor', () => {
  it('releases exactly min(n, sealed places left), always a prefix of the release order, in any number of steps', () => {
    fc.assert(
      fc.property(arrivalsArb, fc.nat(8), fc.array(fc.nat(10), { minLength: 1, maxLength: 8 }), (arrivals, sealedBefore, steps) => {
        const counts = countsOf(arrivals);
        const order = allPlaces(counts);
        const sealed = order.filter((p) => p.bucket < sealedBefore);
        let cursor: FifoPlace = { bucket: 0, idx: 0, shard: 0 };
        let total = 0;
        for (const n of steps) {
          const step = advanceCursor(cursor, counts, sealedBefore, n);
          expect(step.released).toBe(Math.min(n, sealed.length - total));
          total += step.released;
          cursor = step.cursor;
          // Released = exactly the first `total` places of the order; nothing unsealed.
          const released = order.filter((p) => comparePlaces(p, cursor) < 0);
          expect(released).toEqual(sealed.slice(0, total));
          // The count the room keeps per bucket agrees.
          let byBucket = 0;
          for (const [shard, buckets] of counts)
            for (const [bucket, size] of buckets) byBucket += releasedInBucket(cursor, bucket, new Map([[shard, size]]));
          expect(byBucket).toBe(total);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('with one shard, releases in exact arrival order (the single-queue behaviour)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 8 }), fc.nat(30), (perBucket, n) => {
        const counts = new Map([[0, new Map(perBucket.map((c, b) => [b, c] as [number, number]).filter(([, c]) => c > 0))]]);
        const arrivals = perBucket.flatMap((c, b) => Array.from({ length: c }, (_, idx) => ({ bucket: b, idx, shard: 0 })));
        const { cursor, released } = advanceCursor({ bucket: 0, idx: 0, shard: 0 }, counts, perBucket.length, n);
        expect(arrivals.filter((p) => comparePlaces(p, cursor) < 0)).toEqual(arrivals.slice(0, released));
        expect(released).toBe(Math.min(n, arrivals.length));
      }),
      { numRuns: 300 },
    );
  });
});

describe('shardOf', () => {
  it('is stable and spreads 8,000 random visitors over 4 shards within 10 % of even', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) {
      const id = crypto.randomUUID();
      expect(shardOf(id, 4)).toBe(shardOf(id, 4));
      counts[shardOf(id, 4)]!++;
    }
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
  });
});

describe('viewPlace', () => {
  const base = testCursor({
    fifo: { bucket: 10, idx: 3, shard: 0 },
    queue: [
      [10, 7],
      [11, 5],
    ],
  });

  it('says released exactly when the cursor passed the place, and counts the unreleased places ahead', () => {
    expect(viewPlace(base, { bucket: 10, idx: 2, shard: 0 }, null, 1)).toMatchObject({ released: true });
    expect(viewPlace(base, { bucket: 10, idx: 3, shard: 0 }, null, 1)).toMatchObject({ released: false, ahead: 0, position: 1 });
    expect(viewPlace(base, { bucket: 11, idx: 2, shard: 0 }, null, 1)).toMatchObject({ released: false, ahead: 9, position: 10 });
    // 10 ahead at 60 a minute: 10-11 s.
    expect(viewPlace(base, { bucket: 11, idx: 3, shard: 0 }, null, 1).estimatedWaitSeconds).toBe(11);
  });

  it('waits for the slots ahead to free when the cursor says they are short', () => {
    const place = { bucket: 11, idx: 3, shard: 0 };
    // 10 ahead: 11 places. 60/min alone: 11 s; with 1 slot free and 6/min freeing, 100 s.
    expect(viewPlace({ ...base, slotsFreedPerMinute: 6, freeSlots: 1 }, place, null, 1)).toMatchObject({ estimatedWaitSeconds: 100 });
    expect(viewPlace({ ...base, slotsFreedPerMinute: 6, freeSlots: 20 }, place, null, 1)).toMatchObject({ estimatedWaitSeconds: 11 });
    // Nothing measured freeing behind full slots: no estimate, and polled as the release rate
    // allows (11 s at 60/min: after 2.2 s), the slowest poll only far back (failing input:
    // position 259 of a surge's first seconds told to poll after 15 s).
    expect(viewPlace({ ...base, slotsFreedPerMinute: 0, freeSlots: 0 }, place, null, 1)).toMatchObject({
      estimatedWaitSeconds: null,
      pollAfterMs: 2_200,
    });
    const surge = { ...base, admitPerMinute: 1_200, slotsFreedPerMinute: 0, freeSlots: 0, queue: [[10, 300]] as [number, number][] };
    expect(viewPlace(surge, { bucket: 10, idx: 261, shard: 0 }, null, 1)).toMatchObject({
      position: 259,
      estimatedWaitSeconds: null,
      pollAfterMs: 2_600,
    });
    expect(viewPlace({ ...surge, admitPerMinute: 60 }, { bucket: 10, idx: 262, shard: 0 }, null, 1)).toMatchObject({
      estimatedWaitSeconds: null,
      pollAfterMs: MAX_POLL_MS,
    });
    // A cursor of an older room (no slot figures): the pace alone, as before.
    expect(viewPlace(base, place, null, 1).estimatedWaitSeconds).toBe(11);
  });

  it('shows the phase the cursor publishes', () => {
    expect(viewPlace({ ...base, mode: 'paused' }, { bucket: 11, idx: 0, shard: 0 }, null, 1).state).toBe('paused');
    expect(viewPlace({ ...base, soldOut: true }, { bucket: 11, idx: 0, shard: 0 }, null, 1).state).toBe('sold_out');
    expect(viewPlace({ ...base, saleStartsAtMs: 10_000 }, { bucket: 11, idx: 0, shard: 0 }, null, 1).state).toBe('not_open');
  });

  it('places a lottery entrant by key after the draw, and not before', () => {
    const lottery = { ...base, policy: 'random' as const, draw: { drawn: false, size: 100, released: 0, seed: null, releasedKey: null } };
    expect(viewPlace(lottery, { pre: true }, null, 1)).toMatchObject({ released: false, position: null });
    const drawn = { ...lottery, draw: { drawn: true, size: 100, released: 50, seed: 'ab', releasedKey: '8'.padEnd(64, '0') } };
    expect(viewPlace(drawn, { pre: true }, '7'.padEnd(64, 'f'), 1)).toMatchObject({ released: true });
    // A key three quarters up ranks about 76th of 100: about 25 ahead once 50 are released.
    expect(viewPlace(drawn, { pre: true }, 'c'.padEnd(64, '0'), 1)).toMatchObject({ released: false, ahead: 25 });
  });
});
