// The retry policy: which outcomes repeat, and full-jitter waits within their bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, checkRetryPolicy, retryDelayMs, retryable, type TryOutcome } from '../src/index.ts';

describe('retry policy', () => {
  it('retries timeouts, network failures, 5xx and 429; never a 2xx or a refusal', () => {
    const table: [TryOutcome, boolean][] = [
      [{ kind: 'timeout' }, true],
      [{ kind: 'network' }, true],
      [{ kind: 'answered', status: 500 }, true],
      [{ kind: 'answered', status: 503 }, true],
      [{ kind: 'answered', status: 429 }, true],
      [{ kind: 'answered', status: 200 }, false],
      [{ kind: 'answered', status: 401 }, false],
      [{ kind: 'answered', status: 404 }, false],
      [{ kind: 'answered', status: 409 }, false],
    ];
    for (const [o, want] of table) expect([o, retryable(o)]).toEqual([o, want]);
  });

  it('waits between 0 and min(max, base x 2^(attempt-1)), longer only when the server asks, never past max (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 120 })),
        (attempt, r, retryAfterS) => {
          const outcome: TryOutcome = retryAfterS ? { kind: 'answered', status: 503, retryAfterS } : { kind: 'timeout' };
          const d = retryDelayMs(attempt, DEFAULT_RETRY, r, outcome);
          const cap = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** (attempt - 1));
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(DEFAULT_RETRY.maxDelayMs);
          if (!retryAfterS) expect(d).toBeLessThan(cap + 1);
          else expect(d).toBe(Math.min(DEFAULT_RETRY.maxDelayMs, Math.max(Math.floor(r * cap), retryAfterS * 1000)));
        },
      ),
    );
  });

  it('refuses a policy out of range, naming the field', () => {
    expect(() => checkRetryPolicy({ ...DEFAULT_RETRY, attempts: 0 })).toThrow(/attempts/);
    expect(() => checkRetryPolicy({ ...DEFAULT_RETRY, attempts: 1.5 })).toThrow(/attempts/);
    expect(() => checkRetryPolicy({ ...DEFAULT_RETRY, baseDelayMs: -1 })).toThrow(/baseDelayMs/);
    expect(() => checkRetryPolicy({ ...DEFAULT_RETRY, maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
  });
});
