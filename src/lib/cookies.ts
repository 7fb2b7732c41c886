// Cookie names and attributes of the gateway's two per-event credentials.
import type { CookieOptions } from 'hono/utils/cookie';

/** Cookie holding the queue ticket of one event. */
export const ticketCookie = (eventId: string) => `__wr_t_${eventId}`;
/** Cookie holding the admission token of one event. */
export const admissionCookie = (eventId: string) => `__wr_a_${eventId}`;

/**
 * Attributes for both cookies: HttpOnly (no script reads them), SameSite=Lax (sent on top-level
 * navigation to the sale URL, not on cross-site subrequests), Secure on HTTPS. `Secure` is left
 * off on plain-HTTP localhost so curl and the crowd simulator keep their cookies in development.
 *
 * @param maxAgeS lifetime in seconds
 */
export function cookieOptions(url: string, maxAgeS: number): CookieOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: new URL(url).protocol === 'https:',
    maxAge: Math.max(0, Math.floor(maxAgeS)),
  };
}
