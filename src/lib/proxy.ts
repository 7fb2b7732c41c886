// Forwarding an admitted visitor's request to the origin.
import { isGatewayCookie } from './cookies';
import { GatewayError } from './errors';

/** Header that carries the admission token to the origin, which verifies it against the JWKS. */
export const ADMISSION_HEADER = 'x-admission-token';
/** The origin gets this long to answer, in ms, before the visitor sees ORIGIN_UNAVAILABLE. */
export const ORIGIN_TIMEOUT_MS = 15_000;

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
 * @throws GatewayError ORIGIN_UNAVAILABLE (503, Retry-After 10) on timeout or network failure
 */
export async function proxyToOrigin(
  request: Request,
  env: Pick<Env, 'ORIGIN' | 'ORIGIN_URL'>,
  admissionToken: string,
  opts: { stripAuthorization?: boolean } = {},
): Promise<Response> {
  const url = new URL(request.url);
  const target = env.ORIGIN_URL ? new URL(url.pathname + url.search, env.ORIGIN_URL) : url;
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
    signal: AbortSignal.timeout(ORIGIN_TIMEOUT_MS),
  });
  try {
    return env.ORIGIN_URL ? await fetch(forwarded) : await env.ORIGIN.fetch(forwarded);
  } catch {
    throw new GatewayError('ORIGIN_UNAVAILABLE', 'the ticketing site did not answer in time', undefined, 10);
  }
}
