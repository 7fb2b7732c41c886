// The checkout saga's vocabulary and its pure rules about orders and holds: states, ports, the
// visitor's view, and what a gateway answer tells for sure about a hold's seats.
import type { FakePaymentProvider } from './payment-provider';
import { formatMoney } from './money';
import type { Payment, PaymentOp } from './payment-state';

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
type OrderStatus = 'PAID' | 'PROCESSING' | 'FAILED' | 'CANCELLED';

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

/** The gateway's signed origin API (docs/reference/api.md, "Origin API"). */
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
type ScheduleJob = (kind: JobKind, ref: string, atMs: number) => void;

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
type PaymentClient = Pick<FakePaymentProvider, 'authorize' | 'capture' | 'void' | 'refund' | 'query' | 'list'>;

/** The stable operation id (the provider's idempotency key) of one call on one payment. */
export function operationId(paymentId: string, op: PaymentOp): string {
  return `${paymentId}:${op}`;
}

/** What the visitor is told at each point (never "failed" while the outcome is unknown). */
export const MESSAGES = {
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
export const HOLDS_SEATS: readonly OrderState[] = ['INITIATED', 'CANCELLING', 'PAID'];

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

/** The visitor's view of an order (`CheckoutEngine.view`). */
export interface OrderView {
  orderId: string;
  status: OrderStatus;
  holdId: string | null;
  seatIds: string[];
  amountMinor: number;
  currency: string;
  tickets: string[];
  message: string;
  payment: Payment['state'] | null;
}

/**
 * The visitor's view of an order: `PAID` (the gateway sold the seats to this order and the money
 * is authorized; capture follows by a job and is never undone by a void), `PROCESSING` (outcome
 * not known yet, including while a cancellation is under way), `FAILED` or `CANCELLED` (final:
 * no seats, no money kept). `holdId` is null for a checkout refused before any order began.
 */
export function orderView(o: Order, p: Payment | null): OrderView {
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

/** A new order for `hold` (its price, currency and seats), with id and time given. */
export function buildOrder(f: {
  orderId: string;
  account: string;
  hold: HoldInfo;
  state: OrderState;
  message: string;
  nowMs: number;
}): Order {
  const { hold } = f;
  return {
    orderId: f.orderId,
    account: f.account,
    holdId: hold.holdId,
    state: f.state,
    version: 0,
    amountMinor: hold.priceMinor,
    currency: hold.currency,
    seatIds: hold.seatIds,
    label: hold.seatIds.length > 0 ? hold.seatIds.join(', ') : `${hold.quantity} x ${hold.tier ?? 'ticket'}`,
    tickets: [],
    message: f.message,
    createdAtMs: f.nowMs,
  };
}

/** An empty hold for a refusal that read none (nothing to show). */
export function noHold(account: string): HoldInfo {
  return { holdId: '', status: '', account, seatIds: [], tier: null, quantity: 0, priceMinor: 0, currency: '', orderId: null };
}

/** The fields a PAID order gets from the hold the gateway SOLD to it: tickets from committed state, and the message. */
export function paidFields(o: Order, hold: HoldInfo): Pick<Order, 'state' | 'tickets' | 'message'> {
  const tickets = hold.seatIds.length > 0 ? hold.seatIds : Array.from({ length: hold.quantity }, (_, i) => `${hold.tier}-${i + 1}`);
  const short = o.orderId.slice(0, 8);
  return {
    state: 'PAID',
    tickets: tickets.map((t) => `${short}-${t}`),
    message:
      o.amountMinor === 0
        ? `Confirmed ${o.label} (free). Order ${short}.`
        : `Paid ${formatMoney(o.amountMinor, o.currency)} for ${o.label}. Order ${short}.`,
  };
}

/** The message of an order whose payment FAILED, by the payment's reason. */
export function failedMessage(reason: string | null | undefined): string {
  if (/declin/.test(reason ?? '')) return MESSAGES.declined;
  if (/PAYMENT_PENDING/.test(reason ?? '')) return MESSAGES.holdGone;
  return MESSAGES.failed;
}

/**
 * What a read of the hold tells for sure: the hold, null when the gateway has no such hold, or
 * undefined when it is not known (no answer, or a refusal without the hold): decide nothing then.
 */
export function knownHold(r: HoldAnswer): HoldInfo | null | undefined {
  if (r.kind === 'ok') return r.hold;
  if (r.kind === 'refused' && r.code === 'HOLD_NOT_FOUND') return null;
  return r.kind === 'refused' && r.hold ? r.hold : undefined;
}

/** True when `hold` is SOLD to `orderId`. */
export const soldTo = (hold: HoldInfo | null | undefined, orderId: string): boolean =>
  !!hold && hold.status === 'SOLD' && hold.orderId === orderId;

/**
 * What an answer about `orderId`'s hold (a release, or a read) tells about its seats: `freed`
 * (released, expired, no such hold, or sold to another order: nothing can sell them to this order
 * any more), `sold` with the hold when it is SOLD to this order (a confirm landed first), or
 * `unknown` (no answer, a refusal that does not show the hold, or a hold still live): decide
 * nothing then. Releases and reads share it, so both read a hold sold to another order the same way.
 */
export function seatsOutcome(r: HoldAnswer, orderId: string): { kind: 'freed' } | { kind: 'sold'; hold: HoldInfo } | { kind: 'unknown' } {
  const h = knownHold(r);
  if (h === undefined) return { kind: 'unknown' };
  if (h === null || h.status === 'RELEASED' || h.status === 'EXPIRED') return { kind: 'freed' };
  if (h.status === 'SOLD') return h.orderId === orderId ? { kind: 'sold', hold: h } : { kind: 'freed' };
  return { kind: 'unknown' };
}
