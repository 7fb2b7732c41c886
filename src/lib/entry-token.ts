// Entry tokens at the edge: verifying the origin's token (HS256 under ORIGIN_HMAC_SECRET, jose), and
// the join's entry check: which visitor an account-bound join is for, or why it gets no place.
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from 'jose';
// The classes themselves, not jose's `errors` namespace (which keeps every error class in the bundle).
import { JOSEError, JWKSInvalid, JWKSTimeout, JWTClaimValidationFailed, JWTExpired } from 'jose/errors';
import {
  ENTRY_TYP,
  LANE_CLAIM,
  MAX_ACCOUNT_LENGTH,
  MAX_ENTRY_TOKEN_TTL_S,
  accountHashKey,
  accountKeyId,
  accountVisitorId,
  isAccountVisitorId,
  type CursorEntry,
} from '../../contracts/entry';
import { CLOCK_TOLERANCE_S } from './token';
import { GatewayError } from './errors';

/**
 * The keys an event's entry tokens verify with: HS256 under the ORIGIN_HMAC_SECRET the origin
 * shares (`hmac`), or the origin's own public keys (`jwks`, the event's `entry.jwksPath`).
 */
export type EntryKeys = { kind: 'hmac'; secret: string } | { kind: 'jwks'; keys: JWTVerifyGetKey };

/** Algorithms accepted from an origin's JWKS (ECDSA P-256, RSA PKCS#1 v1.5 SHA-256, Ed25519; RFC 7518, RFC 8037). */
const ENTRY_JWKS_ALGS = ['ES256', 'RS256', 'EdDSA'];
/** How long the origin gets to answer for its JWKS, ms (jose's default is 5 s). */
export const ENTRY_JWKS_TIMEOUT_MS = 3_000;

const remoteSets = new Map<string, JWTVerifyGetKey>();

/**
 * The origin's entry-token keys at `url` (a JWKS), fetched with `fetcher` by jose's
 * `createRemoteJWKSet`: cached 10 min, fetched again at most every 30 s for an unknown `kid` (so a
 * rotated key works within that), one set per URL and isolate.
 */
export function originEntryKeys(url: URL, fetcher: (url: URL) => Promise<Response>): JWTVerifyGetKey {
  let set = remoteSets.get(url.href);
  if (!set) {
    set = createRemoteJWKSet(url, {
      timeoutDuration: ENTRY_JWKS_TIMEOUT_MS,
      [customFetch]: (u: string) => fetcher(new URL(u)),
    });
    if (remoteSets.size >= 1_000) remoteSets.clear();
    remoteSets.set(url.href, set);
  }
  return set;
}

/** What a verified entry token says. Times are epoch ms. */
export interface EntryClaims {
  /** The account the origin signed in (`sub`); kept only as a keyed hash (`accountVisitorId`). */
  account: string;
  /** The presale lane (`lane`), one the event lists; null = the public queue. */
  lane: string | null;
  /** `jti`: each token gets a place once (the account's queue shard remembers it until `exp`). */
  tokenId: string;
  expiresAtMs: number;
}

const encoder = new TextEncoder();

/**
 * Verifies an entry token for one event: HS256 (or, with the origin's JWKS, ENTRY_JWKS_ALGS) only, `typ` ENTRY_TYP, the event's issuer, `aud` =
 * the event (a string, or a list of that one event: a list of several is refused), `sub`, `jti`, `iat` and `exp` required, a lifetime (`exp - iat`) of at most
 * MAX_ENTRY_TOKEN_TTL_S, CLOCK_TOLERANCE_S of skew; a `lane` claim must name one of the event's lanes.
 *
 * @param keys the ORIGIN_HMAC_SECRET the origin signs with, or its JWKS
 * @throws GatewayError ORIGIN_UNAVAILABLE (503) when the origin's JWKS cannot be fetched; ENTRY_TOKEN_EXPIRED (401, past `exp`: sign in again); ENTRY_TOKEN_OTHER_EVENT
 *   (403, a genuine token for another event); LANE_NOT_CONFIGURED (403, a lane the event does not
 *   list); ENTRY_TOKEN_INVALID (401: forged, tampered, malformed, another `typ` or algorithm, wrong
 *   issuer, too long a lifetime, not yet valid, `aud` naming several events)
 */
export async function verifyEntryToken(
  token: string,
  rule: Pick<CursorEntry, 'issuer' | 'lanes'>,
  eventId: string,
  keys: EntryKeys,
  nowMs: number,
): Promise<EntryClaims> {
  const invalid = (why: string) => new GatewayError('ENTRY_TOKEN_INVALID', { detail: `the entry token ${why}; sign in again` });
  if (keys.kind === 'hmac' && !keys.secret) throw new Error('ORIGIN_HMAC_SECRET must be set to verify entry tokens');
  let payload;
  try {
    const options = {
      algorithms: keys.kind === 'hmac' ? ['HS256'] : ENTRY_JWKS_ALGS,
      typ: ENTRY_TYP,
      issuer: rule.issuer,
      audience: eventId,
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_ENTRY_TOKEN_TTL_S,
      currentDate: new Date(nowMs),
    };
    ({ payload } =
      keys.kind === 'hmac' ? await jwtVerify(token, encoder.encode(keys.secret), options) : await jwtVerify(token, keys.keys, options));
  } catch (err) {
    // The origin's keys could not be had: our fault (or the origin's), not the visitor's token.
    if (err instanceof GatewayError) throw err;
    // (jose's plain JOSEError, ERR_JOSE_GENERIC, is the JWKS answer that was not 200 OK.)
    if (err instanceof JWKSTimeout || err instanceof JWKSInvalid || !(err instanceof JOSEError) || err.code === 'ERR_JOSE_GENERIC')
      throw new GatewayError('ORIGIN_UNAVAILABLE', {
        detail: 'the ticketing site’s entry-token keys could not be fetched; try again',
        retryAfterS: 10,
      });
    if (err instanceof JWTExpired) throw new GatewayError('ENTRY_TOKEN_EXPIRED', { detail: 'the entry token has expired; sign in again' });
    // jose checks the signature before the claims: a wrong audience means a genuine token of another event.
    if (err instanceof JWTClaimValidationFailed && err.claim === 'aud')
      throw new GatewayError('ENTRY_TOKEN_OTHER_EVENT', { detail: `the entry token is for another event, not "${eventId}"` });
    throw invalid('is not valid for this event');
  }
  // One token, one event: the gateway spends a token once per event (its jti), so a token whose
  // `aud` lists several events would be one sign-in good for a place in each, and its `lane` would
  // be read against each event's lanes. jose accepted it because the list contains this event.
  if (Array.isArray(payload.aud) && payload.aud.length !== 1) throw invalid('names several events (aud); sign one token per event');
  const { sub, jti, iat, exp } = payload as { sub: unknown; jti: unknown; iat: number; exp: number };
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_ACCOUNT_LENGTH)
    throw invalid(`names no account of 1-${MAX_ACCOUNT_LENGTH} characters`);
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 128) throw invalid('has no token id (jti) of 1-128 characters');
  if (exp - iat > MAX_ENTRY_TOKEN_TTL_S) throw invalid(`lives longer than ${MAX_ENTRY_TOKEN_TTL_S} s`);
  const lane = payload[LANE_CLAIM];
  if (lane !== undefined && (typeof lane !== 'string' || !rule.lanes.includes(lane)))
    throw new GatewayError('LANE_NOT_CONFIGURED', {
      detail: `the entry token's lane is not one of this event's lanes (${rule.lanes.join(', ') || 'none'})`,
    });
  return { account: sub, lane: typeof lane === 'string' ? lane : null, tokenId: jti, expiresAtMs: exp * 1000 };
}

/** The account hash secrets from the Worker's environment. */
export function accountSecrets(env: Partial<Pick<Env, 'ACCOUNT_HASH_SECRET' | 'ACCOUNT_HASH_PREVIOUS_SECRET'>>): AccountSecrets {
  return { current: env.ACCOUNT_HASH_SECRET ?? '', previous: env.ACCOUNT_HASH_PREVIOUS_SECRET ?? '' };
}

/** The account hash secrets. */
export interface AccountSecrets {
  /** `ACCOUNT_HASH_SECRET`: hashes the accounts of events that require an entry token ('' = none set). */
  current: string;
  /** `ACCOUNT_HASH_PREVIOUS_SECRET`: the one before a rotation, still used by events pinned to it ('' = none). */
  previous: string;
}

const keyIds = new Map<string, Promise<string>>();
const hashKeys = new Map<string, Promise<CryptoKey>>();
const memo = <T>(map: Map<string, Promise<T>>, secret: string, make: (s: string) => Promise<T>) => {
  let v = map.get(secret);
  if (!v) map.set(secret, (v = make(secret)));
  return v;
};

/**
 * The id of the current account hash secret, which the organizer API pins to an event when it
 * switches the entry requirement on (the WaitingRoom keeps an earlier pin once anyone joined).
 * @throws Error naming ACCOUNT_HASH_SECRET when it is not set (at least 32 characters)
 */
export function currentAccountKeyId(secrets: AccountSecrets): Promise<string> {
  if (secrets.current.length < 32)
    throw new Error('ACCOUNT_HASH_SECRET must be set (at least 32 characters) for events that require an entry token');
  return memo(keyIds, secrets.current, accountKeyId);
}

/**
 * The hash key an event's accounts are hashed under: the secret whose id the event pinned (the
 * current one, or the previous one during a rotation); the current one for a rule without a pin.
 * @throws Error naming the variables when neither secret has the pinned id (the previous secret
 *   was removed while an event still uses it): no place is handed out under another key
 */
async function eventHashKey(secrets: AccountSecrets, pinned: string | null): Promise<CryptoKey> {
  for (const secret of [secrets.current, secrets.previous]) {
    if (secret.length >= 32 && (pinned === null || (await memo(keyIds, secret, accountKeyId)) === pinned))
      return memo(hashKeys, secret, accountHashKey);
  }
  throw new Error(
    `ACCOUNT_HASH_SECRET / ACCOUNT_HASH_PREVIOUS_SECRET: neither is the key ${pinned} this event's accounts are hashed under`,
  );
}

/** A join's entry check, as the turn needs it. */
export type EntryDecision =
  /** An open event (or a closed sale, which hands out no place): the turn goes on as without entry tokens. */
  | { kind: 'open' }
  /** The visitor's ticket is already an account's place: answered from it, as any poll. */
  | { kind: 'ticket' }
  /** Join as the account's visitor id (the same place on every device), consuming the token. */
  | { kind: 'account'; visitorId: string; lane: string | null; tokenId: string; expiresAtMs: number };

/**
 * Decides a visitor's turn at an event that may require entry tokens.
 * - No requirement, or the sale is closed: `open` (a token sent anyway is ignored).
 * - A token: verified; the account's visitor id (`accountVisitorId` under the event's pinned
 *   key). A ticket of that same account is kept (`ticket`); any other ticket (another account, or
 *   an anonymous one) is replaced by the account's place (`account`).
 * - No token: a ticket of an account place is honoured (`ticket`); an anonymous ticket (from
 *   before the requirement was switched on) or none gets no place: ENTRY_REQUIRED.
 *
 * @throws GatewayError ENTRY_REQUIRED (401, with `signInUrl`), and what verifyEntryToken throws
 */
export async function decideEntry(input: {
  entry: CursorEntry | null | undefined;
  closed: boolean;
  eventId: string;
  ticketVisitorId: string | null;
  token: string | null;
  /** The keys for this event's tokens (`entryKeys` of the rule); called only when a token came. */
  keys: (entry: CursorEntry) => EntryKeys;
  accountSecrets: AccountSecrets;
  nowMs: number;
}): Promise<EntryDecision> {
  const { entry } = input;
  if (!entry || input.closed) return { kind: 'open' };
  if (input.token) {
    let claims: EntryClaims;
    try {
      claims = await verifyEntryToken(input.token, entry, input.eventId, input.keys(entry), input.nowMs);
    } catch (err) {
      // Every refusal says where to get a good token.
      if (err instanceof GatewayError && err.code !== 'ORIGIN_UNAVAILABLE')
        throw new GatewayError(err.code, { detail: err.detail, extra: { signInUrl: entry.signInUrl } });
      throw err;
    }
    const key = await eventHashKey(input.accountSecrets, entry.accountKeyId);
    const visitorId = await accountVisitorId(key, input.eventId, claims.account);
    if (visitorId === input.ticketVisitorId) return { kind: 'ticket' };
    return { kind: 'account', visitorId, lane: claims.lane, tokenId: claims.tokenId, expiresAtMs: claims.expiresAtMs };
  }
  if (input.ticketVisitorId !== null && isAccountVisitorId(input.ticketVisitorId)) return { kind: 'ticket' };
  throw new GatewayError('ENTRY_REQUIRED', {
    detail: 'this event lets in signed-in accounts only: sign in, then come back with your entry token',
    extra: { signInUrl: entry.signInUrl },
  });
}
