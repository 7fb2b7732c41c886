// Rate limits per client IP on joins, on the Workers Rate Limiting binding. (Seat holds are limited
// per account inside the Inventory: durable-objects/inventory/inventory.ts HOLDS_PER_WINDOW.)
import type { Context } from 'hono';
import { GatewayError } from '../lib/errors';
import { logDecision } from '../../contracts/log';
import { recordDecision } from '../lib/decision-tally';
import type { AppEnv } from '../types';

/** The areas with their own counters; the same IP has one bucket per area and event. */
export type RateLimitScope = 'join';

/** Whose requests are counted: `ip` = `CF-Connecting-IP`. */
export type RateLimitSubject = 'ip';

/**
 * Retry-After for a refused request, seconds: the binding's window (`period` in wrangler.toml);
 * the binding does not say when the current window ends, so a client waits one whole window.
 */
export const RATE_LIMIT_RETRY_AFTER_S = 10;

/** Verdicts this isolate has learned: limiter key -> refused until, epoch ms. */
const refusedUntil = new Map<string, number>();
const REFUSED_MAX = 10_000;

/**
 * Counts one request of `key` against the limiter for `subject`, off the request's critical path:
 * the binding is called in the background (`waitUntil`), and a request is refused when the binding
 * refused one of this key within the last RATE_LIMIT_RETRY_AFTER_S, as this isolate learned. So a
 * join costs no limiter round trip; the price is that each isolate lets through the few requests
 * of a key that were in flight when the binding first refused it (the binding itself is
 * eventually consistent across machines, so the limit was approximate already). Requests refused
 * here are not counted again, so a key over its limit is let through about once per window, and
 * its effective rate stays the configured limit. A limiter that itself fails lets requests through
 * (logged): rate limits protect the objects, they must not become the outage.
 *
 * @param key the client IP; never logged
 * @param waitUntil keeps the background count alive after the response
 * @param nowMs the request's time, epoch ms
 * @throws GatewayError RATE_LIMITED (429, Retry-After RATE_LIMIT_RETRY_AFTER_S)
 */
export function enforceRateLimit(
  env: Pick<Env, 'IP_RATE_LIMITER'>,
  waitUntil: (p: Promise<unknown>) => void,
  scope: RateLimitScope,
  subject: RateLimitSubject,
  eventId: string,
  key: string,
  nowMs: number,
): void {
  const limiterKey = `${scope}:${eventId}:${key}`;
  const until = refusedUntil.get(limiterKey);
  if (until !== undefined && nowMs < until) {
    recordDecision(eventId, 'ratelimit.refused');
    throw new GatewayError('RATE_LIMITED', { detail: `too many ${scope} requests; slow down`, retryAfterS: RATE_LIMIT_RETRY_AFTER_S });
  }
  if (until !== undefined) refusedUntil.delete(limiterKey);
  waitUntil(
    env.IP_RATE_LIMITER.limit({ key: limiterKey }).then(
      ({ success }) => {
        if (success) return;
        if (refusedUntil.size >= REFUSED_MAX) refusedUntil.clear();
        refusedUntil.set(limiterKey, nowMs + RATE_LIMIT_RETRY_AFTER_S * 1000);
      },
      (err: unknown) =>
        logDecision('ratelimit.unavailable', { scope, subject, eventId, error: err instanceof Error ? err.message : 'unknown' }),
    ),
  );
}

/** The client IP Cloudflare saw (`CF-Connecting-IP`); absent outside Cloudflare's edge. */
export function clientIp(c: Context<AppEnv>): string | undefined {
  return c.req.header('cf-connecting-ip') || undefined;
}
