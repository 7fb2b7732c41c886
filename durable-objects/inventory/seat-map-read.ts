// Building the Inventory's seat map answers from storage: deltas per `since`, and one snapshot reused for a second.
import type { InventoryConfig } from '../../contracts/event-config';
import type { SeatMap } from '../../contracts/inventory-answers';
import type { PlanHead } from './plan-store';
import { planSeatMap } from './seat-map-plan';
import type { InventoryStore } from './store';

/** A built snapshot of the seat map serves every reader for this long, ms. */
const SNAPSHOT_REUSE_MS = 1_000;

/** The seat maps of one Inventory object (keeps its last snapshot in memory). */
export class SeatMapReader {
  /** Full seat maps (snapshots) built from storage since the object started. */
  snapshotsBuilt = 0;
  /** The last snapshot built, reused for SNAPSHOT_REUSE_MS (one read of every seat per second, however many isolates ask). */
  private snapshot: { atMs: number; map: SeatMap } | null = null;

  constructor(private readonly store: InventoryStore) {}

  /** Drops the kept snapshot (seats changed without a hold transition, e.g. an allocation's release). */
  forget(): void {
    this.snapshot = null;
  }

  /**
   * The map for a reader with `since` (see `planSeatMap`): the changes after it, or every seat with
   * expired holds shown as available. Tier counters, prices and the sale state come with both; the
   * event's own object of an event with sections names them (the edge merges their maps).
   * @param nowMs the object's clock, epoch ms
   */
  read(head: PlanHead, config: InventoryConfig, since: number | undefined, nowMs: number): SeatMap {
    const common = {
      tiers: this.store.tiers(),
      seatPriceMinor: config.seatPriceMinor,
      currency: config.currency,
      salesClosed: head.salesClosed,
      ...(config.sections
        ? { sections: config.sections.map((x) => ({ section: x.section, version: 0, seatPriceMinor: x.priceMinor, seats: x.seats })) }
        : {}),
    };
    const plan = planSeatMap(since, head);
    if (plan.kind === 'delta') {
      return { kind: 'delta', version: head.version, since: plan.since, changes: this.store.changesSince(plan.since, nowMs), ...common };
    }
    // A snapshot may be a second old (the edge caches it that long anyway): readers then follow
    // with `since` = its version, so nothing is missed. Building one reads every seat.
    if (!this.snapshot || nowMs - this.snapshot.atMs >= SNAPSHOT_REUSE_MS || nowMs < this.snapshot.atMs) {
      this.snapshotsBuilt++;
      this.snapshot = { atMs: nowMs, map: { kind: 'snapshot', version: head.version, seats: this.store.snapshotSeats(nowMs), ...common } };
    }
    return this.snapshot.map;
  }
}
