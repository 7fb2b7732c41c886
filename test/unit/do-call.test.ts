// Edge -> Durable Object calls: overload never retried, transient failures retried with full jitter, bugs passed on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DO_RETRY_BASE_MS, MAX_DO_ATTEMPTS, OVERLOAD_RETRY_AFTER_S, callDurableObject } from '../../src/lib/do-call';

const failing = (flags: { retryable?: boolean; overloaded?: boolean }, failures: number) => {
  let calls = 0;
  const call = async () => {
    calls++;
    if (calls <= failures) throw Object.assign(new Error('do error'), flags);
    return 'ok';
  };
  return { call, calls: () => calls };
};

describe('callDurableObject', () => {
  it.each<[string, { retryable?: boolean; overloaded?: boolean }, boolean, number]>([
    ['overloaded', { overloaded: true, retryable: true }, true, 1],
    ['overloaded, not retryable', { overloaded: true }, true, 1],
    ['retryable but not idempotent', { retryable: true }, false, 1],
    ['retryable and idempotent', { retryable: true }, true, MAX_DO_ATTEMPTS],
  ])('%s: calls the object %#', async (_name, flags, idempotent, expectedCalls) => {
    const f = failing(flags, Infinity);
    const waits: number[] = [];
    const err = await callDurableObject(f.call, { idempotent, name: 't', sleep: async (ms) => void waits.push(ms) }).catch(
      (e: unknown) => e,
    );
    expect(f.calls()).toBe(expectedCalls);
    expect(waits).toHaveLength(expectedCalls - 1);
    const overloadedAnswer = flags.overloaded === true || (idempotent && flags.retryable === true);
    if (overloadedAnswer) expect(err).toMatchObject({ code: 'OVERLOADED' });
    else expect(err).toMatchObject({ message: 'do error' });
  });

  it('returns the first success after transient failures', async () => {
    const f = failing({ retryable: true }, 2);
    expect(await callDurableObject(f.call, { idempotent: true, name: 't', sleep: async () => {} })).toBe('ok');
    expect(f.calls()).toBe(3);
  });

  it('passes a bug through unchanged, untried again', async () => {
    const f = failing({}, Infinity);
    await expect(callDurableObject(f.call, { idempotent: true, name: 't', sleep: async () => {} })).rejects.toThrow('do error');
    expect(f.calls()).toBe(1);
  });

  it('waits full jitter (uniform below base x 2^attempt) and answers Retry-After within its range', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 0.999999, noNaN: true }), { minLength: 8, maxLength: 8 }), async (rolls) => {
        let i = 0;
        const random = () => rolls[i++ % rolls.length]!;
        const waits: number[] = [];
        const f = failing({ retryable: true }, Infinity);
        const err = (await callDurableObject(f.call, {
          idempotent: true,
          name: 't',
          random,
          sleep: async (ms) => void waits.push(ms),
        }).catch((e: unknown) => e)) as { retryAfterS: number };
        waits.forEach((ms, n) => {
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThan(DO_RETRY_BASE_MS * 2 ** (n + 1));
        });
        expect(err.retryAfterS).toBeGreaterThanOrEqual(OVERLOAD_RETRY_AFTER_S.min);
        expect(err.retryAfterS).toBeLessThanOrEqual(OVERLOAD_RETRY_AFTER_S.max);
      }),
      { numRuns: 200 },
    );
  });
});
