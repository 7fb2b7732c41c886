// Token lifetimes between seconds and milliseconds : a session ends
// on the second its admission token names, a cookie never outlives the token inside, and an
// admission with too little left is never handed out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_USEFUL_ADMISSION_MS, admissionEndsAtMs, cookieMaxAgeS, numericDate, worthHandingOut } from '../../contracts/queue/lifetimes';
import { TICKET_TTL_S } from '../../src/lib/token';

const T0 = 1_800_000_000_000;
const instant = fc.integer({ min: T0, max: T0 + 10 * 365 * 86_400_000 });
/** Admission TTLs the config allows: 30 s to 2 h, whole seconds (contracts/event-config.ts). */
const ttlMs = fc.integer({ min: 30, max: 7_200 }).map((s) => s * 1000);

describe('numericDate and admissionEndsAtMs', () => {
  it.each([
    { now: T0, ttl: 30_000, ends: T0 + 30_000 },
    { now: T0 + 1, ttl: 30_000, ends: T0 + 30_000 },
    { now: T0 + 999, ttl: 30_000, ends: T0 + 30_000 },
    { now: T0 + 1_000, ttl: 30_000, ends: T0 + 31_000 },
  ])('an admission from $now for $ttl ms ends at $ends', ({ now, ttl, ends }) => {
    expect(admissionEndsAtMs(now, ttl)).toBe(ends);
    expect(numericDate(ends) * 1000).toBe(ends);
  });

  it('ends on a whole second, within the TTL, and less than a second short of it; the token exp names that exact end', () => {
    fc.assert(
      fc.property(instant, ttlMs, (now, ttl) => {
        const ends = admissionEndsAtMs(now, ttl);
        expect(ends % 1000).toBe(0);
        expect(ends).toBeLessThanOrEqual(now + ttl);
        expect(ends).toBeGreaterThan(now + ttl - 1000);
        expect(numericDate(ends) * 1000).toBe(ends);
        // Every fresh admission is worth handing out.
        expect(worthHandingOut(now, ends)).toBe(true);
      }),
    );
  });
});

describe('worthHandingOut', () => {
  it.each([
    { left: MIN_USEFUL_ADMISSION_MS, want: true },
    { left: MIN_USEFUL_ADMISSION_MS - 1, want: false },
    // The failing input: a session ending 400 ms from now (its exp already passed once rounded down).
    { left: 400, want: false },
    { left: 0, want: false },
    { left: -1_000, want: false },
  ])('$left ms left -> $want', ({ left, want }) => expect(worthHandingOut(T0, T0 + left)).toBe(want));
});

describe('cookieMaxAgeS', () => {
  it.each([
    { now: T0, expS: T0 / 1000 + 600, want: 600 },
    { now: T0 + 1, expS: T0 / 1000 + 600, want: 599 },
    { now: T0 + 999, expS: T0 / 1000 + 1, want: 0 },
    { now: T0 + 5_000, expS: T0 / 1000, want: 0 },
  ])('at $now for exp $expS -> Max-Age $want', ({ now, expS, want }) => expect(cookieMaxAgeS(now, expS)).toBe(want));

  it('never lets a cookie outlive its token, for queue tickets and admission tokens alike', () => {
    fc.assert(
      fc.property(instant, ttlMs, (now, ttl) => {
        const ticketExpS = numericDate(now + TICKET_TTL_S * 1000);
        expect(now + cookieMaxAgeS(now, ticketExpS) * 1000).toBeLessThanOrEqual(ticketExpS * 1000);
        expect(cookieMaxAgeS(now, ticketExpS)).toBeGreaterThanOrEqual(TICKET_TTL_S - 1);
        const sessionEnd = admissionEndsAtMs(now, ttl);
        const admissionExpS = numericDate(sessionEnd);
        expect(now + cookieMaxAgeS(now, admissionExpS) * 1000).toBeLessThanOrEqual(sessionEnd);
        // ... and lives at least as long as the useful part of an admission handed out.
        if (worthHandingOut(now, sessionEnd))
          expect(cookieMaxAgeS(now, admissionExpS) * 1000).toBeGreaterThan(MIN_USEFUL_ADMISSION_MS - 1000);
      }),
    );
  });
});
