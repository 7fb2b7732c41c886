// What is left to sell, for the waiting room's cursor: seats and tier places by state, and the
// orders that sold them (the measured seats per buyer). Counts only: cheap enough for one call per tick.
import type { InventoryStock } from '../../contracts/inventory-answers';
import { holdCounts, seatCounts } from './counts';
import type { PlanStore } from './plan-store';
import type { InventoryStore } from './store';

/**
 * The stock of this object at `nowMs` (deadlines applied: a due HELD hold is free again): places
 * on sale now (`left`), held by buyers (may come back), sold, and the confirmed orders.
 * @returns null without a plan, and for an event with sections
 */
export function readStock(store: InventoryStore, plans: PlanStore, nowMs: number): InventoryStock | null {
  const config = plans.plan();
  // An event with sections keeps their seats in the sections' objects: this one alone would undercount.
  if (!config || (config.sections ?? []).length > 0) return null;
  const seats = seatCounts(store.seatedByStatus(nowMs), config.seats, nowMs);
  const tiers = store.tiers();
  const sum = (f: (t: (typeof tiers)[number]) => number) => tiers.reduce((a, t) => a + f(t), 0);
  return {
    left: Math.max(0, seats.available) + sum((t) => Math.max(0, t.available)),
    held: seats.held + sum((t) => t.held),
    sold: seats.sold + seats.paymentPending + sum((t) => t.sold),
    orders: holdCounts(store.holdCounts()).SOLD,
  };
}
