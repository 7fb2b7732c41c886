// The Inventory's seat-map answers, built once and handed out for a second (seat-map-read.ts): a
// reader holding any version it was given, applying the answer it gets, has exactly the map of the
// answer's version, never steps back, and is never given a map built more than a second before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InventoryConfig } from '../../contracts/event-config';
import type { SeatMap, SeatStatus } from '../../contracts/inventory-answers';
import type { PlanHead } from '../../durable-objects/inventory/plan-store';
import { DELTA_SHARE_VERSIONS, MAX_KEPT_DELTA_CHARS, SeatMapReader } from '../../durable-objects/inventory/seat-map-read';
import type { InventoryStore } from '../../durable-objects/inventory/store';
import { DELTA_SHARE } from '../../bench/sale-sim.ts';
import { SINCE_STEP, normalizeSince } from '../../src/lib/seat-map-cache';

const SEATS = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4'];
const STATUSES: SeatStatus[] = ['AVAILABLE', 'HELD', 'SOLD'];
const CONFIG = { seatPriceMinor: 100, currency: 'EUR' } as InventoryConfig;

/** Storage as the reader sees it: each write bumps the version and changes one seat; the map of every version is kept. */
function fakeStorage() {
  const now = new Map(SEATS.map((id) => [id, 'AVAILABLE' as SeatStatus]));
  const changedAt = new Map<string, number>();
  const maps = new Map<number, Record<string, SeatStatus>>([[0, Object.fromEntries(now)]]);
  let version = 0;
  const store = {
    tiers: () => [],
    snapshotSeats: () => [...now].map(([id, status]) => ({ id, status })),
    changesSince: (since: number) => [...changedAt].filter(([, v]) => v > since).map(([id]) => ({ id, status: now.get(id)! })),
  } as unknown as InventoryStore;
  return {
    store,
    head: (): PlanHead => ({ version, prunedThrough: 0, soldOut: false, eventId: null, salesClosed: false }),
    write(seat: string, status: SeatStatus) {
      version++;
      now.set(seat, status);
      changedAt.set(seat, version);
      maps.set(version, Object.fromEntries(now));
    },
    mapAt: (v: number) => maps.get(v)!,
  };
}

const arbOp = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('write' as const), seat: fc.constantFrom(...SEATS), status: fc.constantFrom(...STATUSES) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 1_500 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('read' as const), reader: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'forget' as const }) },
);

describe('SeatMapReader', () => {
  it('brings every reader to exactly the map of the answer’s version, never back, never from more than a second before', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { minLength: 1, maxLength: 80 }), (ops) => {
        const storage = fakeStorage();
        const reader = new SeatMapReader(storage.store);
        const readers = new Map<number, { version: number; seats: Record<string, SeatStatus> }>();
        const writes: { atMs: number; version: number }[] = [{ atMs: 0, version: 0 }];
        let nowMs = 0;
        for (const op of ops) {
          if (op.kind === 'write') {
            storage.write(op.seat, op.status);
            writes.push({ atMs: nowMs, version: storage.head().version });
          } else if (op.kind === 'wait') nowMs += op.ms;
          else if (op.kind === 'forget') reader.forget();
          else {
            const mine = readers.get(op.reader);
            const answer = reader.read(storage.head(), CONFIG, mine?.version, nowMs);
            const map = JSON.parse(answer.json) as SeatMap;
            expect(map.version).toBe(answer.version);
            // Built at most a second ago: at least the version storage had a second ago.
            const floor = writes.filter((w) => w.atMs <= nowMs - 1_000).at(-1)?.version ?? 0;
            expect(map.version).toBeGreaterThanOrEqual(floor);
            let seats: Record<string, SeatStatus>;
            if (map.kind === 'snapshot') seats = Object.fromEntries(map.seats.map((s) => [s.id, s.status]));
            else {
              expect(mine).toBeDefined();
              expect(map.since).toBeLessThanOrEqual(mine!.version);
              expect(map.version).toBeGreaterThanOrEqual(mine!.version);
              seats = { ...mine!.seats };
              for (const c of map.changes) seats[c.id] = c.status;
            }
            expect(seats).toEqual(storage.mapAt(map.version));
            readers.set(op.reader, { version: map.version, seats });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('shares one delta among the readers of a second whose versions it covers', () => {
    const storage = fakeStorage();
    const reader = new SeatMapReader(storage.store);
    for (let i = 0; i < 1_000; i++) storage.write(SEATS[i % SEATS.length]!, STATUSES[i % 3]!);
    const first = reader.read(storage.head(), CONFIG, 600, 5_000);
    for (let i = 0; i < 300; i++) storage.write(SEATS[i % SEATS.length]!, STATUSES[(i + 1) % 3]!);
    // Readers after the delta's start and before its version, up to DELTA_SHARE_VERSIONS past its start: the same answer.
    for (const since of [600, 601, 700, 600 + DELTA_SHARE_VERSIONS]) expect(reader.read(storage.head(), CONFIG, since, 5_500)).toBe(first);
    expect(reader.deltasBuilt).toBe(1);
    // Already at its version, or further past its start: a delta of their own, from their version.
    expect(JSON.parse(reader.read(storage.head(), CONFIG, 1_000, 5_500).json)).toMatchObject({ since: 1_000, version: 1_300 });
    expect(JSON.parse(reader.read(storage.head(), CONFIG, 600 + DELTA_SHARE_VERSIONS + 1, 5_500).json)).toMatchObject({
      since: 600 + DELTA_SHARE_VERSIONS + 1,
      version: 1_300,
    });
    expect(reader.deltasBuilt).toBe(3);
    // A second after it was built, the first delta is built again from storage.
    expect(JSON.parse(reader.read(storage.head(), CONFIG, 600, 6_000).json)).toMatchObject({ since: 600, version: 1_300 });
    expect(reader.deltasBuilt).toBe(4);
  });

  it('is modelled by the sale simulation with the same sharing window', () => expect(DELTA_SHARE).toBe(DELTA_SHARE_VERSIONS));

  it('keeps deltas under MAX_KEPT_DELTA_CHARS when one reader walks every `since` key of the kept versions, newest first', () => {
    // 40,000 seats changed over 20,000 versions: the oldest keys' deltas list most of the venue.
    const [seats, versions] = [40_000, 20_000];
    const ids = Array.from({ length: seats }, (_, i) => `R${Math.floor(i / 100)}-${i % 100}`);
    const store = {
      tiers: () => [],
      snapshotSeats: () => [],
      changesSince: (since: number) =>
        ids.filter((_, i) => 1 + Math.floor((i * versions) / seats) > since).map((id) => ({ id, status: 'SOLD' })),
    } as unknown as InventoryStore;
    const head: PlanHead = { version: versions, prunedThrough: 0, soldOut: false, eventId: null, salesClosed: false };
    const reader = new SeatMapReader(store);
    let answered = 0;
    for (let since = versions - 1, t = 0; since >= 0; since -= SINCE_STEP, t += 10) {
      answered += reader.read(head, CONFIG, normalizeSince(since, versions), 5_000 + t).json.length;
      expect(reader.keptDeltaChars).toBeLessThanOrEqual(MAX_KEPT_DELTA_CHARS);
    }
    expect(reader.deltasBuilt).toBe(79);
    // Kept whole, the 79 deltas of that second would be twice the bound and more.
    expect(answered).toBeGreaterThan(2 * MAX_KEPT_DELTA_CHARS);
  });
});
