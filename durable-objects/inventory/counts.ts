// The organizer's counts from grouped rows, deadlines applied: pure, so the rule is tested without storage.
import type { HoldStatus, InventoryStats } from '../../contracts/inventory-answers';
import { effectiveStatus } from './hold-policy';

/**
 * Numbered seats by state at `nowMs`. Deadlines count even before the timer ran: a due HELD hold
 * is free again, a due PAYMENT_PENDING hold needs reconciliation (its seats stay out of sale).
 *
 * @param rows seated places per stored status, split by whether the deadline passed (`due` 1/0)
 * @param seatTotal seats in the plan
 */
export function seatCounts(
  rows: { status: HoldStatus; due: number; n: number }[],
  seatTotal: number,
  nowMs: number,
): InventoryStats['seats'] {
  const seats = { available: 0, held: 0, paymentPending: 0, needsReconciliation: 0, sold: 0 };
  for (const r of rows) {
    const s = effectiveStatus({ status: r.status, expiresAtMs: r.due ? nowMs : nowMs + 1 }, nowMs);
    if (s === 'HELD') seats.held += r.n;
    else if (s === 'PAYMENT_PENDING') seats.paymentPending += r.n;
    else if (s === 'NEEDS_RECONCILIATION') seats.needsReconciliation += r.n;
    else if (s === 'SOLD') seats.sold += r.n;
  }
  seats.available = seatTotal - seats.held - seats.paymentPending - seats.needsReconciliation - seats.sold;
  return seats;
}

/** Holds per stored status, every status present (0 when none). */
export function holdCounts(rows: { status: HoldStatus; n: number }[]): Record<HoldStatus, number> {
  const holds: Record<HoldStatus, number> = { HELD: 0, PAYMENT_PENDING: 0, NEEDS_RECONCILIATION: 0, SOLD: 0, RELEASED: 0, EXPIRED: 0 };
  for (const r of rows) holds[r.status] = r.n;
  return holds;
}
