// The hold state machine, seat-list validation and seat naming.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyHoldAction,
  rowName,
  seatIdsFor,
  validateSeatIds,
  type HoldAction,
  type HoldFacts,
} from '../../durable-objects/inventory/hold-policy';

const NOW = 1_800_000_000_000;
const hold = (h: Partial<HoldFacts>): HoldFacts => ({ account: 'alice', status: 'HELD', expiresAtMs: NOW + 1000, orderId: null, ...h });
const confirm = (orderId = 'o1', account: string | null = null): HoldAction => ({ kind: 'confirm', orderId, account });

describe('applyHoldAction', () => {
  it.each<[string, HoldFacts, HoldAction, string]>([
    ['confirm a live hold', hold({}), confirm(), 'SOLD'],
    ['confirm again with the same order', hold({ status: 'SOLD', orderId: 'o1' }), confirm('o1'), 'SOLD (noop)'],
    ['confirm with another order', hold({ status: 'SOLD', orderId: 'o1' }), confirm('o2'), 'HOLD_ALREADY_CONFIRMED'],
    ['confirm past the deadline, before any timer', hold({ expiresAtMs: NOW }), confirm(), 'HOLD_EXPIRED'],
    ['confirm a released hold', hold({ status: 'RELEASED' }), confirm(), 'HOLD_NOT_ACTIVE'],
    ['confirm for another account', hold({}), confirm('o1', 'bob'), 'NOT_HOLD_OWNER'],
    ['release a live hold', hold({}), { kind: 'release', account: 'alice' }, 'RELEASED'],
    ['release twice', hold({ status: 'RELEASED' }), { kind: 'release', account: null }, 'RELEASED (noop)'],
    ['release a sold hold', hold({ status: 'SOLD', orderId: 'o1' }), { kind: 'release', account: null }, 'HOLD_NOT_ACTIVE'],
    ['release an expired hold', hold({ expiresAtMs: NOW - 1 }), { kind: 'release', account: null }, 'HOLD_EXPIRED'],
    ['expire past the deadline', hold({ expiresAtMs: NOW - 1 }), { kind: 'expire' }, 'EXPIRED'],
    ['late timer on a live hold', hold({}), { kind: 'expire' }, 'HOLD_NOT_ACTIVE'],
    ['late timer on a sold hold', hold({ status: 'SOLD', expiresAtMs: NOW - 1 }), { kind: 'expire' }, 'HOLD_NOT_ACTIVE'],
  ])('%s', (_name, h, action, expected) => {
    const t = applyHoldAction(h, action, NOW);
    expect(t.ok ? `${t.status}${t.noop ? ' (noop)' : ''}` : t.code).toBe(expected);
  });

  it('never leaves a final state except by an idempotent repeat', () => {
    const arbAction = fc.oneof(
      fc.record({
        kind: fc.constant('confirm' as const),
        orderId: fc.constantFrom('o1', 'o2'),
        account: fc.constantFrom(null, 'alice', 'bob'),
      }),
      fc.record({ kind: fc.constant('release' as const), account: fc.constantFrom(null, 'alice', 'bob') }),
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

describe('validateSeatIds', () => {
  it('accepts 1-6 distinct seats and sorts them', () => {
    expect(validateSeatIds(['B2', 'A1'])).toEqual({ ok: true, seatIds: ['A1', 'B2'] });
  });
  it.each([[[]], [['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7']], [['A1', 'A1']], [['a1']], [['A1 ']], [["A1'--"]], [['']]])(
    'refuses %j',
    (ids) => {
      expect(validateSeatIds(ids).ok).toBe(false);
    },
  );
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
    expect(ids.every((id) => validateSeatIds([id]).ok)).toBe(true);
  });
});
