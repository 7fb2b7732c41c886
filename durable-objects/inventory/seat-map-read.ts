// Building the Inventory's seat map answers from storage, serialized once and reused for a second:
// one snapshot, and deltas each shared by the readers whose versions it covers.
import type { InventoryConfig } from '../../contracts/event-config';
import type { SeatMap } from '../../contracts/inventory-answers';
import type { PlanHead } from './plan-store';
import { planSeatMap } from './seat-map-plan';
import type { InventoryStore } from './store';

/** A built answer (snapshot or delta) serves every reader for this long, ms. */
const REUSE_MS = 1_000;
/**
 * A kept delta serves a reader whose `since` is at most this many versions past the delta's own
 * start (and not past its version), so the readers of one second share a few deltas whatever
 * versions they hold. A start below `since` is still right: the answer is a superset of the
 * changes the reader needs, each with its latest status.
 */
export const DELTA_SHARE_VERSIONS = 256;
/** At most this many deltas are kept at once; past it the oldest goes first. */
const MAX_KEPT_DELTAS = 64;
/**
 * Kept deltas together stay below this many characters (old ones list most of the venue: 79
 * deltas of a 100,000-seat event reach 130 MB, past an object's 128 MB of memory); a larger delta
 * is answered and not kept.
 */
export const MAX_KEPT_DELTA_CHARS = 16 * 1024 * 1024;

/** One built answer: the map as JSON, its version, and when it was built (object clock, epoch ms). */
interface Built {
  atMs: number;
  json: string;
  version: number;
}

/** A built delta, and the version it starts from (its `since`). */
interface BuiltDelta extends Built {
  since: number;
}

/**
 * The seat maps of one Inventory object. Each answer is read from storage and serialized once,
 * then handed out as that string for REUSE_MS: a string leaves the object by RPC as one copy,
 * where a map of 50,000 seat objects is structured-cloned per reader (about 700 no-op RPCs of the
 * object's time, `npm run bench:inventory`).
 */
export class SeatMapReader {
  /** Full seat maps (snapshots) built from storage since the object started. */
  snapshotsBuilt = 0;
  /** Deltas built from storage since the object started. */
  deltasBuilt = 0;
  private snapshot: Built | null = null;
  /** Deltas kept, oldest first, and their characters in all. */
  private deltas: BuiltDelta[] = [];
  private deltaChars = 0;

  constructor(private readonly store: InventoryStore) {}

  /** Drops the kept answers (seats changed without a hold transition, e.g. an allocation's release). */
  forget(): void {
    this.snapshot = null;
    this.deltas = [];
    this.deltaChars = 0;
  }

  /**
   * The map for a reader with `since` (see `planSeatMap`), as JSON (a `SeatMap`): the changes after
   * a version at or a little below it (DELTA_SHARE_VERSIONS), or every seat with expired holds
   * shown as available. Tier counters, prices and the sale state come with both; the event's own
   * object of an event with sections names them (the edge merges their maps). An answer may be up
   * to REUSE_MS old (the edge caches it that long too), never older than the reader's own version:
   * its reader follows with `since` = its version, so nothing is missed.
   * @param nowMs the object's clock, epoch ms
   */
  read(head: PlanHead, config: InventoryConfig, since: number | undefined, nowMs: number): { json: string; version: number } {
    const plan = planSeatMap(since, head);
    if (plan.kind === 'delta') {
      const kept = this.keptDelta(plan.since, nowMs);
      if (kept) return kept;
      this.deltasBuilt++;
      const changes = this.store.changesSince(plan.since, nowMs);
      const map: SeatMap = { kind: 'delta', version: head.version, since: plan.since, changes, ...this.common(head, config) };
      return this.keep({ atMs: nowMs, json: JSON.stringify(map), version: head.version, since: plan.since });
    }
    if (!this.snapshot || !fresh(this.snapshot, nowMs)) {
      this.snapshotsBuilt++;
      const seats = this.store.snapshotSeats(nowMs);
      const map: SeatMap = { kind: 'snapshot', version: head.version, seats, ...this.common(head, config) };
      this.snapshot = { atMs: nowMs, json: JSON.stringify(map), version: head.version };
    }
    return this.snapshot;
  }

  /**
   * The newest fresh kept delta that covers `since`: it starts at it, or at most
   * DELTA_SHARE_VERSIONS below it and ends after it (a reader already at a delta's version gets a
   * delta of its own, not changes it has).
   */
  private keptDelta(since: number, nowMs: number): BuiltDelta | null {
    let best: BuiltDelta | null = null;
    for (const d of this.deltas) {
      const covers = d.since === since || (d.since < since && since - d.since <= DELTA_SHARE_VERSIONS && d.version > since);
      if (covers && fresh(d, nowMs) && d.version > (best?.version ?? -1)) best = d;
    }
    return best;
  }

  private common(head: PlanHead, config: InventoryConfig) {
    return {
      tiers: this.store.tiers(),
      seatPriceMinor: config.seatPriceMinor,
      currency: config.currency,
      salesClosed: head.salesClosed,
      ...(config.sections
        ? { sections: config.sections.map((x) => ({ section: x.section, version: 0, seatPriceMinor: x.priceMinor, seats: x.seats })) }
        : {}),
    };
  }

  /** Characters of the deltas kept now (for tests). */
  get keptDeltaChars(): number {
    return this.deltaChars;
  }

  private keep(built: BuiltDelta): BuiltDelta {
    if (built.json.length > MAX_KEPT_DELTA_CHARS) return built;
    // Oldest first: stale ones go, then the oldest live ones, until it fits.
    while (
      this.deltas.length &&
      (this.deltas.length >= MAX_KEPT_DELTAS ||
        this.deltaChars + built.json.length > MAX_KEPT_DELTA_CHARS ||
        !fresh(this.deltas[0]!, built.atMs))
    )
      this.deltaChars -= this.deltas.shift()!.json.length;
    this.deltas.push(built);
    this.deltaChars += built.json.length;
    return built;
  }
}

/** Whether an answer built at `built.atMs` may still be handed out at `nowMs` (a clock that went back rebuilds). */
function fresh(built: Built, nowMs: number): boolean {
  return nowMs >= built.atMs && nowMs - built.atMs < REUSE_MS;
}
