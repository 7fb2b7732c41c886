// Random schedules of inventory operations (fast-check arbitraries), shared by the pure model test
// and the workerd test that runs the same schedules against the real object.
import fc from 'fast-check';
import { InventoryModel } from './inventory-model';

export const SEATS = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4'];
export const TIERS = [{ tier: 'floor', capacity: 5, priceMinor: 3000 }];
export const SEAT_PRICE = 5000;
export const TTL_MS = 60_000;
export const GRACE_MS = 30_000;
export const MAX_PER_ACCOUNT = 6;

/** One step of a schedule. Holds are picked by index among the holds created so far. */
export type Op =
  | { kind: 'hold'; account: number; request: { seatIds: string[] } | { tier: string; quantity: number }; key: number }
  | { kind: 'payment_pending'; pick: number }
  | { kind: 'confirm'; pick: number; order: number; wrongAmount: boolean }
  | { kind: 'release'; pick: number; byOrigin: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'alarm' };

// Plain objects (fast-check may build null-prototype ones, which Durable Object RPC cannot clone).
const arbRequest = fc.oneof(
  { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 4 }).map((seatIds) => ({ seatIds })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('floor', 'nope'), fc.integer({ min: 0, max: 4 })).map(([tier, quantity]) => ({ tier, quantity })),
  },
);

/** Weighted random operations, including retries (a small key space makes keys repeat). */
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('hold' as const), account: fc.nat(2), request: arbRequest, key: fc.nat(4) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('payment_pending' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat(), order: fc.nat(1), wrongAmount: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), byOrigin: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 2 * TTL_MS }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'alarm' as const }) },
);

export const arbSchedule = fc.array(arbOp, { minLength: 5, maxLength: 40 });

/** A fresh reference inventory with the schedules' seat plan, tier and rules. */
export function scheduleModel(): InventoryModel {
  return new InventoryModel({
    seatIds: SEATS,
    seatPriceMinor: SEAT_PRICE,
    tiers: TIERS,
    holdTtlMs: TTL_MS,
    paymentGraceMs: GRACE_MS,
    maxSeatsPerAccount: MAX_PER_ACCOUNT,
  });
}
