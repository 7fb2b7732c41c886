// The in-memory rate limit behind seat holds: never more than `limit` per key and window.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../durable-objects/shared/fixed-window';

describe('FixedWindowLimiter', () => {
  it('lets at most `limit` requests per key through in each window, and every key its own', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), dt: fc.nat(400) }), { maxLength: 200 }),
        (limit, requests) => {
          const limiter = new FixedWindowLimiter(limit, 1000);
          const passed = new Map<string, number>();
          let now = 1_000_000;
          for (const { key, dt } of requests) {
            now += dt;
            const k = `${key}@${Math.floor(now / 1000)}`;
            const before = passed.get(k) ?? 0;
            const ok = limiter.take(key, now);
            // Refused exactly when the key already used its window.
            expect(ok).toBe(before < limit);
            if (ok) passed.set(k, before + 1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('forgets everything past maxKeys instead of growing without bound', () => {
    const limiter = new FixedWindowLimiter(1, 1000, 3);
    for (const k of ['a', 'b', 'c']) expect(limiter.take(k, 0)).toBe(true);
    expect(limiter.take('a', 0)).toBe(true); // the fourth key cleared the counts
  });
});
