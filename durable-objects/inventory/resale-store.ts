// The Inventory's SQL for returns, refunds, the waitlist and the resale feed (migration 9): reads and
// writes, nothing that decides (resale-policy.ts decides, resale-desk.ts runs it).
import type { Sql } from '../shared/sql';
import type { HoldStatus } from './hold-policy';
import type { EntryState, ResaleCounts, ResaleDatum, ResaleEvent, ReturnView, WaitlistEntryView } from '../../contracts/resale-answers';

/** A waitlist row as stored. */
interface EntryRow {
  entry_id: number;
  account: string;
  quantity: number;
  state: EntryState;
  joined_at: number;
  hold_id: string | null;
  accepted: number;
}

const entryView = (r: EntryRow): WaitlistEntryView => ({
  entryId: r.entry_id,
  account: r.account,
  quantity: r.quantity,
  state: r.state,
  joinedAtMs: r.joined_at,
  offerHoldId: r.hold_id,
});

/** First webhook retry after this long, ms; each next one waits twice as long (see `deliveryFailed`). */
const FIRST_RETRY_MS = 2_000;
/** Delivery attempts of one webhook before it is left to the feed (about 34 minutes of retries). */
const MAX_WEBHOOK_ATTEMPTS = 11;

/** Resale storage of one Inventory. Call the writers inside `transactionSync`. */
export class ResaleStore {
  constructor(private readonly sql: Sql) {}

  /** The return recorded under an idempotency key: its id and the canonical request. */
  returnByKey(key: string): { return_id: string; request: string } | null {
    return this.sql.one`SELECT return_id, request FROM inv_returns WHERE idempotency_key = ${key}`;
  }

  /** A return with its seats as they stand now; null when there is none. */
  returnView(returnId: string): ReturnView | null {
    const r = this.sql.one<{ return_id: string; hold_id: string; order_id: string; refund: 'on_resale' | 'at_once'; created_at: number }>`
      SELECT * FROM inv_returns WHERE return_id = ${returnId}`;
    if (!r) return null;
    const seats = this.sql.all<{ seat_id: string; face_minor: number; refunded_at: number | null; resold_hold_id: string | null }>`
      SELECT seat_id, face_minor, refunded_at, resold_hold_id FROM inv_return_seats WHERE return_id = ${returnId} ORDER BY seat_id`;
    return {
      returnId: r.return_id,
      holdId: r.hold_id,
      orderId: r.order_id,
      refund: r.refund,
      createdAtMs: r.created_at,
      seats: seats.map((s) => ({
        seatId: s.seat_id,
        faceMinor: s.face_minor,
        refunded: s.refunded_at !== null,
        resoldHoldId: s.resold_hold_id,
      })),
    };
  }

  /** Seats of hold `holdId` returned before, and whether each one's refund was paid. */
  returnedOf(holdId: string): { seatId: string; settled: boolean }[] {
    return this.sql.all<{
      seat_id: string;
      refunded_at: number | null;
    }>`SELECT seat_id, refunded_at FROM inv_return_seats WHERE hold_id = ${holdId}`.map((r) => ({
      seatId: r.seat_id,
      settled: r.refunded_at !== null,
    }));
  }

  /**
   * Records a return: its row, one row per seat at the seat's face value, and the seats taken off
   * the order (AVAILABLE, so the next step offers them or puts them on open sale).
   * @throws Error when a seat is no longer the order's sold seat (the transaction rolls back)
   */
  insertReturn(
    r: { returnId: string; holdId: string; orderId: string; key: string; request: string; refund: string },
    seatIds: string[],
    nowMs: number,
    version: number,
  ): void {
    this.sql.run`INSERT INTO inv_returns (return_id, hold_id, order_id, idempotency_key, request, refund, created_at)
      VALUES (${r.returnId}, ${r.holdId}, ${r.orderId}, ${r.key}, ${r.request}, ${r.refund}, ${nowMs})`;
    const ids = JSON.stringify(seatIds);
    this.sql.run`INSERT INTO inv_return_seats (return_id, hold_id, seat_id, face_minor)
      SELECT ${r.returnId}, ${r.holdId}, seat_id, face_minor FROM inv_seats WHERE seat_id IN (SELECT value FROM json_each(${ids}))`;
    const freed = this.sql.all`UPDATE inv_seats SET status = 'AVAILABLE', hold_id = NULL, order_id = NULL, version = ${version}
      WHERE seat_id IN (SELECT value FROM json_each(${ids})) AND hold_id = ${r.holdId} AND +status = 'SOLD' RETURNING seat_id`;
    if (freed.length !== seatIds.length) throw new Error(`invariant: a seat of return ${r.returnId} is no longer its order's`);
  }

  /** Pays the refund of one returned seat (once: the unique key refuses a second). */
  refund(returnId: string, holdId: string, seatId: string, nowMs: number, currency: string): { orderId: string; amountMinor: number } {
    const s = this.sql.one<{ face_minor: number; order_id: string }>`SELECT rs.face_minor, r.order_id FROM inv_return_seats rs
      JOIN inv_returns r ON r.return_id = rs.return_id WHERE rs.hold_id = ${holdId} AND rs.seat_id = ${seatId}`!;
    this.sql
      .run`UPDATE inv_return_seats SET refunded_at = ${nowMs} WHERE hold_id = ${holdId} AND seat_id = ${seatId} AND refunded_at IS NULL`;
    this.sql.run`INSERT INTO inv_refunds (return_id, order_id, seat_id, amount_minor, currency, at)
      VALUES (${returnId}, ${s.order_id}, ${seatId}, ${s.face_minor}, ${currency}, ${nowMs})`;
    return { orderId: s.order_id, amountMinor: s.face_minor };
  }

  /**
   * What the triggers of migration 9 recorded since the last call: returned seats whose state
   * changed, offers whose hold ended. Empties the list.
   */
  takeDirty(): { seats: string[]; offers: string[] } {
    const rows = this.sql.all<{ kind: 'seat' | 'offer'; ref: string }>`SELECT kind, ref FROM inv_resale_dirty`;
    if (rows.length === 0) return { seats: [], offers: [] };
    this.sql.run`DELETE FROM inv_resale_dirty`;
    return {
      seats: rows.filter((r) => r.kind === 'seat').map((r) => r.ref),
      offers: rows.filter((r) => r.kind === 'offer').map((r) => r.ref),
    };
  }

  /** Of these returned seats, those not yet resold that are sold now (their new buyer confirmed), with the new hold and order. */
  newlySold(
    seatIds: readonly string[],
  ): { returnId: string; holdId: string; seatId: string; refunded: boolean; newHoldId: string; newOrderId: string }[] {
    return this.sql.all<{
      return_id: string;
      hold_id: string;
      seat_id: string;
      refunded_at: number | null;
      new_hold: string;
      new_order: string;
    }>`
      SELECT rs.return_id, rs.hold_id, rs.seat_id, rs.refunded_at, s.hold_id AS new_hold, s.order_id AS new_order
      FROM inv_return_seats rs JOIN inv_seats s ON s.seat_id = rs.seat_id
      WHERE rs.seat_id IN (SELECT value FROM json_each(${JSON.stringify(seatIds)})) AND rs.resold_hold_id IS NULL AND s.status = 'SOLD'`.map(
      (r) => ({
        returnId: r.return_id,
        holdId: r.hold_id,
        seatId: r.seat_id,
        refunded: r.refunded_at !== null,
        newHoldId: r.new_hold,
        newOrderId: r.new_order,
      }),
    );
  }

  markResold(holdId: string, seatId: string, newHoldId: string): void {
    this.sql.run`UPDATE inv_return_seats SET resold_hold_id = ${newHoldId} WHERE hold_id = ${holdId} AND seat_id = ${seatId}`;
  }

  /** Of these returned seats, those not yet resold and free now (nobody holds them), in seat order, with their face values. */
  freeReturned(seatIds: readonly string[]): { seatId: string; faceMinor: number }[] {
    return this.sql.all<{ seat_id: string; face_minor: number }>`SELECT rs.seat_id, rs.face_minor FROM inv_return_seats rs
      JOIN inv_seats s ON s.seat_id = rs.seat_id WHERE rs.seat_id IN (SELECT value FROM json_each(${JSON.stringify(seatIds)}))
      AND rs.resold_hold_id IS NULL AND s.status = 'AVAILABLE' ORDER BY s.ord`.map((r) => ({ seatId: r.seat_id, faceMinor: r.face_minor }));
  }

  /** Face values of these seats that were returned and not yet resold (the others sell at the plan's price). */
  openFaces(seatIds: readonly string[]): Map<string, number> {
    const rows = this.sql.all<{ seat_id: string; face_minor: number }>`SELECT seat_id, face_minor FROM inv_return_seats
      WHERE resold_hold_id IS NULL AND seat_id IN (SELECT value FROM json_each(${JSON.stringify(seatIds)}))`;
    return new Map(rows.map((r) => [r.seat_id, r.face_minor]));
  }

  /** Whether anything can be bought on open sale now: an AVAILABLE seat or a tier place (the waitlist opens when not). */
  anythingOnSale(): boolean {
    return (
      this.sql.one`SELECT 1 AS x FROM inv_seats WHERE status = 'AVAILABLE' LIMIT 1` !== null ||
      this.sql.one`SELECT 1 AS x FROM inv_tiers WHERE held + sold < capacity LIMIT 1` !== null
    );
  }

  /**
   * Moves an offer's deadline when its account accepts it, with its seats' deadline. The guarded
   * update finds the hold as it was read (HELD, same deadline, not passed).
   * @throws Error when the hold changed since (the transaction rolls back)
   */
  moveOfferDeadline(holdId: string, fromMs: number, toMs: number, nowMs: number): void {
    const moved = this.sql.all`UPDATE inv_holds SET expires_at = ${toMs}
      WHERE hold_id = ${holdId} AND status = 'HELD' AND expires_at = ${fromMs} AND expires_at > ${nowMs} RETURNING hold_id`;
    if (moved.length !== 1) throw new Error(`invariant: offer ${holdId} changed under its acceptance`);
    this.sql.run`UPDATE inv_seats SET hold_expires_at = ${toMs} WHERE hold_id = ${holdId} AND +status = 'HELD'`;
  }

  /** The account's live entry (WAITING or OFFERED), if any. */
  liveEntry(account: string): WaitlistEntryView | null {
    const r = this.sql.one<EntryRow>`SELECT * FROM inv_waitlist WHERE account = ${account} AND state IN ('WAITING', 'OFFERED')`;
    return r && entryView(r);
  }

  /** The lowest entry id still WAITING (`nextEntryId` when none) and the id the next entry gets. */
  waitingRange(): { waitingFrom: number; nextEntryId: number } {
    const r = this.sql.one<{ low: number | null; high: number | null }>`SELECT
      (SELECT MIN(entry_id) FROM inv_waitlist WHERE state = 'WAITING') AS low, (SELECT MAX(entry_id) FROM inv_waitlist) AS high`;
    const nextEntryId = (r?.high ?? 0) + 1;
    return { waitingFrom: r?.low ?? nextEntryId, nextEntryId };
  }

  /** Entry `entryId` if it is `account`'s, with its place among the entries still waiting (1 = next; null unless WAITING). */
  entryOf(entryId: number, account: string): { entry: WaitlistEntryView; place: number | null } | null {
    const r = this.sql.one<EntryRow & { place: number | null }>`SELECT w.*, CASE WHEN w.state = 'WAITING' THEN
      (SELECT COUNT(*) FROM inv_waitlist x WHERE x.state = 'WAITING' AND x.entry_id <= w.entry_id) END AS place
      FROM inv_waitlist w WHERE w.entry_id = ${entryId} AND w.account = ${account}`;
    return r && { entry: entryView(r), place: r.place };
  }

  insertEntry(account: string, quantity: number, nowMs: number): WaitlistEntryView {
    const r = this.sql.one<EntryRow>`INSERT INTO inv_waitlist (account, quantity, state, joined_at)
      VALUES (${account}, ${quantity}, 'WAITING', ${nowMs}) RETURNING *`!;
    return entryView(r);
  }

  /** The first `limit` entries still waiting, in arrival order (an offer takes at least one seat: no more can get one). */
  waiting(limit: number): { entryId: number; account: string; quantity: number }[] {
    return this.sql.all<EntryRow>`SELECT * FROM inv_waitlist WHERE state = 'WAITING' ORDER BY entry_id LIMIT ${limit}`.map((r) => ({
      entryId: r.entry_id,
      account: r.account,
      quantity: r.quantity,
    }));
  }

  /** Entries after `after`, in arrival order, at most `limit`. */
  entries(after: number, limit: number): WaitlistEntryView[] {
    return this.sql.all<EntryRow>`SELECT * FROM inv_waitlist WHERE entry_id > ${after} ORDER BY entry_id LIMIT ${limit}`.map(entryView);
  }

  /** The entry whose offer is hold `holdId`, with whether it was accepted. */
  entryOfHold(holdId: string): (WaitlistEntryView & { accepted: boolean }) | null {
    const r = this.sql.one<EntryRow>`SELECT * FROM inv_waitlist WHERE hold_id = ${holdId}`;
    return r && { ...entryView(r), accepted: r.accepted === 1 };
  }

  setOffered(entryId: number, holdId: string): void {
    this.sql.run`UPDATE inv_waitlist SET state = 'OFFERED', hold_id = ${holdId} WHERE entry_id = ${entryId} AND state = 'WAITING'`;
  }

  setAccepted(entryId: number): void {
    this.sql.run`UPDATE inv_waitlist SET accepted = 1 WHERE entry_id = ${entryId}`;
  }

  /** Of these offers, the OFFERED entries whose hold ended (sold, released or expired), with that hold's status. */
  endedOffers(holdIds: readonly string[]): { entryId: number; holdId: string; status: HoldStatus }[] {
    return this.sql.all<{
      entry_id: number;
      hold_id: string;
      status: HoldStatus;
    }>`SELECT w.entry_id, w.hold_id, h.status FROM inv_waitlist w
      JOIN inv_holds h ON h.hold_id = w.hold_id WHERE w.hold_id IN (SELECT value FROM json_each(${JSON.stringify(holdIds)}))
      AND w.state = 'OFFERED' AND h.status IN ('SOLD', 'RELEASED', 'EXPIRED') ORDER BY w.entry_id`.map((r) => ({
      entryId: r.entry_id,
      holdId: r.hold_id,
      status: r.status,
    }));
  }

  setEntryState(entryId: number, state: EntryState): void {
    this.sql.run`UPDATE inv_waitlist SET state = ${state} WHERE entry_id = ${entryId}`;
  }

  /**
   * Appends one entry to the resale feed; an offer's also waits for its webhook (`webhook`). Once
   * per kind and subject: a second append of the same is ignored (the unique key).
   */
  event(kind: ResaleEvent['kind'], ref: string, data: Record<string, ResaleDatum>, nowMs: number, webhook = false): void {
    this.sql.run`INSERT OR IGNORE INTO inv_resale_events (at, kind, ref, data, next_attempt_at)
      VALUES (${nowMs}, ${kind}, ${ref}, ${JSON.stringify(data)}, ${webhook ? nowMs : null})`;
  }

  /** Feed entries after id `after`, oldest first, at most `limit`. */
  events(after: number, limit: number): ResaleEvent[] {
    return this.sql.all<{ id: number; at: number; kind: ResaleEvent['kind']; ref: string; data: string }>`
      SELECT id, at, kind, ref, data FROM inv_resale_events WHERE id > ${after} ORDER BY id LIMIT ${limit}`.map((r) => ({
      id: r.id,
      at: r.at,
      kind: r.kind,
      ref: r.ref,
      data: JSON.parse(r.data) as Record<string, ResaleDatum>,
    }));
  }

  /** Webhooks due at `nowMs`, oldest first (at most `limit`). */
  dueWebhooks(nowMs: number, limit: number): (ResaleEvent & { attempts: number })[] {
    return this.sql.all<{ id: number; at: number; kind: ResaleEvent['kind']; ref: string; data: string; attempts: number }>`
      SELECT id, at, kind, ref, data, attempts FROM inv_resale_events WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ${nowMs}
      ORDER BY next_attempt_at LIMIT ${limit}`.map((r) => ({
      id: r.id,
      at: r.at,
      kind: r.kind,
      ref: r.ref,
      data: JSON.parse(r.data) as Record<string, ResaleDatum>,
      attempts: r.attempts,
    }));
  }

  /** The webhook was delivered: no more attempts. */
  delivered(id: number): void {
    this.sql.run`UPDATE inv_resale_events SET attempts = attempts + 1, next_attempt_at = NULL WHERE id = ${id}`;
  }

  /** A delivery failed: the next after FIRST_RETRY_MS x 2^attempts, or none after MAX_WEBHOOK_ATTEMPTS. */
  deliveryFailed(id: number, attempts: number, nowMs: number): void {
    const next = attempts + 1 >= MAX_WEBHOOK_ATTEMPTS ? null : nowMs + FIRST_RETRY_MS * 2 ** attempts;
    this.sql.run`UPDATE inv_resale_events SET attempts = attempts + 1, next_attempt_at = ${next} WHERE id = ${id}`;
  }

  /** No more delivery attempts for any webhook (the event has no webhook path any more); the feed keeps them. */
  dropDeliveries(): void {
    this.sql.run`UPDATE inv_resale_events SET next_attempt_at = NULL WHERE next_attempt_at IS NOT NULL`;
  }

  /** The earliest due webhook (epoch ms), or null. */
  nextDelivery(): number | null {
    return (
      this.sql.one<{ at: number | null }>`SELECT MIN(next_attempt_at) AS at FROM inv_resale_events WHERE next_attempt_at IS NOT NULL`?.at ??
      null
    );
  }

  counts(): ResaleCounts {
    const n = (q: { n: number | null } | null) => q?.n ?? 0;
    const ev = (kind: string) => n(this.sql.one`SELECT COUNT(*) AS n FROM inv_resale_events WHERE kind = ${kind}`);
    return {
      returns: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_returns`),
      returnedSeats: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_return_seats`),
      offersMade: ev('offer'),
      offersTaken: ev('offer_taken'),
      offersLapsed: ev('offer_lapsed'),
      resoldSeats: ev('resold'),
      refunds: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_refunds`),
      refundedMinor: n(this.sql.one`SELECT SUM(amount_minor) AS n FROM inv_refunds`),
      waiting: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_waitlist WHERE state = 'WAITING'`),
    };
  }
}
