// The checkout saga of the origin stub: order, payment and seat hold across the payment boundary.
// Storage, the payment provider and the gateway's inventory are ports, so the same code runs in the
// Shop Durable Object and in the property tests' random interleavings.
import type { FakePaymentProvider, ProviderAnswer, WebhookEvent } from './payment-provider';
import { formatMoney } from './money';
import { catchUp, newPayment, transition, type Payment, type PaymentEvent, type PaymentOp, type ProviderSnapshot } from './payment-state';

/**
 * Order lifecycle: `INITIATED -> PAID` (the hold is SOLD to this order; tickets issued),
 * `INITIATED -> FAILED` (nothing charged, hold released), `INITIATED -> CANCELLING -> CANCELLED`
 * (authorized but the seats could not be confirmed: the hold is released first, then the
 * authorization voided), `CANCELLING -> PAID` (the release found the hold already SOLD to this
 * order by a confirm that landed late: the money is captured, not voided). A free order (amount 0)
 * has no payment: `INITIATED -> PAID | FAILED` by the confirm alone.
 */
export type OrderState = 'INITIATED' | 'PAID' | 'CANCELLING' | 'CANCELLED' | 'FAILED';

/** One order; its payment has `paymentId = orderId`. Amounts in minor units of `currency`. */
export interface Order {
  orderId: string;
  account: string;
  /** The hold this order pays for; `''` for a checkout refused before any order of a hold began (not linked to any hold). */
  holdId: string;
  state: OrderState;
  version: number;
  amountMinor: number;
  currency: string;
  seatIds: string[];
  /** What the visitor buys, for people ("A1, A2" or "2 x floor"). */
  label: string;
  /** Issued only from committed state: the seats of the hold the gateway answered SOLD to this order. */
  tickets: string[];
  message: string;
  createdAtMs: number;
}

/** What the visitor sees: `PROCESSING` while the outcome is not known (never "failed" or "success"). */
export type OrderStatus = 'PAID' | 'PROCESSING' | 'FAILED' | 'CANCELLED';

/** Storage of orders, payments and webhook events. Every write is compare-and-set on state and version. */
export interface ShopStore {
  order(orderId: string): Order | null;
  /** Every order linked to a hold, oldest first (refused checkouts are linked to none). */
  ordersForHold(holdId: string): Order[];
  orders(): Order[];
  insertOrder(o: Order): void;
  /** Writes `next` only if the stored order still has `expected`'s state and version; false otherwise. */
  casOrder(next: Order, expected: Pick<Order, 'state' | 'version'>): boolean;
  payment(paymentId: string): Payment | null;
  insertPayment(p: Payment): void;
  /** Writes `next` only if the stored payment still has `expected`'s state and version; false otherwise. */
  casPayment(next: Payment, expected: Pick<Payment, 'state' | 'version'>): boolean;
  /** Records a webhook event id with its outcome; false (and nothing written) when it was seen before. */
  rememberWebhook(eventId: string, type: string, outcome: string): boolean;
  /** Runs `fn` atomically (one SQLite transaction in the Durable Object). */
  atomically<T>(fn: () => T): T;
}

/** A hold as the gateway's origin API answers it. */
export interface HoldInfo {
  holdId: string;
  status: string;
  account: string;
  seatIds: string[];
  tier: string | null;
  quantity: number;
  priceMinor: number;
  currency: string;
  orderId: string | null;
}

/** A gateway answer: the hold, a refusal (4xx with its code and, when given, the hold), or none at all. */
export type HoldAnswer = { kind: 'ok'; hold: HoldInfo } | { kind: 'refused'; code: string; hold: HoldInfo | null } | { kind: 'no_answer' };

/** The gateway's signed origin API (docs/api.md, "Origin API"). */
export interface InventoryClient {
  getHold(holdId: string): Promise<HoldAnswer>;
  startPayment(holdId: string, account: string): Promise<HoldAnswer>;
  confirm(holdId: string, orderId: string, amountMinor: number, account: string): Promise<HoldAnswer>;
  release(holdId: string, account: string): Promise<HoldAnswer>;
  /** One page of the holds whose payment started or that are sold (`GET .../holds?after=`). */
  paymentHolds(after: string): Promise<{ kind: 'ok'; holds: HoldInfo[]; next: string | null } | { kind: 'no_answer' }>;
}

/** Scheduled work: run `kind` for `ref` at or after `atMs` (an earlier schedule of the same job wins). */
export type JobKind = 'advance' | 'resolve' | 'expire_authorization';
export type ScheduleJob = (kind: JobKind, ref: string, atMs: number) => void;

/** Timing of the saga, ms. */
export interface CheckoutTiming {
  /** Authorizations not captured this long after they were granted are voided (unless the seats are sold). */
  authorizationWindowMs: number;
  /** First query of an UNKNOWN payment after this long; then backs off up to 8x. */
  resolveAfterMs: number;
  /** Retry of a gateway or provider call that got no answer. */
  retryAfterMs: number;
  /** An order whose payment was never sent to the provider (the shop stopped mid-way) is abandoned after this long. */
  abandonAfterMs: number;
}

/** Defaults of `CheckoutTiming`, ms. */
export const DEFAULT_TIMING: CheckoutTiming = {
  authorizationWindowMs: 10 * 60_000,
  resolveAfterMs: 2_000,
  retryAfterMs: 2_000,
  abandonAfterMs: 60_000,
};

/** The provider calls the saga makes (the fake provider, or a client of a real one). */
export type PaymentClient = Pick<FakePaymentProvider, 'authorize' | 'capture' | 'void' | 'refund' | 'query' | 'list'>;

/** The stable operation id (the provider's idempotency key) of one call on one payment. */
export function operationId(paymentId: string, op: PaymentOp): string {
  return `${paymentId}:${op}`;
}

/** One difference found by `reconcile`, and what was done about it. */
export interface Difference {
  kind:
    | 'payment_behind_provider'
    | 'payment_conflict'
    | 'payment_missing_at_provider'
    | 'hold_sold_but_order_open'
    | 'hold_state_mismatch'
    | 'sold_without_payment'
    | 'orphan_authorization'
    | 'still_unknown'
    | 'sold_without_order'
    | 'hold_without_order'
    | 'inventory_unreachable';
  orderId: string | null;
  holdId: string | null;
  detail: string;
  action: string;
}

/** Result of one reconciliation run. */
export interface ReconciliationReport {
  atMs: number;
  orders: number;
  providerPayments: number;
  differences: Difference[];
}

const MESSAGES = {
  processing: 'Processing your payment. Do not pay again: this page updates by itself.',
  holdGone: 'This hold is no longer active (it expired or was released). You were not charged.',
  unreachable: 'The ticket system did not answer, so nothing was started and you were not charged. Try again.',
  declined: 'Your card was declined, so the seats were released. You were not charged.',
  failed: 'The payment could not be completed, so the seats were released. You were not charged.',
  notYours: 'This hold is not active for you (it expired, was released, or belongs to someone else). You were not charged.',
  cancelling:
    'Your seats could not be confirmed, so the payment authorization is being cancelled. Do not pay again: this page updates by itself.',
  cancelled: 'Your seats could not be confirmed (the hold ended), so the payment authorization was cancelled. You were not charged.',
  freeFailed: 'Your seats could not be confirmed (the hold ended or the account limit was reached). Nothing was charged.',
};

/** Orders that keep their hold: a second checkout of the hold returns this one instead of paying again. */
const HOLDS_SEATS: readonly OrderState[] = ['INITIATED', 'CANCELLING', 'PAID'];

/** The saga's collaborators. */
export interface CheckoutDeps {
  store: ShopStore;
  provider: PaymentClient;
  inventory: InventoryClient;
  schedule: ScheduleJob;
  clock: () => number;
  newId: () => string;
  timing: CheckoutTiming;
}

/**
 * The checkout saga. Every step re-reads the order and payment, decides, calls out, and writes
 * its result with compare-and-set, so a webhook, a query answer, a job and a request racing on
 * the same payment can never both apply. Invariants it keeps (checked by the property tests):
 * one open or paid order per hold; an authorization or capture that is UNKNOWN keeps its seats
 * out of sale; an order is FAILED or CANCELLED only once its hold keeps no seats; an authorization
 * is voided only once its hold is known never to be sold to its order (released first: seats
 * first, money second); tickets come only from a hold the gateway answered SOLD to this order.
 */
export class CheckoutEngine {
  private readonly d: CheckoutDeps;
  /** Orders whose driver runs now: one driver per order, others reschedule. */
  private readonly driving = new Set<string>();

  constructor(deps: CheckoutDeps) {
    this.d = deps;
  }

  /**
   * Checks out a hold for `account`: reads the hold (the price comes from the gateway), records the
   * order and its payment INITIATED, moves the hold to PAYMENT_PENDING, authorizes, then drives
   * the order as far as it goes now. A hold that already has an open or paid order (of any age:
   * not only the newest) returns that order to its owner and is refused to anyone else, so a
   * double click, a second tab or a reload never authorizes twice. A refused checkout is answered
   * as a FAILED order that is linked to no hold (another account's refusal never lands under
   * someone's hold). A free hold (price 0) is confirmed without any payment.
   */
  async checkout(account: string, holdId: string, card: string): Promise<Order> {
    const { store, inventory, provider } = this.d;
    const before = this.openOrderOf(holdId);
    if (before) return before.account === account ? before : this.refusedOrder(account, MESSAGES.notYours);
    const read = await inventory.getHold(holdId);
    // Another checkout of this hold may have started while the hold was read: its order wins.
    const started = this.openOrderOf(holdId);
    if (started) return started.account === account ? started : this.refusedOrder(account, MESSAGES.notYours);
    if (read.kind === 'no_answer') return this.refusedOrder(account, MESSAGES.unreachable);
    const hold = read.kind === 'ok' ? read.hold : null;
    if (!hold || hold.account !== account) return this.refusedOrder(account, MESSAGES.notYours);
    if (hold.status !== 'HELD') return this.refusedOrder(account, MESSAGES.holdGone, hold);
    const free = hold.priceMinor === 0;
    const { order, created } = store.atomically(() => {
      // Checked again with the insert: two concurrent checkouts of one hold create one order.
      const other = this.openOrderOf(holdId);
      if (other) return { order: other, created: false };
      const o = this.newOrder(account, hold, 'INITIATED', MESSAGES.processing);
      store.insertOrder(o);
      if (!free) store.insertPayment(newPayment(o.orderId, o.amountMinor, o.currency));
      return { order: o, created: true };
    });
    if (!created) return order.account === account ? order : this.refusedOrder(account, MESSAGES.notYours);
    this.d.schedule('advance', order.orderId, this.d.clock() + this.d.timing.abandonAfterMs);
    if (free) {
      await this.advance(order.orderId);
      return store.order(order.orderId)!;
    }
    // This request drives the order until the authorization is answered; jobs and webhooks meanwhile reschedule.
    this.driving.add(order.orderId);
    try {
      const pending = await inventory.startPayment(holdId, account);
      if (pending.kind !== 'ok') {
        // Never authorize a hold that is not PAYMENT_PENDING: its seats could be resold meanwhile.
        // The order fails once the driver has made sure the hold keeps no seats (released or expired).
        this.updatePayment(order.orderId, () => ({ kind: 'abandoned', reason: 'the hold could not be moved to PAYMENT_PENDING' }));
      } else {
        const opId = operationId(order.orderId, 'authorize');
        this.applyAnswer(
          order.orderId,
          'authorize',
          await provider.authorize(opId, order.orderId, order.amountMinor, order.currency, card),
        );
      }
    } finally {
      this.driving.delete(order.orderId);
    }
    await this.advance(order.orderId);
    return store.order(order.orderId)!;
  }

  /** The order of `holdId` that keeps its seats or paid for them (INITIATED, CANCELLING, PAID), or null. */
  private openOrderOf(holdId: string): Order | null {
    return this.d.store.ordersForHold(holdId).find((o) => HOLDS_SEATS.includes(o.state)) ?? null;
  }

  /**
   * The visitor's view of an order: `PAID` (the gateway sold the seats to this order and the money
   * is authorized; capture follows by a job and is never undone by a void), `PROCESSING` (outcome
   * not known yet, including while a cancellation is under way), `FAILED` or `CANCELLED` (final:
   * no seats, no money kept). `holdId` is null for a checkout refused before any order began.
   */
  view(orderId: string) {
    const o = this.d.store.order(orderId);
    if (!o) return null;
    const p = this.d.store.payment(orderId);
    // CANCELLING is not final for the visitor: the void may be unanswered (UNKNOWN), and the release
    // may still find the seats sold to this order by a late confirm (then it is PAID after all).
    const status: OrderStatus =
      o.state === 'PAID' ? 'PAID' : o.state === 'FAILED' ? 'FAILED' : o.state === 'CANCELLED' ? 'CANCELLED' : 'PROCESSING';
    return {
      orderId: o.orderId,
      status,
      holdId: o.holdId || null,
      seatIds: o.seatIds,
      amountMinor: o.amountMinor,
      currency: o.currency,
      tickets: o.tickets,
      message: o.message,
      payment: p?.state ?? null,
    };
  }

  /**
   * Drives one order to its next stable point: confirm the hold once authorized, capture once
   * paid, release once the payment failed, void when the seats could not be confirmed. Safe to
   * call any time, twice, or late; a second driver of the same order reschedules itself.
   */
  async advance(orderId: string): Promise<void> {
    await this.exclusively(orderId, 'advance', async () => {
      for (let i = 0; i < 8 && (await this.step(orderId)); i++);
    });
  }

  /**
   * Runs `fn` as the only driver of `orderId` (a decision taken before an await must not meet
   * another driver's decision after it); if another one runs, schedules `job` (if any) instead.
   * @returns false when it did not run
   */
  private async exclusively(orderId: string, job: JobKind | null, fn: () => Promise<void>): Promise<boolean> {
    if (this.driving.has(orderId)) {
      if (job) this.d.schedule(job, orderId, this.d.clock() + this.d.timing.retryAfterMs);
      return false;
    }
    this.driving.add(orderId);
    try {
      await fn();
    } finally {
      this.driving.delete(orderId);
    }
    return true;
  }

  /** Asks the provider about an UNKNOWN payment (same payment id, same operation ids), then drives the order. */
  async resolve(paymentId: string, attempt = 0): Promise<void> {
    const p = this.d.store.payment(paymentId);
    if (!p || p.state !== 'UNKNOWN') return this.advance(paymentId);
    const q = await this.d.provider.query(paymentId);
    if (q.kind === 'ok') this.catchUpWith(paymentId, q.payment, true);
    else if (q.kind === 'not_found' && p.pending?.op === 'authorize')
      this.updatePayment(paymentId, () => ({
        kind: 'op_refused',
        op: 'authorize',
        reason: 'the authorization never reached the provider',
      }));
    if (this.d.store.payment(paymentId)?.state === 'UNKNOWN') {
      this.d.schedule('resolve', paymentId, this.d.clock() + this.d.timing.resolveAfterMs * 2 ** Math.min(3, attempt + 1));
      return;
    }
    await this.advance(paymentId);
  }

  /**
   * The authorization-expiry job: an order that is still not PAID after the window is cancelled.
   * It does not decide from a read of the hold (a confirm sent earlier may still land after the
   * read): the order goes CANCELLING, whose first step releases the hold. RELEASED is final, so
   * a confirm still in flight is refused from then on; and if one already sold the seats to this
   * order, the release answer says so and the order is PAID and captured instead. The
   * authorization is voided only after the release is known to have happened. Authorizations of
   * PAID orders are never voided: their seats are sold, so capture is retried.
   */
  async expireAuthorization(orderId: string): Promise<void> {
    const ran = await this.exclusively(orderId, 'expire_authorization', async () => {
      const o = this.d.store.order(orderId);
      const p = this.d.store.payment(orderId);
      if (!o || !p || o.state !== 'INITIATED' || p.state !== 'AUTHORIZED') return;
      this.setOrder(orderId, ['INITIATED'], { state: 'CANCELLING', message: MESSAGES.cancelling });
    });
    if (ran) await this.advance(orderId);
  }

  /**
   * Refunds `amountMinor` (full or partial) of a PAID order's captured payment. The operation id
   * is derived from the amount already refunded and this amount, so a retry of the same refund
   * reuses it and never refunds twice. The seats stay sold (the inventory has no way back from
   * SOLD); cancelling the tickets is the ticketing site's business.
   * @returns `refunded`, `unknown` (no answer yet: resolved by query or webhook) or `refused`
   */
  async refund(orderId: string, amountMinor: number): Promise<'refunded' | 'unknown' | 'refused'> {
    const o = this.d.store.order(orderId);
    const p = this.d.store.payment(orderId);
    if (!o || !p || o.state !== 'PAID' || !['CAPTURED', 'SETTLED', 'REFUNDED'].includes(p.state)) return 'refused';
    if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0 || p.refundedMinor + amountMinor > p.capturedMinor) return 'refused';
    const opId = `${operationId(orderId, 'refund')}:${p.refundedMinor}+${amountMinor}`;
    const a = await this.d.provider.refund(opId, orderId, amountMinor);
    this.applyAnswer(orderId, 'refund', a);
    const after = this.d.store.payment(orderId)!;
    return after.state === 'UNKNOWN' ? 'unknown' : after.refundedMinor > p.refundedMinor ? 'refunded' : 'refused';
  }

  /**
   * A verified webhook event: deduplicated by event id, applied only as legal transitions (the
   * facts that bring the payment up to the event's snapshot; a late or duplicated event brings
   * none). An event that conflicts with the payment is recorded and the provider is queried.
   * @returns `applied`, `stale` (nothing new), `duplicate`, `unknown_payment` or `refused`
   */
  async webhook(event: WebhookEvent): Promise<'applied' | 'stale' | 'duplicate' | 'unknown_payment' | 'refused'> {
    const { store } = this.d;
    const outcome = store.atomically(() => {
      const p = store.payment(event.payment.paymentId);
      if (!p) return store.rememberWebhook(event.id, event.type, 'unknown_payment') ? 'unknown_payment' : 'duplicate';
      const c = catchUp(p, event.payment, false);
      const result = !c.ok ? 'refused' : c.facts.length === 0 ? 'stale' : 'applied';
      if (!store.rememberWebhook(event.id, event.type, result)) return 'duplicate';
      if (c.ok && c.facts.length > 0) this.writePayment(p, c.next);
      return result;
    });
    if (outcome === 'refused') this.d.schedule('resolve', event.payment.paymentId, this.d.clock());
    if (outcome === 'applied') await this.advance(event.payment.paymentId);
    return outcome;
  }

  /**
   * Compares every order with its payment at the provider and its hold at the gateway, every hold
   * the gateway lists as paying or sold with the orders, and every provider payment with the
   * orders; reports each difference and resolves what it safely can (payments behind the provider,
   * holds in NEEDS_RECONCILIATION, lost confirm answers, orphan authorizations).
   */
  async reconcile(): Promise<ReconciliationReport> {
    const { store, provider, inventory } = this.d;
    const differences: Difference[] = [];
    const orders = store.orders();
    for (const o of orders) {
      let follow: 'resolve' | 'advance' | null = null;
      // Inspected as the order's only driver, so the answers read here are not overtaken meanwhile;
      // an order being driven right now is checked on the next run.
      await this.exclusively(o.orderId, null, async () => {
        const diff = (kind: Difference['kind'], detail: string, action: string) =>
          differences.push({ kind, orderId: o.orderId, holdId: o.holdId, detail, action });
        const before = store.payment(o.orderId);
        if (!before) {
          // A free order has no payment: only its confirm can be open.
          if (store.order(o.orderId)?.state === 'INITIATED' && o.holdId) follow = 'advance';
          return;
        }
        const q = await provider.query(o.orderId);
        if (q.kind === 'ok') {
          const c = catchUp(before, q.payment, true);
          if (!c.ok)
            diff('payment_conflict', `${before.state} here, ${q.payment.state} at the provider: ${c.detail}`, 'none: needs a person');
          else if (c.facts.length > 0) {
            this.catchUpWith(o.orderId, q.payment, true);
            diff(
              'payment_behind_provider',
              `${before.state} here, ${q.payment.state} at the provider`,
              `applied ${c.facts.map((f) => f.kind).join(', ')}`,
            );
          }
        } else if (q.kind === 'not_found') {
          if (before.pending?.op === 'authorize') {
            this.updatePayment(o.orderId, () => ({
              kind: 'op_refused',
              op: 'authorize',
              reason: 'the authorization never reached the provider',
            }));
            diff('payment_missing_at_provider', 'UNKNOWN authorization with no trace at the provider', 'payment FAILED');
          } else if (before.state !== 'INITIATED' && !(before.state === 'FAILED' && before.authorizedMinor === 0))
            diff('payment_missing_at_provider', `${before.state} here, unknown to the provider`, 'none: needs a person');
        }
        const h = await inventory.getHold(o.holdId);
        const p = store.payment(o.orderId)!;
        const now = store.order(o.orderId)!;
        if (h.kind === 'ok') {
          const hold = h.hold;
          const soldToUs = hold.status === 'SOLD' && hold.orderId === o.orderId;
          const live = ['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'].includes(hold.status);
          if (soldToUs && (p.state === 'FAILED' || p.state === 'VOIDED'))
            diff('sold_without_payment', `hold SOLD to this order, payment ${p.state}`, 'none: needs a person');
          else if (soldToUs && now.state === 'INITIATED') {
            this.markPaid(o.orderId, hold);
            diff('hold_sold_but_order_open', 'the gateway sold the seats to this order (a confirm answer was lost)', 'order PAID');
          } else if (now.state === 'PAID' && !soldToUs)
            diff('hold_state_mismatch', `order PAID, hold ${hold.status} (order ${hold.orderId ?? '-'})`, 'none: needs a person');
          else if ((now.state === 'FAILED' || now.state === 'CANCELLED') && (live || soldToUs))
            diff('hold_state_mismatch', `order ${now.state}, hold ${hold.status}`, 'none: needs a person');
          else if (hold.status === 'NEEDS_RECONCILIATION')
            diff(
              'hold_state_mismatch',
              `hold NEEDS_RECONCILIATION, payment ${p.state}`,
              p.state === 'UNKNOWN' ? 'querying the provider' : 'resolved by the order driver',
            );
        }
        if (p.state === 'UNKNOWN') {
          diff('still_unknown', `payment UNKNOWN (${p.pending?.op ?? '?'})`, 'seats kept out of sale; querying again');
          follow = 'resolve';
        } else if (now.state === 'INITIATED' || now.state === 'CANCELLING' || (now.state === 'PAID' && p.state === 'AUTHORIZED')) {
          follow = 'advance';
        }
      });
      if (follow === 'resolve') await this.resolve(o.orderId);
      else if (follow === 'advance') await this.advance(o.orderId);
    }
    // The inventory's side: every hold whose payment started, or that is sold, must be an order here.
    let after = '';
    for (let page = 0; page < 1000; page++) {
      const list = await inventory.paymentHolds(after);
      if (list.kind !== 'ok') {
        differences.push({
          kind: 'inventory_unreachable',
          orderId: null,
          holdId: null,
          detail: 'no answer listing holds',
          action: 'retried next run',
        });
        break;
      }
      for (const h of list.holds) {
        const o = h.status === 'SOLD' && h.orderId ? store.order(h.orderId) : (store.ordersForHold(h.holdId).at(-1) ?? null);
        if (o && o.holdId === h.holdId) continue;
        const d = { orderId: h.orderId, holdId: h.holdId };
        if (h.status === 'SOLD')
          differences.push({
            ...d,
            kind: 'sold_without_order',
            detail: `hold SOLD to ${h.orderId ?? '-'}, no such order here`,
            action: 'none: needs a person',
          });
        else if (h.status === 'NEEDS_RECONCILIATION') {
          // No order here means no payment was ever asked for: nobody paid for these seats.
          const r = await inventory.release(h.holdId, h.account);
          differences.push({
            ...d,
            kind: 'hold_without_order',
            detail: 'hold NEEDS_RECONCILIATION with no order here',
            action: r.kind === 'ok' ? 'released' : 'release attempted',
          });
        } else
          differences.push({
            ...d,
            kind: 'hold_without_order',
            detail: `hold ${h.status} with no order here`,
            action: 'none: payment started elsewhere?',
          });
      }
      if (!list.next) break;
      after = list.next;
    }
    const providerPayments = await provider.list();
    for (const pp of providerPayments) {
      const o = store.order(pp.paymentId);
      if (pp.state === 'AUTHORIZED' && (!o || o.state === 'FAILED' || o.state === 'CANCELLED')) {
        const a = await provider.void(operationId(pp.paymentId, 'void'), pp.paymentId);
        if (o) this.applyAnswer(pp.paymentId, 'void', a);
        differences.push({
          kind: 'orphan_authorization',
          orderId: o?.orderId ?? null,
          holdId: o?.holdId ?? null,
          detail: `authorization of ${pp.authorizedMinor} at the provider for ${o ? `a ${o.state} order` : 'no order'}`,
          action: a.kind === 'ok' ? 'voided' : 'void attempted, no answer yet',
        });
      }
    }
    return { atMs: this.d.clock(), orders: orders.length, providerPayments: providerPayments.length, differences };
  }

  /** One step of the order driver; true when something changed and another step may follow. */
  private async step(orderId: string): Promise<boolean> {
    const { store, inventory, provider } = this.d;
    const o = store.order(orderId);
    const p = store.payment(orderId);
    if (!o) return false;
    if (!p) return o.amountMinor === 0 && o.holdId !== '' ? this.stepFree(o) : false;
    if (p.state === 'UNKNOWN') {
      // Nothing moves while the provider's answer is unknown: the seats stay out of sale.
      this.d.schedule('resolve', orderId, this.d.clock() + this.d.timing.resolveAfterMs);
      return false;
    }
    const retry = () => (this.d.schedule('advance', orderId, this.d.clock() + this.d.timing.retryAfterMs), false);
    switch (o.state) {
      case 'INITIATED': {
        if (p.state === 'INITIATED') {
          if (this.d.clock() - o.createdAtMs < this.d.timing.abandonAfterMs) return false;
          // The checkout stopped before recording an answer (the object restarted, say). The
          // authorization may have been sent all the same: ask the provider by the payment id (its
          // only authorize operation) and give up only when it has no trace of it.
          const q = await provider.query(orderId);
          if (q.kind === 'no_answer') return retry();
          if (q.kind === 'ok') return this.catchUpWith(orderId, q.payment, true) || retry();
          return this.updatePayment(orderId, () => ({ kind: 'abandoned', reason: 'checkout stopped before authorization' }));
        }
        if (p.state === 'FAILED') {
          const r = await inventory.release(o.holdId, o.account);
          if (r.kind === 'no_answer' || !holdFreed(r, orderId)) return retry();
          const message = /declin/.test(p.reason ?? '')
            ? MESSAGES.declined
            : /PAYMENT_PENDING/.test(p.reason ?? '')
              ? MESSAGES.holdGone
              : MESSAGES.failed;
          return this.setOrder(orderId, ['INITIATED'], { state: 'FAILED', message });
        }
        if (p.state === 'VOIDED') return this.setOrder(orderId, ['INITIATED'], { state: 'CANCELLING', message: MESSAGES.cancelling });
        // AUTHORIZED (or, against the flow, already captured): the seats must be confirmed.
        const r = await inventory.confirm(o.holdId, orderId, o.amountMinor, o.account);
        if (r.kind === 'no_answer') return retry();
        // Capture is not done here but by the job markPaid schedules: the visitor's answer does not wait for it.
        if (r.kind === 'ok' && r.hold.status === 'SOLD' && r.hold.orderId === orderId) return (this.markPaid(orderId, r.hold), false);
        // A refusal is final only if the hold is not ours after all (an earlier confirm whose answer was lost may have sold it).
        const seen = r.kind === 'refused' && r.hold ? r.hold : knownHold(await inventory.getHold(o.holdId));
        if (seen === undefined) return retry();
        if (seen && seen.status === 'SOLD' && seen.orderId === orderId) return (this.markPaid(orderId, seen), false);
        return this.setOrder(orderId, ['INITIATED'], { state: 'CANCELLING', message: MESSAGES.cancelling });
      }
      case 'PAID': {
        if (p.state !== 'AUTHORIZED') return false;
        const a = await provider.capture(operationId(orderId, 'capture'), orderId, o.amountMinor);
        const changed = this.applyAnswer(orderId, 'capture', a);
        return changed || retry();
      }
      case 'CANCELLING': {
        // Seats first, money second. The release is the fence: RELEASED is final, so a confirm
        // sent earlier whose answer was lost is refused if it lands later. Its answer also says
        // whether such a confirm already sold the seats to this order: then the money is kept
        // (PAID, captured), never voided. Without a known answer nothing is voided: try again.
        if (p.state === 'DISPUTED') return false;
        const r = await inventory.release(o.holdId, o.account);
        const seats = releaseOutcome(r, orderId);
        if (seats === 'unknown') return retry();
        if (seats !== 'freed') {
          // Sold to this order by a late confirm: paid after all (a voided payment needs a person; reconciliation reports it).
          if (p.state === 'AUTHORIZED' || p.state === 'CAPTURED' || p.state === 'SETTLED') return (this.markPaid(orderId, seats), false);
          return false;
        }
        if (p.state === 'AUTHORIZED')
          return this.applyAnswer(orderId, 'void', await provider.void(operationId(orderId, 'void'), orderId)) || retry();
        if ((p.state === 'CAPTURED' || p.state === 'SETTLED') && p.refundedMinor < p.capturedMinor) {
          const a = await provider.refund(operationId(orderId, 'refund'), orderId, p.capturedMinor - p.refundedMinor);
          return this.applyAnswer(orderId, 'refund', a) || retry();
        }
        return this.setOrder(orderId, ['CANCELLING'], { state: 'CANCELLED', message: MESSAGES.cancelled });
      }
      default:
        return false;
    }
  }

  /**
   * One step of a free order (amount 0, no payment, no provider call): confirm the hold with amount
   * 0; tickets come from the SOLD answer as for paid orders. A refusal that shows the hold not sold
   * to this order fails it (nothing was charged; a hold still HELD expires or is released as usual).
   */
  private async stepFree(o: Order): Promise<boolean> {
    if (o.state !== 'INITIATED') return false;
    const r = await this.d.inventory.confirm(o.holdId, o.orderId, 0, o.account);
    const seen = r.kind === 'ok' ? r.hold : knownHold(r);
    if (seen === undefined) return (this.d.schedule('advance', o.orderId, this.d.clock() + this.d.timing.retryAfterMs), false);
    if (seen && seen.status === 'SOLD' && seen.orderId === o.orderId) return (this.markPaid(o.orderId, seen), false);
    return this.setOrder(o.orderId, ['INITIATED'], { state: 'FAILED', message: MESSAGES.freeFailed });
  }

  /** Applies a provider answer to a call on `paymentId`; true when the payment changed. */
  private applyAnswer(paymentId: string, op: PaymentOp, a: ProviderAnswer): boolean {
    if (a.kind === 'ok') return this.catchUpWith(paymentId, a.payment, true);
    if (a.kind === 'no_answer') {
      const changed = this.updatePayment(paymentId, () => ({ kind: 'no_answer', op }));
      this.d.schedule('resolve', paymentId, this.d.clock() + this.d.timing.resolveAfterMs);
      return changed;
    }
    if (a.payment) return this.catchUpWith(paymentId, a.payment, true);
    // A refusal that processed nothing (technical error): an authorization fails, other calls are retried.
    if (op === 'authorize') return this.updatePayment(paymentId, () => ({ kind: 'declined', reason: `provider error: ${a.code}` }));
    return false;
  }

  /** Brings the stored payment up to a provider snapshot; true when it changed. */
  private catchUpWith(paymentId: string, snap: ProviderSnapshot, authoritative: boolean): boolean {
    return this.casLoop(paymentId, (p) => {
      const c = catchUp(p, snap, authoritative);
      return c.ok && c.facts.length > 0 ? c.next : null;
    });
  }

  /** Applies one event to the stored payment if the state machine allows it; true when it changed. */
  private updatePayment(paymentId: string, event: (p: Payment) => PaymentEvent): boolean {
    return this.casLoop(paymentId, (p) => {
      const t = transition(p, event(p));
      return t.ok ? t.next : null;
    });
  }

  /** Read, decide, compare-and-set; a lost race re-reads and decides again. */
  private casLoop(paymentId: string, decide: (p: Payment) => Payment | null): boolean {
    for (let i = 0; i < 4; i++) {
      const p = this.d.store.payment(paymentId);
      if (!p) return false;
      const next = decide(p);
      if (!next) return false;
      if (this.writePayment(p, next)) return true;
    }
    return false;
  }

  private writePayment(p: Payment, next: Payment): boolean {
    if (!this.d.store.casPayment(next, p)) return false;
    if (next.state === 'AUTHORIZED' && p.state !== 'AUTHORIZED')
      this.d.schedule('expire_authorization', next.paymentId, this.d.clock() + this.d.timing.authorizationWindowMs);
    if (next.state === 'UNKNOWN') this.d.schedule('resolve', next.paymentId, this.d.clock() + this.d.timing.resolveAfterMs);
    return true;
  }

  /** Moves an order from one of `from` to new fields by compare-and-set; true when written. */
  private setOrder(orderId: string, from: OrderState[], changes: Partial<Order>): boolean {
    const o = this.d.store.order(orderId);
    if (!o || !from.includes(o.state)) return false;
    return this.d.store.casOrder({ ...o, ...changes, version: o.version + 1 }, o);
  }

  /**
   * The gateway sold the hold to this order: PAID (from INITIATED, or from CANCELLING when the
   * release found the seats sold by a late confirm), tickets from that committed hold, capture by a
   * job right after.
   */
  private markPaid(orderId: string, hold: HoldInfo): boolean {
    const o = this.d.store.order(orderId)!;
    const tickets = hold.seatIds.length > 0 ? hold.seatIds : Array.from({ length: hold.quantity }, (_, i) => `${hold.tier}-${i + 1}`);
    const done = this.setOrder(orderId, ['INITIATED', 'CANCELLING'], {
      state: 'PAID',
      tickets: tickets.map((t) => `${orderId.slice(0, 8)}-${t}`),
      message:
        o.amountMinor === 0
          ? `Confirmed ${o.label} (free). Order ${orderId.slice(0, 8)}.`
          : `Paid ${formatMoney(o.amountMinor, o.currency)} for ${o.label}. Order ${orderId.slice(0, 8)}.`,
    });
    if (done) this.d.schedule('advance', orderId, this.d.clock());
    return done;
  }

  private newOrder(account: string, hold: HoldInfo, state: OrderState, message: string): Order {
    return {
      orderId: this.d.newId(),
      account,
      holdId: hold.holdId,
      state,
      version: 0,
      amountMinor: hold.priceMinor,
      currency: hold.currency,
      seatIds: hold.seatIds,
      label: hold.seatIds.length > 0 ? hold.seatIds.join(', ') : `${hold.quantity} x ${hold.tier ?? 'ticket'}`,
      tickets: [],
      message,
      createdAtMs: this.d.clock(),
    };
  }

  /**
   * A checkout refused before any order of the hold began: a FAILED order with no payment, linked
   * to no hold (`holdId: ''`), so a refusal (another account's, a stale tab's) never stands for the
   * hold in later checkouts, views or reconciliation. Stored so its owner can read it back.
   * @param hold the hold read, when it is the caller's (its seats and price are shown)
   */
  private refusedOrder(account: string, message: string, hold?: HoldInfo): Order {
    const base = hold ?? {
      holdId: '',
      status: '',
      account,
      seatIds: [],
      tier: null,
      quantity: 0,
      priceMinor: 0,
      currency: '',
      orderId: null,
    };
    const o = this.newOrder(account, { ...base, holdId: '' }, 'FAILED', message);
    this.d.store.insertOrder(o);
    return o;
  }
}

/**
 * What a read of the hold tells for sure: the hold, null when the gateway has no such hold, or
 * undefined when it is not known (no answer, or a refusal without the hold): decide nothing then.
 */
function knownHold(r: HoldAnswer): HoldInfo | null | undefined {
  if (r.kind === 'ok') return r.hold;
  if (r.kind === 'refused' && r.code === 'HOLD_NOT_FOUND') return null;
  return r.kind === 'refused' && r.hold ? r.hold : undefined;
}

/**
 * What a release answer tells about the seats of `orderId`'s hold: `freed` (released, expired, no
 * such hold, or sold to another order: nothing can sell them to this order any more), the hold
 * when it is SOLD to this order (a confirm landed before the release), or `unknown` (no answer, or
 * a refusal that does not show the hold): decide nothing then.
 */
function releaseOutcome(r: HoldAnswer, orderId: string): 'freed' | 'unknown' | HoldInfo {
  const h = r.kind === 'ok' ? r.hold : knownHold(r);
  if (h === undefined) return 'unknown';
  if (h === null || h.status === 'RELEASED' || h.status === 'EXPIRED') return 'freed';
  if (h.status === 'SOLD') return h.orderId === orderId ? h : 'freed';
  return 'unknown';
}

/** True when a release answer shows the hold no longer keeps seats and is not sold to `orderId`. */
function holdFreed(r: HoldAnswer, orderId: string): boolean {
  if (r.kind === 'no_answer') return false;
  if (r.kind === 'ok') return r.hold.status === 'RELEASED' || r.hold.status === 'EXPIRED';
  if (r.code === 'HOLD_NOT_FOUND') return true;
  const h = r.hold;
  return h !== null && (h.status === 'RELEASED' || h.status === 'EXPIRED' || (h.status === 'SOLD' && h.orderId !== orderId));
}
