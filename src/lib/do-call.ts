// Calling a Durable Object from the edge: overload answered 503 at once, transient failures retried.
import { GatewayError } from './errors';
import { logDecision } from '../../contracts/log';

/** Most attempts of one idempotent call (the first included). */
export const MAX_DO_ATTEMPTS = 3;
/** Backoff base, ms: attempt n waits a uniform random time in [0, base * 2^n) ("full jitter"). */
export const DO_RETRY_BASE_MS = 50;
/** Retry-After for an overloaded object, seconds: a random whole number in this range, so clients spread out. */
export const OVERLOAD_RETRY_AFTER_S = { min: 2, max: 6 } as const;

/** How a call may be retried, and the seams tests replace. */
export interface DoCallOptions {
  /** Only an idempotent call (a read, or a write carrying its own idempotency key) is ever retried. */
  idempotent: boolean;
  /** What is being called, for the decision log, e.g. `inventory.hold`. */
  name: string;
  /** Event id, for the decision log. */
  eventId?: string;
  /** Default MAX_DO_ATTEMPTS. */
  maxAttempts?: number;
  /** Uniform [0, 1); default Math.random. */
  random?: () => number;
  /** Waits `ms`; default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** The properties the Workers runtime sets on Durable Object errors (both optional). */
interface DurableObjectErrorFlags {
  retryable?: unknown;
  overloaded?: unknown;
}

function flags(err: unknown): { retryable: boolean; overloaded: boolean } {
  if (typeof err !== 'object' || err === null) return { retryable: false, overloaded: false };
  const f = err as DurableObjectErrorFlags;
  return { retryable: f.retryable === true, overloaded: f.overloaded === true };
}

/**
 * Runs one call to a Durable Object stub with the platform's error rules (Cloudflare docs, "Error
 * handling" for Durable Objects):
 * - `err.overloaded`: never retried (retrying feeds the overload); GatewayError OVERLOADED (503)
 *   with a jittered Retry-After of 2-6 s.
 * - `err.retryable` (and not overloaded), idempotent call: retried, at most `maxAttempts` tries in
 *   all, waiting full-jitter backoff (uniform in [0, 50 ms * 2^attempt)) between them. Still
 *   failing after the last try: OVERLOADED (503) too, since the object is briefly unreachable.
 * - anything else (a bug, a non-idempotent call): re-thrown unchanged (the app answers 500).
 *
 * @example `await callDurableObject(() => stub.hold(account, request, key), { idempotent: true, name: 'inventory.hold', eventId })`
 * @returns the call's result
 * @throws GatewayError OVERLOADED as above; otherwise the call's own error
 */
export async function callDurableObject<T>(call: () => Promise<T>, opts: DoCallOptions): Promise<T> {
  const max = opts.maxAttempts ?? MAX_DO_ATTEMPTS;
  const random = opts.random ?? Math.random;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const { retryable, overloaded } = flags(err);
      const retryAfterS = OVERLOAD_RETRY_AFTER_S.min + Math.floor(random() * (OVERLOAD_RETRY_AFTER_S.max - OVERLOAD_RETRY_AFTER_S.min + 1));
      if (overloaded) {
        logDecision('do.overloaded', { call: opts.name, eventId: opts.eventId ?? null, attempt });
        throw new GatewayError('OVERLOADED', {
          detail: 'too many requests for this event right now; nothing was changed',
          retryAfterS,
          cause: err,
        });
      }
      if (!retryable || !opts.idempotent) throw err;
      if (attempt >= max) {
        logDecision('do.unavailable', { call: opts.name, eventId: opts.eventId ?? null, attempts: attempt });
        throw new GatewayError('OVERLOADED', { detail: 'the event is briefly unreachable; try again', retryAfterS, cause: err });
      }
      logDecision('do.retry', { call: opts.name, eventId: opts.eventId ?? null, attempt });
      await sleep(Math.floor(random() * DO_RETRY_BASE_MS * 2 ** attempt));
    }
  }
}
