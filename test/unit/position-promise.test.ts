// The position promise, as properties over random arrivals, ticks and polls: queue shards hand out
// places by their clocks, the room counts them and moves its cursor, the edge answers polls from
// whichever recent cursor it holds. Read in the order the cursors were published, a visitor's
// position never rises; exact positions read from one cursor are never shared; every answer
// contains the true place (exact = true); the lottery's marks give exact ranks or true ranges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testCursor } from '../helpers/cursor';
import { BUCKET_MS, advanceCursor, comparePlaces, type AdmissionCursor, type FifoPlace } from '../../contracts/queue/cursor';
import { drawAhead, drawMarksFrom, viewPlace, type AheadBounds } from '../../contracts/queue/place-view';
import { arrivalBucket } from '../../durable-objects/waiting-room/shard-policy';
import { queueListing } from '../../durable-objects/waiting-room/room-cursor';

const stepArb = (shards: number) =>
  fc.oneof(
    fc.record({ dtMs: fc.nat(400), kind: fc.constant('join' as const), shard: fc.nat(shards - 1) }),
    fc.record({ dtMs: fc.nat(1_500), kind: fc.constant('tick' as const), release: fc.nat(4) }),
    fc.record({ dtMs: fc.nat(300), kind: fc.constant('poll' as const), age: fc.nat(2) }),
  );

/** Shards, room and edge as the objects behave, with their pure rules (no copy of them here). */
class Sim {
  nowMs = 1_000_000;
  readonly places: FifoPlace[] = [];
  private readonly counts = new Map<number, Map<number, number>>();
  private readonly minBucket: number[];
  private readonly sealed: number[];
  private fifo: FifoPlace = { bucket: 0, idx: 0, shard: 0 };
  /** Cursors in publication order. */
  readonly cursors: AdmissionCursor[] = [];

  constructor(readonly shards: number) {
    this.minBucket = Array.from({ length: shards }, () => 0);
    this.sealed = Array.from({ length: shards }, () => 0);
    for (let s = 0; s < shards; s++) this.counts.set(s, new Map());
  }

  join(shard: number): void {
    const bucket = arrivalBucket(this.nowMs, this.minBucket[shard]!);
    const m = this.counts.get(shard)!;
    const idx = m.get(bucket) ?? 0;
    m.set(bucket, idx + 1);
    this.places.push({ bucket, idx, shard });
  }

  /** The room's tick: every shard reports (and seals), the cursor moves over at most `release` places, a cursor is published. */
  tick(release: number): void {
    for (let s = 0; s < this.shards; s++) {
      this.sealed[s] = arrivalBucket(this.nowMs, this.minBucket[s]!);
      this.minBucket[s] = this.sealed[s]!;
    }
    const sealedBefore = Math.min(...this.sealed);
    this.fifo = advanceCursor(this.fifo, this.counts, sealedBefore, release).cursor;
    const rows = [...this.counts].flatMap(([shard, m]) => [...m].map(([bucket, count]) => ({ shard, bucket, count })));
    this.cursors.push(
      testCursor({
        shards: this.shards,
        fifo: this.fifo,
        queue: queueListing(this.fifo, rows, 600),
        sealedBefore,
        publishedAtMs: this.nowMs,
      }),
    );
  }

  /** People truly ahead of `place` under `cursor`: unreleased places of the whole arrival list before it. */
  trueAhead(place: FifoPlace, cursor: AdmissionCursor): number {
    return this.places.filter((p) => comparePlaces(p, cursor.fifo) >= 0 && comparePlaces(p, place) < 0).length;
  }
}

describe('positions over random arrivals, ticks and polls', () => {
  it('never rise, are never shared when exact, and always contain the true place', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((shards) => fc.tuple(fc.constant(shards), fc.array(stepArb(shards), { minLength: 5, maxLength: 80 }))),
        ([shards, steps]) => {
          const sim = new Sim(shards);
          // visitor index -> [cursor index, position] in the order the polls read them
          const shown = new Map<number, [number, number][]>();
          for (const step of steps) {
            sim.nowMs += step.dtMs;
            if (step.kind === 'join') sim.join(step.shard);
            else if (step.kind === 'tick') sim.tick(step.release);
            else if (sim.cursors.length > 0) {
              // The edge holds one of the latest cursors (its cache may lag a refresh or two).
              const at = Math.max(0, sim.cursors.length - 1 - step.age);
              const cursor = sim.cursors[at]!;
              const exact = new Set<number>();
              sim.places.forEach((place, v) => {
                // A visitor polls with a place handed out before this cursor's publication... or after it: the edge may be behind.
                const view = viewPlace(cursor, place, null, sim.nowMs);
                if (view.released || view.position === null) {
                  if (view.positionRange) expect(view.positionRange.min - 1).toBeLessThanOrEqual(sim.trueAhead(place, cursor));
                  return;
                }
                const truth = sim.trueAhead(place, cursor);
                const range = view.positionRange;
                if (range) {
                  expect(range.min - 1).toBeLessThanOrEqual(truth);
                  expect(range.max! - 1).toBeGreaterThanOrEqual(truth);
                } else {
                  expect(view.ahead).toBe(truth);
                  expect(exact.has(view.position)).toBe(false);
                  exact.add(view.position);
                }
                (shown.get(v) ?? shown.set(v, []).get(v)!).push([at, view.position]);
              });
            }
          }
          for (const polls of shown.values()) {
            const inOrder = [...polls].sort((a, b) => a[0] - b[0]);
            for (let i = 1; i < inOrder.length; i++) expect(inOrder[i]![1]).toBeLessThanOrEqual(inOrder[i - 1]![1]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with one queue shard, every counted place is exact', () => {
    fc.assert(
      fc.property(fc.array(stepArb(1), { minLength: 5, maxLength: 60 }), (steps) => {
        const sim = new Sim(1);
        for (const step of steps) {
          sim.nowMs += step.dtMs;
          if (step.kind === 'join') sim.join(0);
          else if (step.kind === 'tick') sim.tick(step.release);
        }
        const cursor = sim.cursors.at(-1);
        if (!cursor) return;
        for (const place of sim.places) {
          const view = viewPlace(cursor, place, null, sim.nowMs);
          expect(view.positionRange).toBeNull();
          if (!view.released && !view.counting) expect(view.ahead).toBe(sim.trueAhead(place, cursor));
          // Counting lasts until the place's second is sealed: at most one tick after that second ends.
          if (view.counting) expect(place.bucket).toBeGreaterThanOrEqual(Math.floor(cursor.publishedAtMs / BUCKET_MS));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('lottery ranks read from the draw marks', () => {
  const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });

  it('are exact in the window, true ranges beyond it, never rising as ranks are released, exact ones never shared', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(hex, { minLength: 1, maxLength: 300, selector: (k) => k.slice(0, 13) }),
        fc.array(fc.nat(40), { minLength: 1, maxLength: 12 }),
        fc.record({ next: fc.integer({ min: 1, max: 20 }), fixed: fc.integer({ min: 1, max: 20 }) }),
        (unsorted, releases, limits) => {
          const keys = [...unsorted].sort();
          let released = 0;
          const last = new Map<string, number>();
          for (const r of [0, ...releases]) {
            released = Math.min(keys.length, released + r);
            const draw = {
              drawn: true,
              size: keys.length,
              released,
              seed: 's',
              releasedKey: null,
              marks: drawMarksFrom(keys, released, limits),
            };
            const exact = new Set<number>();
            keys.forEach((key, i) => {
              if (i < released) return;
              const ahead: AheadBounds = drawAhead(key, draw);
              const truth = i - released;
              expect(ahead.min).toBeLessThanOrEqual(truth);
              expect(ahead.max).toBeGreaterThanOrEqual(truth);
              if (ahead.min === ahead.max) {
                expect(exact.has(truth)).toBe(false);
                exact.add(truth);
              }
              const before = last.get(key);
              if (before !== undefined) expect(ahead.max!).toBeLessThanOrEqual(before);
              last.set(key, ahead.max!);
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
