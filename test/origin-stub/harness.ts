// A world for the checkout saga's property tests: the real saga, the real fake provider and the
// gateway's real hold state machine, with in-memory storage, a manual clock, jobs a test runs when
// it likes, webhooks it delivers in any order, and faults on every boundary.
import { applyHoldAction, effectiveStatus, type HoldFacts, type HoldStatus } from '../../durable-objects/inventory/hold-policy';
import { CheckoutEngine } from '../../origin-stub/checkout';
import {
  DEFAULT_TIMING,
  type HoldAnswer,
  type HoldInfo,
  type InventoryClient,
  type JobKind,
  type Order,
  type ShopStore,
} from '../../origin-stub/order';
import {
  FakePaymentProvider,
  MemoryProviderLedger,
  type Fault,
  type ProviderCall,
  type WebhookEvent,
} from '../../origin-stub/payment-provider';
import type { Payment } from '../../origin-stub/payment-state';

/** `ShopStore` in memory, with the same compare-and-set rules as the SQLite store. */
class MemoryShopStore implements ShopStore {
  readonly ordersById = new Map<string, Order>();
  readonly paymentsById = new Map<string, Payment>();
  readonly webhookEvents = new Map<string, string>();
  /** Writes refused by compare-and-set (a decision made on a stale read). */
  casRefusals = 0;
  order(id: string) {
    return structuredClone(this.ordersById.get(id) ?? null);
  }
  ordersForHold(holdId: string) {
    if (holdId === '') return [];
    return structuredClone([...this.ordersById.values()].filter((o) => o.holdId === holdId));
  }
  orders() {
    return structuredClone([...this.ordersById.values()]);
  }
  insertOrder(o: Order) {
    if (this.ordersById.has(o.orderId)) throw new Error('duplicate order');
    this.ordersById.set(o.orderId, structuredClone(o));
  }
  casOrder(next: Order, expected: Pick<Order, 'state' | 'version'>) {
    const cur = this.ordersById.get(next.orderId);
    if (!cur || cur.state !== expected.state || cur.version !== expected.version) return (this.casRefusals++, false);
    this.ordersById.set(next.orderId, structuredClone(next));
    return true;
  }
  payment(id: string) {
    return structuredClone(this.paymentsById.get(id) ?? null);
  }
  insertPayment(p: Payment) {
    this.paymentsById.set(p.paymentId, structuredClone(p));
  }
  casPayment(next: Payment, expected: Pick<Payment, 'state' | 'version'>) {
    const cur = this.paymentsById.get(next.paymentId);
    if (!cur || cur.state !== expected.state || cur.version !== expected.version) return (this.casRefusals++, false);
    this.paymentsById.set(next.paymentId, structuredClone(next));
    return true;
  }
  rememberWebhook(eventId: string, _type: string, outcome: string) {
    if (this.webhookEvents.has(eventId)) return false;
    this.webhookEvents.set(eventId, outcome);
    return true;
  }
  atomically<T>(fn: () => T): T {
    return fn();
  }
}

/**
 * A gateway fault: `timeout` (not processed, no answer), `lost` (processed, answer lost), `limit`
 * (confirm refused with ACCOUNT_LIMIT, as the inventory does after the limit was lowered),
 * `refused_bare` (a 409 without the hold in its body: the saga must not guess the hold's state).
 */
export type GatewayFault = 'timeout' | 'lost' | 'limit' | 'refused_bare';
type GatewayOp = 'getHold' | 'startPayment' | 'confirm' | 'release';

interface ModelHold extends HoldFacts {
  holdId: string;
  seatIds: string[];
}

/** The gateway's inventory, in memory, driven by the real `applyHoldAction`. */
class InventoryModel implements InventoryClient {
  readonly holds = new Map<string, ModelHold>();
  readonly faults: { op: GatewayOp; fault: GatewayFault }[] = [];
  /** Run once each, in order, inside the next gateway calls: before processing, or between processing and answering. */
  readonly hooks: { before: boolean; run: () => unknown }[] = [];
  private n = 0;
  private readonly clock: () => number;
  readonly ttlMs = 300_000;
  readonly graceMs = 120_000;

  constructor(clock: () => number) {
    this.clock = clock;
  }

  /** Places a hold on free seats for `account`; null when a seat is taken. Price 5000 per seat. */
  hold(account: string, seatIds: string[]): string | null {
    this.sweep();
    for (const h of this.holds.values()) {
      const s = h.status;
      if (
        (s === 'HELD' || s === 'PAYMENT_PENDING' || s === 'NEEDS_RECONCILIATION' || s === 'SOLD') &&
        h.seatIds.some((x) => seatIds.includes(x))
      )
        return null;
    }
    const holdId = `h${++this.n}`;
    this.holds.set(holdId, {
      holdId,
      account,
      seatIds,
      status: 'HELD',
      expiresAtMs: this.clock() + this.ttlMs,
      orderId: null,
      priceMinor: 5000 * seatIds.length,
    });
    return holdId;
  }

  /** Applies passed deadlines, as the inventory object's alarm does. */
  sweep(): void {
    const now = this.clock();
    for (const h of this.holds.values()) {
      const s = effectiveStatus(h, now);
      if (s !== h.status) h.status = s;
    }
  }

  /** An operator (or another system) releases a hold through the origin API. */
  operatorRelease(holdId: string): void {
    this.act(holdId, { kind: 'release', account: null, byOrigin: true });
  }

  status(holdId: string): HoldStatus | null {
    this.sweep();
    return this.holds.get(holdId)?.status ?? null;
  }

  getHold(holdId: string): Promise<HoldAnswer> {
    return this.call('getHold', () => {
      const h = this.holds.get(holdId);
      return h ? { kind: 'ok', hold: this.info(h) } : { kind: 'refused', code: 'HOLD_NOT_FOUND', hold: null };
    });
  }
  startPayment(holdId: string, account: string): Promise<HoldAnswer> {
    return this.call('startPayment', () => this.act(holdId, { kind: 'payment_pending', account, graceMs: this.graceMs }));
  }
  confirm(holdId: string, orderId: string, amountMinor: number, account: string): Promise<HoldAnswer> {
    return this.call('confirm', (fault) => {
      const h = this.holds.get(holdId);
      // As the inventory: a repeated confirm of a hold SOLD to this order is a no-op, checked before the account limit.
      if (fault === 'limit' && h && !(h.status === 'SOLD' && h.orderId === orderId))
        return { kind: 'refused', code: 'ACCOUNT_LIMIT', hold: this.info(h) };
      for (const h of this.holds.values())
        if (h.holdId !== holdId && h.orderId === orderId)
          return { kind: 'refused', code: 'ORDER_ALREADY_USED', hold: this.info(this.holds.get(holdId)!) };
      return this.act(holdId, { kind: 'confirm', orderId, amountMinor, account });
    });
  }
  release(holdId: string, account: string): Promise<HoldAnswer> {
    return this.call('release', () => this.act(holdId, { kind: 'release', account, byOrigin: true }));
  }

  async paymentHolds(after: string): Promise<{ kind: 'ok'; holds: HoldInfo[]; next: string | null }> {
    this.sweep();
    const holds = [...this.holds.values()]
      .filter((h) => h.holdId > after && ['PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD'].includes(h.status))
      .sort((a, b) => (a.holdId < b.holdId ? -1 : 1))
      .map((h) => this.info(h));
    return { kind: 'ok', holds, next: null };
  }

  /** Another system confirms a hold for an order this shop does not know. */
  foreignConfirm(holdId: string, orderId: string): void {
    const h = this.holds.get(holdId)!;
    this.act(holdId, { kind: 'payment_pending', account: h.account, graceMs: this.graceMs });
    this.act(holdId, { kind: 'confirm', orderId, amountMinor: h.priceMinor, account: h.account });
  }

  /** Another system starts a payment on a hold and never finishes it. */
  foreignPaymentPending(holdId: string): void {
    this.act(holdId, { kind: 'payment_pending', account: this.holds.get(holdId)!.account, graceMs: this.graceMs });
  }

  private async call(op: GatewayOp, run: (fault: GatewayFault | null) => HoldAnswer): Promise<HoldAnswer> {
    this.sweep();
    const i = this.faults.findIndex((f) => f.op === op);
    const fault = i >= 0 ? this.faults.splice(i, 1)[0]!.fault : null;
    if (fault === 'timeout') return { kind: 'no_answer' };
    if (fault === 'refused_bare') return { kind: 'refused', code: 'CONFLICT', hold: null };
    const hook = this.hooks.shift();
    if (hook?.before) await hook.run();
    const answer = run(fault);
    if (hook && !hook.before) await hook.run();
    return fault === 'lost' ? { kind: 'no_answer' } : answer;
  }

  private act(holdId: string, action: Parameters<typeof applyHoldAction>[1]): HoldAnswer {
    const h = this.holds.get(holdId);
    if (!h) return { kind: 'refused', code: 'HOLD_NOT_FOUND', hold: null };
    const t = applyHoldAction(h, action, this.clock());
    if (!t.ok) return { kind: 'refused', code: t.code, hold: this.info(h) };
    h.status = t.status;
    h.expiresAtMs = t.expiresAtMs;
    if (action.kind === 'confirm' && t.status === 'SOLD') h.orderId = action.orderId;
    return { kind: 'ok', hold: this.info(h) };
  }

  private info(h: ModelHold): HoldInfo {
    return {
      holdId: h.holdId,
      status: effectiveStatus(h, this.clock()),
      account: h.account,
      seatIds: h.seatIds,
      tier: null,
      quantity: h.seatIds.length,
      priceMinor: h.priceMinor,
      currency: 'EUR',
      orderId: h.orderId,
    };
  }
}

/** Everything a scenario needs, wired together. */
export class World {
  now = Date.UTC(2026, 10, 30, 12);
  readonly store = new MemoryShopStore();
  readonly ledger = new MemoryProviderLedger();
  readonly inventory = new InventoryModel(() => this.now);
  readonly jobs: { kind: JobKind; ref: string; at: number }[] = [];
  readonly providerFaults: { op: ProviderCall['op']; fault: Exclude<Fault, 'none'> }[] = [];
  /** What to do inside the next provider calls, between processing and answering. */
  readonly interleave: ('webhooks' | 'job' | 'query')[] = [];
  /** Run once each, in order, inside the next provider calls (between processing and answering). */
  readonly hooks: (() => unknown)[] = [];
  readonly provider: FakePaymentProvider;
  readonly checkout: CheckoutEngine;
  private ids = 0;
  /** Webhook events delivered (and redelivered) so far. */
  delivered = 0;

  constructor() {
    this.provider = new FakePaymentProvider(this.ledger, {
      clock: () => this.now,
      fault: (call) => {
        const i = this.providerFaults.findIndex((f) => f.op === call.op);
        return i >= 0 ? this.providerFaults.splice(i, 1)[0]!.fault : 'none';
      },
      beforeAnswer: async () => {
        await this.hooks.shift()?.();
        const what = this.interleave.shift();
        if (what === 'webhooks') await this.deliverAll();
        else if (what === 'job' && this.jobs.length > 0) await this.runJob(0);
      },
    });
    this.checkout = new CheckoutEngine({
      store: this.store,
      provider: this.provider,
      inventory: this.inventory,
      schedule: (kind, ref, at) => {
        const j = this.jobs.find((x) => x.kind === kind && x.ref === ref);
        if (j) j.at = Math.min(j.at, at);
        else this.jobs.push({ kind, ref, at });
      },
      clock: () => this.now,
      newId: () => `order-${++this.ids}`,
      timing: DEFAULT_TIMING,
    });
  }

  /** Delivers one outbox event (it stays in the outbox: a later call may deliver it again). */
  async deliver(index: number): Promise<string> {
    const e: WebhookEvent | undefined = this.ledger.outbox[index];
    if (!e) return 'none';
    this.delivered++;
    return this.checkout.webhook(structuredClone(e));
  }

  /** Delivers every outbox event once more, in order. */
  async deliverAll(): Promise<void> {
    for (let i = 0; i < this.ledger.outbox.length; i++) await this.deliver(i);
  }

  /** Runs the job at `index` now, whatever its due time (jobs must be safe early, late and twice). */
  async runJob(index: number): Promise<void> {
    const j = this.jobs.splice(index % Math.max(1, this.jobs.length), 1)[0];
    if (!j) return;
    if (j.kind === 'advance') await this.checkout.advance(j.ref);
    else if (j.kind === 'resolve') await this.checkout.resolve(j.ref);
    else await this.checkout.expireAuthorization(j.ref);
  }

  /** Runs due jobs (moving the clock to each) until none is left or `rounds` ran out. */
  async drain(rounds = 60): Promise<void> {
    for (let i = 0; i < rounds && this.jobs.length > 0; i++) {
      this.jobs.sort((a, b) => a.at - b.at);
      this.now = Math.max(this.now, this.jobs[0]!.at);
      await this.runJob(0);
    }
  }

  newAccount(): string {
    return `acct-${++this.ids}`;
  }
}

/** The invariants of the checkout across order, payment, provider and inventory. Returns violations. */
export function invariantViolations(w: World): string[] {
  const out: string[] = [];
  const captures = new Map<string, number>();
  for (const m of w.ledger.moved) if (m.kind === 'capture') captures.set(m.paymentId, (captures.get(m.paymentId) ?? 0) + 1);
  for (const [id, n] of captures) if (n > 1) out.push(`payment ${id} captured ${n} times`);
  for (const p of [...w.ledger.payments(), ...w.store.paymentsById.values()]) {
    if (p.capturedMinor > p.authorizedMinor)
      out.push(`payment ${p.paymentId}: captured ${p.capturedMinor} > authorized ${p.authorizedMinor}`);
    if (p.refundedMinor > p.capturedMinor) out.push(`payment ${p.paymentId}: refunded more than captured`);
  }
  w.inventory.sweep();
  for (const h of w.inventory.holds.values()) {
    if (h.status !== 'SOLD') continue;
    const p = h.orderId ? w.store.paymentsById.get(h.orderId) : undefined;
    const provider = h.orderId ? w.ledger.payment(h.orderId) : null;
    if (!p || p.state === 'FAILED' || p.state === 'VOIDED' || p.state === 'INITIATED')
      out.push(`hold ${h.holdId} SOLD to ${h.orderId} whose payment is ${p?.state ?? 'missing'}`);
    if (!provider || provider.state === 'FAILED' || provider.state === 'VOIDED' || provider.authorizedMinor === 0)
      out.push(`hold ${h.holdId} SOLD to ${h.orderId} without money at the provider (${provider?.state ?? 'none'})`);
  }
  for (const o of w.store.ordersById.values()) {
    const p = w.store.paymentsById.get(o.orderId);
    const h = w.inventory.holds.get(o.holdId);
    const live = h && (h.status === 'HELD' || h.status === 'PAYMENT_PENDING' || h.status === 'NEEDS_RECONCILIATION');
    const soldToUs = h?.status === 'SOLD' && h.orderId === o.orderId;
    // An UNKNOWN authorization or capture may have moved money for these seats: they must stay out of sale.
    // An UNKNOWN void or refund only ever gives money back, and comes after the seats were released (seats first).
    if (p?.state === 'UNKNOWN' && (p.pending?.op === 'authorize' || p.pending?.op === 'capture') && !live && !soldToUs)
      out.push(`order ${o.orderId}: payment UNKNOWN (${p.pending.op}) but its hold is ${h?.status} (seats back on sale)`);
    if (p && (o.state === 'FAILED' || o.state === 'CANCELLED') && (soldToUs || live))
      out.push(`order ${o.orderId} ${o.state} still holds seats (hold ${h?.status})`);
    if (o.state === 'PAID' && !soldToUs) out.push(`order ${o.orderId} PAID (tickets issued) but hold is ${h?.status}`);
    if (o.tickets.length > 0 && o.state !== 'PAID') out.push(`order ${o.orderId} has tickets but is ${o.state}`);
  }
  return out;
}

/** Invariants once every fault stopped and all work ran: nothing left unknown, every sale captured, no money kept without seats. */
export function settledViolations(w: World): string[] {
  const out = invariantViolations(w);
  for (const o of w.store.ordersById.values()) {
    const p = w.store.paymentsById.get(o.orderId);
    const provider = w.ledger.payment(o.orderId);
    if (p?.state === 'UNKNOWN') out.push(`order ${o.orderId}: payment still UNKNOWN`);
    if (o.state === 'INITIATED' || o.state === 'CANCELLING') out.push(`order ${o.orderId} still ${o.state} (payment ${p?.state})`);
    if (o.state === 'PAID' && !['CAPTURED', 'SETTLED', 'REFUNDED', 'DISPUTED'].includes(p?.state ?? ''))
      out.push(`order ${o.orderId} PAID but payment ${p?.state}`);
    if (p && provider && p.state !== provider.state)
      out.push(`order ${o.orderId}: payment ${p.state} here, ${provider.state} at the provider`);
    if (o.state !== 'PAID' && provider && (provider.state === 'AUTHORIZED' || provider.capturedMinor > provider.refundedMinor))
      out.push(`order ${o.orderId} ${o.state} but the provider holds money (${provider.state})`);
  }
  for (const pp of w.ledger.payments())
    if (!w.store.ordersById.has(pp.paymentId)) out.push(`provider payment ${pp.paymentId} without an order`);
  return out;
}
