// Entry tokens, pure parts both sides share: the event's entry rule as the room stores and publishes
// it, the account's keyed hash (the visitor id of an account-bound place), and the sign-in URL rule.
import { parsePattern } from './room-patterns';

// What an origin needs to sign an entry token is defined once in the origin SDK (contracts/names.ts explains why).
export {
  DEFAULT_ENTRY_ISSUER,
  ENTRY_HEADER,
  ENTRY_QUERY_PARAM,
  ENTRY_TYP,
  LANE_CLAIM,
  LANE_PATTERN,
  MAX_ACCOUNT_LENGTH,
  MAX_ENTRY_TOKEN_TTL_S,
} from '../origin-sdk/src/entry.ts';

/** Most presale lanes one event may list. */
export const MAX_LANES = 8;
/** Longest sign-in URL, characters. */
export const MAX_SIGN_IN_URL_LENGTH = 500;
/** A JWKS path on the origin: `/` and path characters, not `//`, not under the gateway's `/_wr/`, at most 200 characters. */
export const JWKS_PATH_PATTERN = /^\/(?!\/)(?!_wr(?:\/|$))[A-Za-z0-9._~/-]{0,199}$/;
/** Visitor ids of account-bound places start with this (random visitor ids are UUIDs, which never do). */
export const ACCOUNT_VISITOR_PREFIX = 'acct-';

/** A presale lane as the room keeps it: its own sale start and its share of each tick's release budget. */
interface LaneRule {
  lane: string;
  /** The lane's sale start, epoch ms (0 = the event's own sale start). */
  saleStartsAtMs: number;
  /** Its share of the release budget while it has visitors waiting, percent 0-100. */
  releaseSharePercent: number;
}

/**
 * An event's entry requirement (QueueConfig `entry`; absent = an open event): every place belongs
 * to an account the origin vouched for with an entry token.
 */
export interface EntryRule {
  require: 'account';
  /** Where visitors sign in: a path on the room's own site, or an https URL on a host the room's patterns name. */
  signInUrl: string;
  /** The `iss` entry tokens must carry. */
  issuer: string;
  /** Presale lanes in the organizer's order (release order). */
  lanes: LaneRule[];
  /**
   * A path on the origin serving the public keys (JWKS, RFC 7517) that sign this event's entry
   * tokens (ES256, RS256 or EdDSA); absent = HS256 under ORIGIN_HMAC_SECRET. Fetched through the
   * gateway's own connection to the origin (ORIGIN_URL or the ORIGIN binding), never another host.
   */
  jwksPath?: string;
  /**
   * Id of the gateway secret that hashes this event's accounts (`accountKeyId`), pinned when the
   * requirement was switched on and kept once anyone joined, so rotating the secret never gives
   * an account a second place (src/lib/entry-token.ts).
   */
  accountKeyId?: string;
}

/** What the cursor publishes of the entry rule: what the edge needs to check a join, nothing secret. */
export interface CursorEntry {
  signInUrl: string;
  issuer: string;
  /** See EntryRule `jwksPath`; null = HS256 under ORIGIN_HMAC_SECRET. */
  jwksPath?: string | null;
  lanes: string[];
  accountKeyId: string | null;
}

/** The cursor's view of an entry rule (null for an open event). */
export function cursorEntry(rule: EntryRule | undefined): CursorEntry | null {
  if (!rule) return null;
  return {
    signInUrl: rule.signInUrl,
    issuer: rule.issuer,
    jwksPath: rule.jwksPath ?? null,
    lanes: rule.lanes.map((l) => l.lane),
    accountKeyId: rule.accountKeyId ?? null,
  };
}

const encoder = new TextEncoder();
const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The HMAC-SHA256 key for account hashes from the gateway secret (`ACCOUNT_HASH_SECRET`). */
export function accountHashKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** The public id of an account hash secret: the first 16 hex digits of SHA-256(`wr-account-key:` + secret). */
export async function accountKeyId(secret: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', encoder.encode(`wr-account-key:${secret}`))).slice(0, 16);
}

/**
 * The visitor id of an account at an event: `acct-` and the first 128 bits (32 hex digits) of
 * HMAC-SHA256(key, `<eventId>\n<account>`). The same account always gets the same id at one event
 * (so the shard's one-place-per-visitor rule gives it one place and one lottery entry), ids of one
 * account at two events are unrelated, and without the key nobody can tell which account an id
 * (e.g. in the published draw) belongs to, even by trying likely accounts.
 */
export async function accountVisitorId(key: CryptoKey, eventId: string, account: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`${eventId}\n${account}`));
  return ACCOUNT_VISITOR_PREFIX + hex(mac).slice(0, 32);
}

/** True for a visitor id made by `accountVisitorId` (a place an entry token created). */
export function isAccountVisitorId(visitorId: string): boolean {
  return /^acct-[0-9a-f]{32}$/.test(visitorId);
}

/**
 * Why a sign-in URL is refused, or null when it is on the event's own site: a path (`/login`,
 * with query allowed; never `//host`, a backslash or a control character, which browsers would
 * read as another site, and never under `/_wr/`), or an `https:` URL without credentials or port
 * whose host one of the room's `patterns` names. So the waiting page never sends anyone to
 * another site (no open redirect).
 */
export function signInUrlProblem(signInUrl: string, patterns: readonly string[]): string | null {
  if (signInUrl.length === 0 || signInUrl.length > MAX_SIGN_IN_URL_LENGTH) return `must be 1-${MAX_SIGN_IN_URL_LENGTH} characters`;
  // oxlint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0020\u007f\\]/.test(signInUrl)) return 'must not contain spaces, control characters or backslashes';
  if (signInUrl.startsWith('/')) {
    if (signInUrl.startsWith('//')) return 'a path must not start with "//" (browsers read it as another host)';
    const probe = new URL(signInUrl, 'https://room.invalid');
    if (probe.host !== 'room.invalid') return 'a path must stay on the room’s host';
    if (probe.pathname === '/_wr' || probe.pathname.startsWith('/_wr/')) return 'must not be one of the gateway’s own paths (/_wr/)';
    return null;
  }
  if (!URL.canParse(signInUrl)) return 'must be a path starting with "/" or an https URL';
  const url = new URL(signInUrl);
  if (url.protocol !== 'https:') return 'an absolute sign-in URL must be https';
  if (url.username || url.password || url.port) return 'must not carry credentials or a port';
  const hosts = new Set(patterns.map((p) => parsePattern(p)).flatMap((p) => ('host' in p && p.host !== null ? [p.host] : [])));
  if (!hosts.has(url.hostname.toLowerCase()))
    return hosts.size === 0
      ? 'the room’s patterns name no host, so the sign-in URL must be a path on the room’s site'
      : `host ${url.hostname} is not one the room’s patterns name (${[...hosts].join(', ')})`;
  return null;
}
