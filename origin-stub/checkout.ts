// The checkout saga of the origin stub: order, payment and seat hold across the payment boundary.
// Storage, the payment provider and the gateway's inventory are ports, so the same code runs in the
// Shop Durable Object and in the property tests' random interleavings. The decisions are pure
// (order.ts, engine.ts, reconcile.ts); this class reads, calls out, and writes by compare-and-set.
import { afterCancelRelease, afterConfirm, afterFailedRelease, judgeRefusedConfirm, planStep } from './engine';
import { buildOrder, HOLDS_SEATS, knownHold, MESSAGES, noHold, operationId, orderView, paidFields } from './order';
import type { CheckoutDeps, HoldInfo, JobKind, Order, OrderState, OrderView } from './order';
import type { WebhookEvent } from './payment-provider';
import { PaymentRecords } from './payment-records';
import { newPayment } from './payment-state';
import { reconcile, type ReconciliationReport } from './reconcile';

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
  private readonly payments: PaymentRecords;
  /** Orders whose driver runs now: one driver per order, others reschedule. */
  private readonly driving = new Set<string>();
  /** Holds reconciliation saw released or expired: a failed order on one of them is checked from the bulk listings only. */
  private readonly freedHolds = new Set<string>();

  constructor(deps: CheckoutDeps) {
    this.d = deps;
    this.payments = new PaymentRecords(deps);
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
        this.payments.updatePayment(order.orderId, () => ({ kind: 'abandoned', reason: 'the hold could not be moved to PAYMENT_PENDING' }));
      } else {
        const opId = operationId(order.orderId, 'authorize');
        this.payments.applyAnswer(
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

  /** The visitor's view of an order (`orderView`), or null when there is no such order. */
  view(orderId: string): OrderView | null {
    const o = this.d.store.order(orderId);
    return o ? orderView(o, this.d.store.payment(orderId)) : null;
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
    if (q.kind === 'ok') this.payments.catchUpWith(paymentId, q.payment, true);
    else if (q.kind === 'not_found' && p.pending?.op === 'authorize')
      this.payments.updatePayment(paymentId, () => ({
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
    this.payments.applyAnswer(orderId, 'refund', a);
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
    const outcome = this.payments.applyWebhook(event);
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
  reconcile(): Promise<ReconciliationReport> {
    return reconcile(this.d, {
      exclusively: (id, job, fn) => this.exclusively(id, job, fn),
      catchUpWith: (id, snap, authoritative) => this.payments.catchUpWith(id, snap, authoritative),
      updatePayment: (id, event) => this.payments.updatePayment(id, event),
      applyAnswer: (id, op, a) => this.payments.applyAnswer(id, op, a),
      markPaid: (id, hold) => this.markPaid(id, hold),
      resolve: (id) => this.resolve(id),
      advance: (id) => this.advance(id),
      freedHolds: this.freedHolds,
    });
  }

  /** One step of the order driver (planned by `planStep`); true when something changed and another step may follow. */
  private async step(orderId: string): Promise<boolean> {
    const { store, inventory, provider, timing } = this.d;
    const o = store.order(orderId);
    if (!o) return false;
    const p = store.payment(orderId);
    const plan = planStep(o, p, this.d.clock(), timing);
    const retry = () => (this.d.schedule('advance', orderId, this.d.clock() + timing.retryAfterMs), false);
    switch (plan.kind) {
      case 'none':
        return false;
      case 'resolve':
        // Nothing moves while the provider's answer is unknown: the seats stay out of sale.
        this.d.schedule('resolve', orderId, this.d.clock() + timing.resolveAfterMs);
        return false;
      case 'query_stalled': {
        // The checkout stopped before recording an answer (the object restarted, say). The
        // authorization may have been sent all the same: ask the provider by the payment id (its
        // only authorize operation) and give up only when it has no trace of it.
        const q = await provider.query(orderId);
        if (q.kind === 'no_answer') return retry();
        if (q.kind === 'ok') return this.payments.catchUpWith(orderId, q.payment, true) || retry();
        return this.payments.updatePayment(orderId, () => ({ kind: 'abandoned', reason: 'checkout stopped before authorization' }));
      }
      case 'release_failed':
        if (afterFailedRelease(await inventory.release(o.holdId, o.account), orderId) === 'retry') return retry();
        return this.setOrder(orderId, ['INITIATED'], { state: 'FAILED', message: plan.message });
      case 'cancel':
        return this.setOrder(orderId, ['INITIATED'], { state: 'CANCELLING', message: MESSAGES.cancelling });
      case 'confirm':
      case 'free_confirm': {
        const free = plan.kind === 'free_confirm';
        const r = await inventory.confirm(o.holdId, orderId, free ? 0 : o.amountMinor, o.account);
        const first = afterConfirm(r, orderId);
        if (first.kind === 'retry') return retry();
        // Capture is not done here but by the job markPaid schedules: the visitor's answer does not wait for it.
        if (first.kind === 'paid') return (this.markPaid(orderId, first.hold), false);
        // A refusal is final only if the hold is not ours after all (an earlier confirm whose answer was lost may have sold it).
        const seen = first.kind === 'judge' ? first.hold : free ? knownHold(r) : knownHold(await inventory.getHold(o.holdId));
        const verdict = judgeRefusedConfirm(seen, orderId);
        if (verdict.kind === 'retry') return retry();
        if (verdict.kind === 'paid') return (this.markPaid(orderId, verdict.hold), false);
        // A free order has no authorization to void: it fails (nothing was charged).
        if (free) return this.setOrder(orderId, ['INITIATED'], { state: 'FAILED', message: MESSAGES.freeFailed });
        return this.setOrder(orderId, ['INITIATED'], { state: 'CANCELLING', message: MESSAGES.cancelling });
      }
      case 'capture': {
        const a = await provider.capture(operationId(orderId, 'capture'), orderId, o.amountMinor);
        return this.payments.applyAnswer(orderId, 'capture', a) || retry();
      }
      case 'release_cancelling': {
        // Seats first, money second. The release is the fence: RELEASED is final, so a confirm
        // sent earlier whose answer was lost is refused if it lands later. Its answer also says
        // whether such a confirm already sold the seats to this order: then the money is kept
        // (PAID, captured), never voided. Without a known answer nothing is voided: try again.
        const next = afterCancelRelease(await inventory.release(o.holdId, o.account), orderId, p!);
        switch (next.kind) {
          case 'retry':
            return retry();
          case 'paid':
            return (this.markPaid(orderId, next.hold), false);
          case 'none':
            // Sold to this order, but the money is gone: a person decides (reconciliation reports it).
            return false;
          case 'void':
            return this.payments.applyAnswer(orderId, 'void', await provider.void(operationId(orderId, 'void'), orderId)) || retry();
          case 'refund':
            return (
              this.payments.applyAnswer(
                orderId,
                'refund',
                await provider.refund(operationId(orderId, 'refund'), orderId, next.amountMinor),
              ) || retry()
            );
          case 'cancelled':
            return this.setOrder(orderId, ['CANCELLING'], { state: 'CANCELLED', message: MESSAGES.cancelled });
        }
      }
    }
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
    const done = this.setOrder(orderId, ['INITIATED', 'CANCELLING'], paidFields(o, hold));
    if (done) this.d.schedule('advance', orderId, this.d.clock());
    return done;
  }

  private newOrder(account: string, hold: HoldInfo, state: OrderState, message: string): Order {
    return buildOrder({ orderId: this.d.newId(), account, hold, state, message, nowMs: this.d.clock() });
  }

  /**
   * A checkout refused before any order of the hold began: a FAILED order with no payment, linked
   * to no hold (`holdId: ''`), so a refusal (another account's, a stale tab's) never stands for the
   * hold in later checkouts, views or reconciliation. Stored so its owner can read it back.
   * @param hold the hold read, when it is the caller's (its seats and price are shown)
   */
  private refusedOrder(account: string, message: string, hold?: HoldInfo): Order {
    const o = this.newOrder(account, { ...(hold ?? noHold(account)), holdId: '' }, 'FAILED', message);
    this.d.store.insertOrder(o);
    return o;
  }
}
