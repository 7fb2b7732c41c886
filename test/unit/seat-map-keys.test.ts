// Client-chosen `since` values never key more than a bounded set of seat-map answers, and the
// cached bodies stay under their byte bound.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSeatMap } from '../../durable-objects/inventory/seat-map-plan';
import type { SeatMap, SeatMapAnswer } from '../../contracts/inventory-answers';
import {
  DELTA_WINDOW,
  MAP_CACHE_MAX_BYTES,
  SINCE_STEP,
  SNAPSHOT_CACHE_MS,
  cachedSeatMap,
  normalizeSince,
  seatMapCacheBytes,
} from '../../src/lib/seat-map-cache';

describe('normalizeSince', () => {
  const cases: [string, number | undefined, number | undefined, number | undefined][] = [
    ['no since: the snapshot', undefined, 5_000, undefined],
    ['at the newest known version: that version', 5_000, 5_000, 5_000],
    ['above it (another isolate is newer, or forged): the newest known', 10 ** 14, 5_000, 5_000],
    ['just below it: rounded down to the step', 4_999, 5_000, 4_864],
    ['a multiple of the step stays', 4_864, 5_000, 4_864],
    ['further back than the kept deltas: the snapshot', 1, 30_000, undefined],
    ['nothing known yet: rounded down', 1_000, undefined, 768],
  ];
  for (const [name, since, known, expected] of cases) {
    it(name, () => expect(normalizeSince(since, known)).toBe(expected));
  }

  it('maps any client value to one of at most DELTA_WINDOW / SINCE_STEP + 2 keys, never asking for fewer changes than the client needs', () => {
    fc.assert(
      fc.property(fc.nat(10 ** 9), fc.array(fc.nat(Number.MAX_SAFE_INTEGER), { minLength: 1, maxLength: 500 }), (known, sinces) => {
        const keys = new Set(sinces.map((s) => normalizeSince(s, known)));
        expect(keys.size).toBeLessThanOrEqual(DELTA_WINDOW / SINCE_STEP + 2);
        for (const s of sinces) {
          const k = normalizeSince(s, known);
          // A snapshot, or a delta from no later than the client's version (or the newest one seen).
          if (k !== undefined) expect(k).toBeLessThanOrEqual(Math.min(s, known));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('planSeatMap (inside the Inventory)', () => {
  const head = { version: 500, prunedThrough: 100 };
  it.each([
    [undefined, { kind: 'snapshot' }],
    [99, { kind: 'snapshot' }],
    [100, { kind: 'delta', since: 100 }],
    [500, { kind: 'delta', since: 500 }],
    // The failing input: above the version it served a full snapshot per value.
    [501, { kind: 'delta', since: 500 }],
    [10 ** 15, { kind: 'delta', since: 500 }],
  ])('since %s -> %o', (since, expected) => expect(planSeatMap(since, head)).toEqual(expected));
});

describe('cachedSeatMap', () => {
  const answerOf = (map: SeatMap): SeatMapAnswer => ({ kind: 'map', json: JSON.stringify(map), version: map.version, sections: [] });
  const snapshotOf = (version: number, bytes: number): SeatMapAnswer =>
    answerOf({
      kind: 'snapshot',
      version,
      seats: [{ id: 'A1', status: 'AVAILABLE' }],
      tiers: [],
      seatPriceMinor: 1,
      currency: 'EUR' + 'x'.repeat(bytes),
      salesClosed: false,
    });

  it('loads each normalized key once per SNAPSHOT_CACHE_MS, whatever `since` values clients send', async () => {
    const now = 1_000_000;
    let loads = 0;
    const load = async (since: number | undefined): Promise<SeatMapAnswer> => {
      loads++;
      return since === undefined
        ? snapshotOf(7_000, 10)
        : answerOf({
            kind: 'delta',
            version: 7_000,
            since,
            changes: [],
            tiers: [],
            seatPriceMinor: 1,
            currency: 'EUR',
            salesClosed: false,
          });
    };
    await cachedSeatMap('keys-a', undefined, load, now);
    for (let i = 0; i < 60; i++) await cachedSeatMap('keys-a', 7_001 + i * 1_000, load, now + 1);
    expect(loads).toBe(2); // the snapshot, then one delta from 7,000 for all 60 values above it
    await cachedSeatMap('keys-a', 7_001, load, now + SNAPSHOT_CACHE_MS + 1);
    expect(loads).toBe(3);
  });

  it('keeps the cached bodies under MAP_CACHE_MAX_BYTES however many large maps are read', async () => {
    const big = 3 * 1024 * 1024;
    for (let i = 0; i < 20; i++) {
      await cachedSeatMap(`keys-big-${i}`, undefined, async () => snapshotOf(1, big), 2_000_000);
      expect(seatMapCacheBytes()).toBeLessThanOrEqual(MAP_CACHE_MAX_BYTES);
    }
    expect(seatMapCacheBytes()).toBeGreaterThan(big);
  });
});
