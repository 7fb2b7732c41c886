// Reconciliation of the checkout saga: every order against its payment at the provider and its
// hold at the gateway, every listed gateway hold against the orders, every provider payment
// against the orders. Pure classifiers decide what a difference is; `reconcile` makes the calls.
import { catchUp, type Payment, type PaymentEvent, type ProviderSnapshot } from './payment-state';
import type { ProviderAnswer } from './payment-provider';
import { operationId, soldTo, type CheckoutDeps, type HoldInfo, type JobKind, type Order } from './order';

/** One difference found by `reconcile`, and what was done about it. */
interface Difference {
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

/** A difference in words, before the ids are attached. `markPaid`: the order is PAID from this hold. */
type Finding = { kind: Difference['kind']; detail: string; action: string; markPaid?: boolean };

const LIVE = ['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'];

/** What an order (as it is now), its payment and its hold at the gateway disagree on, if anything. */
export function holdFinding(o: Order, p: Payment, hold: HoldInfo): Finding | null {
  const ours = soldTo(hold, o.orderId);
  if (ours && (p.state === 'FAILED' || p.state === 'VOIDED'))
    return { kind: 'sold_without_payment', detail: `hold SOLD to this order, payment ${p.state}`, action: 'none: needs a person' };
  if (ours && o.state === 'INITIATED')
    return {
      kind: 'hold_sold_but_order_open',
      detail: 'the gateway sold the seats to this order (a confirm answer was lost)',
      action: 'order PAID',
      markPaid: true,
    };
  if (o.state === 'PAID' && !ours)
    return {
      kind: 'hold_state_mismatch',
      detail: `order PAID, hold ${hold.status} (order ${hold.orderId ?? '-'})`,
      action: 'none: needs a person',
    };
  if ((o.state === 'FAILED' || o.state === 'CANCELLED') && (LIVE.includes(hold.status) || ours))
    return { kind: 'hold_state_mismatch', detail: `order ${o.state}, hold ${hold.status}`, action: 'none: needs a person' };
  if (hold.status === 'NEEDS_RECONCILIATION')
    return {
      kind: 'hold_state_mismatch',
      detail: `hold NEEDS_RECONCILIATION, payment ${p.state}`,
      action: p.state === 'UNKNOWN' ? 'querying the provider' : 'resolved by the order driver',
    };
  return null;
}

/**
 * A hold the gateway lists as paying or sold, against the order this shop has for it (`o`, if
 * any): null when they match; `release` when nobody here ever asked payment for a hold stuck in
 * NEEDS_RECONCILIATION (nobody paid for those seats: safe to release).
 */
export function listedHoldFinding(h: HoldInfo, o: Order | null): (Finding & { release?: boolean }) | null {
  if (o && o.holdId === h.holdId) return null;
  if (h.status === 'SOLD')
    return { kind: 'sold_without_order', detail: `hold SOLD to ${h.orderId ?? '-'}, no such order here`, action: 'none: needs a person' };
  if (h.status === 'NEEDS_RECONCILIATION')
    return {
      kind: 'hold_without_order',
      detail: 'hold NEEDS_RECONCILIATION with no order here',
      action: 'release attempted',
      release: true,
    };
  return { kind: 'hold_without_order', detail: `hold ${h.status} with no order here`, action: 'none: payment started elsewhere?' };
}

/** True for an authorization at the provider that no live order stands behind (void it). */
export function isOrphanAuthorization(pp: ProviderSnapshot, o: Order | null): boolean {
  return pp.state === 'AUTHORIZED' && (!o || o.state === 'FAILED' || o.state === 'CANCELLED');
}

/** The engine's operations reconciliation uses (CheckoutEngine implements them). */
export interface ReconcileOps {
  exclusively(orderId: string, job: JobKind | null, fn: () => Promise<void>): Promise<boolean>;
  catchUpWith(paymentId: string, snap: ProviderSnapshot, authoritative: boolean): boolean;
  updatePayment(paymentId: string, event: (p: Payment) => PaymentEvent): boolean;
  applyAnswer(paymentId: string, op: 'void', a: ProviderAnswer): boolean;
  markPaid(orderId: string, hold: HoldInfo): boolean;
  resolve(paymentId: string): Promise<void>;
  advance(orderId: string): Promise<void>;
  /** Holds seen RELEASED or EXPIRED (final: never held, paid or sold again); in memory, so an eviction costs one more check each. */
  freedHolds: Set<string>;
}

/**
 * Compares and resolves what it safely can (payments behind the provider, holds in
 * NEEDS_RECONCILIATION, lost confirm answers, orphan authorizations); reports everything.
 * Orders the bulk listings show as settled are not read one by one (`settledOrders`).
 */
export async function reconcile(d: CheckoutDeps, ops: ReconcileOps): Promise<ReconciliationReport> {
  const differences: Difference[] = [];
  const orders = d.store.orders();
  const settled = await settledOrders(d, orders, ops.freedHolds);
  for (const o of orders) {
    if (settled.has(o.orderId)) continue;
    let follow: 'resolve' | 'advance' | null = null;
    // Inspected as the order's only driver, so the answers read here are not overtaken meanwhile;
    // an order being driven right now is checked on the next run.
    await ops.exclusively(o.orderId, null, async () => {
      follow = await reconcileOrder(d, ops, o, (f) =>
        differences.push({ kind: f.kind, orderId: o.orderId, holdId: o.holdId, detail: f.detail, action: f.action }),
      );
    });
    if (follow === 'resolve') await ops.resolve(o.orderId);
    else if (follow === 'advance') await ops.advance(o.orderId);
  }
  await reconcileListedHolds(d, differences);
  const providerPayments = await d.provider.list();
  for (const pp of providerPayments) {
    const o = d.store.order(pp.paymentId);
    if (!isOrphanAuthorization(pp, o)) continue;
    const a = await d.provider.void(operationId(pp.paymentId, 'void'), pp.paymentId);
    if (o) ops.applyAnswer(pp.paymentId, 'void', a);
    differences.push({
      kind: 'orphan_authorization',
      orderId: o?.orderId ?? null,
      holdId: o?.holdId ?? null,
      detail: `authorization of ${pp.authorizedMinor} at the provider for ${o ? `a ${o.state} order` : 'no order'}`,
      action: a.kind === 'ok' ? 'voided' : 'void attempted, no answer yet',
    });
  }
  return { atMs: d.clock(), orders: orders.length, providerPayments: providerPayments.length, differences };
}

/** Payment states an order in `settledOrders` may have: nothing more happens to them without the provider saying so. */
const SETTLED_PAYMENT: Readonly<Record<string, readonly string[]>> = {
  PAID: ['CAPTURED', 'SETTLED'],
  FAILED: ['FAILED', 'VOIDED'],
  CANCELLED: ['FAILED', 'VOIDED', 'REFUNDED'],
};

/**
 * The orders whose per-order check would find nothing, read from two bulk listings: the payment
 * is final with no operation pending and the provider's list shows nothing newer; a PAID order's
 * hold is listed SOLD to it, a failed or cancelled order's hold was seen released or expired
 * (`freedHolds`: final) and is not listed. Two listings cost a call per 500 holds, where a read per
 * order is a gateway round trip per order sold, on the thread that also serves the shop's visitors.
 * @returns their order ids; empty when the gateway's listing has no answer (every order is checked)
 */
async function settledOrders(d: CheckoutDeps, orders: readonly Order[], freedHolds: ReadonlySet<string>): Promise<Set<string>> {
  const settled = new Set<string>();
  if (!orders.some((o) => SETTLED_PAYMENT[o.state])) return settled;
  const listed = new Map<string, HoldInfo>();
  let after = '';
  for (let page = 0; page < 1000; page++) {
    const list = await d.inventory.paymentHolds(after);
    if (list.kind !== 'ok') return settled;
    for (const h of list.holds) listed.set(h.holdId, h);
    if (!list.next) break;
    after = list.next;
  }
  const atProvider = new Map((await d.provider.list()).map((pp) => [pp.paymentId, pp]));
  for (const o of orders) {
    const p = d.store.payment(o.orderId);
    const pp = atProvider.get(o.orderId);
    if (!p || p.pending || !pp || !SETTLED_PAYMENT[o.state]?.includes(p.state)) continue;
    const hold = listed.get(o.holdId);
    if (o.state === 'PAID' ? !soldTo(hold, o.orderId) : hold || !freedHolds.has(o.holdId)) continue;
    const c = catchUp(p, pp, true);
    if (c.ok && c.facts.length === 0) settled.add(o.orderId);
  }
  return settled;
}

/** One order against the provider and the gateway; returns what should drive it next. */
async function reconcileOrder(
  d: CheckoutDeps,
  ops: ReconcileOps,
  o: Order,
  report: (f: Finding) => void,
): Promise<'resolve' | 'advance' | null> {
  const before = d.store.payment(o.orderId);
  // A free order has no payment: only its confirm can be open.
  if (!before) return d.store.order(o.orderId)?.state === 'INITIATED' && o.holdId ? 'advance' : null;
  const q = await d.provider.query(o.orderId);
  if (q.kind === 'ok') {
    const c = catchUp(before, q.payment, true);
    if (!c.ok)
      report({
        kind: 'payment_conflict',
        detail: `${before.state} here, ${q.payment.state} at the provider: ${c.detail}`,
        action: 'none: needs a person',
      });
    else if (c.facts.length > 0) {
      ops.catchUpWith(o.orderId, q.payment, true);
      report({
        kind: 'payment_behind_provider',
        detail: `${before.state} here, ${q.payment.state} at the provider`,
        action: `applied ${c.facts.map((f) => f.kind).join(', ')}`,
      });
    }
  } else if (q.kind === 'not_found') {
    if (before.pending?.op === 'authorize') {
      ops.updatePayment(o.orderId, () => ({ kind: 'op_refused', op: 'authorize', reason: 'the authorization never reached the provider' }));
      report({
        kind: 'payment_missing_at_provider',
        detail: 'UNKNOWN authorization with no trace at the provider',
        action: 'payment FAILED',
      });
    } else if (before.state !== 'INITIATED' && !(before.state === 'FAILED' && before.authorizedMinor === 0))
      report({
        kind: 'payment_missing_at_provider',
        detail: `${before.state} here, unknown to the provider`,
        action: 'none: needs a person',
      });
  }
  const h = await d.inventory.getHold(o.holdId);
  const p = d.store.payment(o.orderId)!;
  const now = d.store.order(o.orderId)!;
  if (h.kind === 'ok') {
    if (h.hold.status === 'RELEASED' || h.hold.status === 'EXPIRED') ops.freedHolds.add(o.holdId);
    const f = holdFinding(now, p, h.hold);
    if (f?.markPaid) ops.markPaid(o.orderId, h.hold);
    if (f) report(f);
  }
  if (p.state === 'UNKNOWN') {
    report({
      kind: 'still_unknown',
      detail: `payment UNKNOWN (${p.pending?.op ?? '?'})`,
      action: 'seats kept out of sale; querying again',
    });
    return 'resolve';
  }
  return now.state === 'INITIATED' || now.state === 'CANCELLING' || (now.state === 'PAID' && p.state === 'AUTHORIZED') ? 'advance' : null;
}

/** The inventory's side: every hold whose payment started, or that is sold, must be an order here. */
async function reconcileListedHolds(d: CheckoutDeps, differences: Difference[]): Promise<void> {
  let after = '';
  for (let page = 0; page < 1000; page++) {
    const list = await d.inventory.paymentHolds(after);
    if (list.kind !== 'ok') {
      differences.push({
        kind: 'inventory_unreachable',
        orderId: null,
        holdId: null,
        detail: 'no answer listing holds',
        action: 'retried next run',
      });
      return;
    }
    for (const h of list.holds) {
      const o = h.status === 'SOLD' && h.orderId ? d.store.order(h.orderId) : (d.store.ordersForHold(h.holdId).at(-1) ?? null);
      const f = listedHoldFinding(h, o);
      if (!f) continue;
      let action = f.action;
      if (f.release) action = (await d.inventory.release(h.holdId, h.account)).kind === 'ok' ? 'released' : 'release attempted';
      differences.push({ kind: f.kind, orderId: h.orderId, holdId: h.holdId, detail: f.detail, action });
    }
    if (!list.next) return;
    after = list.next;
  }
}
