// The saga's pure decisions, as tables: the next step of an order, what a gateway answer tells
// about the seats, what confirm and release answers lead to, and how reconciliation classifies.
import { describe, expect, it } from 'vitest';
import { afterCancelRelease, afterConfirm, afterFailedRelease, judgeRefusedConfirm, planStep } from '../../origin-stub/engine';
import {
  buildOrder,
  DEFAULT_TIMING,
  seatsOutcome,
  type HoldAnswer,
  type HoldInfo,
  type Order,
  type OrderState,
} from '../../origin-stub/order';
import { newPayment, type Payment, type PaymentState } from '../../origin-stub/payment-state';
import { holdFinding, isOrphanAuthorization, listedHoldFinding } from '../../origin-stub/reconcile';

const NOW = Date.UTC(2026, 11, 1, 9);
const hold = (status: string, orderId: string | null = null): HoldInfo => ({
  holdId: 'h1',
  status,
  account: 'a',
  seatIds: ['A1'],
  tier: null,
  quantity: 1,
  priceMinor: 5000,
  currency: 'EUR',
  orderId,
});
const order = (state: OrderState, extra: Partial<Order> = {}): Order => ({
  ...buildOrder({ orderId: 'o1', account: 'a', hold: hold('HELD'), state, message: '', nowMs: NOW }),
  ...extra,
});
const payment = (state: PaymentState, extra: Partial<Payment> = {}): Payment => ({ ...newPayment('o1', 5000, 'EUR'), state, ...extra });
const ok = (h: HoldInfo): HoldAnswer => ({ kind: 'ok', hold: h });
const refused = (code: string, h: HoldInfo | null = null): HoldAnswer => ({ kind: 'refused', code, hold: h });
const none: HoldAnswer = { kind: 'no_answer' };

describe('planStep', () => {
  const table: [string, Order, Payment | null, number, string][] = [
    ['free order, open', order('INITIATED', { amountMinor: 0 }), null, NOW, 'free_confirm'],
    ['refused checkout (no hold)', order('FAILED', { amountMinor: 0, holdId: '' }), null, NOW, 'none'],
    ['payment UNKNOWN, any order state', order('CANCELLING'), payment('UNKNOWN'), NOW, 'resolve'],
    ['payment INITIATED, checkout running', order('INITIATED'), payment('INITIATED'), NOW + 1_000, 'none'],
    [
      'payment INITIATED long after checkout',
      order('INITIATED'),
      payment('INITIATED'),
      NOW + DEFAULT_TIMING.abandonAfterMs,
      'query_stalled',
    ],
    ['payment FAILED', order('INITIATED'), payment('FAILED', { reason: 'declined' }), NOW, 'release_failed'],
    ['payment VOIDED before confirm', order('INITIATED'), payment('VOIDED'), NOW, 'cancel'],
    ['authorized', order('INITIATED'), payment('AUTHORIZED'), NOW, 'confirm'],
    ['paid, only authorized', order('PAID'), payment('AUTHORIZED'), NOW, 'capture'],
    ['paid and captured', order('PAID'), payment('CAPTURED'), NOW, 'none'],
    ['cancelling', order('CANCELLING'), payment('AUTHORIZED'), NOW, 'release_cancelling'],
    ['cancelling, disputed', order('CANCELLING'), payment('DISPUTED'), NOW, 'none'],
    ['cancelled', order('CANCELLED'), payment('VOIDED'), NOW, 'none'],
  ];
  for (const [name, o, p, now, want] of table) it(`${name} -> ${want}`, () => expect(planStep(o, p, now, DEFAULT_TIMING).kind).toBe(want));

  it('tells a declined card from a hold that could not go to payment pending', () => {
    expect(planStep(order('INITIATED'), payment('FAILED', { reason: 'declined: card' }), NOW, DEFAULT_TIMING)).toMatchObject({
      message: /declined/,
    });
    expect(planStep(order('INITIATED'), payment('FAILED', { reason: 'not PAYMENT_PENDING' }), NOW, DEFAULT_TIMING)).toMatchObject({
      message: /no longer active/,
    });
  });
});

describe('seatsOutcome: one answer to "can these seats still be sold to this order?"', () => {
  const table: [string, HoldAnswer, string][] = [
    ['no answer', none, 'unknown'],
    ['refusal without the hold', refused('CONFLICT'), 'unknown'],
    ['no such hold', refused('HOLD_NOT_FOUND'), 'freed'],
    ['released', ok(hold('RELEASED')), 'freed'],
    ['expired (in a refusal)', refused('HOLD_NOT_ACTIVE', hold('EXPIRED')), 'freed'],
    ['sold to this order', ok(hold('SOLD', 'o1')), 'sold'],
    ['sold to another order (in a refusal)', refused('HOLD_NOT_ACTIVE', hold('SOLD', 'o2')), 'freed'],
    // The input holdFreed and releaseOutcome disagreed on (the first said "not freed", the second "freed").
    ['sold to another order (in an ok answer)', ok(hold('SOLD', 'o2')), 'freed'],
    ['still live', ok(hold('PAYMENT_PENDING')), 'unknown'],
  ];
  for (const [name, r, want] of table) it(`${name} -> ${want}`, () => expect(seatsOutcome(r, 'o1').kind).toBe(want));

  it('a FAILED payment fails its order only once the seats are freed', () => {
    expect(afterFailedRelease(ok(hold('RELEASED')), 'o1')).toBe('fail');
    expect(afterFailedRelease(ok(hold('SOLD', 'o2')), 'o1')).toBe('fail');
    expect(afterFailedRelease(none, 'o1')).toBe('retry');
    expect(afterFailedRelease(ok(hold('SOLD', 'o1')), 'o1')).toBe('retry');
  });
});

describe('confirm and release answers', () => {
  it('afterConfirm: paid only when SOLD to this order; a refusal is judged by its hold, or read first', () => {
    expect(afterConfirm(ok(hold('SOLD', 'o1')), 'o1').kind).toBe('paid');
    expect(afterConfirm(none, 'o1').kind).toBe('retry');
    expect(afterConfirm(refused('PRICE_MISMATCH', hold('HELD')), 'o1').kind).toBe('judge');
    expect(afterConfirm(refused('CONFLICT'), 'o1').kind).toBe('read');
    expect(afterConfirm(ok(hold('SOLD', 'o2')), 'o1').kind).toBe('read');
  });

  it('judgeRefusedConfirm: a lost earlier confirm counts; an unknown hold decides nothing', () => {
    expect(judgeRefusedConfirm(hold('SOLD', 'o1'), 'o1').kind).toBe('paid');
    expect(judgeRefusedConfirm(undefined, 'o1').kind).toBe('retry');
    expect(judgeRefusedConfirm(null, 'o1').kind).toBe('cancel');
    expect(judgeRefusedConfirm(hold('EXPIRED'), 'o1').kind).toBe('cancel');
  });

  it('afterCancelRelease: seats first; money voided, refunded, kept or left to a person by what the release showed', () => {
    const table: [HoldAnswer, Payment, string][] = [
      [none, payment('AUTHORIZED'), 'retry'],
      [ok(hold('SOLD', 'o1')), payment('AUTHORIZED'), 'paid'],
      [ok(hold('SOLD', 'o1')), payment('VOIDED'), 'none'],
      [ok(hold('RELEASED')), payment('AUTHORIZED'), 'void'],
      [ok(hold('RELEASED')), payment('CAPTURED', { capturedMinor: 5000 }), 'refund'],
      [ok(hold('RELEASED')), payment('REFUNDED', { capturedMinor: 5000, refundedMinor: 5000 }), 'cancelled'],
      [ok(hold('RELEASED')), payment('VOIDED'), 'cancelled'],
    ];
    for (const [r, p, want] of table) expect([r, p.state, afterCancelRelease(r, 'o1', p).kind]).toEqual([r, p.state, want]);
    expect(afterCancelRelease(ok(hold('RELEASED')), 'o1', payment('CAPTURED', { capturedMinor: 5000, refundedMinor: 1000 }))).toEqual({
      kind: 'refund',
      amountMinor: 4000,
    });
  });
});

describe('reconciliation findings', () => {
  it('holdFinding: each disagreement between order, payment and hold', () => {
    const table: [Order, Payment, HoldInfo, string | null][] = [
      [order('INITIATED'), payment('VOIDED'), hold('SOLD', 'o1'), 'sold_without_payment'],
      [order('INITIATED'), payment('AUTHORIZED'), hold('SOLD', 'o1'), 'hold_sold_but_order_open'],
      [order('PAID'), payment('CAPTURED'), hold('RELEASED'), 'hold_state_mismatch'],
      [order('FAILED'), payment('FAILED'), hold('HELD'), 'hold_state_mismatch'],
      [order('INITIATED'), payment('UNKNOWN'), hold('NEEDS_RECONCILIATION'), 'hold_state_mismatch'],
      [order('PAID'), payment('CAPTURED'), hold('SOLD', 'o1'), null],
      [order('FAILED'), payment('FAILED'), hold('RELEASED'), null],
    ];
    for (const [o, p, h, want] of table)
      expect([o.state, p.state, h.status, holdFinding(o, p, h)?.kind ?? null]).toEqual([o.state, p.state, h.status, want]);
    expect(holdFinding(order('INITIATED'), payment('AUTHORIZED'), hold('SOLD', 'o1'))?.markPaid).toBe(true);
  });

  it('listedHoldFinding: a listed hold without its order here; only NEEDS_RECONCILIATION is released', () => {
    expect(listedHoldFinding(hold('SOLD', 'o1'), order('PAID'))).toBeNull();
    expect(listedHoldFinding(hold('SOLD', 'x'), null)?.kind).toBe('sold_without_order');
    expect(listedHoldFinding(hold('NEEDS_RECONCILIATION'), null)).toMatchObject({ kind: 'hold_without_order', release: true });
    expect(listedHoldFinding(hold('PAYMENT_PENDING'), null)).toMatchObject({ kind: 'hold_without_order' });
    expect(listedHoldFinding(hold('PAYMENT_PENDING'), null)?.release).toBeUndefined();
  });

  it('isOrphanAuthorization: an authorization with no live order behind it', () => {
    const snap = { ...payment('AUTHORIZED') };
    expect(isOrphanAuthorization(snap, null)).toBe(true);
    expect(isOrphanAuthorization(snap, order('CANCELLED'))).toBe(true);
    expect(isOrphanAuthorization(snap, order('INITIATED'))).toBe(false);
    expect(isOrphanAuthorization({ ...snap, state: 'CAPTURED' }, null)).toBe(false);
  });
});
