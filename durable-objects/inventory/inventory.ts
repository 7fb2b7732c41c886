// Inventory Durable Object: one per event, the single authority over seats and seat holds.
// A thin adapter: storage (store.ts), rules (hold-policy.ts, decide-hold.ts, config-change.ts,
// seat-map-plan.ts) and this class's alarm and RPC orchestration.
import { DurableObject } from 'cloudflare:workers';
import { DEFAULT_PAYMENT_GRACE_S, type InventoryConfig } from '../../contracts/event-config';
import { FixedWindowLimiter } from '../shared/fixed-window';
import { Sql, migrate } from '../shared/sql';
import { decideAbort, decideChange, type ChangeRequest } from './config-change';
import { consistencyCounts } from './consistency';
import { checkConfirm, decideHold } from './decide-hold';
import { applyHoldAction, effectiveStatus, targetKey, validateHoldTarget, type HoldAction, type HoldStatus } from './hold-policy';
import { INVENTORY_MIGRATIONS } from './schema';
import { planSeatMap } from './seat-map-plan';
import { InventoryStore, type Actor } from './store';
import type {
  AuditEntry,
  BeginChangeAnswer,
  ConfigureAnswer,
  EndChangeAnswer,
  HoldAnswer,
  HoldChangeAnswer,
  HoldRequest,
  HoldView,
  SeatMapAnswer,
  StatsAnswer,
} from '../../contracts/inventory-answers';

/** Hold attempts one account may make per HOLD_WINDOW_MS; more get `rate_limited` (429 at the edge). */
export const HOLDS_PER_WINDOW = 20;
export const HOLD_WINDOW_MS = 10_000;

export class Inventory extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  /** Seat-map reads this instance has served since it started (the edge cache keeps them few). */
  mapReads = 0;
  /** Full seat maps (snapshots) this instance has serialized since it started. */
  snapshotsServed = 0;
  /** Hold attempts per account: HOLDS_PER_WINDOW per HOLD_WINDOW_MS (in memory, see FixedWindowLimiter). */
  private readonly holdLimiter = new FixedWindowLimiter(HOLDS_PER_WINDOW, HOLD_WINDOW_MS);
  private readonly sql: Sql;
  /** All SQL of this object (tests reach it through `runInDurableObject` to inject faults). */
  readonly store: InventoryStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    this.store = new InventoryStore(this.sql);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, 'inv', INVENTORY_MIGRATIONS);
      // A reset between a committed change and its setAlarm (the write is durable, the alarm call
      // never ran) would leave a deadline with no timer: every start re-arms from the table.
      await this.armAlarm();
    });
  }

  /**
   * Starts (or resumes) a configuration change of the event: writes the seat plan (new), or the
   * prices and hold rules (existing), and records the change as in flight until `finishChange` or
   * `abortChange`. See `decideChange` for who may start a change while another is in flight.
   * @returns `ok` (`created`: a new plan was written), `busy` (another change owns the event for
   *   `retryAfterS` more seconds) or `conflict` (the plan is fixed); the last two change nothing
   */
  async beginChange(request: ChangeRequest): Promise<BeginChangeAnswer> {
    const now = this.clock();
    return this.ctx.storage.transactionSync((): BeginChangeAnswer => {
      const plan = this.store.plan();
      const decision = decideChange({ plan, holdsExist: this.store.holdsExist(), pending: this.store.pendingChange() }, request, now);
      if (decision.kind !== 'apply') return decision;
      const eventId = this.eventId();
      if (decision.write === 'create') this.store.createPlan(request.config, eventId);
      else if (decision.write === 'replace') this.store.replacePlan(request.config, eventId);
      else this.store.updatePlan(request.config, eventId);
      this.store.savePendingChange(decision.pending);
      // `created` stays true for a creation resumed after a crash: its answer is still 201.
      return { kind: 'ok', created: decision.pending.createdPlan, resumed: decision.resumed };
    });
  }

  /** Ends the change `changeId` started: the configuration is now the event's. A retried finish answers `ok` again. */
  async finishChange(changeId: string): Promise<EndChangeAnswer> {
    return this.ctx.storage.transactionSync((): EndChangeAnswer => {
      const pending = this.store.pendingChange();
      if (pending?.changeId === changeId) {
        this.store.endChange('done');
        return { kind: 'ok' };
      }
      return !pending && this.store.lastFinishedChange() === changeId ? { kind: 'ok' } : { kind: 'superseded' };
    });
  }

  /**
   * Undoes the change `changeId` started, after another object refused its part: a created plan
   * goes (while no hold exists), an update's previous configuration comes back.
   */
  async abortChange(changeId: string): Promise<EndChangeAnswer> {
    return this.ctx.storage.transactionSync((): EndChangeAnswer => {
      const decision = decideAbort(this.store.pendingChange(), changeId, this.store.holdsExist());
      if (decision.kind === 'not_owner') return { kind: 'superseded' };
      if (decision.kind === 'delete_plan') this.store.deletePlan();
      else if (decision.kind === 'restore') this.store.updatePlan(decision.config, null);
      this.store.endChange('dropped');
      return { kind: 'ok' };
    });
  }

  /**
   * Creates or updates the plan in one step, for callers with no other object to configure
   * (tests, benchmarks): `beginChange` and `finishChange` at once.
   */
  async configure(config: InventoryConfig): Promise<ConfigureAnswer> {
    const changeId = crypto.randomUUID();
    const begun = await this.beginChange({ changeId, fingerprint: `direct:${changeId}`, config });
    if (begun.kind !== 'ok') return begun;
    await this.finishChange(changeId);
    return { kind: 'ok', created: begun.created };
  }

  /**
   * Closes the sale to new holds (`closed`) or opens it again. Holds made before keep their terms:
   * they may still start payment, be confirmed or released; their deadlines still run.
   * @returns false when the event does not exist
   */
  async setSalesClosed(closed: boolean): Promise<boolean> {
    if (!this.store.head()) return false;
    this.store.setSalesClosed(closed);
    return true;
  }

  /**
   * Holds 1-6 numbered seats, or 1-6 places of a tier, for an account: all or nothing, until
   * `now + holdTtl`. Expired holds are swept first, so their seats count as available. The checks
   * and the writes (hold, seats or tier counter, idempotency record, audit, deltas) are one
   * synchronous SQLite transaction: nothing interleaves, and a crash leaves all or none of it.
   * Retrying with the same idempotency key and request returns the first success (even after the
   * sale closed); the same key with another request is refused. A refused request stores nothing.
   *
   * @param account the admission token's subject
   * @param idempotencyKey client-chosen key, unique per intended hold, scoped to the account
   */
  async hold(account: string, request: HoldRequest, idempotencyKey: string): Promise<HoldAnswer> {
    const config = this.store.plan();
    if (!config) return { kind: 'event_not_found' };
    const valid = validateHoldTarget(request);
    if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
    const target = valid.target;
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync((): HoldAnswer => {
      this.sweep(now);
      const earlier = this.store.holdByKey(account, idempotencyKey);
      if (earlier) {
        return earlier.request === targetKey(target)
          ? { kind: 'held', hold: JSON.parse(earlier.first_result) as HoldView, replayed: true }
          : { kind: 'idempotency_conflict' };
      }
      if (this.store.head()!.salesClosed) return { kind: 'sales_closed' };
      // One account cannot hammer the seats: counted here, where the request already is, at no
      // cost; a retry of a hold already made (above) replays whatever the count.
      if (!this.holdLimiter.take(account, now)) return { kind: 'rate_limited', retryAfterS: HOLD_WINDOW_MS / 1000 };
      const decision = decideHold({
        target,
        availability: this.store.availability(target),
        owned: this.store.ownedBy(account, now, null),
        rules: config,
        nowMs: now,
      });
      if (decision.kind !== 'grant') return decision;
      const hold: HoldView = {
        holdId: crypto.randomUUID(),
        account,
        status: 'HELD',
        seatIds: target.kind === 'seats' ? target.seatIds : [],
        tier: target.kind === 'tier' ? target.tier : null,
        quantity: decision.quantity,
        priceMinor: decision.priceMinor,
        currency: decision.currency,
        expiresAtMs: decision.expiresAtMs,
        orderId: null,
      };
      this.store.insertHold(hold, target, idempotencyKey, now);
      return { kind: 'held', hold, replayed: false };
    });
    await this.afterWrite();
    return answer;
  }

  /** A hold by id. With `account` set, only its owner may read it. */
  async getHold(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const hold = this.store.view(holdId, this.clock());
    if (!hold || (account !== null && hold.account !== account)) return { kind: 'not_found' };
    return { kind: 'ok', hold };
  }

  /**
   * The origin starts payment: HELD -> PAYMENT_PENDING, with the deadline moved once to
   * `now + paymentGrace`. Past it the hold NEEDS_RECONCILIATION and its seats stay out of sale.
   */
  async startPayment(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const grace = this.store.plan()?.paymentGraceMs ?? DEFAULT_PAYMENT_GRACE_S * 1000;
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
    const now = this.clock();
    return this.store.paymentHoldIds(afterHoldId, limit).map((id) => this.store.view(id, now)!);
  }

  /**
   * The seat map. Without `since` (or with a version older than the kept deltas): every seat,
   * expired holds shown as available. With `since`: only seats changed after that version, each
   * with its latest status (a `since` above the current version gets the empty delta from the
   * current one: see `planSeatMap`). Tier counters come whole with both.
   */
  async seatMap(since?: number): Promise<SeatMapAnswer> {
    this.mapReads++;
    const head = this.store.head();
    const config = this.store.plan();
    if (!head || !config) return { kind: 'event_not_found' };
    const common = {
      tiers: this.store.tiers(),
      seatPriceMinor: config.seatPriceMinor,
      currency: config.currency,
      salesClosed: head.salesClosed,
    };
    const plan = planSeatMap(since, head);
    if (plan.kind === 'delta') {
      return {
        kind: 'map',
        map: { kind: 'delta', version: head.version, since: plan.since, changes: this.store.changesSince(plan.since), ...common },
      };
    }
    this.snapshotsServed++;
    return { kind: 'map', map: { kind: 'snapshot', version: head.version, seats: this.store.snapshotSeats(this.clock()), ...common } };
  }

  /** Pages through the audit log: entries with id > `afterId`, oldest first, at most `limit` (1-1000). */
  async auditLog(afterId: number, limit: number): Promise<AuditEntry[]> {
    return this.store.auditLog(afterId, Math.min(Math.max(limit, 1), 1000));
  }

  /** Counts and consistency checks for the organizer and the crowd run. */
  async stats(): Promise<StatsAnswer> {
    const config = this.store.plan();
    const head = this.store.head();
    if (!config || !head) return { kind: 'event_not_found' };
    const now = this.clock();
    const seats = { available: 0, held: 0, paymentPending: 0, needsReconciliation: 0, sold: 0 };
    for (const r of this.store.seatedByStatus(now)) {
      // Deadlines count even before the timer ran: a due HELD hold is free, a due payment needs reconciliation.
      const s = effectiveStatus({ status: r.status, expiresAtMs: r.due ? now : now + 1 }, now);
      if (s === 'HELD') seats.held += r.n;
      else if (s === 'PAYMENT_PENDING') seats.paymentPending += r.n;
      else if (s === 'NEEDS_RECONCILIATION') seats.needsReconciliation += r.n;
      else if (s === 'SOLD') seats.sold += r.n;
    }
    seats.available = config.seats - seats.held - seats.paymentPending - seats.needsReconciliation - seats.sold;
    const holds: Record<HoldStatus, number> = { HELD: 0, PAYMENT_PENDING: 0, NEEDS_RECONCILIATION: 0, SOLD: 0, RELEASED: 0, EXPIRED: 0 };
    for (const r of this.store.holdCounts()) holds[r.status] = r.n;
    const pending = this.store.pendingChange();
    return {
      kind: 'stats',
      stats: {
        config,
        version: head.version,
        seats,
        tiers: this.store.tiers(),
        holds,
        consistency: consistencyCounts(this.sql),
        salesClosed: head.salesClosed,
        pendingChange: pending
          ? { startedAtMs: pending.startedAtMs, leaseUntilMs: pending.leaseUntilMs, createdPlan: pending.createdPlan }
          : null,
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
    await this.afterWrite();
  }

  private async change(holdId: string, action: HoldAction, actor: Actor, reason: string): Promise<HoldChangeAnswer> {
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync((): HoldChangeAnswer => {
      this.sweep(now);
      const row = this.store.holdRow(holdId);
      if (!row) return { kind: 'not_found' };
      const refused = (code: Extract<HoldChangeAnswer, { kind: 'refused' }>['code'], detail: string): HoldChangeAnswer => ({
        kind: 'refused',
        code,
        detail,
        hold: this.store.view(holdId, now)!,
      });
      const t = applyHoldAction(
        { account: row.account, status: row.status, expiresAtMs: row.expires_at, orderId: row.order_id, priceMinor: row.price_minor },
        action,
        now,
      );
      if (!t.ok) return refused(t.code, t.detail);
      if (t.noop) return { kind: 'ok', hold: this.store.view(holdId, now)! };
      if (action.kind === 'confirm') {
        const check = checkConfirm({
          orderUsedElsewhere: this.store.orderUsedElsewhere(action.orderId, holdId),
          ownedOther: this.store.ownedBy(row.account, now, holdId),
          quantity: row.quantity,
          limit: this.store.plan()!.maxSeatsPerAccount,
        });
        if (!check.ok) return refused(check.code, check.detail);
      }
      this.store.applyTransition(row, t.status, t.expiresAtMs, action.kind === 'confirm' ? action.orderId : null, now, actor, reason);
      return { kind: 'ok', hold: this.store.view(holdId, now)! };
    });
    await this.afterWrite();
    return answer;
  }

  /** Applies every passed deadline; call inside a transaction. */
  private sweep(now: number): void {
    for (const row of this.store.dueHolds(now)) {
      const held = row.status === 'HELD';
      const reason = held ? 'hold TTL passed' : 'payment grace passed without an answer';
      this.store.applyTransition(row, held ? 'EXPIRED' : 'NEEDS_RECONCILIATION', row.expires_at, null, now, 'timer', reason);
    }
  }

  /** After every committed write: the alarm follows the deadlines, the WaitingRoom learns a sell-out. */
  private async afterWrite(): Promise<void> {
    await this.armAlarm();
    await this.announceSoldOut();
  }

  /**
   * Sold out = no seat or tier place is available and none is held by a hold that may still
   * expire (places whose payment is pending count as gone). When that flips, tell the event's
   * WaitingRoom so waiting visitors learn it at once; the flag is stored once the room has it.
   */
  private async announceSoldOut(): Promise<void> {
    const head = this.store.head();
    const eventId = head?.eventId ?? null;
    if (!head || !eventId) return;
    const soldOut = !this.store.anythingLeft();
    if (soldOut === head.soldOut) return;
    try {
      await this.env.WAITING_ROOM.getByName(eventId).setSoldOut(soldOut);
      // Stored only once delivered: a failed call is retried by the next change.
      this.store.setSoldOutDelivered(soldOut);
    } catch (err) {
      console.warn('sold-out signal not delivered; retried on the next change:', err instanceof Error ? err.message : err);
    }
  }

  /** Keeps the one alarm at the earliest live deadline (or none), whatever happened to it. */
  private async armAlarm(): Promise<void> {
    const next = this.store.nextDeadline();
    const current = await this.ctx.storage.getAlarm();
    if (next === null) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== next) {
      await this.ctx.storage.setAlarm(next);
    }
  }

  /** The event this object serves (its name), so it can tell the event's WaitingRoom when it sells out. */
  private eventId(): string | null {
    return this.ctx.id.name ?? null;
  }
}
