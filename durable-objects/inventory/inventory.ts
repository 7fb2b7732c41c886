// Inventory Durable Object: one per event, the single authority over seats and seat holds.
import { DurableObject } from 'cloudflare:workers';
import { DEFAULT_PAYMENT_GRACE_S, DEFAULT_SEAT_PRICE_MINOR, type InventoryConfig } from '../../contracts/event-config';
import type { HoldAnswer, HoldChangeAnswer, HoldRequest, HoldView, SeatMap, SeatStatus, TierView } from '../../contracts/inventory-answers';
import { FixedWindowLimiter } from '../shared/fixed-window';
import { Sql, migrate } from '../shared/sql';
import {
  applyHoldAction,
  effectiveStatus,
  seatIdsFor,
  targetKey,
  targetQuantity,
  validateHoldTarget,
  type HoldAction,
  type HoldRefusal,
  type HoldStatus,
} from './hold-policy';
import { INVENTORY_MIGRATIONS } from './schema';

/** Hold attempts one account may make per HOLD_WINDOW_MS; more get `rate_limited` (429 at the edge). */
export const HOLDS_PER_WINDOW = 20;
export const HOLD_WINDOW_MS = 10_000;
/** Seat-map deltas kept for `seatMap(since)`, in versions; older `since` values get a snapshot. */
export const DELTA_RETENTION = 20_000;

/** One line of the append-only audit log. */
export interface AuditEntry {
  id: number;
  at: number;
  holdId: string;
  from: HoldStatus | null;
  to: HoldStatus;
  actor: 'visitor' | 'origin' | 'timer';
  reason: string;
}

/** Counts and the consistency checks behind "a seat is never sold twice". */
export interface InventoryStats {
  config: InventoryConfig;
  version: number;
  /** Numbered seats by state; PAYMENT_PENDING and NEEDS_RECONCILIATION seats are out of sale too. */
  seats: { available: number; held: number; paymentPending: number; needsReconciliation: number; sold: number };
  tiers: TierView[];
  holds: Record<HoldStatus, number>;
  consistency: {
    /** Seats claimed by more than one SOLD hold: must be 0. */
    seatsWithMultipleOrders: number;
    /** SOLD seats whose order is not the one of a SOLD hold owning them: must be 0. */
    soldSeatsWithoutMatchingOrder: number;
    /** Tiers whose counters disagree with their holds, or exceed capacity: must be 0. */
    tiersInconsistent: number;
  };
}

interface HoldRow {
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
}

type Actor = AuditEntry['actor'];

export class Inventory extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  /** Seat-map reads this instance has served since it started (the edge cache keeps them few). */
  mapReads = 0;
  /** Hold attempts per account: HOLDS_PER_WINDOW per HOLD_WINDOW_MS (in memory, see FixedWindowLimiter). */
  private readonly holdLimiter = new FixedWindowLimiter(HOLDS_PER_WINDOW, HOLD_WINDOW_MS);
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, 'inv', INVENTORY_MIGRATIONS);
      // A reset between a committed change and its setAlarm (the write is durable, the alarm call
      // never ran) would leave a deadline with no timer: every start re-arms from the table.
      await this.armAlarm();
    });
  }

  /**
   * Creates the seat plan and tiers, or updates prices and hold rules of existing ones. The plan
   * (seat count, seats per row, tier names and capacities) is fixed once created.
   * @param dryRun check only, write nothing
   */
  async configure(
    config: InventoryConfig,
    dryRun = false,
    /** The event this object serves, so it can tell the event's WaitingRoom when it sells out. */
    eventId?: string,
  ): Promise<{ kind: 'ok'; created: boolean } | { kind: 'conflict'; detail: string }> {
    const plan = this.plan();
    if (plan) {
      const shape = (c: InventoryConfig) => JSON.stringify([c.seats, c.seatsPerRow, c.tiers.map((t) => [t.tier, t.capacity])]);
      if (shape(plan) !== shape(config)) {
        return { kind: 'conflict', detail: 'the seat plan (seats, seatsPerRow, tier names and capacities) is fixed once created' };
      }
    }
    if (dryRun) return { kind: 'ok', created: !plan };
    this.ctx.storage.transactionSync(() => {
      if (plan) {
        if (eventId) this.sql.run`UPDATE inv_plan SET event_id = ${eventId}`;
        this.sql.run`UPDATE inv_plan SET config = ${JSON.stringify(config)}`;
        for (const t of config.tiers) this.sql.run`UPDATE inv_tiers SET price_minor = ${t.priceMinor} WHERE tier = ${t.tier}`;
        return;
      }
      this.sql
        .run`INSERT INTO inv_plan (id, config, version, event_id, pruned_through) VALUES (1, ${JSON.stringify(config)}, 1, ${eventId ?? null}, 1)`;
      seatIdsFor(config.seats, config.seatsPerRow).forEach((id, i) => {
        this.sql.run`INSERT INTO inv_seats (seat_id, ord, status, version) VALUES (${id}, ${i}, 'AVAILABLE', 1)`;
      });
      for (const t of config.tiers)
        this.sql.run`INSERT INTO inv_tiers (tier, capacity, price_minor) VALUES (${t.tier}, ${t.capacity}, ${t.priceMinor})`;
    });
    return { kind: 'ok', created: !plan };
  }

  /**
   * Holds 1-6 numbered seats, or 1-6 places of a tier, for an account: all or nothing, until
   * `now + holdTtl`. Expired holds are swept first, so their seats count as available. The checks
   * and the writes (hold, seats or tier counter, idempotency record, audit, deltas) are one
   * synchronous SQLite transaction: nothing interleaves, and a crash leaves all or none of it.
   * Retrying with the same idempotency key and request returns the first success; the same key
   * with another request is refused. A refused request stores nothing.
   *
   * @param account the admission token's subject
   * @param idempotencyKey client-chosen key, unique per intended hold, scoped to the account
   */
  async hold(account: string, request: HoldRequest, idempotencyKey: string): Promise<HoldAnswer> {
    const config = this.plan();
    if (!config) return { kind: 'event_not_found' };
    const valid = validateHoldTarget(request);
    if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
    const target = valid.target;
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync((): HoldAnswer => {
      this.sweep(now);
      const earlier = this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE account = ${account} AND idempotency_key = ${idempotencyKey}`;
      if (earlier) {
        return earlier.request === targetKey(target)
          ? { kind: 'held', hold: JSON.parse(earlier.first_result) as HoldView, replayed: true }
          : { kind: 'idempotency_conflict' };
      }
      // One account cannot hammer the seats: counted here, where the request already is, at no
      // cost; a retry of a hold already made (above) replays whatever the count.
      if (!this.holdLimiter.take(account, now)) return { kind: 'rate_limited', retryAfterS: HOLD_WINDOW_MS / 1000 };
      const quantity = targetQuantity(target);
      let priceMinor: number;
      if (target.kind === 'seats') {
        const seats = this.sql.all<{ seat_id: string; status: SeatStatus }>`
          SELECT seat_id, status FROM inv_seats WHERE seat_id IN (SELECT value FROM json_each(${JSON.stringify(target.seatIds)}))`;
        if (seats.length !== quantity) {
          const known = new Set(seats.map((s) => s.seat_id));
          return { kind: 'unknown_seats', seatIds: target.seatIds.filter((id) => !known.has(id)) };
        }
        // After the sweep, a seat not AVAILABLE belongs to a live hold or a sale.
        const taken = seats.filter((s) => s.status !== 'AVAILABLE').map((s) => s.seat_id);
        if (taken.length > 0) return { kind: 'unavailable', seatIds: taken };
        priceMinor = quantity * config.seatPriceMinor;
      } else {
        const tier = this.sql.one<{
          capacity: number;
          held: number;
          sold: number;
          price_minor: number;
        }>`SELECT * FROM inv_tiers WHERE tier = ${target.tier}`;
        if (!tier) return { kind: 'unknown_tier', tier: target.tier };
        const remaining = tier.capacity - tier.held - tier.sold;
        if (remaining < quantity) return { kind: 'unavailable', seatIds: [], remaining };
        priceMinor = quantity * tier.price_minor;
      }
      const owned = this.ownedBy(account, now, null);
      if (owned + quantity > config.maxSeatsPerAccount) return { kind: 'account_limit', limit: config.maxSeatsPerAccount, owned };

      const hold: HoldView = {
        holdId: crypto.randomUUID(),
        account,
        status: 'HELD',
        seatIds: target.kind === 'seats' ? target.seatIds : [],
        tier: target.kind === 'tier' ? target.tier : null,
        quantity,
        priceMinor,
        currency: config.currency,
        expiresAtMs: now + config.holdTtlMs,
        orderId: null,
      };
      const version = this.bumpVersion();
      this.sql
        .run`INSERT INTO inv_holds (hold_id, account, status, kind, tier, quantity, price_minor, currency, created_at, expires_at, idempotency_key, request, first_result)
        VALUES (${hold.holdId}, ${account}, 'HELD', ${target.kind}, ${hold.tier}, ${quantity}, ${priceMinor}, ${hold.currency}, ${now}, ${hold.expiresAtMs},
          ${idempotencyKey}, ${targetKey(target)}, ${JSON.stringify(hold)})`;
      if (target.kind === 'seats') {
        for (const id of target.seatIds) {
          this.sql.run`INSERT INTO inv_hold_seats (hold_id, seat_id) VALUES (${hold.holdId}, ${id})`;
          const written = this.sql
            .all`UPDATE inv_seats SET status = 'HELD', hold_id = ${hold.holdId}, hold_expires_at = ${hold.expiresAtMs},
            order_id = NULL, version = ${version} WHERE seat_id = ${id} AND status = 'AVAILABLE' RETURNING seat_id`;
          // Throwing inside transactionSync rolls the whole hold back.
          if (written.length !== 1) throw new Error(`invariant: seat ${id} changed between check and write`);
          this.sql.run`INSERT INTO inv_deltas (version, seat_id, status) VALUES (${version}, ${id}, 'HELD')`;
        }
      } else {
        const written = this.sql
          .all`UPDATE inv_tiers SET held = held + ${quantity} WHERE tier = ${target.tier} AND held + sold + ${quantity} <= capacity RETURNING tier`;
        if (written.length !== 1) throw new Error(`invariant: tier ${target.tier} changed between check and write`);
      }
      this.audit(now, hold.holdId, null, 'HELD', 'visitor', 'hold placed');
      return { kind: 'held', hold, replayed: false };
    });
    await this.armAlarm();
    await this.announceSoldOut();
    return answer;
  }

  /** A hold by id. With `account` set, only its owner may read it. */
  async getHold(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const hold = this.view(holdId);
    if (!hold || (account !== null && hold.account !== account)) return { kind: 'not_found' };
    return { kind: 'ok', hold };
  }

  /**
   * The origin starts payment: HELD -> PAYMENT_PENDING, with the deadline moved once to
   * `now + paymentGrace`. Past it the hold NEEDS_RECONCILIATION and its seats stay out of sale.
   */
  async startPayment(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const grace = this.plan()?.paymentGraceMs ?? DEFAULT_PAYMENT_GRACE_S * 1000;
    return this.change(holdId, { kind: 'payment_pending', account, graceMs: grace }, 'origin', 'payment started');
  }

  /**
   * Sells the hold to `orderId` after the origin authorized `amountMinor`: from HELD (unexpired),
   * PAYMENT_PENDING or NEEDS_RECONCILIATION. Re-checks the price and the per-account limit.
   * Confirming again with the same order id returns the same result.
   */
  async confirm(holdId: string, orderId: string, amountMinor: number, account: string | null): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'confirm', orderId, amountMinor, account }, 'origin', `confirmed for order ${orderId}`);
  }

  /**
   * Releases a hold and frees its seats. A visitor may release only a HELD hold of theirs; the
   * origin (`byOrigin`) may also release one whose payment is pending or needs reconciliation.
   * Releasing a released hold again is a no-op.
   */
  async release(holdId: string, account: string | null, byOrigin: boolean): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'release', account, byOrigin }, byOrigin ? 'origin' : 'visitor', 'released');
  }

  /**
   * Holds whose payment has started or ended in a sale (PAYMENT_PENDING, NEEDS_RECONCILIATION,
   * SOLD; deadlines applied), for the origin's reconciliation: in hold-id order after
   * `afterHoldId`, at most `limit`.
   */
  async paymentHolds(afterHoldId: string, limit: number): Promise<HoldView[]> {
    return this.sql.all<{ hold_id: string }>`SELECT hold_id FROM inv_holds WHERE hold_id > ${afterHoldId}
        AND status IN ('PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD') ORDER BY hold_id LIMIT ${limit}`.map((r) =>
      this.view(r.hold_id)!,
    );
  }

  /**
   * The seat map. Without `since` (or with a version older than the kept deltas): every seat,
   * expired holds shown as available. With `since`: only seats changed after that version, each
   * with its latest status. Tier counters come whole with both.
   */
  async seatMap(since?: number): Promise<SeatMap | null> {
    this.mapReads++;
    const plan = this.sql.one<{ version: number; pruned_through: number }>`SELECT version, pruned_through FROM inv_plan WHERE id = 1`;
    if (!plan) return null;
    const now = this.clock();
    const tiers = this.tiers();
    const config = this.plan()!;
    const price = { seatPriceMinor: config.seatPriceMinor, currency: config.currency };
    if (since !== undefined && since >= plan.pruned_through && since <= plan.version) {
      const latest = new Map<string, SeatStatus>();
      for (const d of this.sql.all<{
        seat_id: string;
        status: SeatStatus;
      }>`SELECT seat_id, status FROM inv_deltas WHERE version > ${since} ORDER BY version, rowid`) {
        latest.set(d.seat_id, d.status);
      }
      return { kind: 'delta', version: plan.version, since, changes: [...latest].map(([id, status]) => ({ id, status })), tiers, ...price };
    }
    const seats = this.sql.all<{ id: string; status: SeatStatus }>`
      SELECT seat_id AS id, CASE WHEN status = 'HELD' AND hold_expires_at <= ${now} THEN 'AVAILABLE' ELSE status END AS status
      FROM inv_seats ORDER BY ord`;
    return { kind: 'snapshot', version: plan.version, seats, tiers, ...price };
  }

  /** Pages through the audit log: entries with id > `afterId`, oldest first, at most `limit`. */
  async auditLog(afterId: number, limit: number): Promise<AuditEntry[]> {
    return this.sql.all<{
      id: number;
      at: number;
      hold_id: string;
      from_status: HoldStatus | null;
      to_status: HoldStatus;
      actor: Actor;
      reason: string;
    }>`
        SELECT * FROM inv_audit WHERE id > ${afterId} ORDER BY id LIMIT ${Math.min(Math.max(limit, 1), 1000)}`.map((r) => ({
      id: r.id,
      at: r.at,
      holdId: r.hold_id,
      from: r.from_status,
      to: r.to_status,
      actor: r.actor,
      reason: r.reason,
    }));
  }

  /** Counts and consistency checks for the organizer and the crowd run; null if no event. */
  async stats(): Promise<InventoryStats | null> {
    const config = this.plan();
    if (!config) return null;
    const now = this.clock();
    const n = (row: { n: number | null } | null) => row?.n ?? 0;
    const byState = this.sql.all<{ status: HoldStatus; due: number; n: number }>`
      SELECT status, expires_at <= ${now} AS due, SUM(quantity) AS n FROM inv_holds WHERE kind = 'seats' GROUP BY status, due`;
    const seats = { available: 0, held: 0, paymentPending: 0, needsReconciliation: 0, sold: 0 };
    for (const r of byState) {
      // Deadlines count even before the timer ran: a due HELD hold is free, a due payment needs reconciliation.
      const s = effectiveStatus({ status: r.status, expiresAtMs: r.due ? now : now + 1 }, now);
      if (s === 'HELD') seats.held += r.n;
      else if (s === 'PAYMENT_PENDING') seats.paymentPending += r.n;
      else if (s === 'NEEDS_RECONCILIATION') seats.needsReconciliation += r.n;
      else if (s === 'SOLD') seats.sold += r.n;
    }
    seats.available = config.seats - seats.held - seats.paymentPending - seats.needsReconciliation - seats.sold;
    const holds: Record<HoldStatus, number> = { HELD: 0, PAYMENT_PENDING: 0, NEEDS_RECONCILIATION: 0, SOLD: 0, RELEASED: 0, EXPIRED: 0 };
    for (const r of this.sql.all<{ status: HoldStatus; n: number }>`SELECT status, COUNT(*) AS n FROM inv_holds GROUP BY status`)
      holds[r.status] = r.n;
    return {
      config,
      version: this.sql.one<{ version: number }>`SELECT version FROM inv_plan WHERE id = 1`!.version,
      seats,
      tiers: this.tiers(),
      holds,
      consistency: {
        seatsWithMultipleOrders: n(this.sql.one`SELECT COUNT(*) AS n FROM (SELECT hs.seat_id FROM inv_hold_seats hs
          JOIN inv_holds h ON h.hold_id = hs.hold_id WHERE h.status = 'SOLD' GROUP BY hs.seat_id HAVING COUNT(*) > 1)`),
        soldSeatsWithoutMatchingOrder: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_seats s WHERE s.status = 'SOLD' AND NOT EXISTS (
          SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
          WHERE hs.seat_id = s.seat_id AND h.hold_id = s.hold_id AND h.status = 'SOLD' AND h.order_id = s.order_id)`),
        tiersInconsistent: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_tiers t WHERE t.held + t.sold > t.capacity
          OR t.held != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'))
          OR t.sold != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status = 'SOLD')`),
      },
    };
  }

  /**
   * Acts on every passed deadline (HELD -> EXPIRED, freeing exactly its seats; PAYMENT_PENDING ->
   * NEEDS_RECONCILIATION, keeping them), then re-arms for the earliest remaining deadline. Safe
   * to run late or twice: each step re-checks the hold's id, state and deadline.
   */
  override async alarm(): Promise<void> {
    const now = this.clock();
    this.ctx.storage.transactionSync(() => this.sweep(now));
    await this.armAlarm();
    await this.announceSoldOut();
  }

  /**
   * Sold out = no seat or tier place is available and none is held by a hold that may still
   * expire (places whose payment is pending count as gone). When that flips, tell the event's
   * WaitingRoom so waiting visitors learn it at once; the flag is stored once the room has it.
   */
  private async announceSoldOut(): Promise<void> {
    const plan = this.sql.one<{ sold_out: number; event_id: string | null }>`SELECT sold_out, event_id FROM inv_plan WHERE id = 1`;
    if (!plan?.event_id) return;
    const open =
      this.sql.one`SELECT 1 AS x FROM inv_seats WHERE status = 'AVAILABLE' LIMIT 1` !== null ||
      this.sql.one`SELECT 1 AS x FROM inv_holds WHERE status = 'HELD' LIMIT 1` !== null ||
      this.sql.one`SELECT 1 AS x FROM inv_tiers WHERE held + sold < capacity LIMIT 1` !== null;
    const soldOut = open ? 0 : 1;
    if (soldOut === plan.sold_out) return;
    try {
      await this.env.WAITING_ROOM.getByName(plan.event_id).setSoldOut(soldOut === 1);
      // Stored only once delivered: a failed call is retried by the next change.
      this.sql.run`UPDATE inv_plan SET sold_out = ${soldOut}`;
    } catch (err) {
      console.warn('sold-out signal not delivered; retried on the next change:', err instanceof Error ? err.message : err);
    }
  }

  private async change(holdId: string, action: HoldAction, actor: Actor, reason: string): Promise<HoldChangeAnswer> {
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync((): HoldChangeAnswer => {
      this.sweep(now);
      const row = this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE hold_id = ${holdId}`;
      if (!row) return { kind: 'not_found' };
      const from = row.status;
      const t = applyHoldAction(
        { account: row.account, status: from, expiresAtMs: row.expires_at, orderId: row.order_id, priceMinor: row.price_minor },
        action,
        now,
      );
      if (!t.ok) return { kind: 'refused', code: t.code, detail: t.detail, hold: this.view(holdId)! };
      if (t.noop) return { kind: 'ok', hold: this.view(holdId)! };
      if (action.kind === 'confirm') {
        const other = this.sql.one<{
          hold_id: string;
        }>`SELECT hold_id FROM inv_holds WHERE order_id = ${action.orderId} AND hold_id != ${holdId}`;
        if (other)
          return {
            kind: 'refused',
            code: 'ORDER_ALREADY_USED',
            detail: 'this order id already paid for another hold',
            hold: this.view(holdId)!,
          };
        // The limit may have been lowered since the hold: check it again (this hold excluded).
        const limit = this.plan()!.maxSeatsPerAccount;
        const owned = this.ownedBy(row.account, now, holdId);
        if (owned + row.quantity > limit) {
          return { kind: 'refused', code: 'ACCOUNT_LIMIT', detail: `at most ${limit} seats per account`, hold: this.view(holdId)! };
        }
      }
      this.applyTransition(row, t.status, t.expiresAtMs, action.kind === 'confirm' ? action.orderId : null, now, actor, reason);
      return { kind: 'ok', hold: this.view(holdId)! };
    });
    await this.armAlarm();
    await this.announceSoldOut();
    return answer;
  }

  /** Writes one transition with its effects on seats or tier counters, audit and deltas. */
  private applyTransition(
    row: HoldRow,
    to: HoldStatus,
    expiresAtMs: number,
    orderId: string | null,
    now: number,
    actor: Actor,
    reason: string,
  ): void {
    const version = this.bumpVersion();
    const updated = this.sql.all`UPDATE inv_holds SET status = ${to}, expires_at = ${expiresAtMs}, order_id = COALESCE(${orderId}, order_id)
      WHERE hold_id = ${row.hold_id} AND status = ${row.status} RETURNING hold_id`;
    if (updated.length !== 1) throw new Error(`invariant: hold ${row.hold_id} changed under a transition`);
    const seatDelta = (status: SeatStatus) => {
      this.sql
        .run`INSERT INTO inv_deltas (version, seat_id, status) SELECT ${version}, seat_id, ${status} FROM inv_hold_seats WHERE hold_id = ${row.hold_id}`;
    };
    if (to === 'RELEASED' || to === 'EXPIRED') {
      if (row.kind === 'seats') {
        // Only seats still carrying this hold's id: a seat re-held or sold since is never touched.
        this.sql.run`UPDATE inv_seats SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL, version = ${version}
          WHERE hold_id = ${row.hold_id} AND status = 'HELD'`;
        seatDelta('AVAILABLE');
      } else {
        this.sql.run`UPDATE inv_tiers SET held = held - ${row.quantity} WHERE tier = ${row.tier}`;
      }
    } else if (to === 'PAYMENT_PENDING' && row.kind === 'seats') {
      // No deadline frees these seats any more: only the origin's confirm or release does.
      this.sql.run`UPDATE inv_seats SET hold_expires_at = NULL, version = ${version} WHERE hold_id = ${row.hold_id} AND status = 'HELD'`;
    } else if (to === 'SOLD') {
      if (row.kind === 'seats') {
        const sold = this.sql.all`UPDATE inv_seats SET status = 'SOLD', order_id = ${orderId}, hold_expires_at = NULL, version = ${version}
          WHERE hold_id = ${row.hold_id} AND status = 'HELD' RETURNING seat_id`;
        if (sold.length !== row.quantity) throw new Error(`invariant: hold ${row.hold_id} no longer owns all its seats`);
        seatDelta('SOLD');
      } else {
        this.sql.run`UPDATE inv_tiers SET held = held - ${row.quantity}, sold = sold + ${row.quantity} WHERE tier = ${row.tier}`;
      }
    }
    this.audit(now, row.hold_id, row.status, to, actor, reason);
  }

  /** Applies every passed deadline; call inside a transaction. */
  private sweep(now: number): void {
    const due = this.sql.all<HoldRow>`SELECT * FROM inv_holds WHERE status IN ('HELD', 'PAYMENT_PENDING') AND expires_at <= ${now}`;
    for (const row of due) {
      const to = row.status === 'HELD' ? 'EXPIRED' : 'NEEDS_RECONCILIATION';
      this.applyTransition(
        row,
        to,
        row.expires_at,
        null,
        now,
        'timer',
        row.status === 'HELD' ? 'hold TTL passed' : 'payment grace passed without an answer',
      );
    }
  }

  /** Places an account holds or owns now (live holds and sales), optionally leaving one hold out. */
  private ownedBy(account: string, now: number, except: string | null): number {
    return (
      this.sql.one<{ n: number | null }>`SELECT SUM(quantity) AS n FROM inv_holds WHERE account = ${account} AND hold_id != ${except ?? ''}
        AND (status IN ('SOLD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION') OR (status = 'HELD' AND expires_at > ${now}))`?.n ?? 0
    );
  }

  private audit(at: number, holdId: string, from: HoldStatus | null, to: HoldStatus, actor: Actor, reason: string): void {
    this.sql
      .run`INSERT INTO inv_audit (at, hold_id, from_status, to_status, actor, reason) VALUES (${at}, ${holdId}, ${from}, ${to}, ${actor}, ${reason})`;
  }

  /** Bumps the map version (and now and then drops deltas older than DELTA_RETENTION versions). */
  private bumpVersion(): number {
    const { version } = this.sql.one<{ version: number }>`UPDATE inv_plan SET version = version + 1 WHERE id = 1 RETURNING version`!;
    if (version % 1000 === 0 && version > DELTA_RETENTION) {
      const cut = version - DELTA_RETENTION;
      this.sql.run`DELETE FROM inv_deltas WHERE version <= ${cut}`;
      this.sql.run`UPDATE inv_plan SET pruned_through = ${cut} WHERE id = 1`;
    }
    return version;
  }

  /** Keeps the one alarm at the earliest live deadline (or none), whatever happened to it. */
  private async armAlarm(): Promise<void> {
    const next =
      this.sql.one<{ at: number | null }>`SELECT MIN(expires_at) AS at FROM inv_holds WHERE status IN ('HELD', 'PAYMENT_PENDING')`?.at ??
      null;
    const current = await this.ctx.storage.getAlarm();
    if (next === null) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== next) {
      await this.ctx.storage.setAlarm(next);
    }
  }

  private plan(): InventoryConfig | null {
    const row = this.sql.one<{ config: string }>`SELECT config FROM inv_plan WHERE id = 1`;
    if (!row) return null;
    // Plans stored before prices, tiers and payment grace existed get the defaults.
    const defaults = {
      seatPriceMinor: DEFAULT_SEAT_PRICE_MINOR,
      currency: 'EUR',
      tiers: [],
      paymentGraceMs: DEFAULT_PAYMENT_GRACE_S * 1000,
    };
    return { ...defaults, ...(JSON.parse(row.config) as Partial<InventoryConfig>) } as InventoryConfig;
  }

  private tiers(): TierView[] {
    return this.sql.all<{
      tier: string;
      capacity: number;
      price_minor: number;
      held: number;
      sold: number;
    }>`SELECT * FROM inv_tiers ORDER BY tier`.map((t) => ({
      tier: t.tier,
      capacity: t.capacity,
      priceMinor: t.price_minor,
      available: t.capacity - t.held - t.sold,
      held: t.held,
      sold: t.sold,
    }));
  }

  private view(holdId: string): HoldView | null {
    const row = this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE hold_id = ${holdId}`;
    if (!row) return null;
    const seatIds = this.sql.all<{ seat_id: string }>`SELECT seat_id FROM inv_hold_seats WHERE hold_id = ${holdId} ORDER BY seat_id`.map(
      (r) => r.seat_id,
    );
    return {
      holdId,
      account: row.account,
      status: effectiveStatus({ status: row.status, expiresAtMs: row.expires_at }, this.clock()),
      seatIds,
      tier: row.tier,
      quantity: row.quantity,
      priceMinor: row.price_minor,
      // The currency the hold was priced in, not the event's current one.
      currency: row.currency ?? this.plan()?.currency ?? 'EUR',
      expiresAtMs: row.expires_at,
      orderId: row.order_id,
    };
  }
}
