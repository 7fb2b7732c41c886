// The Inventory's SQL for seats, holds, tiers, the seat map's changes and the audit log (the plan row is plan-store.ts): reads and writes, nothing that decides.
import type { Sql } from '../shared/sql';
import type { Availability, SeatStatus } from './decide-hold';
import { effectiveStatus, targetKey, type HoldStatus, type HoldTarget } from './hold-policy';
import { DELTA_RETENTION } from './seat-map-plan';
import type { AuditEntry, HoldView, TierView } from '../../contracts/inventory-answers';

/** A hold row as stored (snake_case columns of `inv_holds`). */
export interface HoldRow {
  hold_id: string;
  account: string;
  status: HoldStatus;
  kind: 'seats' | 'tier';
  tier: string | null;
  quantity: number;
  price_minor: number;
  /** Null only for holds written before migration 3 ran. */
  currency: string | null;
  expires_at: number;
  order_id: string | null;
  request: string;
  first_result: string;
  /** The sales channel that placed the hold (migration 5), or null for a visitor's. */
  channel_id: string | null;
  /** When the hold was placed, epoch ms. */
  created_at: number;
  /** Extensions granted so far (migration 8). */
  extensions: number;
}

/** Who caused a transition, for the audit log. */
export type Actor = AuditEntry['actor'];

/** Seat and hold storage of one event. Call the writers inside `transactionSync`. */
export class InventoryStore {
  constructor(private readonly sql: Sql) {}

  /** Every tier's counters; `available` leaves out the places reserved for sales channels' live allocations (as settled). */
  tiers(): TierView[] {
    return this.sql.all<{ tier: string; capacity: number; price_minor: number; held: number; sold: number; reserved: number }>`
      SELECT t.*, v.reserved FROM inv_tiers t JOIN inv_tier_feed_state v ON v.tier = t.tier ORDER BY t.tier`.map((t) => ({
      tier: t.tier,
      capacity: t.capacity,
      priceMinor: t.price_minor,
      available: t.capacity - t.held - t.sold - t.reserved,
      held: t.held,
      sold: t.sold,
      allocated: t.reserved,
    }));
  }

  holdRow(holdId: string): HoldRow | null {
    return this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE hold_id = ${holdId}`;
  }

  /** The account's hold made with this idempotency key, if any. */
  holdByKey(account: string, idempotencyKey: string): HoldRow | null {
    return this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE account = ${account} AND idempotency_key = ${idempotencyKey}`;
  }

  /** A hold as callers see it, deadlines applied at `nowMs`; null if there is no such hold. */
  view(holdId: string, nowMs: number): HoldView | null {
    const row = this.holdRow(holdId);
    if (!row) return null;
    const seatIds = this.sql.all<{ seat_id: string }>`SELECT seat_id FROM inv_hold_seats WHERE hold_id = ${holdId} ORDER BY seat_id`.map(
      (r) => r.seat_id,
    );
    return {
      holdId,
      account: row.account,
      status: effectiveStatus({ status: row.status, expiresAtMs: row.expires_at }, nowMs),
      seatIds,
      tier: row.tier,
      quantity: row.quantity,
      priceMinor: row.price_minor,
      // The currency the hold was priced in, not the event's current one.
      currency:
        row.currency ?? this.sql.one<{ c: string | null }>`SELECT json_extract(config, '$.currency') AS c FROM inv_plan`?.c ?? 'EUR',
      expiresAtMs: row.expires_at,
      orderId: row.order_id,
    };
  }

  /** What storage knows about the places a target asks for (after the sweep). */
  availability(target: HoldTarget): Availability {
    if (target.kind === 'seats') {
      const found = this.sql.all<{ seat_id: string; status: SeatStatus }>`
        SELECT seat_id, status FROM inv_seats WHERE seat_id IN (SELECT value FROM json_each(${JSON.stringify(target.seatIds)}))`;
      return { kind: 'seats', found: found.map((s) => ({ seatId: s.seat_id, status: s.status })) };
    }
    const t = this.sql.one<{ capacity: number; held: number; sold: number; price_minor: number }>`
      SELECT capacity, held, sold, price_minor FROM inv_tiers WHERE tier = ${target.tier}`;
    return { kind: 'tier', tier: t ? { capacity: t.capacity, held: t.held, sold: t.sold, priceMinor: t.price_minor } : null };
  }

  /** Places an account holds or owns at `nowMs` (live holds and sales), optionally leaving one hold out. */
  ownedBy(account: string, nowMs: number, exceptHoldId: string | null): number {
    return (
      this.sql.one<{
        n: number | null;
      }>`SELECT SUM(quantity) AS n FROM inv_holds WHERE account = ${account} AND hold_id != ${exceptHoldId ?? ''}
        AND (status IN ('SOLD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION') OR (status = 'HELD' AND expires_at > ${nowMs}))`?.n ?? 0
    );
  }

  orderUsedElsewhere(orderId: string, holdId: string): boolean {
    return this.sql.one`SELECT hold_id FROM inv_holds WHERE order_id = ${orderId} AND hold_id != ${holdId}` !== null;
  }

  /**
   * Writes a new HELD hold with its seats (or tier places), idempotency record, audit line and deltas.
   * @param by who placed it: `actor` for the audit log, and for a sales channel its id and the tier allocation drawn on
   * @throws Error when a seat or tier changed since it was checked (the transaction rolls back)
   */
  insertHold(
    hold: HoldView,
    target: HoldTarget,
    idempotencyKey: string,
    nowMs: number,
    by: { actor: Actor; channelId: string | null; allocationId: string | null } = { actor: 'visitor', channelId: null, allocationId: null },
  ): void {
    const version = this.bumpVersion();
    this.sql
      .run`INSERT INTO inv_holds (hold_id, account, status, kind, tier, quantity, price_minor, currency, created_at, expires_at, idempotency_key, request, first_result, channel_id, allocation_id)
      VALUES (${hold.holdId}, ${hold.account}, 'HELD', ${target.kind}, ${hold.tier}, ${hold.quantity}, ${hold.priceMinor}, ${hold.currency}, ${nowMs}, ${hold.expiresAtMs},
        ${idempotencyKey}, ${targetKey(target)}, ${JSON.stringify(hold)}, ${by.channelId}, ${by.allocationId})`;
    if (target.kind === 'seats') {
      // One statement each for the hold's seats (json_each), not three per seat: the seat map's
      // deltas and the channels' feed are the feed entries the seat trigger writes (migration 5, 7).
      // `+status`: found by seat id, never by the status index (see applyTransition).
      const ids = JSON.stringify(target.seatIds);
      this.sql.run`INSERT INTO inv_hold_seats (hold_id, seat_id) SELECT ${hold.holdId}, value FROM json_each(${ids})`;
      const written = this.sql.all`UPDATE inv_seats SET status = 'HELD', hold_id = ${hold.holdId}, hold_expires_at = ${hold.expiresAtMs},
        order_id = NULL, version = ${version} WHERE seat_id IN (SELECT value FROM json_each(${ids})) AND +status = 'AVAILABLE' RETURNING seat_id`;
      // Throwing inside transactionSync rolls the whole hold back.
      if (written.length !== target.seatIds.length)
        throw new Error(`invariant: a seat of hold ${hold.holdId} changed between check and write`);
    } else {
      const written = this.sql.all`UPDATE inv_tiers SET held = held + ${hold.quantity}
        WHERE tier = ${target.tier} AND held + sold + ${hold.quantity} <= capacity RETURNING tier`;
      if (written.length !== 1) throw new Error(`invariant: tier ${target.tier} changed between check and write`);
    }
    this.audit(nowMs, hold.holdId, null, 'HELD', by.actor, 'hold placed');
  }

  /**
   * Writes one transition with its effects on seats or tier counters, audit and deltas. The seat
   * statements find a hold's seats by `hold_id` (its index); `+status` keeps SQLite from choosing
   * the status index instead, which reads every seat of that status (all HELD seats of the event).
   */
  applyTransition(
    row: HoldRow,
    to: HoldStatus,
    expiresAtMs: number,
    orderId: string | null,
    nowMs: number,
    actor: Actor,
    reason: string,
  ): void {
    const version = this.bumpVersion();
    const updated = this.sql.all`UPDATE inv_holds SET status = ${to}, expires_at = ${expiresAtMs}, order_id = COALESCE(${orderId}, order_id)
      WHERE hold_id = ${row.hold_id} AND status = ${row.status} RETURNING hold_id`;
    if (updated.length !== 1) throw new Error(`invariant: hold ${row.hold_id} changed under a transition`);
    if (to === 'RELEASED' || to === 'EXPIRED') {
      if (row.kind === 'seats') {
        // Only seats still carrying this hold's id: a seat re-held or sold since is never touched.
        this.sql.run`UPDATE inv_seats SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL, version = ${version}
          WHERE hold_id = ${row.hold_id} AND +status = 'HELD'`;
      } else {
        this.sql.run`UPDATE inv_tiers SET held = held - ${row.quantity} WHERE tier = ${row.tier}`;
      }
    } else if (to === 'PAYMENT_PENDING' && row.kind === 'seats') {
      // No deadline frees these seats any more: only the origin's confirm or release does.
      this.sql.run`UPDATE inv_seats SET hold_expires_at = NULL, version = ${version} WHERE hold_id = ${row.hold_id} AND +status = 'HELD'`;
    } else if (to === 'SOLD') {
      if (row.kind === 'seats') {
        // The face value is the first sale's price of the seat, kept for a resale (migration 9).
        const sold = this.sql.all`UPDATE inv_seats SET status = 'SOLD', order_id = ${orderId}, hold_expires_at = NULL, version = ${version},
          face_minor = COALESCE(face_minor, ${Math.floor(row.price_minor / row.quantity)}) WHERE hold_id = ${row.hold_id} AND +status = 'HELD' RETURNING seat_id`;
        if (sold.length !== row.quantity) throw new Error(`invariant: hold ${row.hold_id} no longer owns all its seats`);
      } else {
        this.sql.run`UPDATE inv_tiers SET held = held - ${row.quantity}, sold = sold + ${row.quantity} WHERE tier = ${row.tier}`;
      }
    }
    this.audit(nowMs, row.hold_id, row.status, to, actor, reason);
  }

  /** Applies every deadline passed at `nowMs` (HELD -> EXPIRED, PAYMENT_PENDING -> NEEDS_RECONCILIATION). */
  sweep(nowMs: number): void {
    for (const row of this.dueHolds(nowMs)) {
      const held = row.status === 'HELD';
      const reason = held ? 'hold TTL passed' : 'payment grace passed without an answer';
      this.applyTransition(row, held ? 'EXPIRED' : 'NEEDS_RECONCILIATION', row.expires_at, null, nowMs, 'timer', reason);
    }
  }

  /** Holds whose deadline passed at `nowMs` and that a timer must act on. */
  dueHolds(nowMs: number): HoldRow[] {
    return this.sql.all<HoldRow>`SELECT * FROM inv_holds WHERE status IN ('HELD', 'PAYMENT_PENDING') AND expires_at <= ${nowMs}`;
  }

  /** The earliest live deadline (epoch ms), or null. */
  nextDeadline(): number | null {
    return (
      this.sql.one<{ at: number | null }>`SELECT MIN(expires_at) AS at FROM inv_holds WHERE status IN ('HELD', 'PAYMENT_PENDING')`?.at ??
      null
    );
  }

  /**
   * Anything left to sell: an AVAILABLE seat, a tier place, or a HELD hold that may still expire,
   * except while waitlist offers are out: returned seats then go to the waitlist, and the event
   * stays sold out (a hold that expires to open sale makes its seat AVAILABLE, and it is not).
   */
  anythingLeft(): boolean {
    return (
      this.sql.one`SELECT 1 AS x FROM inv_seats WHERE status = 'AVAILABLE' LIMIT 1` !== null ||
      this.sql.one`SELECT 1 AS x FROM inv_tiers WHERE held + sold < capacity LIMIT 1` !== null ||
      (this.sql.one`SELECT 1 AS x FROM inv_holds WHERE status = 'HELD' LIMIT 1` !== null &&
        this.sql.one`SELECT 1 AS x FROM inv_waitlist WHERE state = 'OFFERED' LIMIT 1` === null)
    );
  }

  /**
   * Every seat in plan order as the public sees it at `nowMs`: a HELD seat past its deadline is
   * AVAILABLE, and an unheld seat of a live allocation ALLOCATED (not on sale to the public).
   */
  snapshotSeats(nowMs: number): { id: string; status: SeatStatus }[] {
    return this.publicStatuses(nowMs, null);
  }

  /** Seats changed after version `since`, in the order they first changed, each with its status now (as `snapshotSeats`). */
  changesSince(since: number, nowMs: number): { id: string; status: SeatStatus }[] {
    const ids = [
      ...new Set(
        this.sql.all<{ name: string }>`SELECT name FROM inv_feed WHERE version > ${since} AND item = 'seat' ORDER BY id`.map((d) => d.name),
      ),
    ];
    if (ids.length === 0) return [];
    const now = new Map(this.publicStatuses(nowMs, ids).map((r) => [r.id, r.status]));
    return ids.filter((id) => now.has(id)).map((id) => ({ id, status: now.get(id)! }));
  }

  /**
   * Public statuses at `nowMs` of these seats (null: every seat), in plan order: SOLD, or HELD
   * until the hold's deadline (none while its payment is pending), else ALLOCATED while a live
   * allocation holds the seat back from the public, else AVAILABLE. Two plain reads, so a list of
   * seats is found by its index (a condition on a bound value in the same WHERE made SQLite scan
   * every seat, about 10 ms at 50,000).
   */
  private publicStatuses(nowMs: number, ids: string[] | null): { id: string; status: SeatStatus }[] {
    type Row = { id: string; status: SeatStatus; hold_expires_at: number | null };
    const rows =
      ids === null
        ? this.sql.all<Row>`SELECT seat_id AS id, status, hold_expires_at FROM inv_seats ORDER BY ord`
        : this.sql.all<Row>`SELECT seat_id AS id, status, hold_expires_at FROM inv_seats
            WHERE seat_id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) ORDER BY ord`;
    const allocated = new Set(
      this.sql.all<{
        seat_id: string;
      }>`SELECT x.seat_id FROM inv_allocation_seats x JOIN inv_allocations a ON a.allocation_id = x.allocation_id
          WHERE a.release_at > ${nowMs}`.map((r) => r.seat_id),
    );
    return rows.map((r) => ({
      id: r.id,
      status:
        r.status === 'SOLD' || (r.status === 'HELD' && (r.hold_expires_at === null || r.hold_expires_at > nowMs))
          ? r.status
          : allocated.has(r.id)
            ? 'ALLOCATED'
            : 'AVAILABLE',
    }));
  }

  /** Hold ids whose payment started or ended in a sale, in id order after `afterHoldId`. */
  paymentHoldIds(afterHoldId: string, limit: number): string[] {
    return this.sql.all<{ hold_id: string }>`SELECT hold_id FROM inv_holds WHERE hold_id > ${afterHoldId}
      AND status IN ('PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD') ORDER BY hold_id LIMIT ${limit}`.map((r) => r.hold_id);
  }

  auditLog(afterId: number, limit: number): AuditEntry[] {
    return this.sql.all<{
      id: number;
      at: number;
      hold_id: string;
      from_status: HoldStatus | null;
      to_status: HoldStatus;
      actor: Actor;
      reason: string;
    }>`SELECT * FROM inv_audit WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`.map((r) => ({
      id: r.id,
      at: r.at,
      holdId: r.hold_id,
      from: r.from_status,
      to: r.to_status,
      actor: r.actor,
      reason: r.reason,
    }));
  }

  /** Seated places per stored status (less the seats their orders returned), split by whether the deadline passed at `nowMs`. */
  seatedByStatus(nowMs: number): { status: HoldStatus; due: number; n: number }[] {
    return this.sql.all<{ status: HoldStatus; due: number; n: number }>`
      SELECT status, expires_at <= ${nowMs} AS due, SUM(quantity - (SELECT COUNT(*) FROM inv_return_seats rs WHERE rs.hold_id = h.hold_id)) AS n
      FROM inv_holds h WHERE kind = 'seats' GROUP BY status, due`;
  }

  holdCounts(): { status: HoldStatus; n: number }[] {
    return this.sql.all<{ status: HoldStatus; n: number }>`SELECT status, COUNT(*) AS n FROM inv_holds GROUP BY status`;
  }

  /** Appends one line to the audit log (the hold's change, who made it and why). */
  audit(at: number, holdId: string, from: HoldStatus | null, to: HoldStatus, actor: Actor, reason: string): void {
    this.sql
      .run`INSERT INTO inv_audit (at, hold_id, from_status, to_status, actor, reason) VALUES (${at}, ${holdId}, ${from}, ${to}, ${actor}, ${reason})`;
  }

  /** Bumps the map version (and now and then drops feed entries older than DELTA_RETENTION versions). */
  bumpVersion(): number {
    const { version } = this.sql.one<{ version: number }>`UPDATE inv_plan SET version = version + 1 WHERE id = 1 RETURNING version`!;
    if (version % 1000 === 0 && version > DELTA_RETENTION) {
      const cut = version - DELTA_RETENTION;
      // The change feed (migration 5; the seat map's deltas too, migration 7): cursors below
      // `feed_from` read the snapshot first, seat maps older than `pruned_through` too.
      this.sql
        .run`UPDATE inv_plan SET feed_from = MAX(feed_from, COALESCE((SELECT MAX(id) FROM inv_feed WHERE version <= ${cut}), 0)) WHERE id = 1`;
      this.sql.run`DELETE FROM inv_feed WHERE version <= ${cut}`;
      this.sql.run`UPDATE inv_plan SET pruned_through = ${cut} WHERE id = 1`;
    }
    return version;
  }

  /** The deadline (epoch ms) an earlier extension of the hold under `idempotencyKey` set; null when none. */
  extensionReplay(holdId: string, idempotencyKey: string): number | null {
    return (
      this.sql.one<{ expires_at: number }>`
      SELECT expires_at FROM inv_hold_extensions WHERE hold_id = ${holdId} AND idempotency_key = ${idempotencyKey}`?.expires_at ?? null
    );
  }

  /**
   * Moves a HELD hold's deadline to `expiresAtMs`, with its seats' and its extension record. The
   * guarded update finds the hold exactly as it was read (HELD, same deadline, not yet passed), so a
   * hold changed in between is never extended.
   * @throws Error when the hold changed since `row` was read (the caller's transaction rolls back)
   */
  extendHold(row: HoldRow, expiresAtMs: number, idempotencyKey: string, nowMs: number): void {
    const updated = this.sql.all`UPDATE inv_holds SET expires_at = ${expiresAtMs}, extensions = extensions + 1
      WHERE hold_id = ${row.hold_id} AND status = 'HELD' AND expires_at = ${row.expires_at} AND expires_at > ${nowMs} RETURNING hold_id`;
    if (updated.length !== 1) throw new Error(`invariant: hold ${row.hold_id} changed under an extension`);
    // `+status`: found by the hold's id, never by the status index (see applyTransition).
    if (row.kind === 'seats') {
      this.sql.run`UPDATE inv_seats SET hold_expires_at = ${expiresAtMs} WHERE hold_id = ${row.hold_id} AND +status = 'HELD'`;
    }
    this.sql.run`INSERT INTO inv_hold_extensions (hold_id, idempotency_key, at, expires_at)
      VALUES (${row.hold_id}, ${idempotencyKey}, ${nowMs}, ${expiresAtMs})`;
  }
}
