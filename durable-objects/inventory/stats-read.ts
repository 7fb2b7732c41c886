// The organizer's numbers of one Inventory object, read from its stores (counts.ts holds the rules).
import type { StatsAnswer } from '../../contracts/inventory-answers';
import type { Sql } from '../shared/sql';
import { consistencyCounts } from './consistency';
import { holdCounts, seatCounts } from './counts';
import type { PlanStore } from './plan-store';
import type { InventoryStore } from './store';
import { ResaleStore } from './resale-store';

/**
 * Counts (seats by state at `nowMs`, tiers, holds by status, the resale's), the consistency checks,
 * the sale state and the configuration change in flight.
 * @returns `event_not_found` without a plan
 */
export function readStats(sql: Sql, store: InventoryStore, plans: PlanStore, nowMs: number): StatsAnswer {
  const config = plans.plan();
  const head = plans.head();
  if (!config || !head) return { kind: 'event_not_found' };
  const pending = plans.pendingChange();
  return {
    kind: 'stats',
    stats: {
      config,
      version: head.version,
      seats: seatCounts(store.seatedByStatus(nowMs), config.seats, nowMs),
      tiers: store.tiers(),
      holds: holdCounts(store.holdCounts()),
      consistency: consistencyCounts(sql),
      salesClosed: head.salesClosed,
      ...(config.resale ? { resale: new ResaleStore(sql).counts() } : {}),
      pendingChange: pending && { startedAtMs: pending.startedAtMs, leaseUntilMs: pending.leaseUntilMs, createdPlan: pending.createdPlan },
    },
  };
}
