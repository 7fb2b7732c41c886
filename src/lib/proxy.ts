// Forwarding an admitted visitor's request to the origin.
import { ADMISSION_HEADER } from '../../contracts/names';
import { isGatewayCookie } from './cookies';
import { GatewayError } from './errors';
import { logDecision } from '../../contracts/log';
import { originSettings } from './settings';

/** Retry-After sent with ORIGIN_UNAVAILABLE, seconds (unless the origin named its own). */
export const ORIGIN_RETRY_AFTER_S = 10;
/**
 * Origin statuses that mean "down or overloaded" rather than an answer of its own: bad gateway,
 * unavailable, gateway timeout, and Cloudflare's 520-526 origin errors. The visitor gets the
 * gateway's explanation instead of an opaque proxy page.
 */
const ORIGIN_DOWN_STATUSES = new Set([502, 503, 504, 520, 521, 522, 523, 524, 525, 526]);

/** Removes the gateway's own cookies from a Cookie header; the origin has no use for them. */
export function stripGatewayCookies(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  const kept = cookieHeader
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c && !isGatewayCookie(c.slice(0, c.indexOf('=') >>> 0)));
  return kept.length > 0 ? kept.join('; ') : null;
}

/**
 * Sends the request to the origin: `ORIGIN_URL` when set, else the `ORIGIN` service binding. The
 * admission token replaces any client-sent copy of the header.
 *
 * @param opts.stripAuthorization drop `Authorization` (it carried the app's queue ticket, which is
 *   the gateway's business, not the origin's)
 * @param opts.timeoutMs how long the origin gets, ms (default: `ORIGIN_TIMEOUT_MS`, see src/lib/settings.ts)
 * @throws SettingsError when ORIGIN_URL or ORIGIN_TIMEOUT_MS is malformed
 * @throws GatewayError ORIGIN_UNAVAILABLE (503, Retry-After 10 or the origin's own) on timeout,
 *   network failure, or an origin answer of 502/503/504/52x
 */
export async function proxyToOrigin(
  request: Request,
  env: Pick<Env, 'ORIGIN' | 'ORIGIN_URL'> & Partial<Pick<Env, 'ORIGIN_TIMEOUT_MS'>>,
  admissionToken: string,
  opts: { stripAuthorization?: boolean; timeoutMs?: number } = {},
): Promise<Response> {
  const origin = originSettings(env);
  const url = new URL(request.url);
  const target = origin.url ? new URL(url.pathname + url.search, origin.url) : url;
  const headers = new Headers(request.headers);
  headers.set(ADMISSION_HEADER, admissionToken);
  if (opts.stripAuthorization) headers.delete('authorization');
  const cookie = stripGatewayCookies(headers.get('cookie'));
  if (cookie) headers.set('cookie', cookie);
  else headers.delete('cookie');
  const forwarded = new Request(target, {
    method: request.method,
    headers,
    body: request.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(opts.timeoutMs ?? origin.timeoutMs),
  });
  const eventId = url.pathname.split('/')[2] ?? null;
  let res: Response;
  try {
    res = origin.url ? await fetch(forwarded) : await env.ORIGIN.fetch(forwarded);
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    logDecision('origin.fault', { eventId, code: 'ORIGIN_UNAVAILABLE', cause: timedOut ? 'timeout' : 'unreachable' });
    throw new GatewayError('ORIGIN_UNAVAILABLE', {
      detail: timedOut
        ? 'the ticketing site did not answer in time; your admission stays valid and nobody in the queue loses their place'
        : 'the ticketing site cannot be reached; your admission stays valid and nobody in the queue loses their place',
      retryAfterS: ORIGIN_RETRY_AFTER_S,
      cause: err,
    });
  }
  if (!ORIGIN_DOWN_STATUSES.has(res.status)) return res;
  await res.body?.cancel();
  const named = Number(res.headers.get('retry-after'));
  logDecision('origin.fault', { eventId, code: 'ORIGIN_UNAVAILABLE', cause: 'status', status: res.status });
  throw new GatewayError('ORIGIN_UNAVAILABLE', {
    detail: `the ticketing site is failing or overloaded (it answered ${res.status}); your admission stays valid and nobody in the queue loses their place`,
    retryAfterS: Number.isInteger(named) && named > 0 && named <= 3600 ? named : ORIGIN_RETRY_AFTER_S,
  });
}
