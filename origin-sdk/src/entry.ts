// Entry tokens: the origin, where visitors sign in, vouches for an account so the gateway gives it
// one place in an event's queue (one lottery entry), and optionally a presale lane.
import { SignJWT } from 'jose';

/** JOSE `typ` of an entry token (never accepted as an admission token or queue ticket, nor they as it). */
export const ENTRY_TYP = 'wr-entry+jwt';
/** The signature algorithm of an entry token under the shared `ORIGIN_HMAC_SECRET` (HMAC-SHA256, RFC 7518 section 3.2). */
export const ENTRY_ALG = 'HS256';
/** Default `iss` of entry tokens (the event's `entry.issuer` setting at the gateway must match). */
export const DEFAULT_ENTRY_ISSUER = 'waiting-room-origin';
/** Longest lifetime an entry token may have, in seconds (`exp - iat`; the gateway refuses longer ones). */
export const MAX_ENTRY_TOKEN_TTL_S = 300;
/** Entry-token claim naming the presale lane (absent = the public queue). */
export const LANE_CLAIM = 'lane';
/** Query parameter that carries the entry token on the room URL (browsers, after signing in). */
export const ENTRY_QUERY_PARAM = 'wr_entry';
/** Request header that carries the entry token on a join (apps). */
export const ENTRY_HEADER = 'x-entry-token';
/** Accounts are 1-256 characters (any, e.g. an e-mail or a numeric user id); the gateway keeps only a keyed hash. */
export const MAX_ACCOUNT_LENGTH = 256;
/** Lane names: lower-case slug, 1-32 characters. */
export const LANE_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** Event ids (the token's `aud`): lower-case slug, 1-64 characters. */
const EVENT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** What an entry token says. */
export interface EntryTokenInput {
  /** The signed-in account (`sub`), 1-MAX_ACCOUNT_LENGTH characters; the gateway stores only a keyed hash of it. */
  account: string;
  /** The event (`aud`): the token is good for this event only. */
  eventId: string;
  /** A presale lane the organizer configured for the event (LANE_PATTERN); omit for the public queue. */
  lane?: string;
  /** Lifetime in seconds, 1-MAX_ENTRY_TOKEN_TTL_S (a token is used once, right after sign-in). */
  ttlS: number;
  /** `iss`, default DEFAULT_ENTRY_ISSUER (must equal the event's `entry.issuer`). */
  issuer?: string;
  /** Signing time, epoch ms (default now; for tests). */
  nowMs?: number;
}

const encoder = new TextEncoder();

/**
 * Signs an entry token: an HS256 JWT (RFC 7519) with `typ` ENTRY_TYP, `iss`, `aud` = event id,
 * `sub` = account, `jti` (random: the gateway accepts each token once), `iat`, `exp` = `iat` +
 * `ttlS`, and `lane` when given. Send the visitor to the room URL with `?wr_entry=<token>`
 * (ENTRY_QUERY_PARAM), or have an app send it as `X-Entry-Token` (ENTRY_HEADER) on its join.
 * Source: docs/reference/api.md, "Entry tokens".
 *
 * @param secret the `ORIGIN_HMAC_SECRET` the gateway shares with the origin
 * @throws TypeError when the secret is empty, the account is empty or too long, the event id or
 *   lane is not a slug, or `ttlS` is not a whole number of seconds in 1..MAX_ENTRY_TOKEN_TTL_S
 */
export async function signEntryToken(input: EntryTokenInput, secret: string): Promise<string> {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('secret must be the non-empty ORIGIN_HMAC_SECRET');
  const { account, eventId, lane, ttlS } = input;
  if (typeof account !== 'string' || account.length === 0 || account.length > MAX_ACCOUNT_LENGTH)
    throw new TypeError(`account must be 1-${MAX_ACCOUNT_LENGTH} characters`);
  if (typeof eventId !== 'string' || !EVENT_ID_PATTERN.test(eventId)) throw new TypeError('eventId must be an event id slug');
  if (lane !== undefined && (typeof lane !== 'string' || !LANE_PATTERN.test(lane))) throw new TypeError('lane must be a lane name slug');
  if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > MAX_ENTRY_TOKEN_TTL_S)
    throw new TypeError(`ttlS must be a whole number of seconds, 1-${MAX_ENTRY_TOKEN_TTL_S}`);
  const iat = Math.floor((input.nowMs ?? Date.now()) / 1000);
  return new SignJWT(lane === undefined ? {} : { [LANE_CLAIM]: lane })
    .setProtectedHeader({ alg: ENTRY_ALG, typ: ENTRY_TYP })
    .setIssuer(input.issuer ?? DEFAULT_ENTRY_ISSUER)
    .setAudience(eventId)
    .setSubject(account)
    .setJti(crypto.randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlS)
    .sign(encoder.encode(secret));
}

/**
 * The room URL a signed-in visitor is sent to: `roomUrl` with `wr_entry=<token>` added. The
 * gateway verifies it, gives the account its place and redirects to the same URL without the
 * token (so it stays out of the history and of `Referer`).
 * @throws TypeError when `roomUrl` is not an absolute http(s) URL
 */
export function entryUrl(roomUrl: string | URL, token: string): string {
  const url = new URL(roomUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('roomUrl must be an http(s) URL');
  url.searchParams.set(ENTRY_QUERY_PARAM, token);
  return url.toString();
}

/**
 * The room URL to send a signed-in visitor back to, from the `wr_return` the gateway put on the
 * sign-in link: `wrReturn` resolved against your site, when the result stays on your site
 * (same origin as `site`), else `fallback`. A check on the text alone is not enough: the WHATWG
 * URL parser (every browser, Node, Workers) reads `/\evil.example/x` and `/\t/evil.example`
 * as `https://evil.example/...`, which would hand the visitor's fresh entry
 * token to another site.
 *
 * @param wrReturn the `wr_return` query value as received (null or absent: `fallback`)
 * @param site your site's origin, e.g. `https://tickets.example.com`
 * @param fallback the room's own path on your site, e.g. `/concerts/2027-taipei/`
 * @returns an absolute URL on `site`, for `entryUrl`
 * @throws TypeError when `site` is not an absolute http(s) URL or `fallback` leaves it
 */
export function safeReturnUrl(wrReturn: string | null | undefined, site: string | URL, fallback: string): URL {
  const base = new URL(site);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('site must be an http(s) URL');
  const home = new URL(fallback, base);
  if (home.origin !== base.origin) throw new TypeError('fallback must be a path on the site');
  // Only a path: not a scheme, not a network-path reference, nothing the parser could read as a host.
  // oxlint-disable-next-line no-control-regex -- control characters are what this refuses
  if (typeof wrReturn !== 'string' || !wrReturn.startsWith('/') || /^\/[\\/]|[\u0000-\u001f\u007f\\]/.test(wrReturn)) return home;
  const back = new URL(wrReturn, base);
  // Dot segments can leave a path of `//host` (`/.//evil.example`): same origin, but a site that
  // redirects by the path alone would send the visitor to that host.
  return back.origin === base.origin && !back.pathname.startsWith('//') ? back : home;
}
