// The order driver's decisions, pure: from an order and its payment, what the next step is; from a
// gateway answer, what it means. The CheckoutEngine (checkout.ts) makes the calls and writes.
import { failedMessage, soldTo, seatsOutcome, type CheckoutTiming, type HoldAnswer, type HoldInfo, type Order } from './order';
import type { Payment } from './payment-state';

/**
 * The next step of one order (`planStep`):
 * - `none`: nothing to do now (final, or waiting for a webhook/job);
 * - `resolve`: the payment is UNKNOWN: only a query or webhook moves it (the seats stay out of sale);
 * - `query_stalled`: the payment never left INITIATED and the checkout stopped: ask the provider first;
 * - `release_failed`: the payment FAILED: release the hold, then the order FAILED with `message`;
 * - `cancel`: the authorization was voided before the seats were confirmed: the order goes CANCELLING;
 * - `confirm`: authorized: sell the hold to the order (`free_confirm`: amount 0, no payment at all);
 * - `capture`: PAID and still only authorized: capture;
 * - `release_cancelling`: CANCELLING: release the hold first (seats first, money second).
 */
export type StepPlan =
  | { kind: 'none' }
  | { kind: 'resolve' }
  | { kind: 'query_stalled' }
  | { kind: 'release_failed'; message: string }
  | { kind: 'cancel' }
  | { kind: 'confirm' }
  | { kind: 'free_confirm' }
  | { kind: 'capture' }
  | { kind: 'release_cancelling' };

/** Decides the next step of `o` (with payment `p`, or none for a free order) at `nowMs`. */
export function planStep(o: Order, p: Payment | null, nowMs: number, timing: CheckoutTiming): StepPlan {
  if (!p) return o.amountMinor === 0 && o.holdId !== '' && o.state === 'INITIATED' ? { kind: 'free_confirm' } : { kind: 'none' };
  if (p.state === 'UNKNOWN') return { kind: 'resolve' };
  switch (o.state) {
    case 'INITIATED':
      if (p.state === 'INITIATED') return nowMs - o.createdAtMs < timing.abandonAfterMs ? { kind: 'none' } : { kind: 'query_stalled' };
      if (p.state === 'FAILED') return { kind: 'release_failed', message: failedMessage(p.reason) };
      if (p.state === 'VOIDED') return { kind: 'cancel' };
      // AUTHORIZED (or, against the flow, already captured): the seats must be confirmed.
      return { kind: 'confirm' };
    case 'PAID':
      return p.state === 'AUTHORIZED' ? { kind: 'capture' } : { kind: 'none' };
    case 'CANCELLING':
      return p.state === 'DISPUTED' ? { kind: 'none' } : { kind: 'release_cancelling' };
    default:
      return { kind: 'none' };
  }
}

/**
 * What a confirm answer means: `paid` (SOLD to this order), `retry` (no answer), `read` (a refusal
 * without the hold: read the hold before believing it), or `judge` with the hold the refusal showed.
 */
export function afterConfirm(
  r: HoldAnswer,
  orderId: string,
): { kind: 'paid'; hold: HoldInfo } | { kind: 'retry' } | { kind: 'read' } | { kind: 'judge'; hold: HoldInfo } {
  if (r.kind === 'no_answer') return { kind: 'retry' };
  if (r.kind === 'ok' && soldTo(r.hold, orderId)) return { kind: 'paid', hold: r.hold };
  return r.kind === 'refused' && r.hold ? { kind: 'judge', hold: r.hold } : { kind: 'read' };
}

/**
 * A refused confirm, judged by the hold as seen (`undefined`: not known): `paid` when an earlier
 * confirm whose answer was lost sold it to this order, `retry` when not known, else `cancel` (a
 * free order, with no authorization to void, fails instead).
 */
export function judgeRefusedConfirm(
  seen: HoldInfo | null | undefined,
  orderId: string,
): { kind: 'paid'; hold: HoldInfo } | { kind: 'retry' } | { kind: 'cancel' } {
  if (seen === undefined) return { kind: 'retry' };
  if (seen && soldTo(seen, orderId)) return { kind: 'paid', hold: seen };
  return { kind: 'cancel' };
}

/**
 * What a FAILED payment's release answer allows: `fail` once the hold keeps no seats, else `retry`
 * (no answer, a live hold, or, against the flow, sold to this order: reconciliation reports that).
 */
export function afterFailedRelease(r: HoldAnswer, orderId: string): 'fail' | 'retry' {
  return seatsOutcome(r, orderId).kind === 'freed' ? 'fail' : 'retry';
}

/**
 * What a CANCELLING order does after its release answer (`r`), with payment `p`:
 * `retry` (seats not known), `paid` (a late confirm sold the seats to this order: keep the money),
 * `none` (sold to it but the money is gone: a person decides, reconciliation reports it),
 * `void` / `refund` (seats freed, money still held), or `cancelled` (seats freed, no money held).
 */
export function afterCancelRelease(
  r: HoldAnswer,
  orderId: string,
  p: Payment,
):
  | { kind: 'retry' }
  | { kind: 'paid'; hold: HoldInfo }
  | { kind: 'none' }
  | { kind: 'void' }
  | { kind: 'refund'; amountMinor: number }
  | { kind: 'cancelled' } {
  const seats = seatsOutcome(r, orderId);
  if (seats.kind === 'unknown') return { kind: 'retry' };
  if (seats.kind === 'sold')
    return ['AUTHORIZED', 'CAPTURED', 'SETTLED'].includes(p.state) ? { kind: 'paid', hold: seats.hold } : { kind: 'none' };
  if (p.state === 'AUTHORIZED') return { kind: 'void' };
  if ((p.state === 'CAPTURED' || p.state === 'SETTLED') && p.refundedMinor < p.capturedMinor)
    return { kind: 'refund', amountMinor: p.capturedMinor - p.refundedMinor };
  return { kind: 'cancelled' };
}
