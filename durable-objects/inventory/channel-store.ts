// The Inventory's SQL for sales channels, allocations and the change feed: reads and
// writes, nothing that decides (allocation-policy.ts decides). The feed rows themselves are written
// by the triggers of migration 5; this module only reads and prunes them.
import type { Sql } from '../shared/sql';
import type { AllocationView, ChannelView, FeedEntry, FeedItem } from '../../contracts/channel-answers';
import { allocationLive, type AllocationFacts, type AllocationSeatFacts } from './allocation-policy';

interface ChannelRow {
  channel_id: string;
  name: string;
  generation: number;
  revoked: number;
  created_at: number;
  updated_at: number;
}

interface AllocationRow {
  allocation_id: string;
  channel_id: string;
  kind: 'seats' | 'tier';
  tier: string | null;
  quantity: number;
  release_at: number;
  ended: number;
}

interface FeedRow {
  id: number;
  version: number;
  item: 'seat' | 'tier';
  name: string;
  status: 'AVAILABLE' | 'HELD' | 'SOLD' | null;
  allocation_id: string | null;
  channel_id: string | null;
  capacity: number | null;
  held: number | null;
  sold: number | null;
  reserved: number | null;
}

const channelView = (r: ChannelRow): ChannelView => ({
  channelId: r.channel_id,
  name: r.name,
  generation: r.generation,
  revoked: r.revoked === 1,
  createdAtMs: r.created_at,
  updatedAtMs: r.updated_at,
});

/** Channel, allocation and feed storage of one event. Call the writers inside `transactionSync`. */
export class ChannelStore {
  constructor(private readonly sql: Sql) {}

  channel(channelId: string): ChannelView | null {
    const r = this.sql.one<ChannelRow>`SELECT * FROM inv_channels WHERE channel_id = ${channelId}`;
    return r && channelView(r);
  }

  channels(): ChannelView[] {
    return this.sql.all<ChannelRow>`SELECT * FROM inv_channels ORDER BY channel_id`.map(channelView);
  }

  /** Creates the channel at generation 1, or writes its new name, generation and revoked flag. */
  saveChannel(c: ChannelView): void {
    this.sql.run`INSERT INTO inv_channels (channel_id, name, generation, revoked, created_at, updated_at)
      VALUES (${c.channelId}, ${c.name}, ${c.generation}, ${c.revoked ? 1 : 0}, ${c.createdAtMs}, ${c.updatedAtMs})
      ON CONFLICT (channel_id) DO UPDATE SET name = excluded.name, generation = excluded.generation, revoked = excluded.revoked,
        updated_at = excluded.updated_at`;
  }

  /** One allocation with its use and seats, or null. */
  allocation(allocationId: string): (AllocationFacts & { seatIds: string[]; ended: boolean }) | null {
    const r = this.sql.one<AllocationRow>`SELECT * FROM inv_allocations WHERE allocation_id = ${allocationId}`;
    return r && { ...this.facts(r), seatIds: this.allocatedSeats(allocationId), ended: r.ended === 1 };
  }

  /** Every allocation (optionally one channel's), as callers see it at `nowMs`. */
  allocationViews(nowMs: number, channelId: string | null): AllocationView[] {
    const rows = this.sql.all<AllocationRow>`SELECT * FROM inv_allocations
      WHERE channel_id = COALESCE(${channelId}, channel_id) ORDER BY allocation_id`;
    return rows.map((r) => {
      const f = this.facts(r);
      const seatIds = r.kind === 'seats' ? this.allocatedSeats(r.allocation_id) : [];
      return { ...f, seatIds, live: allocationLive(f, nowMs) && r.ended === 0 };
    });
  }

  /** The allocation (live or not yet settled) of each of these seats that has one. */
  seatAllocations(seatIds: readonly string[]): Map<string, AllocationFacts> {
    const rows = this.sql.all<AllocationRow & { seat_id: string }>`SELECT x.seat_id, a.* FROM inv_allocation_seats x
      JOIN inv_allocations a ON a.allocation_id = x.allocation_id WHERE x.seat_id IN (SELECT value FROM json_each(${JSON.stringify(seatIds)}))`;
    return new Map(rows.map((r) => [r.seat_id, this.facts(r)]));
  }

  /** Every allocation of a tier that has not been settled as ended. */
  tierAllocations(tier: string): AllocationFacts[] {
    return this.sql.all<AllocationRow>`SELECT * FROM inv_allocations WHERE kind = 'tier' AND tier = ${tier} AND ended = 0`.map((r) =>
      this.facts(r),
    );
  }

  /** Requested and currently allocated seats that exist, with stored status and live allocation (after the sweep). */
  allocationSeatFacts(seatIds: readonly string[], nowMs: number): AllocationSeatFacts[] {
    return this.sql.all<{ seat_id: string; status: AllocationSeatFacts['status']; allocation_id: string | null }>`
      SELECT s.seat_id, s.status, CASE WHEN a.release_at > ${nowMs} THEN a.allocation_id END AS allocation_id FROM inv_seats s
      LEFT JOIN inv_allocation_seats x ON x.seat_id = s.seat_id LEFT JOIN inv_allocations a ON a.allocation_id = x.allocation_id
      WHERE s.seat_id IN (SELECT value FROM json_each(${JSON.stringify(seatIds)}))`.map((r) => ({
      seatId: r.seat_id,
      status: r.status,
      allocationId: r.allocation_id,
    }));
  }

  insertAllocation(a: AllocationFacts, nowMs: number): void {
    this.sql.run`INSERT INTO inv_allocations (allocation_id, channel_id, kind, tier, quantity, release_at, created_at)
      VALUES (${a.allocationId}, ${a.channelId}, ${a.kind}, ${a.tier}, ${a.quantity}, ${a.releaseAtMs}, ${nowMs})`;
  }

  updateAllocation(allocationId: string, quantity: number, releaseAtMs: number): void {
    this.sql.run`UPDATE inv_allocations SET quantity = ${quantity}, release_at = ${releaseAtMs} WHERE allocation_id = ${allocationId}`;
  }

  /**
   * Adds and removes allocated seats. Each change is a feed entry at the map version the caller
   * bumped (the triggers of migration 5 write it), which is also the seat map's delta (migration 7).
   */
  moveSeats(allocationId: string, add: readonly string[], remove: readonly string[]): void {
    for (const id of add) this.sql.run`INSERT INTO inv_allocation_seats (seat_id, allocation_id) VALUES (${id}, ${allocationId})`;
    for (const id of remove) this.sql.run`DELETE FROM inv_allocation_seats WHERE seat_id = ${id} AND allocation_id = ${allocationId}`;
  }

  /** Allocations past their release time whose end is not yet written (settled), oldest first. */
  dueAllocations(nowMs: number): string[] {
    return this.sql.all<{ allocation_id: string }>`SELECT allocation_id FROM inv_allocations WHERE ended = 0 AND release_at <= ${nowMs}
      ORDER BY release_at, allocation_id`.map((r) => r.allocation_id);
  }

  /** Writes an allocation's end at the version the caller bumped: its seats leave it (a feed entry each), its quota stops reserving. */
  endAllocation(allocationId: string): void {
    this.moveSeats(allocationId, [], this.allocatedSeats(allocationId));
    this.sql.run`UPDATE inv_allocations SET ended = 1 WHERE allocation_id = ${allocationId}`;
  }

  /** The earliest release time of an allocation not yet settled (epoch ms), or null. */
  nextRelease(): number | null {
    return this.sql.one<{ at: number | null }>`SELECT MIN(release_at) AS at FROM inv_allocations WHERE ended = 0`?.at ?? null;
  }

  /** True when any allocation exists that has not been settled (the public hold path skips its lookups otherwise). */
  anyLive(): boolean {
    return this.sql.one`SELECT 1 AS x FROM inv_allocations WHERE ended = 0 LIMIT 1` !== null;
  }

  /** Feed entries with id > `after`, oldest first, at most `limit`. */
  feedAfter(after: number, limit: number): FeedEntry[] {
    return this.sql.all<FeedRow>`SELECT * FROM inv_feed WHERE id > ${after} ORDER BY id LIMIT ${limit}`.map((r) => ({
      id: r.id,
      version: r.version,
      ...feedItem(r),
    }));
  }

  /** The newest feed entry id (0 when none), and the cursor below which entries were pruned. */
  feedBounds(): { newest: number; floor: number } {
    const newest = this.sql.one<{ n: number | null }>`SELECT MAX(id) AS n FROM inv_feed`?.n ?? 0;
    const floor = this.sql.one<{ f: number }>`SELECT feed_from AS f FROM inv_plan WHERE id = 1`?.f ?? 0;
    return { newest: Math.max(newest, floor), floor };
  }

  /** Every seat and tier in the feed's item shape: what folding the whole feed onto the plan gives. */
  feedState(): FeedItem[] {
    const seats = this.sql.all<FeedRow>`SELECT 'seat' AS item, v.seat_id AS name, v.status, v.allocation_id, v.channel_id
      FROM inv_seat_feed_state v JOIN inv_seats s ON s.seat_id = v.seat_id ORDER BY s.ord`;
    const tiers = this.sql
      .all<FeedRow>`SELECT 'tier' AS item, tier AS name, capacity, held, sold, reserved FROM inv_tier_feed_state ORDER BY tier`;
    return [...seats, ...tiers].map(feedItem);
  }

  private allocatedSeats(allocationId: string): string[] {
    return this.sql.all<{
      seat_id: string;
    }>`SELECT seat_id FROM inv_allocation_seats WHERE allocation_id = ${allocationId} ORDER BY seat_id`.map((r) => r.seat_id);
  }

  private facts(r: AllocationRow): AllocationFacts {
    const used =
      r.kind === 'tier'
        ? (this.sql.one<{ n: number | null }>`SELECT SUM(quantity) AS n FROM inv_holds WHERE allocation_id = ${r.allocation_id}
            AND status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD')`?.n ?? 0)
        : (this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM inv_allocation_seats x JOIN inv_seats s ON s.seat_id = x.seat_id
            WHERE x.allocation_id = ${r.allocation_id} AND s.status != 'AVAILABLE'`?.n ?? 0);
    return {
      allocationId: r.allocation_id,
      channelId: r.channel_id,
      kind: r.kind,
      tier: r.tier,
      quantity: r.quantity,
      used,
      releaseAtMs: r.release_at,
    };
  }
}

function feedItem(
  r: Pick<FeedRow, 'item' | 'name' | 'status' | 'allocation_id' | 'channel_id' | 'capacity' | 'held' | 'sold' | 'reserved'>,
): FeedItem {
  return r.item === 'seat'
    ? { item: 'seat', seatId: r.name, status: r.status!, allocationId: r.allocation_id, channelId: r.channel_id }
    : { item: 'tier', tier: r.name, capacity: r.capacity!, held: r.held!, sold: r.sold!, reserved: r.reserved! };
}
