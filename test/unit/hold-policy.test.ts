// The hold state machine, request validation, seat naming, and random schedules on the pure
// reference inventory with the invariants of DESIGN.md section 6 checked after every step.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyHoldAction,
  rowName,
  seatIdsFor,
  validateHoldTarget,
  type HoldAction,
  type HoldFacts,
} from '../../durable-objects/inventory/hold-policy';
import { GRACE_MS, arbSchedule, scheduleModel } from '../helpers/schedules';

const NOW = 1_800_000_000_000;
const hold = (h: Partial<HoldFacts>): HoldFacts => ({
  account: 'alice',
  status: 'HELD',
  expiresAtMs: NOW + 1000,
  orderId: null,
  priceMinor: 100,
  ...h,
});
const confirm = (orderId = 'o1', account: string | null = null, amountMinor = 100): HoldAction => ({
  kind: 'confirm',
  orderId,
  amountMinor,
  account,
});
const release = (account: string | null, byOrigin = false): HoldAction => ({ kind: 'release', account, byOrigin });
const pending: HoldAction = { kind: 'payment_pending', account: null, graceMs: 30_000 };

describe('applyHoldAction', () => {
  it.each<[string, HoldFacts, HoldAction, string]>([
    ['confirm a live hold', hold({}), confirm(), 'SOLD'],
    ['confirm with the wrong amount', hold({}), confirm('o1', null, 99), 'PRICE_MISMATCH'],
    ['confirm again with the same order', hold({ status: 'SOLD', orderId: 'o1' }), confirm('o1'), 'SOLD (noop)'],
    ['confirm with another order', hold({ status: 'SOLD', orderId: 'o1' }), confirm('o2'), 'HOLD_ALREADY_CONFIRMED'],
    [
      'confirm again with the same order but another amount',
      hold({ status: 'SOLD', orderId: 'o1' }),
      confirm('o1', null, 1),
      'PRICE_MISMATCH',
    ],
    ['confirm exactly at the deadline (it counts as passed)', hold({ expiresAtMs: NOW }), confirm(), 'HOLD_EXPIRED'],
    ['confirm a millisecond before the deadline', hold({ expiresAtMs: NOW + 1 }), confirm(), 'SOLD'],
    ['confirm a released hold', hold({ status: 'RELEASED' }), confirm(), 'HOLD_NOT_ACTIVE'],
    ['confirm for another account', hold({}), confirm('o1', 'bob'), 'NOT_HOLD_OWNER'],
    ['confirm while payment is pending', hold({ status: 'PAYMENT_PENDING' }), confirm(), 'SOLD'],
    ['confirm after the payment grace ran out', hold({ status: 'PAYMENT_PENDING', expiresAtMs: NOW - 1 }), confirm(), 'SOLD'],
    ['confirm a hold that needs reconciliation', hold({ status: 'NEEDS_RECONCILIATION', expiresAtMs: NOW - 1 }), confirm(), 'SOLD'],
    ['start payment on a live hold', hold({}), pending, 'PAYMENT_PENDING'],
    ['start payment twice (no second extension)', hold({ status: 'PAYMENT_PENDING' }), pending, 'PAYMENT_PENDING (noop)'],
    ['start payment on an expired hold', hold({ expiresAtMs: NOW }), pending, 'HOLD_EXPIRED'],
    ['start payment after the grace ran out', hold({ status: 'PAYMENT_PENDING', expiresAtMs: NOW }), pending, 'HOLD_NOT_ACTIVE'],
    ['start payment on a sold hold', hold({ status: 'SOLD', orderId: 'o1' }), pending, 'HOLD_NOT_ACTIVE'],
    ['visitor releases a live hold', hold({}), release('alice'), 'RELEASED'],
    ['visitor releases during payment', hold({ status: 'PAYMENT_PENDING' }), release('alice'), 'PAYMENT_IN_PROGRESS'],
    ['origin releases during payment', hold({ status: 'PAYMENT_PENDING' }), release(null, true), 'RELEASED'],
    ['origin releases a hold that needs reconciliation', hold({ status: 'NEEDS_RECONCILIATION' }), release(null, true), 'RELEASED'],
    ['release twice', hold({ status: 'RELEASED' }), release(null), 'RELEASED (noop)'],
    ['release a sold hold', hold({ status: 'SOLD', orderId: 'o1' }), release(null, true), 'HOLD_NOT_ACTIVE'],
    ['release an expired hold', hold({ expiresAtMs: NOW - 1 }), release(null), 'HOLD_EXPIRED'],
    ['timer on a due hold', hold({ expiresAtMs: NOW }), { kind: 'expire' }, 'EXPIRED'],
    ['timer on a due payment', hold({ status: 'PAYMENT_PENDING', expiresAtMs: NOW }), { kind: 'expire' }, 'NEEDS_RECONCILIATION'],
    ['late timer on a live hold', hold({}), { kind: 'expire' }, 'HOLD_NOT_ACTIVE'],
    ['late timer on a sold hold', hold({ status: 'SOLD', expiresAtMs: NOW - 1 }), { kind: 'expire' }, 'HOLD_NOT_ACTIVE'],
    ['late timer on a released hold', hold({ status: 'RELEASED', expiresAtMs: NOW - 1 }), { kind: 'expire' }, 'HOLD_NOT_ACTIVE'],
  ])('%s', (_name, h, action, expected) => {
    const t = applyHoldAction(h, action, NOW);
    expect(t.ok ? `${t.status}${t.noop ? ' (noop)' : ''}` : t.code).toBe(expected);
  });

  it('moves the deadline to now + grace when payment starts', () => {
    expect(applyHoldAction(hold({}), pending, NOW)).toMatchObject({ ok: true, expiresAtMs: NOW + 30_000 });
  });

  it('never leaves a final state except by an idempotent repeat', () => {
    const arbAction: fc.Arbitrary<HoldAction> = fc.oneof(
      fc.record({
        kind: fc.constant('confirm' as const),
        orderId: fc.constantFrom('o1', 'o2'),
        amountMinor: fc.constantFrom(100, 1),
        account: fc.constantFrom(null, 'alice', 'bob'),
      }),
      fc.record({ kind: fc.constant('release' as const), account: fc.constantFrom(null, 'alice', 'bob'), byOrigin: fc.boolean() }),
      fc.record({ kind: fc.constant('payment_pending' as const), account: fc.constantFrom(null, 'alice'), graceMs: fc.nat(100_000) }),
      fc.constant({ kind: 'expire' as const }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('SOLD', 'RELEASED', 'EXPIRED' as const),
        arbAction,
        fc.integer({ min: -5000, max: 5000 }),
        (status, action, dt) => {
          const t = applyHoldAction(hold({ status, orderId: status === 'SOLD' ? 'o1' : null, expiresAtMs: NOW + dt }), action, NOW);
          if (t.ok) {
            expect(t.noop).toBe(true);
            expect(t.status).toBe(status);
          }
        },
      ),
    );
  });
});

describe('the pure reference inventory under random schedules', () => {
  it('keeps every invariant after every step (holds, payments, confirms, releases, retries, key reuse, clock jumps, duplicate alarms)', () => {
    let runs = 0;
    fc.assert(
      fc.property(arbSchedule, (ops) => {
        runs++;
        const m = scheduleModel();
        let now = NOW;
        const created: string[] = [];
        for (const op of ops) {
          const before = m.fingerprint();
          const statusesBefore = new Map([...m.holds].map(([id, h]) => [id, h.status]));
          if (op.kind === 'hold') {
            const r = m.hold(`acct-${op.account}`, op.request, `k${op.key}`, now);
            if (r.kind === 'held' && !r.replayed) created.push(r.holdId!);
            // Replaying an idempotent request creates no new state (a sweep may still run first).
            if (
              r.replayed &&
              statusesBefore.size === m.holds.size &&
              [...m.holds].every(([id, h]) => h.status === statusesBefore.get(id))
            ) {
              expect(m.fingerprint()).toBe(before);
            }
          } else if (op.kind === 'advance') now += op.ms;
          else if (op.kind === 'alarm') m.sweep(now);
          else if (created.length > 0) {
            const id = created[op.pick % created.length]!;
            const h = m.holds.get(id)!;
            const action: HoldAction =
              op.kind === 'payment_pending'
                ? { kind: 'payment_pending', account: null, graceMs: GRACE_MS }
                : op.kind === 'confirm'
                  ? { kind: 'confirm', orderId: `order-${op.order}`, amountMinor: h.priceMinor + (op.wrongAmount ? 1 : 0), account: null }
                  : { kind: 'release', account: op.byOrigin ? null : h.account, byOrigin: op.byOrigin };
            m.change(id, action, now);
          }
          expect(m.violations()).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
    expect(runs).toBe(500);
  });
});

describe('validateHoldTarget', () => {
  it('accepts 1-6 distinct seats and sorts them, or a tier and a whole quantity', () => {
    expect(validateHoldTarget({ seatIds: ['B2', 'A1'] })).toEqual({ ok: true, target: { kind: 'seats', seatIds: ['A1', 'B2'] } });
    expect(validateHoldTarget({ tier: 'floor', quantity: 2 })).toEqual({ ok: true, target: { kind: 'tier', tier: 'floor', quantity: 2 } });
  });
  it.each<[object]>([
    [{ seatIds: [] }],
    [{ seatIds: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7'] }],
    [{ seatIds: ['A1', 'A1'] }],
    [{ seatIds: ['a1'] }],
    [{ seatIds: ['A1 '] }],
    [{ seatIds: ["A1'--"] }],
    [{ seatIds: [''] }],
    [{ tier: 'floor', quantity: 0 }],
    [{ tier: 'floor', quantity: -1 }],
    [{ tier: 'floor', quantity: 1.5 }],
    [{ tier: 'floor', quantity: 7 }],
    [{ tier: 'Floor!', quantity: 1 }],
  ])('refuses %j', (request) => {
    expect(validateHoldTarget(request as { seatIds: string[] }).ok).toBe(false);
  });
});

describe('seat naming', () => {
  it('names rows A..Z, AA.. and numbers seats per row', () => {
    expect([rowName(0), rowName(25), rowName(26), rowName(701), rowName(702)]).toEqual(['A', 'Z', 'AA', 'ZZ', 'AAA']);
    expect(seatIdsFor(5, 2)).toEqual(['A1', 'A2', 'B1', 'B2', 'C1']);
  });
  it.each([
    [100_000, 1000],
    [100_000, 1],
  ])('gives each of %i seats (%i per row) a distinct id that a hold accepts', (count, perRow) => {
    const ids = seatIdsFor(count, perRow);
    expect(new Set(ids).size).toBe(count);
    expect(ids.every((id) => validateHoldTarget({ seatIds: [id] }).ok)).toBe(true);
  });
});
