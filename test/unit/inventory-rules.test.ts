// The Inventory's pure rules beside the state machine: which hold is granted (availability,
// per-account limit, price), what a confirm re-checks, and who may change the event while another
// change is in flight (serialized, resumable, a plan replaceable only while its creation is unfinished).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANGE_LEASE_MS, decideAbort, decideChange, planShape, type PendingChange } from '../../durable-objects/inventory/config-change';
import { checkConfirm, decideHold, type Availability, type HoldRules } from '../../durable-objects/inventory/decide-hold';
import type { HoldTarget } from '../../durable-objects/inventory/hold-policy';
import type { InventoryConfig } from '../../contracts/event-config';

const NOW = 1_800_000_000_000;
const RULES: HoldRules = { seatPriceMinor: 5000, currency: 'EUR', holdTtlMs: 60_000, maxSeatsPerAccount: 4 };
const seats = (...ids: string[]): HoldTarget => ({ kind: 'seats', seatIds: ids });
const free = (...ids: string[]): Availability => ({
  kind: 'seats',
  found: ids.map((seatId) => ({ seatId, status: 'AVAILABLE' as const })),
});
const tier = (capacity: number, held: number, sold: number): Availability => ({
  kind: 'tier',
  tier: { capacity, held, sold, priceMinor: 3000 },
});

describe('decideHold', () => {
  it.each<[string, HoldTarget, Availability, number, ReturnType<typeof decideHold>]>([
    [
      'two free seats',
      seats('A1', 'A2'),
      free('A1', 'A2'),
      0,
      { kind: 'grant', quantity: 2, priceMinor: 10_000, currency: 'EUR', expiresAtMs: NOW + 60_000 },
    ],
    ['a seat that does not exist', seats('A1', 'Z9'), free('A1'), 0, { kind: 'unknown_seats', seatIds: ['Z9'] }],
    [
      'a taken seat',
      seats('A1', 'A2'),
      {
        kind: 'seats',
        found: [
          { seatId: 'A1', status: 'AVAILABLE' },
          { seatId: 'A2', status: 'SOLD' },
        ],
      },
      0,
      { kind: 'unavailable', seatIds: ['A2'] },
    ],
    ['over the per-account limit', seats('A1', 'A2'), free('A1', 'A2'), 3, { kind: 'account_limit', limit: 4, owned: 3 }],
    [
      'exactly at the limit',
      seats('A1'),
      free('A1'),
      3,
      { kind: 'grant', quantity: 1, priceMinor: 5000, currency: 'EUR', expiresAtMs: NOW + 60_000 },
    ],
    [
      'tier places left',
      { kind: 'tier', tier: 'floor', quantity: 2 },
      tier(5, 2, 1),
      0,
      { kind: 'grant', quantity: 2, priceMinor: 6000, currency: 'EUR', expiresAtMs: NOW + 60_000 },
    ],
    [
      'tier short of places',
      { kind: 'tier', tier: 'floor', quantity: 3 },
      tier(5, 2, 1),
      0,
      { kind: 'unavailable', seatIds: [], remaining: 2 },
    ],
    ['no such tier', { kind: 'tier', tier: 'vip', quantity: 1 }, { kind: 'tier', tier: null }, 0, { kind: 'unknown_tier', tier: 'vip' }],
  ])('%s', (_name, target, availability, owned, expected) => {
    expect(decideHold({ target, availability, owned, rules: RULES, nowMs: NOW })).toEqual(expected);
  });

  it('grants only when every seat exists and is free and the account stays within its limit (property)', () => {
    const ids = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom('AVAILABLE', 'HELD', 'SOLD', 'missing'), { minLength: 6, maxLength: 6 }),
        fc.nat(8),
        (wanted, states, owned) => {
          const found = wanted.flatMap((id) => {
            const s = states[ids.indexOf(id)]!;
            return s === 'missing' ? [] : [{ seatId: id, status: s as 'AVAILABLE' | 'HELD' | 'SOLD' }];
          });
          const d = decideHold({ target: seats(...wanted), availability: { kind: 'seats', found }, owned, rules: RULES, nowMs: NOW });
          const ok = found.length === wanted.length && found.every((f) => f.status === 'AVAILABLE') && owned + wanted.length <= 4;
          expect(d.kind === 'grant').toBe(ok);
          if (d.kind === 'grant') expect(d).toMatchObject({ quantity: wanted.length, priceMinor: wanted.length * 5000 });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('checkConfirm', () => {
  it.each([
    [{ orderUsedElsewhere: false, ownedOther: 0, quantity: 2, limit: 4 }, { ok: true }],
    [
      { orderUsedElsewhere: true, ownedOther: 0, quantity: 2, limit: 4 },
      { ok: false, code: 'ORDER_ALREADY_USED' },
    ],
    // The organizer lowered the limit after the hold: confirm checks it again.
    [
      { orderUsedElsewhere: false, ownedOther: 3, quantity: 2, limit: 4 },
      { ok: false, code: 'ACCOUNT_LIMIT' },
    ],
  ])('%o -> %o', (facts, expected) => expect(checkConfirm(facts)).toMatchObject(expected));
});

const PLAN: InventoryConfig = {
  seats: 10,
  seatsPerRow: 5,
  seatPriceMinor: 100,
  currency: 'EUR',
  tiers: [],
  holdTtlMs: 60_000,
  paymentGraceMs: 30_000,
  maxSeatsPerAccount: 6,
};
const OTHER_PLAN: InventoryConfig = { ...PLAN, seats: 20 };
const pendingOf = (p: Partial<PendingChange>): PendingChange => ({
  changeId: 'c1',
  fingerprint: 'body-1',
  createdPlan: true,
  previousConfig: null,
  startedAtMs: NOW - 1000,
  leaseUntilMs: NOW + CHANGE_LEASE_MS - 1000,
  ...p,
});
const req = (fingerprint: string, config = PLAN) => ({ changeId: 'c2', fingerprint, config });

describe('decideChange', () => {
  it.each<[string, Parameters<typeof decideChange>[0], ReturnType<typeof req>, Partial<ReturnType<typeof decideChange>>]>([
    [
      'a new event is created',
      { plan: null, holdsExist: false, pending: null },
      req('b'),
      { kind: 'apply', write: 'create', resumed: false },
    ],
    [
      'same shape: an update',
      { plan: PLAN, holdsExist: true, pending: null },
      req('b', { ...PLAN, seatPriceMinor: 1 }),
      { kind: 'apply', write: 'update' },
    ],
    ['a finished plan is fixed', { plan: PLAN, holdsExist: false, pending: null }, req('b', OTHER_PLAN), { kind: 'conflict' }],
    [
      'another body within the lease: busy',
      { plan: PLAN, holdsExist: false, pending: pendingOf({}) },
      req('body-2'),
      { kind: 'busy', retryAfterS: 29 },
    ],
    [
      'the same body: resumes',
      { plan: PLAN, holdsExist: false, pending: pendingOf({}) },
      req('body-1'),
      { kind: 'apply', write: 'update', resumed: true },
    ],
    [
      'after the lease, an unfinished creation with no hold is replaced',
      { plan: PLAN, holdsExist: false, pending: pendingOf({ leaseUntilMs: NOW }) },
      req('body-2', OTHER_PLAN),
      { kind: 'apply', write: 'replace', resumed: true },
    ],
    [
      'after the lease, an unfinished creation holds use stays',
      { plan: PLAN, holdsExist: true, pending: pendingOf({ leaseUntilMs: NOW }) },
      req('body-2', OTHER_PLAN),
      { kind: 'conflict' },
    ],
    [
      'after the lease, an unfinished update cannot change the plan',
      { plan: PLAN, holdsExist: false, pending: pendingOf({ leaseUntilMs: NOW, createdPlan: false, previousConfig: PLAN }) },
      req('body-2', OTHER_PLAN),
      { kind: 'conflict' },
    ],
  ])('%s', (_name, state, request, expected) => expect(decideChange(state, request, NOW)).toMatchObject(expected));

  it('keeps the last finished configuration to restore, through any chain of takeovers', () => {
    const dead = pendingOf({ createdPlan: false, previousConfig: PLAN, leaseUntilMs: NOW });
    const d = decideChange(
      { plan: { ...PLAN, seatPriceMinor: 7 }, holdsExist: true, pending: dead },
      req('b', { ...PLAN, seatPriceMinor: 9 }),
      NOW,
    );
    expect(d).toMatchObject({ kind: 'apply', pending: { previousConfig: PLAN, createdPlan: false, startedAtMs: dead.startedAtMs } });
  });

  it('never lets two different bodies both own the event within a lease, and never changes a finished plan (property)', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: -CHANGE_LEASE_MS, max: CHANGE_LEASE_MS }),
        fc.boolean(),
        (hasPlan, holds, leaseLeft, created) => {
          const state = {
            plan: hasPlan ? PLAN : null,
            holdsExist: holds,
            pending: pendingOf({ leaseUntilMs: NOW + leaseLeft, createdPlan: created }),
          };
          const d = decideChange(state, req('body-2', OTHER_PLAN), NOW);
          if (leaseLeft > 0) expect(d.kind).toBe('busy');
          if (d.kind === 'apply' && hasPlan) expect(created && !holds).toBe(true);
          expect(planShape(OTHER_PLAN)).not.toBe(planShape(PLAN));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('decideAbort', () => {
  it.each<[string, PendingChange | null, string, boolean, ReturnType<typeof decideAbort>]>([
    ['not the owner', pendingOf({}), 'other', false, { kind: 'not_owner' }],
    ['no change in flight', null, 'c1', false, { kind: 'not_owner' }],
    ['a creation with no hold: the plan goes', pendingOf({}), 'c1', false, { kind: 'delete_plan' }],
    ['a creation holds use: the plan stays', pendingOf({}), 'c1', true, { kind: 'keep' }],
    [
      'an update: the previous configuration comes back',
      pendingOf({ createdPlan: false, previousConfig: PLAN }),
      'c1',
      true,
      { kind: 'restore', config: PLAN },
    ],
  ])('%s', (_name, pending, changeId, holds, expected) => expect(decideAbort(pending, changeId, holds)).toEqual(expected));
});
