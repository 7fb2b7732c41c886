// The admission cover of a seat hold (durable-objects/waiting-room/admission-cover.ts): a hold
// placed at any moment of an admission is covered to its deadline plus the payment grace, and no
// sequence of holds keeps a session past one hold TTL and grace after the admission's own end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverEnd } from '../../durable-objects/waiting-room/admission-cover';

const rules = fc.record({
  admissionTtlMs: fc.integer({ min: 30_000, max: 7_200_000 }),
  holdTtlMs: fc.integer({ min: 10_000, max: 3_600_000 }),
  paymentGraceMs: fc.integer({ min: 10_000, max: 900_000 }),
});

describe('coverEnd', () => {
  it('covers a hold placed at any moment of the admission, with its payment grace', () => {
    fc.assert(
      fc.property(rules, fc.double({ min: 0, max: 1, noNaN: true }), (r, f) => {
        const placedAt = 1e12 + Math.floor(f * r.admissionTtlMs);
        const want = placedAt + r.holdTtlMs + r.paymentGraceMs;
        expect(coverEnd(r, 1e12, placedAt + r.holdTtlMs)).toBe(Math.floor(want / 1000) * 1000);
      }),
    );
  });

  it('never lets a chain of holds keep a session past admission + hold TTL + grace', () => {
    fc.assert(
      fc.property(rules, fc.array(fc.integer({ min: 0, max: 600_000 }), { maxLength: 30 }), (r, gaps) => {
        const admittedAt = 1e12;
        let end = admittedAt + r.admissionTtlMs;
        let now = admittedAt;
        for (const gap of gaps) {
          now += gap;
          if (now >= end) break; // the session has ended: nothing brings it back
          end = Math.max(end, coverEnd(r, admittedAt, now + r.holdTtlMs));
        }
        expect(end).toBeLessThanOrEqual(admittedAt + r.admissionTtlMs + r.holdTtlMs + r.paymentGraceMs);
      }),
    );
  });

  it('reads a room stored before the hold rules were copied with the longest ones', () => {
    expect(coverEnd({ admissionTtlMs: 600_000 }, 0, 900_000)).toBe(900_000 + 900_000);
  });

  it('covers a hold extended to its longest, placed at any moment of the admission, with its payment grace', () => {
    fc.assert(
      fc.property(rules, fc.integer({ min: 10_000, max: 7_200_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (r, extraMs, f) => {
        const longest = { ...r, holdLongestMs: r.holdTtlMs + extraMs };
        const placedAt = 1e12 + Math.floor(f * r.admissionTtlMs);
        const extendedEnd = placedAt + longest.holdLongestMs;
        expect(coverEnd(longest, 1e12, extendedEnd)).toBe(Math.floor((extendedEnd + r.paymentGraceMs) / 1000) * 1000);
        // and still never past the admission + the longest hold + grace
        expect(coverEnd(longest, 1e12, extendedEnd + 3_600_000)).toBeLessThanOrEqual(
          1e12 + r.admissionTtlMs + longest.holdLongestMs + r.paymentGraceMs,
        );
      }),
    );
  });
});
