// The join limiter off the critical path: counted in the background, refused from what the isolate learned.
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_RETRY_AFTER_S, enforceRateLimit } from '../../src/middleware/rate-limit';

/** A limiter binding that answers `verdicts` in turn (then success) and records the keys it counted. */
function limiter(verdicts: (boolean | Error)[]) {
  const counted: string[] = [];
  return {
    counted,
    env: {
      IP_RATE_LIMITER: {
        limit: async ({ key }: { key: string }) => {
          counted.push(key);
          const v = verdicts.shift() ?? true;
          if (v instanceof Error) throw v;
          return { success: v };
        },
      },
    } as unknown as Pick<Env, 'IP_RATE_LIMITER'>,
  };
}

describe('enforceRateLimit', () => {
  it('never waits for the limiter: the count runs in the background, the request goes on', async () => {
    const { env, counted } = limiter([true]);
    const pending: Promise<unknown>[] = [];
    const ev = `ev-${crypto.randomUUID()}`;
    expect(enforceRateLimit(env, (p) => pending.push(p), 'join', 'ip', ev, '192.0.2.1', 1_000)).toBeUndefined();
    expect(pending).toHaveLength(1);
    await Promise.all(pending);
    expect(counted).toEqual([`join:${ev}:192.0.2.1`]);
  });

  it('refuses a key for one window after the limiter refused it, uncounted, then counts it again', async () => {
    const { env, counted } = limiter([false]);
    const pending: Promise<unknown>[] = [];
    const wait = (p: Promise<unknown>) => void pending.push(p);
    const ev = `ev-${crypto.randomUUID()}`;
    const now = 1_000_000;
    enforceRateLimit(env, wait, 'join', 'ip', ev, '192.0.2.2', now); // over the limit, not known yet
    await Promise.all(pending);
    expect(() => enforceRateLimit(env, wait, 'join', 'ip', ev, '192.0.2.2', now + 1)).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED', retryAfterS: RATE_LIMIT_RETRY_AFTER_S }),
    );
    // Another IP and the same IP at another event are their own keys.
    enforceRateLimit(env, wait, 'join', 'ip', ev, '192.0.2.3', now + 1);
    enforceRateLimit(env, wait, 'join', 'ip', `${ev}-b`, '192.0.2.2', now + 1);
    expect(() => enforceRateLimit(env, wait, 'join', 'ip', ev, '192.0.2.2', now + RATE_LIMIT_RETRY_AFTER_S * 1000 - 1)).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED' }),
    );
    enforceRateLimit(env, wait, 'join', 'ip', ev, '192.0.2.2', now + RATE_LIMIT_RETRY_AFTER_S * 1000);
    await Promise.all(pending);
    expect(counted).toEqual([`join:${ev}:192.0.2.2`, `join:${ev}:192.0.2.3`, `join:${ev}-b:192.0.2.2`, `join:${ev}:192.0.2.2`]);
  });

  it('lets requests through when the limiter itself fails', async () => {
    const { env } = limiter([new Error('limiter down'), new Error('limiter down')]);
    const pending: Promise<unknown>[] = [];
    const ev = `ev-${crypto.randomUUID()}`;
    enforceRateLimit(env, (p) => pending.push(p), 'join', 'ip', ev, '192.0.2.4', 1_000);
    await Promise.all(pending);
    expect(() => enforceRateLimit(env, (p) => pending.push(p), 'join', 'ip', ev, '192.0.2.4', 1_001)).not.toThrow();
    await Promise.all(pending);
  });
});
