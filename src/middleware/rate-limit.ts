// Rate limits per client IP on joins, on the Workers Rate Limiting binding. (Seat holds are limited
// per account inside the Inventory: durable-objects/inventory/inventory.ts HOLDS_PER_WINDOW.)
import type { Context } from 'hono';
import { GatewayError } from '../lib/errors';
import { logDecision } from '../../contracts/log';
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

/**
 * Counts one request of `key` against the limiter for `subject` and refuses it when over the
 * limit. A limiter that itself fails lets the request through (logged): rate limits protect the
 * objects, they must not become the outage.
 *
 * @param key the client IP; never logged
 * @throws GatewayError RATE_LIMITED (429, Retry-After RATE_LIMIT_RETRY_AFTER_S)
 */
export async function enforceRateLimit(
  env: Pick<Env, 'IP_RATE_LIMITER'>,
  scope: RateLimitScope,
  subject: RateLimitSubject,
  eventId: string,
  key: string,
): Promise<void> {
  const limiter = env.IP_RATE_LIMITER;
  let success = true;
  try {
    ({ success } = await limiter.limit({ key: `${scope}:${eventId}:${key}` }));
  } catch (err) {
    logDecision('ratelimit.unavailable', { scope, subject, eventId, error: err instanceof Error ? err.message : 'unknown' });
  }
  if (success) return;
  logDecision('ratelimit.refused', { scope, subject, eventId, code: 'RATE_LIMITED' });
  throw new GatewayError('RATE_LIMITED', { detail: `too many ${scope} requests; slow down`, retryAfterS: RATE_LIMIT_RETRY_AFTER_S });
}

/** The client IP Cloudflare saw (`CF-Connecting-IP`); absent outside Cloudflare's edge. */
export function clientIp(c: Context<AppEnv>): string | undefined {
  return c.req.header('cf-connecting-ip') || undefined;
}
