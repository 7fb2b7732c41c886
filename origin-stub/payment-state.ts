// The payment state machine of the origin stub's checkout: pure, shared by the shop and the fake provider.

/**
 * Lifecycle of one payment (one authorization attempt of one order):
 * `INITIATED -> AUTHORIZED -> CAPTURED -> SETTLED`; `INITIATED -> FAILED` (declined or technical,
 * final: a new attempt is a new payment); `AUTHORIZED -> VOIDED` (cancelled before capture, no money
 * moved, final); `CAPTURED | SETTLED | REFUNDED -> REFUNDED` (full or partial);
 * `CAPTURED | SETTLED | REFUNDED -> DISPUTED` (chargeback). `UNKNOWN`: a provider call got no answer
 * (timeout or lost response); it remembers the call and the state it was made from, and is left only
 * by a fact about that call (from a webhook or a query). UNKNOWN is never a failure.
 */
export type PaymentState = 'INITIATED' | 'AUTHORIZED' | 'CAPTURED' | 'SETTLED' | 'FAILED' | 'VOIDED' | 'REFUNDED' | 'DISPUTED' | 'UNKNOWN';

/** Provider calls that can end without an answer. */
export type PaymentOp = 'authorize' | 'capture' | 'void' | 'refund';

/**
 * One payment. Amounts are integers in minor units of `currency` (ISO 4217); `version` grows by
 * one with every applied transition and is the compare-and-set token of storage writes.
 */
export interface Payment {
  paymentId: string;
  state: PaymentState;
  version: number;
  currency: string;
  /** The amount to authorize (the order's price). */
  amountMinor: number;
  authorizedMinor: number;
  capturedMinor: number;
  refundedMinor: number;
  settled: boolean;
  /** While UNKNOWN: the call without an answer and the state it was made from; otherwise null. */
  pending: { op: PaymentOp; from: PaymentState } | null;
  /** Why the payment failed or a call was refused, for people. */
  reason: string | null;
}

/** Facts about a payment, from the provider's answers, webhooks and queries, or from the shop. */
export type PaymentEvent =
  | { kind: 'authorized'; amountMinor: number }
  /** The provider refused the authorization (decline or technical error): nothing was charged. */
  | { kind: 'declined'; reason: string }
  /** The shop gave up before asking the provider (e.g. the hold was no longer payable). */
  | { kind: 'abandoned'; reason: string }
  | { kind: 'captured'; amountMinor: number }
  | { kind: 'voided' }
  /** One refund of `amountMinor` (refunds add up, never beyond the captured amount). */
  | { kind: 'refunded'; amountMinor: number }
  | { kind: 'settled' }
  | { kind: 'disputed' }
  /** A call got no answer (timeout, lost response): the payment is UNKNOWN until a fact arrives. */
  | { kind: 'no_answer'; op: PaymentOp }
  /** The provider says the call did not happen (refused, or a query shows no trace of it). */
  | { kind: 'op_refused'; op: PaymentOp; reason: string };

/** Why a transition was refused. */
export type PaymentRefusal = 'ILLEGAL_TRANSITION' | 'AMOUNT_MISMATCH' | 'CAPTURE_EXCEEDS_AUTHORIZATION' | 'REFUND_EXCEEDS_CAPTURE';

/** Outcome of `transition`: the next payment (version + 1), or a refusal that changes nothing. */
export type PaymentTransition = { ok: true; next: Payment } | { ok: false; code: PaymentRefusal; detail: string };

/** A new payment of `amountMinor` (a positive integer) in `currency`, version 0. */
export function newPayment(paymentId: string, amountMinor: number, currency: string): Payment {
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) throw new RangeError('amountMinor must be a positive integer');
  return {
    paymentId,
    state: 'INITIATED',
    version: 0,
    currency,
    amountMinor,
    authorizedMinor: 0,
    capturedMinor: 0,
    refundedMinor: 0,
    settled: false,
    pending: null,
    reason: null,
  };
}

const illegal = (p: Payment, e: PaymentEvent): PaymentTransition => ({
  ok: false,
  code: 'ILLEGAL_TRANSITION',
  detail: `${e.kind}${'op' in e ? `(${e.op})` : ''} is not allowed from ${p.state}${p.pending ? `(${p.pending.op})` : ''}`,
});

/**
 * The payment state machine. Every event is checked against the current state; anything not
 * listed is refused and changes nothing:
 * - `authorized` (amount = the payment's amount) and `declined`: from INITIATED or UNKNOWN(authorize).
 * - `abandoned`: from INITIATED only (the provider was never asked).
 * - `captured`: from AUTHORIZED or UNKNOWN(capture | void) made from AUTHORIZED, once, at most the
 *   authorized amount. `voided`: from the same states, before any capture.
 * - `refunded`: from CAPTURED, SETTLED, REFUNDED or UNKNOWN(refund); refunds add up to at most the
 *   captured amount. `settled`: once, from CAPTURED, REFUNDED or DISPUTED. `disputed`: from
 *   CAPTURED, SETTLED or REFUNDED.
 * - `no_answer(op)`: authorize from INITIATED, capture/void from AUTHORIZED, refund from CAPTURED,
 *   SETTLED or REFUNDED. `op_refused(op)`: from UNKNOWN(op) back to the state it was made from
 *   (authorize: FAILED, since an authorization nobody made charged nothing).
 *
 * @returns `{ ok: true, next }` with `version + 1`, or `{ ok: false, code, detail }`
 */
export function transition(p: Payment, e: PaymentEvent): PaymentTransition {
  const pendingOp = p.state === 'UNKNOWN' ? (p.pending?.op ?? null) : null;
  const go = (changes: Partial<Payment>): PaymentTransition => ({
    ok: true,
    next: { ...p, pending: null, ...changes, version: p.version + 1 },
  });
  const fromAuthorized =
    p.state === 'AUTHORIZED' || ((pendingOp === 'capture' || pendingOp === 'void') && p.pending?.from === 'AUTHORIZED');
  switch (e.kind) {
    case 'authorized':
      if (p.state !== 'INITIATED' && pendingOp !== 'authorize') return illegal(p, e);
      if (e.amountMinor !== p.amountMinor)
        return { ok: false, code: 'AMOUNT_MISMATCH', detail: `authorized ${e.amountMinor}, expected ${p.amountMinor}` };
      return go({ state: 'AUTHORIZED', authorizedMinor: e.amountMinor });
    case 'declined':
      if (p.state !== 'INITIATED' && pendingOp !== 'authorize') return illegal(p, e);
      return go({ state: 'FAILED', reason: e.reason });
    case 'abandoned':
      if (p.state !== 'INITIATED') return illegal(p, e);
      return go({ state: 'FAILED', reason: e.reason });
    case 'captured':
      if (!fromAuthorized || p.capturedMinor > 0) return illegal(p, e);
      if (!Number.isSafeInteger(e.amountMinor) || e.amountMinor <= 0 || e.amountMinor > p.authorizedMinor)
        return { ok: false, code: 'CAPTURE_EXCEEDS_AUTHORIZATION', detail: `capture ${e.amountMinor} of ${p.authorizedMinor} authorized` };
      return go({ state: 'CAPTURED', capturedMinor: e.amountMinor });
    case 'voided':
      if (!fromAuthorized || p.capturedMinor > 0) return illegal(p, e);
      return go({ state: 'VOIDED' });
    case 'refunded': {
      if (!['CAPTURED', 'SETTLED', 'REFUNDED'].includes(p.state) && pendingOp !== 'refund') return illegal(p, e);
      if (!Number.isSafeInteger(e.amountMinor) || e.amountMinor <= 0 || p.refundedMinor + e.amountMinor > p.capturedMinor)
        return {
          ok: false,
          code: 'REFUND_EXCEEDS_CAPTURE',
          detail: `refund ${e.amountMinor} with ${p.refundedMinor} of ${p.capturedMinor} refunded`,
        };
      return go({ state: 'REFUNDED', refundedMinor: p.refundedMinor + e.amountMinor });
    }
    case 'settled':
      if (p.settled || !['CAPTURED', 'REFUNDED', 'DISPUTED'].includes(p.state)) return illegal(p, e);
      return go({ state: p.state === 'CAPTURED' ? 'SETTLED' : p.state, settled: true });
    case 'disputed':
      if (!['CAPTURED', 'SETTLED', 'REFUNDED'].includes(p.state)) return illegal(p, e);
      return go({ state: 'DISPUTED' });
    case 'no_answer': {
      const allowed: Record<PaymentOp, PaymentState[]> = {
        authorize: ['INITIATED'],
        capture: ['AUTHORIZED'],
        void: ['AUTHORIZED'],
        refund: ['CAPTURED', 'SETTLED', 'REFUNDED'],
      };
      if (!allowed[e.op].includes(p.state)) return illegal(p, e);
      return go({ state: 'UNKNOWN', pending: { op: e.op, from: p.state } });
    }
    case 'op_refused':
      if (pendingOp !== e.op) return illegal(p, e);
      if (e.op === 'authorize') return go({ state: 'FAILED', reason: e.reason });
      return go({ state: p.pending!.from, reason: e.reason });
  }
}

/**
 * The provider's view of a payment (what its API, its queries and its webhooks carry). The fake
 * provider keeps exactly a `Payment` that is never UNKNOWN.
 */
export type ProviderSnapshot = Pick<
  Payment,
  'paymentId' | 'state' | 'currency' | 'amountMinor' | 'authorizedMinor' | 'capturedMinor' | 'refundedMinor' | 'settled' | 'reason'
>;

/**
 * The facts that bring `p` up to a provider snapshot, in an order the state machine accepts, each
 * applied with `transition`. A snapshot behind `p` (a late or duplicated webhook) yields no facts.
 * With `authoritative` (a fresh query answer, not a webhook that may be old), an UNKNOWN call that
 * left no trace at the provider is resolved as `op_refused`: it did not happen. Without it, UNKNOWN
 * is only ever left by a positive fact.
 *
 * @returns the payment after the facts and the facts applied, or the first refusal
 */
export function catchUp(
  p: Payment,
  snap: ProviderSnapshot,
  authoritative: boolean,
): { ok: true; next: Payment; facts: PaymentEvent[] } | { ok: false; code: PaymentRefusal; detail: string; facts: PaymentEvent[] } {
  const facts: PaymentEvent[] = [];
  let cur = p;
  const apply = (e: PaymentEvent): PaymentTransition => {
    const t = transition(cur, e);
    if (t.ok) {
      facts.push(e);
      cur = t.next;
    }
    return t;
  };
  const steps: (() => PaymentEvent | null)[] = [
    () =>
      snap.state === 'FAILED' && cur.authorizedMinor === 0 && (cur.state === 'INITIATED' || cur.pending?.op === 'authorize')
        ? { kind: 'declined', reason: snap.reason ?? 'declined' }
        : null,
    () => (snap.authorizedMinor > 0 && cur.authorizedMinor === 0 ? { kind: 'authorized', amountMinor: snap.authorizedMinor } : null),
    () => (snap.state === 'VOIDED' && cur.state !== 'VOIDED' && cur.capturedMinor === 0 ? { kind: 'voided' } : null),
    () => (snap.capturedMinor > 0 && cur.capturedMinor === 0 ? { kind: 'captured', amountMinor: snap.capturedMinor } : null),
    () => (snap.refundedMinor > cur.refundedMinor ? { kind: 'refunded', amountMinor: snap.refundedMinor - cur.refundedMinor } : null),
    // The unknown call is settled before facts that need a known state (settled, disputed).
    () =>
      authoritative && cur.state === 'UNKNOWN' && cur.pending
        ? { kind: 'op_refused', op: cur.pending.op, reason: `no trace of the ${cur.pending.op} at the provider` }
        : null,
    () => (snap.settled && !cur.settled ? { kind: 'settled' } : null),
    () => (snap.state === 'DISPUTED' && cur.state !== 'DISPUTED' ? { kind: 'disputed' } : null),
  ];
  for (const step of steps) {
    const e = step();
    if (!e) continue;
    const t = apply(e);
    if (!t.ok) return { ok: false, code: t.code, detail: t.detail, facts };
  }
  return { ok: true, next: cur, facts };
}
