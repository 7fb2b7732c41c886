// The payment state machine: every transition allowed and refused, and properties over random event sequences.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  catchUp,
  newPayment,
  transition,
  type Payment,
  type PaymentEvent,
  type PaymentOp,
  type PaymentState,
} from '../../origin-stub/payment-state';

const AMOUNT = 10_000;
const base = newPayment('p1', AMOUNT, 'EUR');
/** A payment in `state` as the machine would have it (amounts consistent with the state). */
function inState(state: PaymentState, pending?: { op: PaymentOp; from: PaymentState }): Payment {
  const authorized = ['INITIATED', 'FAILED'].includes(state) || pending?.op === 'authorize' ? 0 : AMOUNT;
  const captured = ['CAPTURED', 'SETTLED', 'REFUNDED', 'DISPUTED'].includes(state) || pending?.op === 'refund' ? AMOUNT : 0;
  return {
    ...base,
    state,
    authorizedMinor: authorized,
    capturedMinor: captured,
    refundedMinor: state === 'REFUNDED' ? 1000 : 0,
    settled: state === 'SETTLED',
    pending: pending ?? null,
  };
}

const EVENTS: PaymentEvent[] = [
  { kind: 'authorized', amountMinor: AMOUNT },
  { kind: 'declined', reason: 'card declined' },
  { kind: 'abandoned', reason: 'hold gone' },
  { kind: 'captured', amountMinor: AMOUNT },
  { kind: 'voided' },
  { kind: 'refunded', amountMinor: 500 },
  { kind: 'settled' },
  { kind: 'disputed' },
  { kind: 'no_answer', op: 'authorize' },
  { kind: 'no_answer', op: 'capture' },
  { kind: 'no_answer', op: 'void' },
  { kind: 'no_answer', op: 'refund' },
  { kind: 'op_refused', op: 'capture', reason: 'x' },
];
const name = (e: PaymentEvent) => ('op' in e ? `${e.kind}(${e.op})` : e.kind);

/** The complete table: from each state, the events accepted and where they lead. Anything else is refused. */
const TABLE: [string, Payment, Record<string, PaymentState>][] = [
  [
    'INITIATED',
    inState('INITIATED'),
    { authorized: 'AUTHORIZED', declined: 'FAILED', abandoned: 'FAILED', 'no_answer(authorize)': 'UNKNOWN' },
  ],
  [
    'AUTHORIZED',
    inState('AUTHORIZED'),
    { captured: 'CAPTURED', voided: 'VOIDED', 'no_answer(capture)': 'UNKNOWN', 'no_answer(void)': 'UNKNOWN' },
  ],
  ['CAPTURED', inState('CAPTURED'), { refunded: 'REFUNDED', settled: 'SETTLED', disputed: 'DISPUTED', 'no_answer(refund)': 'UNKNOWN' }],
  ['SETTLED', inState('SETTLED'), { refunded: 'REFUNDED', disputed: 'DISPUTED', 'no_answer(refund)': 'UNKNOWN' }],
  ['REFUNDED', inState('REFUNDED'), { refunded: 'REFUNDED', settled: 'REFUNDED', disputed: 'DISPUTED', 'no_answer(refund)': 'UNKNOWN' }],
  ['DISPUTED', inState('DISPUTED'), { settled: 'DISPUTED' }],
  ['FAILED', inState('FAILED'), {}],
  ['VOIDED', inState('VOIDED'), {}],
  ['UNKNOWN(authorize)', inState('UNKNOWN', { op: 'authorize', from: 'INITIATED' }), { authorized: 'AUTHORIZED', declined: 'FAILED' }],
  [
    'UNKNOWN(capture)',
    inState('UNKNOWN', { op: 'capture', from: 'AUTHORIZED' }),
    { captured: 'CAPTURED', voided: 'VOIDED', 'op_refused(capture)': 'AUTHORIZED' },
  ],
  ['UNKNOWN(void)', inState('UNKNOWN', { op: 'void', from: 'AUTHORIZED' }), { captured: 'CAPTURED', voided: 'VOIDED' }],
  ['UNKNOWN(refund)', inState('UNKNOWN', { op: 'refund', from: 'CAPTURED' }), { refunded: 'REFUNDED' }],
];

describe('payment transitions', () => {
  for (const [label, from, allowed] of TABLE) {
    it(`from ${label}: accepts exactly ${Object.keys(allowed).join(', ') || 'nothing'}`, () => {
      for (const e of EVENTS) {
        const t = transition(from, e);
        const want = allowed[name(e)];
        if (want) {
          expect(t.ok, `${label} + ${name(e)}`).toBe(true);
          if (t.ok) expect([t.next.state, t.next.version]).toEqual([want, from.version + 1]);
        } else expect(t.ok, `${label} + ${name(e)} must be refused`).toBe(false);
      }
    });
  }

  it('refuses a capture above the authorization, a second capture, a refund above the capture and a wrong authorized amount', () => {
    expect(transition(inState('AUTHORIZED'), { kind: 'captured', amountMinor: AMOUNT + 1 })).toMatchObject({
      ok: false,
      code: 'CAPTURE_EXCEEDS_AUTHORIZATION',
    });
    expect(transition(inState('CAPTURED'), { kind: 'captured', amountMinor: 1 })).toMatchObject({ ok: false, code: 'ILLEGAL_TRANSITION' });
    expect(transition(inState('REFUNDED'), { kind: 'refunded', amountMinor: AMOUNT })).toMatchObject({
      ok: false,
      code: 'REFUND_EXCEEDS_CAPTURE',
    });
    expect(transition(inState('INITIATED'), { kind: 'authorized', amountMinor: AMOUNT - 1 })).toMatchObject({
      ok: false,
      code: 'AMOUNT_MISMATCH',
    });
    expect(() => newPayment('x', 0, 'EUR')).toThrow(RangeError);
  });

  it('allows a partial capture and partial refunds that add up to the captured amount', () => {
    let p = inState('AUTHORIZED');
    for (const e of [
      { kind: 'captured', amountMinor: 6000 },
      { kind: 'refunded', amountMinor: 2000 },
      { kind: 'refunded', amountMinor: 4000 },
    ] as PaymentEvent[]) {
      const t = transition(p, e);
      if (!t.ok) throw new Error(t.detail);
      p = t.next;
    }
    expect([p.state, p.capturedMinor, p.refundedMinor]).toEqual(['REFUNDED', 6000, 6000]);
    expect(transition(p, { kind: 'refunded', amountMinor: 1 }).ok).toBe(false);
  });
});

const anyEvent: fc.Arbitrary<PaymentEvent> = fc.oneof(
  fc.constantFrom(...EVENTS),
  fc.record({ kind: fc.constant('captured' as const), amountMinor: fc.integer({ min: -5, max: AMOUNT * 2 }) }),
  fc.record({ kind: fc.constant('refunded' as const), amountMinor: fc.integer({ min: -5, max: AMOUNT * 2 }) }),
  fc.record({ kind: fc.constant('authorized' as const), amountMinor: fc.integer({ min: 0, max: AMOUNT * 2 }) }),
  fc.record({
    kind: fc.constant('op_refused' as const),
    op: fc.constantFrom<PaymentOp>('authorize', 'capture', 'void', 'refund'),
    reason: fc.constant('r'),
  }),
);
/** The arrows of the documented lifecycle (UNKNOWN goes back only to the state its call was made from). */
const ARROWS = new Set([
  'INITIATED>AUTHORIZED',
  'INITIATED>FAILED',
  'INITIATED>UNKNOWN',
  'AUTHORIZED>CAPTURED',
  'AUTHORIZED>VOIDED',
  'AUTHORIZED>UNKNOWN',
  'CAPTURED>SETTLED',
  'CAPTURED>REFUNDED',
  'CAPTURED>DISPUTED',
  'CAPTURED>UNKNOWN',
  'SETTLED>REFUNDED',
  'SETTLED>DISPUTED',
  'SETTLED>UNKNOWN',
  'REFUNDED>REFUNDED',
  'REFUNDED>DISPUTED',
  'REFUNDED>UNKNOWN',
  'DISPUTED>DISPUTED',
  'UNKNOWN>AUTHORIZED',
  'UNKNOWN>FAILED',
  'UNKNOWN>CAPTURED',
  'UNKNOWN>VOIDED',
  'UNKNOWN>REFUNDED',
  'UNKNOWN>SETTLED',
]);

describe('payment state machine properties (fast-check)', () => {
  it('over any event sequence: only documented arrows, version +1 per change, amounts bounded, refusals change nothing, FAILED and VOIDED final', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 30 }), (events) => {
        runs++;
        let p = newPayment('p', AMOUNT, 'EUR');
        for (const e of events) {
          const before = structuredClone(p);
          const t = transition(p, e);
          expect(p).toEqual(before); // pure: the input is never changed
          if (!t.ok) continue;
          const n = t.next;
          expect(ARROWS.has(`${p.state}>${n.state}`), `${p.state} -> ${n.state} by ${name(e)}`).toBe(true);
          if (p.state === 'UNKNOWN' && e.kind === 'op_refused')
            expect(n.state).toBe(p.pending!.op === 'authorize' ? 'FAILED' : p.pending!.from);
          expect(p.state === 'FAILED' || p.state === 'VOIDED').toBe(false);
          expect(n.version).toBe(p.version + 1);
          expect(n.capturedMinor).toBeLessThanOrEqual(n.authorizedMinor);
          expect(n.refundedMinor).toBeLessThanOrEqual(n.capturedMinor);
          expect(n.capturedMinor === 0 || p.capturedMinor === 0 || n.capturedMinor === p.capturedMinor).toBe(true); // captured once
          expect(n.state === 'UNKNOWN').toBe(n.pending !== null);
          p = n;
        }
      }),
      { numRuns: 2000 },
    );
    expect(runs).toBe(2000);
  });

  it('webhook snapshots in any order, duplicated or late, then one query, bring the shop to exactly the provider state', () => {
    const providerEvents = fc.array(
      fc.constantFrom<PaymentEvent>(
        { kind: 'authorized', amountMinor: AMOUNT },
        { kind: 'declined', reason: 'd' },
        { kind: 'captured', amountMinor: AMOUNT },
        { kind: 'captured', amountMinor: 4000 },
        { kind: 'voided' },
        { kind: 'refunded', amountMinor: 1000 },
        { kind: 'settled' },
        { kind: 'disputed' },
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(
        providerEvents,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.constantFrom<PaymentOp | null>(null, 'authorize'),
        (events, order, lost) => {
          // The provider's own record walks the legal events; each change is a snapshot (a webhook).
          let provider = newPayment('p', AMOUNT, 'EUR');
          const snapshots = [];
          for (const e of events) {
            const t = transition(provider, e);
            if (t.ok) snapshots.push((provider = t.next));
          }
          let shop = newPayment('p', AMOUNT, 'EUR');
          if (lost) shop = (transition(shop, { kind: 'no_answer', op: lost }) as { ok: true; next: Payment }).next;
          for (const i of order) {
            if (snapshots.length === 0) break;
            const c = catchUp(shop, snapshots[i % snapshots.length]!, false);
            expect(c.ok).toBe(true);
            if (c.ok) shop = c.next;
          }
          const last = catchUp(shop, provider, true);
          expect(last.ok).toBe(true);
          if (!last.ok) return;
          shop = last.next;
          // A lost authorization the provider never saw fails; otherwise the shop mirrors the provider.
          const expected = snapshots.length === 0 ? (lost ? 'FAILED' : 'INITIATED') : provider.state;
          expect(shop.state).toBe(expected);
          expect([shop.authorizedMinor, shop.capturedMinor, shop.refundedMinor, shop.settled]).toEqual([
            provider.authorizedMinor,
            provider.capturedMinor,
            provider.refundedMinor,
            provider.settled,
          ]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
