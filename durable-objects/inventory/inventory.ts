// Inventory Durable Object: one per event, the single authority over seats and seat holds.
import { DurableObject } from 'cloudflare:workers';
import type { InventoryConfig } from '../../src/lib/event-config';
import { Sql, migrate } from '../shared/sql';
import {
  applyHoldAction,
  effectiveStatus,
  seatIdsFor,
  validateSeatIds,
  type HoldAction,
  type HoldRefusal,
  type HoldStatus,
} from './hold-policy';
import { INVENTORY_MIGRATIONS } from './schema';

/** A hold as callers see it. Times are epoch ms. */
export interface HoldView {
  holdId: string;
  account: string;
  status: HoldStatus;
  seatIds: string[];
  expiresAtMs: number;
  orderId: string | null;
}

/** `hold` outcome. `replayed` = same idempotency key and request as an earlier success. */
export type HoldAnswer =
  | { kind: 'held'; hold: HoldView; replayed: boolean }
  | { kind: 'event_not_found' }
  | { kind: 'invalid'; detail: string }
  | { kind: 'unknown_seats'; seatIds: string[] }
  | { kind: 'unavailable'; seatIds: string[] }
  | { kind: 'account_limit'; limit: number; owned: number }
  | { kind: 'idempotency_conflict' };

/** `release` / `confirm` / `getHold` outcome. */
export type HoldChangeAnswer =
  { kind: 'ok'; hold: HoldView } | { kind: 'not_found' } | { kind: 'refused'; code: HoldRefusal; detail: string; hold: HoldView };

/** Seat map: the version bumps on every seat change. */
export interface SeatMap {
  version: number;
  seats: { id: string; status: 'AVAILABLE' | 'HELD' | 'SOLD' }[];
}

/** Counts and the consistency checks behind "a seat is never sold twice". */
export interface InventoryStats {
  config: InventoryConfig;
  version: number;
  seats: { available: number; held: number; sold: number };
  holds: Record<HoldStatus, number>;
  consistency: {
    /** Seats claimed by more than one SOLD hold: must be 0. */
    seatsWithMultipleOrders: number;
    /** SOLD seats whose order is not the one of a SOLD hold owning them: must be 0. */
    soldSeatsWithoutMatchingOrder: number;
  };
}

interface HoldRow {
  hold_id: string;
  account: string;
  status: HoldStatus;
  expires_at: number;
  order_id: string | null;
  request: string;
  first_result: string;
}

export class Inventory extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, 'inv', INVENTORY_MIGRATIONS));
  }

  /**
   * Creates the seat plan, or updates hold rules of an existing one. The plan itself (seat count,
   * seats per row) is fixed once created.
   * @param dryRun check only, write nothing
   */
  async configure(
    config: InventoryConfig,
    dryRun = false,
  ): Promise<{ kind: 'ok'; created: boolean } | { kind: 'conflict'; detail: string }> {
    const plan = this.plan();
    if (plan && (plan.seats !== config.seats || plan.seatsPerRow !== config.seatsPerRow)) {
      return { kind: 'conflict', detail: `the seat plan is fixed at ${plan.seats} seats, ${plan.seatsPerRow} per row` };
    }
    if (dryRun) return { kind: 'ok', created: !plan };
    this.ctx.storage.transactionSync(() => {
      if (plan) {
        this.sql.run`UPDATE inv_plan SET config = ${JSON.stringify(config)}`;
        return;
      }
      this.sql.run`INSERT INTO inv_plan (id, config, version) VALUES (1, ${JSON.stringify(config)}, 1)`;
      seatIdsFor(config.seats, config.seatsPerRow).forEach((id, i) => {
        this.sql.run`INSERT INTO inv_seats (seat_id, ord, status, version) VALUES (${id}, ${i}, 'AVAILABLE', 1)`;
      });
    });
    return { kind: 'ok', created: !plan };
  }

  /**
   * Holds 1-6 seats for an account, all or nothing, until `now + holdTtl`. Seats whose hold has
   * expired count as available. The check and the write run in one synchronous SQLite
   * transaction, so no other request interleaves. Retrying with the same idempotency key and the
   * same seats returns the first success; the same key with other seats is refused. A refused
   * request stores nothing, so its retry is evaluated afresh.
   *
   * @param account the admission token's subject
   * @param seatIds requested seat ids
   * @param idempotencyKey client-chosen key, unique per intended hold
   */
  async hold(account: string, seatIds: string[], idempotencyKey: string): Promise<HoldAnswer> {
    const config = this.plan();
    if (!config) return { kind: 'event_not_found' };
    const valid = validateSeatIds(seatIds);
    if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
    const ids = valid.seatIds;
    const request = ids.join(',');
    const now = this.clock();

    const earlier = this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE account = ${account} AND idempotency_key = ${idempotencyKey}`;
    if (earlier) {
      if (earlier.request !== request) return { kind: 'idempotency_conflict' };
      return { kind: 'held', hold: JSON.parse(earlier.first_result) as HoldView, replayed: true };
    }

    const seats = this.sql.all<{ seat_id: string; status: string; hold_id: string | null; hold_expires_at: number | null }>`
      SELECT seat_id, status, hold_id, hold_expires_at FROM inv_seats WHERE seat_id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
    if (seats.length !== ids.length) {
      const known = new Set(seats.map((s) => s.seat_id));
      return { kind: 'unknown_seats', seatIds: ids.filter((id) => !known.has(id)) };
    }
    const taken = seats.filter((s) => s.status === 'SOLD' || (s.status === 'HELD' && s.hold_expires_at! > now));
    if (taken.length > 0) return { kind: 'unavailable', seatIds: taken.map((s) => s.seat_id) };

    const owned =
      this.sql.one<{ n: number }>`
      SELECT COUNT(*) AS n FROM inv_hold_seats hs JOIN inv_holds h ON h.hold_id = hs.hold_id
      WHERE h.account = ${account} AND (h.status = 'SOLD' OR (h.status = 'HELD' AND h.expires_at > ${now}))`?.n ?? 0;
    if (owned + ids.length > config.maxSeatsPerAccount) return { kind: 'account_limit', limit: config.maxSeatsPerAccount, owned };

    const hold: HoldView = {
      holdId: crypto.randomUUID(),
      account,
      status: 'HELD',
      seatIds: ids,
      expiresAtMs: now + config.holdTtlMs,
      orderId: null,
    };
    this.ctx.storage.transactionSync(() => {
      // Seats of expired holds are taken over: close those holds first, so their late timer finds nothing.
      for (const s of seats) if (s.status === 'HELD' && s.hold_id) this.expireIfDue(s.hold_id, now);
      const version = this.bumpVersion();
      this.sql.run`INSERT INTO inv_holds (hold_id, account, status, created_at, expires_at, idempotency_key, request, first_result)
        VALUES (${hold.holdId}, ${account}, 'HELD', ${now}, ${hold.expiresAtMs}, ${idempotencyKey}, ${request}, ${JSON.stringify(hold)})`;
      for (const id of ids) {
        this.sql.run`INSERT INTO inv_hold_seats (hold_id, seat_id) VALUES (${hold.holdId}, ${id})`;
        const written = this.sql.all`UPDATE inv_seats SET status = 'HELD', hold_id = ${hold.holdId}, hold_expires_at = ${hold.expiresAtMs},
          order_id = NULL, version = ${version} WHERE seat_id = ${id} AND (status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= ${now}))
          RETURNING seat_id`;
        // Throwing inside transactionSync rolls the whole hold back.
        if (written.length !== 1) throw new Error(`invariant: seat ${id} changed between check and write`);
      }
    });
    await this.armAlarm();
    return { kind: 'held', hold, replayed: false };
  }

  /**
   * A hold by id. With `account` set, only its owner may read it.
   */
  async getHold(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const hold = this.view(holdId);
    if (!hold) return { kind: 'not_found' };
    if (account !== null && hold.account !== account) return { kind: 'not_found' };
    return { kind: 'ok', hold };
  }

  /**
   * Releases a HELD hold and frees its seats. Releasing a released hold again is a no-op.
   * @param account the owner, or null when the origin acts
   */
  async release(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'release', account });
  }

  /**
   * Sells a HELD, unexpired hold's seats to `orderId`. Confirming again with the same order id
   * returns the same result; another order id, an expired or a released hold is refused.
   * @param account the owner the origin vouches for, or null
   */
  async confirm(holdId: string, orderId: string, account: string | null): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'confirm', orderId, account });
  }

  /** The seat map with expired holds shown as available; null if the event does not exist. */
  async seatMap(): Promise<SeatMap | null> {
    const row = this.sql.one<{ version: number }>`SELECT version FROM inv_plan WHERE id = 1`;
    if (!row) return null;
    const now = this.clock();
    const seats = this.sql.all<{ id: string; status: 'AVAILABLE' | 'HELD' | 'SOLD' }>`
      SELECT seat_id AS id, CASE WHEN status = 'HELD' AND hold_expires_at <= ${now} THEN 'AVAILABLE' ELSE status END AS status
      FROM inv_seats ORDER BY ord`;
    return { version: row.version, seats };
  }

  /** Counts and consistency checks for the organizer and the crowd run; null if no event. */
  async stats(): Promise<InventoryStats | null> {
    const config = this.plan();
    if (!config) return null;
    const now = this.clock();
    const n = (row: { n: number } | null) => row?.n ?? 0;
    const held = n(this.sql.one`SELECT COUNT(*) AS n FROM inv_seats WHERE status = 'HELD' AND hold_expires_at > ${now}`);
    const sold = n(this.sql.one`SELECT COUNT(*) AS n FROM inv_seats WHERE status = 'SOLD'`);
    const holds: Record<HoldStatus, number> = { HELD: 0, SOLD: 0, RELEASED: 0, EXPIRED: 0 };
    for (const r of this.sql.all<{ status: HoldStatus; n: number }>`SELECT status, COUNT(*) AS n FROM inv_holds GROUP BY status`)
      holds[r.status] = r.n;
    return {
      config,
      version: this.sql.one<{ version: number }>`SELECT version FROM inv_plan WHERE id = 1`!.version,
      seats: { available: config.seats - held - sold, held, sold },
      holds,
      consistency: {
        seatsWithMultipleOrders: n(this.sql.one`SELECT COUNT(*) AS n FROM (SELECT hs.seat_id FROM inv_hold_seats hs
          JOIN inv_holds h ON h.hold_id = hs.hold_id WHERE h.status = 'SOLD' GROUP BY hs.seat_id HAVING COUNT(*) > 1)`),
        soldSeatsWithoutMatchingOrder: n(this.sql.one`SELECT COUNT(*) AS n FROM inv_seats s WHERE s.status = 'SOLD' AND NOT EXISTS (
          SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
          WHERE hs.seat_id = s.seat_id AND h.hold_id = s.hold_id AND h.status = 'SOLD' AND h.order_id = s.order_id)`),
      },
    };
  }

  /**
   * Expires every HELD hold past its own deadline and frees exactly its seats, then re-arms for
   * the earliest remaining deadline. Safe to run late or twice: each expiry re-checks the hold's
   * id, state and deadline, so a seat re-held or sold since is never touched.
   */
  override async alarm(): Promise<void> {
    const now = this.clock();
    const due = this.sql.all<{ hold_id: string }>`SELECT hold_id FROM inv_holds WHERE status = 'HELD' AND expires_at <= ${now}`;
    this.ctx.storage.transactionSync(() => {
      for (const { hold_id } of due) this.expireIfDue(hold_id, now);
    });
    await this.armAlarm();
  }

  private change(holdId: string, action: HoldAction): HoldChangeAnswer {
    const row = this.sql.one<HoldRow>`SELECT * FROM inv_holds WHERE hold_id = ${holdId}`;
    if (!row) return { kind: 'not_found' };
    const now = this.clock();
    const t = applyHoldAction(
      { account: row.account, status: row.status, expiresAtMs: row.expires_at, orderId: row.order_id },
      action,
      now,
    );
    if (!t.ok) return { kind: 'refused', code: t.code, detail: t.detail, hold: this.view(holdId)! };
    if (!t.noop) {
      this.ctx.storage.transactionSync(() => {
        const version = this.bumpVersion();
        if (t.status === 'SOLD' && action.kind === 'confirm') {
          this.sql.run`UPDATE inv_holds SET status = 'SOLD', order_id = ${action.orderId} WHERE hold_id = ${holdId} AND status = 'HELD'`;
          this.sql.run`UPDATE inv_seats SET status = 'SOLD', order_id = ${action.orderId}, hold_expires_at = NULL, version = ${version}
            WHERE hold_id = ${holdId} AND status = 'HELD'`;
        } else {
          this.sql.run`UPDATE inv_holds SET status = ${t.status} WHERE hold_id = ${holdId} AND status = 'HELD'`;
          this.freeSeatsOf(holdId, version);
        }
      });
    }
    return { kind: 'ok', hold: this.view(holdId)! };
  }

  /** Expires one hold if, and only if, it is still HELD and past its own deadline. */
  private expireIfDue(holdId: string, now: number): void {
    const expired = this.sql
      .all`UPDATE inv_holds SET status = 'EXPIRED' WHERE hold_id = ${holdId} AND status = 'HELD' AND expires_at <= ${now} RETURNING hold_id`;
    if (expired.length > 0) this.freeSeatsOf(holdId, this.bumpVersion());
  }

  /** Frees the seats this hold still holds; seats re-held or sold since carry another hold id. */
  private freeSeatsOf(holdId: string, version: number): void {
    this.sql.run`UPDATE inv_seats SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL, version = ${version}
      WHERE hold_id = ${holdId} AND status = 'HELD'`;
  }

  private bumpVersion(): number {
    this.sql.run`UPDATE inv_plan SET version = version + 1 WHERE id = 1`;
    return this.sql.one<{ version: number }>`SELECT version FROM inv_plan WHERE id = 1`!.version;
  }

  private async armAlarm(): Promise<void> {
    const next = this.sql.one<{ at: number | null }>`SELECT MIN(expires_at) AS at FROM inv_holds WHERE status = 'HELD'`?.at ?? null;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  private plan(): InventoryConfig | null {
    const row = this.sql.one<{ config: string }>`SELECT config FROM inv_plan WHERE id = 1`;
    return row ? (JSON.parse(row.config) as InventoryConfig) : null;
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
      expiresAtMs: row.expires_at,
      orderId: row.order_id,
    };
  }
}
