// The retry policy of gateway calls: which outcomes are retried and how long to wait. Pure.

/** Retry settings. Delays in ms. */
export interface RetryPolicy {
  /** Tries in all, the first included (default 3). */
  attempts: number;
  /** Upper bound of the first wait, ms (default 200); doubles per retry. */
  baseDelayMs: number;
  /** No wait is longer than this, ms (default 2,000). */
  maxDelayMs: number;
}

/** Defaults of `RetryPolicy`: 3 tries, full-jitter waits of up to 200 ms, then 400 ms. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 };

/** What one try ended with, as the policy sees it. */
export type TryOutcome = { kind: 'answered'; status: number; retryAfterS?: number } | { kind: 'timeout' } | { kind: 'network' };

/**
 * Whether a try is worth repeating: timeouts, network failures, 5xx and 429 are (the gateway's
 * hold calls are idempotent: the same hold id, order id and amount again is a no-op); any other
 * answer (2xx, 4xx refusals) is final.
 */
export function retryable(outcome: TryOutcome): boolean {
  if (outcome.kind !== 'answered') return true;
  return outcome.status >= 500 || outcome.status === 429;
}

/**
 * The wait before try number `attempt + 1` (attempt = tries made so far, from 1), ms: "full
 * jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015): uniform in
 * [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))], or the server's `Retry-After` when it asks
 * for longer (capped at maxDelayMs).
 *
 * @param random a number in [0, 1) (Math.random in production; fixed in tests)
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: number, outcome?: TryOutcome): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jitter = Math.floor(random * cap);
  const asked = outcome?.kind === 'answered' && outcome.retryAfterS ? outcome.retryAfterS * 1000 : 0;
  return Math.min(policy.maxDelayMs, Math.max(jitter, asked));
}

/**
 * Checks a policy.
 * @throws TypeError naming the field when it is out of range (attempts 1-10, delays 0-60,000 ms)
 */
export function checkRetryPolicy(p: RetryPolicy): RetryPolicy {
  if (!Number.isInteger(p.attempts) || p.attempts < 1 || p.attempts > 10) throw new TypeError('retry.attempts must be 1-10');
  for (const k of ['baseDelayMs', 'maxDelayMs'] as const)
    if (!Number.isFinite(p[k]) || p[k] < 0 || p[k] > 60_000) throw new TypeError(`retry.${k} must be 0-60000 ms`);
  return p;
}
