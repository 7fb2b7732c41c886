// A fake card payment provider: authorize, capture, void, refund, query and signed webhooks, with
// idempotency by operation id and injectable latency, declines, timeouts and lost responses.
import { MAX_FUTURE_SKEW_S } from '../contracts/hmac';
import { newPayment, transition, type Payment, type PaymentEvent, type ProviderSnapshot } from './payment-state';

/** A test card number that the fake provider always declines. */
const DECLINED_CARD = '4000000000000002';
/** A test card whose authorization is processed but whose answer is lost (the shop sees a timeout). */
export const LOST_RESPONSE_CARD = '4000000000000119';
/** A test card whose authorization times out before the provider processes it. */
export const TIMEOUT_CARD = '4000000000000127';

/** A provider call, as fault injection sees it. */
export interface ProviderCall {
  op: 'authorize' | 'capture' | 'void' | 'refund' | 'query';
  paymentId: string;
  operationId: string | null;
}

/**
 * What happens to one call: `none` (answered), `timeout` (never processed, no answer),
 * `lost_response` (processed, webhooks sent, but the answer never arrives), `technical` (refused
 * with PROVIDER_ERROR, nothing processed).
 */
export type Fault = 'none' | 'timeout' | 'lost_response' | 'technical';

/** The answer of a money call. `no_answer` = timeout or lost response: the caller cannot know. */
export type ProviderAnswer =
  | { kind: 'ok'; payment: ProviderSnapshot }
  | { kind: 'refused'; code: string; detail: string; payment: ProviderSnapshot | null }
  | { kind: 'no_answer' };

/** The answer of a query by payment id. */
export type QueryAnswer = { kind: 'ok'; payment: ProviderSnapshot } | { kind: 'not_found' } | { kind: 'no_answer' };

/** A webhook event: `id` is unique per event (the receiver deduplicates by it); `payment` is the state after it. */
export interface WebhookEvent {
  id: string;
  type: string;
  createdAtMs: number;
  payment: ProviderSnapshot;
}

/** One operation as the provider remembers it under its operation id (the idempotency key). */
export interface OperationRecord {
  operationId: string;
  op: ProviderCall['op'];
  paymentId: string;
  amountMinor: number;
  /** Refusal code, or null when the operation was applied. */
  refused: string | null;
  detail: string;
}

/** Money the provider moved: the ledger behind "no payment captured twice". */
export interface Movement {
  paymentId: string;
  kind: 'capture' | 'refund';
  amountMinor: number;
  operationId: string;
}

/** Where the provider keeps its state: in memory (tests) or in the shop's SQLite (`SqlProviderLedger`). */
export interface ProviderLedger {
  payment(paymentId: string): Payment | null;
  savePayment(p: Payment): void;
  operation(operationId: string): OperationRecord | null;
  saveOperation(o: OperationRecord): void;
  addMovement(m: Movement): void;
  movements(): Movement[];
  emit(e: WebhookEvent): void;
  payments(): Payment[];
}

/** A `ProviderLedger` in memory. */
export class MemoryProviderLedger implements ProviderLedger {
  readonly paymentsById = new Map<string, Payment>();
  readonly operations = new Map<string, OperationRecord>();
  readonly moved: Movement[] = [];
  readonly outbox: WebhookEvent[] = [];
  payment(id: string) {
    return this.paymentsById.get(id) ?? null;
  }
  savePayment(p: Payment) {
    this.paymentsById.set(p.paymentId, p);
  }
  operation(id: string) {
    return this.operations.get(id) ?? null;
  }
  saveOperation(o: OperationRecord) {
    this.operations.set(o.operationId, o);
  }
  addMovement(m: Movement) {
    this.moved.push(m);
  }
  movements() {
    return [...this.moved];
  }
  emit(e: WebhookEvent) {
    this.outbox.push(e);
  }
  payments() {
    return [...this.paymentsById.values()];
  }
}

/** Options of the fake provider. */
export interface FakeProviderOptions {
  /** Decides the fault of each call (default: none). */
  fault?: (call: ProviderCall) => Fault;
  /** Runs after the provider processed a call and before it answers (tests deliver webhooks here). */
  beforeAnswer?: () => Promise<void> | void;
  /** Simulated service time of each call, ms (0 = none). */
  latencyMs?: number;
  /** The provider's clock, epoch ms. */
  clock?: () => number;
}

const snapshot = (p: Payment): ProviderSnapshot => ({
  paymentId: p.paymentId,
  state: p.state,
  currency: p.currency,
  amountMinor: p.amountMinor,
  authorizedMinor: p.authorizedMinor,
  capturedMinor: p.capturedMinor,
  refundedMinor: p.refundedMinor,
  settled: p.settled,
  reason: p.reason,
});

/**
 * The fake provider. Every money call carries the caller's operation id, its idempotency key:
 * repeating a call with the same id returns the first outcome with the payment as it is now and
 * never moves money again; the same id with other parameters is refused (IDEMPOTENCY_KEY_REUSED).
 * Its own payment records follow the same state machine (`transition`), so it refuses a second
 * capture, a capture above the authorization and a refund above the capture. Every applied change
 * emits one webhook event to the ledger's outbox.
 */
export class FakePaymentProvider {
  private readonly ledger: ProviderLedger;
  private readonly opts: FakeProviderOptions;
  private seq = 0;

  constructor(ledger: ProviderLedger, opts: FakeProviderOptions = {}) {
    this.ledger = ledger;
    this.opts = opts;
  }

  /** Authorizes `amountMinor` (positive integer, minor units) on `card`; DECLINED_CARD is declined. */
  authorize(operationId: string, paymentId: string, amountMinor: number, currency: string, card: string): Promise<ProviderAnswer> {
    const digits = card.replace(/\s/g, '');
    const cardFault: Fault = digits === LOST_RESPONSE_CARD ? 'lost_response' : digits === TIMEOUT_CARD ? 'timeout' : 'none';
    return this.call({ op: 'authorize', paymentId, operationId }, amountMinor, cardFault, () => {
      if (!this.ledger.payment(paymentId)) this.ledger.savePayment(newPayment(paymentId, amountMinor, currency));
      return digits === DECLINED_CARD ? { kind: 'declined', reason: 'card declined' } : { kind: 'authorized', amountMinor };
    });
  }

  /** Captures `amountMinor` of an authorization (at most what was authorized, once). */
  capture(operationId: string, paymentId: string, amountMinor: number): Promise<ProviderAnswer> {
    return this.call({ op: 'capture', paymentId, operationId }, amountMinor, 'none', () => ({ kind: 'captured', amountMinor }));
  }

  /** Cancels an authorization that was not captured: no money moves. */
  void(operationId: string, paymentId: string): Promise<ProviderAnswer> {
    return this.call({ op: 'void', paymentId, operationId }, 0, 'none', () => ({ kind: 'voided' }));
  }

  /** Refunds `amountMinor` of a captured payment (refunds add up to at most the captured amount). */
  refund(operationId: string, paymentId: string, amountMinor: number): Promise<ProviderAnswer> {
    return this.call({ op: 'refund', paymentId, operationId }, amountMinor, 'none', () => ({ kind: 'refunded', amountMinor }));
  }

  /** The payment as the provider has it now. */
  async query(paymentId: string): Promise<QueryAnswer> {
    await this.delay();
    const f = this.opts.fault?.({ op: 'query', paymentId, operationId: null }) ?? 'none';
    if (f !== 'none') return { kind: 'no_answer' };
    const p = this.ledger.payment(paymentId);
    return p ? { kind: 'ok', payment: snapshot(p) } : { kind: 'not_found' };
  }

  /** Every payment the provider has (a real provider's list API), for reconciliation. */
  async list(): Promise<ProviderSnapshot[]> {
    await this.delay();
    return this.ledger.payments().map(snapshot);
  }

  /** Provider-side events (the bank settles, a card holder disputes): applied and sent as webhooks. */
  providerEvent(paymentId: string, event: 'settled' | 'disputed'): boolean {
    const p = this.ledger.payment(paymentId);
    if (!p) return false;
    return this.apply(p, { kind: event }) !== null;
  }

  private async delay(): Promise<void> {
    if (this.opts.latencyMs) await new Promise((r) => setTimeout(r, this.opts.latencyMs));
  }

  private async call(call: ProviderCall, amountMinor: number, cardFault: Fault, event: () => PaymentEvent): Promise<ProviderAnswer> {
    await this.delay();
    const injected = this.opts.fault?.(call) ?? 'none';
    const fault = injected !== 'none' ? injected : cardFault;
    if (fault === 'timeout') return { kind: 'no_answer' };
    if (fault === 'technical') return { kind: 'refused', code: 'PROVIDER_ERROR', detail: 'temporary provider error; retry', payment: null };
    const answer = this.process(call, amountMinor, event);
    await this.opts.beforeAnswer?.();
    return fault === 'lost_response' ? { kind: 'no_answer' } : answer();
  }

  /** Applies a call once per operation id; returns how to answer it (with the payment as it is then). */
  private process(call: ProviderCall, amountMinor: number, event: () => PaymentEvent): () => ProviderAnswer {
    const opId = call.operationId!;
    let record = this.ledger.operation(opId);
    if (record && (record.op !== call.op || record.paymentId !== call.paymentId || record.amountMinor !== amountMinor)) {
      return () => ({
        kind: 'refused',
        code: 'IDEMPOTENCY_KEY_REUSED',
        detail: 'this operation id was used for another call',
        payment: null,
      });
    }
    if (!record) {
      const e = event();
      const p = this.ledger.payment(call.paymentId);
      let refused: string | null = null;
      let detail = '';
      if (!p) {
        refused = 'PAYMENT_NOT_FOUND';
        detail = 'no such payment';
      } else if (this.apply(p, e) === null) {
        refused = 'INVALID_STATE';
        detail = `${e.kind} is not possible on a ${p.state} payment`;
      }
      record = { operationId: opId, op: call.op, paymentId: call.paymentId, amountMinor, refused, detail };
      this.ledger.saveOperation(record);
      if (!refused && (e.kind === 'captured' || e.kind === 'refunded'))
        this.ledger.addMovement({
          paymentId: call.paymentId,
          kind: e.kind === 'captured' ? 'capture' : 'refund',
          amountMinor,
          operationId: opId,
        });
    }
    const r = record;
    return () => {
      const p = this.ledger.payment(r.paymentId);
      const snap = p ? snapshot(p) : null;
      if (r.refused !== null) return { kind: 'refused', code: r.refused, detail: r.detail, payment: snap };
      if (snap?.state === 'FAILED' && r.op === 'authorize')
        return { kind: 'refused', code: 'CARD_DECLINED', detail: 'card declined', payment: snap };
      return { kind: 'ok', payment: snap! };
    };
  }

  private apply(p: Payment, e: PaymentEvent): Payment | null {
    const t = transition(p, e);
    if (!t.ok) return null;
    this.ledger.savePayment(t.next);
    const now = this.opts.clock?.() ?? Date.now();
    const type = e.kind === 'declined' ? 'payment.failed' : `payment.${e.kind}`;
    this.ledger.emit({ id: `evt_${t.next.paymentId}_${t.next.version}_${this.seq++}`, type, createdAtMs: now, payment: snapshot(t.next) });
    return t.next;
  }
}

/** Header of the webhook signature: `t=<Unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-payment-signature';
/** Webhooks signed longer ago than this are refused, seconds (Stripe's default tolerance). */
const WEBHOOK_TOLERANCE_S = 300;

const encoder = new TextEncoder();
async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The signature header value for a webhook body at `nowMs` (Stripe's scheme: HMAC over `t.body`). */
export async function signWebhook(secret: string, body: string, nowMs: number): Promise<string> {
  const t = String(Math.floor(nowMs / 1000));
  return `t=${t},v1=${await hmacHex(secret, `${t}.${body}`)}`;
}

/**
 * True only for a signature of this body by `secret`, made at most WEBHOOK_TOLERANCE_S before
 * `nowMs` and at most MAX_FUTURE_SKEW_S after it: a correct clock never signs in the future, so
 * only clock skew is allowed ahead (a symmetric window kept a captured delivery replayable twice
 * as long; the same rule as the origin API's signatures).
 */
export async function verifyWebhook(secret: string, body: string, header: string | null | undefined, nowMs: number): Promise<boolean> {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header ?? '');
  const ageS = m ? nowMs / 1000 - Number(m[1]) : NaN;
  if (!secret || !m || !(ageS <= WEBHOOK_TOLERANCE_S && ageS >= -MAX_FUTURE_SKEW_S)) return false;
  const expected = await hmacHex(secret, `${m[1]}.${body}`);
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ m[2]!.charCodeAt(i);
  return diff === 0;
}

/** A webhook event from its JSON body, or null when it does not have the expected shape. */
export function parseWebhook(body: string): WebhookEvent | null {
  try {
    const e = JSON.parse(body) as WebhookEvent;
    const p = e?.payment;
    const int = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
    if (typeof e.id !== 'string' || typeof e.type !== 'string' || !p || typeof p.paymentId !== 'string' || typeof p.state !== 'string')
      return null;
    if (!int(p.amountMinor) || !int(p.authorizedMinor) || !int(p.capturedMinor) || !int(p.refundedMinor) || typeof p.settled !== 'boolean')
      return null;
    return e;
  } catch {
    return null;
  }
}
