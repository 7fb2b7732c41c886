// Cookie names and attributes of the gateway's two per-event credentials.
import type { CookieOptions } from 'hono/utils/cookie';

/**
 * On HTTPS the names carry the `__Host-` prefix (RFC 6265bis section 4.1.3.2): the browser accepts
 * them only with `Secure`, `Path=/` and no `Domain`, so no subdomain can plant or shadow them. On
 * plain-HTTP local development (`wrangler dev`) the prefix cannot be used, so the bare name is.
 */
const prefix = (secure: boolean) => (secure ? '__Host-wr_' : '__wr_');

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True unless this is plain-HTTP local development: HTTPS, or any host other than localhost. A
 * production request over plain HTTP still gets `__Host-` names and `Secure`, which browsers will
 * not store over HTTP, so nobody can be given a queue ticket (or have one fixed) without TLS.
 */
export function isSecure(url: string): boolean {
  if (url.startsWith('https:')) return true;
  // A request asks this several times for its one URL: parse it once.
  if (url !== lastUrl) {
    lastSecure = !LOCAL_HOSTS.has(new URL(url).hostname);
    lastUrl = url;
  }
  return lastSecure;
}
let lastUrl = '';
let lastSecure = true;

/** Cookie holding the queue ticket of one event. */
export const ticketCookie = (eventId: string, secure: boolean) => `${prefix(secure)}t_${eventId}`;
/** Cookie holding the admission token of one event. */
export const admissionCookie = (eventId: string, secure: boolean) => `${prefix(secure)}a_${eventId}`;

/** Cookie holding the visitor's waitlist entry id of one event (checked against the ticket's visitor, so it grants nothing alone). */
export const waitlistCookie = (eventId: string, secure: boolean) => `${prefix(secure)}w_${eventId}`;

/** True for the gateway's own cookie names (never forwarded to the origin). */
export const isGatewayCookie = (name: string) => name.startsWith('__wr_') || name.startsWith('__Host-wr_');

/**
 * Attributes for both cookies: HttpOnly (no script reads them), SameSite=Lax (sent on top-level
 * navigation to the sale URL, not on cross-site subrequests), Path=/, no Domain, Secure on HTTPS,
 * and a Max-Age no longer than the token inside.
 *
 * @param maxAgeS lifetime in seconds
 */
export function cookieOptions(url: string, maxAgeS: number): CookieOptions {
  const secure = isSecure(url);
  return { path: '/', httpOnly: true, sameSite: 'Lax', secure, maxAge: Math.max(0, Math.floor(maxAgeS)) };
}

/**
 * The value of one cookie in a Cookie header. Two cookies of the same name (an attacker's planted
 * one and ours, in either order) make the credential ambiguous: that counts as invalid.
 *
 * @returns the value, undefined when absent, or `{ duplicate: true }`
 */
export function readCookie(cookieHeader: string | undefined, name: string): string | undefined | { duplicate: true } {
  // Runs on every admitted request, twice: a scan without the split/map/filter arrays, and none
  // at all when the name is nowhere in the header.
  if (!cookieHeader || !cookieHeader.includes(name)) return undefined;
  const prefix = `${name}=`;
  let value: string | undefined;
  for (let start = 0; start <= cookieHeader.length;) {
    const semi = cookieHeader.indexOf(';', start);
    const end = semi < 0 ? cookieHeader.length : semi;
    const pair = cookieHeader.slice(start, end).trim();
    if (pair.startsWith(prefix)) {
      if (value !== undefined) return { duplicate: true };
      value = pair.slice(prefix.length);
    }
    start = end + 1;
  }
  return value;
}

/**
 * A Set-Cookie line that clears a credential cookie with the attributes it was set with
 * (HttpOnly, SameSite=Lax, Path=/, Secure on HTTPS), so the clearing answer is no weaker than the
 * setting one (and a `__Host-` name is accepted by the browser at all).
 */
export function clearedCookie(name: string, url: string): string {
  const o = cookieOptions(url, 0);
  return `${name}=; Max-Age=0; Path=${o.path}; HttpOnly; SameSite=${o.sameSite}${o.secure ? '; Secure' : ''}`;
}
