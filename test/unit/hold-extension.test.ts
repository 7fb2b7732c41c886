// The hold extension rule (durable-objects/inventory/hold-extension.ts): refusals as a table, and
// properties over random holds, bounds and schedules of requests: never past the total cap, never
// an ended or expired hold, never more extensions than allowed, and a replay answers the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HoldExtensionRules } from '../../contracts/event-config';
import { decideExtension, latestDeadline, type ExtensionFacts } from '../../durable-objects/inventory/hold-extension';
import type { HoldStatus } from '../../durable-objects/inventory/hold-policy';

const NOW = 1_800_000_000_000;
const RULES: HoldExtensionRules = { maxExtensions: 2, extensionMs: 120_000, maxTotalMs: 900_000 };
const hold = (h: Partial<ExtensionFacts> = {}): ExtensionFacts => ({
  account: 'alice',
  status: 'HELD',
  expiresAtMs: NOW + 60_000,
  createdAtMs: NOW - 240_000,
  extensions: 0,
  replayOfMs: null,
  ...h,
});

const STATUSES: HoldStatus[] = ['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD', 'RELEASED', 'EXPIRED'];
const arbRules = fc.record({
  maxExtensions: fc.integer({ min: 1, max: 10 }),
  extensionMs: fc.integer({ min: 10, max: 3_600 }).map((s) => s * 1000),
  maxTotalMs: fc.integer({ min: 10, max: 7_200 }).map((s) => s * 1000),
});
const arbHold = fc.record({
  account: fc.constantFrom('alice', 'bob'),
  status: fc.constantFrom(...STATUSES),
  expiresAtMs: fc.integer({ min: NOW - 600_000, max: NOW + 3_600_000 }),
  createdAtMs: fc.integer({ min: NOW - 3_600_000, max: NOW }),
  extensions: fc.integer({ min: 0, max: 12 }),
  replayOfMs: fc.constant(null),
});

describe('decideExtension', () => {
  it.each([
    ['another account asks', hold(), 'bob', RULES, 'NOT_HOLD_OWNER'],
    ['the event allows no extensions', hold(), 'alice', null, 'HOLD_EXTENSIONS_OFF'],
    ['the deadline passed before any timer ran', hold({ expiresAtMs: NOW }), 'alice', RULES, 'HOLD_EXPIRED'],
    ['the hold expired', hold({ status: 'EXPIRED', expiresAtMs: NOW - 1 }), 'alice', RULES, 'HOLD_EXPIRED'],
    ['the hold was released', hold({ status: 'RELEASED' }), 'alice', RULES, 'HOLD_NOT_ACTIVE'],
    ['the hold was sold', hold({ status: 'SOLD' }), null, RULES, 'HOLD_NOT_ACTIVE'],
    ['payment started', hold({ status: 'PAYMENT_PENDING' }), 'alice', RULES, 'PAYMENT_IN_PROGRESS'],
    ['payment outlived its grace', hold({ status: 'PAYMENT_PENDING', expiresAtMs: NOW - 1 }), null, RULES, 'PAYMENT_IN_PROGRESS'],
    ['every extension was used', hold({ extensions: 2 }), 'alice', RULES, 'HOLD_EXTENSION_LIMIT'],
    ['the deadline is at the cap', hold({ expiresAtMs: NOW - 240_000 + 900_000 }), 'alice', RULES, 'HOLD_AT_LONGEST'],
  ] as const)('refuses when %s', (_name, facts, account, rules, code) => {
    const d = decideExtension(facts, account, rules, NOW);
    expect(d).toMatchObject({ kind: 'refused', code });
  });

  it('adds the extension to the deadline, or stops at the cap', () => {
    expect(decideExtension(hold(), 'alice', RULES, NOW)).toEqual({ kind: 'extend', expiresAtMs: NOW + 180_000, extensions: 1 });
    const nearCap = hold({ expiresAtMs: NOW + 600_000 });
    expect(decideExtension(nearCap, null, RULES, NOW)).toEqual({ kind: 'extend', expiresAtMs: NOW + 660_000, extensions: 1 });
  });

  it('replays an earlier extension under the same key whatever the hold is now, but not to another account', () => {
    const earlier = hold({ status: 'EXPIRED', extensions: 2, replayOfMs: NOW + 1 });
    expect(decideExtension(earlier, 'alice', null, NOW + 10_000_000)).toEqual({ kind: 'replay', expiresAtMs: NOW + 1 });
    expect(decideExtension(earlier, 'bob', RULES, NOW)).toMatchObject({ kind: 'refused', code: 'NOT_HOLD_OWNER' });
  });

  it('never moves a deadline past the cap, never earlier, and extends only a live HELD hold under its count', () => {
    fc.assert(
      fc.property(arbHold, arbRules, fc.integer({ min: NOW - 600_000, max: NOW + 3_600_000 }), (h, rules, now) => {
        const d = decideExtension(h, null, rules, now);
        if (d.kind !== 'extend') return;
        expect(h.status).toBe('HELD');
        expect(h.expiresAtMs).toBeGreaterThan(now);
        expect(h.extensions).toBeLessThan(rules.maxExtensions);
        expect(d.expiresAtMs).toBeGreaterThan(h.expiresAtMs);
        expect(d.expiresAtMs).toBeLessThanOrEqual(Math.max(h.expiresAtMs, latestDeadline(rules, h.createdAtMs)));
        expect(d.expiresAtMs).toBeLessThanOrEqual(h.expiresAtMs + rules.extensionMs);
        expect(d.extensions).toBe(h.extensions + 1);
      }),
    );
  });

  it('over any schedule of requests and clock steps: count within the max, deadline within the cap, nothing after expiry, replays the same', () => {
    const step = fc.record({ advanceMs: fc.integer({ min: 0, max: 400_000 }), key: fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5') });
    fc.assert(
      fc.property(arbRules, fc.integer({ min: 10, max: 3_600 }), fc.array(step, { maxLength: 25 }), (rules, ttlS, steps) => {
        const createdAtMs = NOW;
        let state = { status: 'HELD' as HoldStatus, expiresAtMs: NOW + ttlS * 1000, extensions: 0 };
        const given = new Map<string, number>();
        let now = NOW;
        for (const { advanceMs, key } of steps) {
          now += advanceMs;
          // The sweep: a HELD hold whose deadline passed is EXPIRED before any decision.
          if (state.status === 'HELD' && state.expiresAtMs <= now) state = { ...state, status: 'EXPIRED' };
          const facts = { account: 'alice', createdAtMs, ...state, replayOfMs: given.get(key) ?? null };
          const d = decideExtension(facts, 'alice', rules, now);
          if (d.kind === 'replay') {
            expect(d.expiresAtMs).toBe(given.get(key));
            // The same question again gets the same answer and changes nothing.
            expect(decideExtension(facts, 'alice', rules, now)).toEqual(d);
          } else if (d.kind === 'extend') {
            expect(state.status).toBe('HELD');
            given.set(key, d.expiresAtMs);
            state = { ...state, expiresAtMs: d.expiresAtMs, extensions: d.extensions };
          }
          expect(state.extensions).toBeLessThanOrEqual(rules.maxExtensions);
          expect(state.expiresAtMs).toBeLessThanOrEqual(Math.max(NOW + ttlS * 1000, createdAtMs + rules.maxTotalMs));
        }
      }),
    );
  });
});
