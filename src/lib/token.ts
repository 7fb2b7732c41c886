// Queue tickets (HS256 JWTs under the gateway's ticket secret) and admission tokens (ES256 JWTs over
// jose), and the JWKS that verifies admission tokens.
import { SignJWT, createLocalJWKSet, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { JWTExpired } from 'jose/errors';
import { ADMISSION_TYP, PLACE_CLAIM, SESSION_CLAIM, TICKET_TYP } from '../../contracts/names';
import type { Place } from '../../contracts/queue/cursor';
import { LANE_PATTERN } from '../../contracts/entry';
import { GatewayError } from './errors';
import { macTicket, ticketKey, verifyMacTicket, type TicketKey } from './ticket-mac';
import { VerifiedTokens, headerKid } from './verified-tokens';

/** Queue tickets live this long, in seconds (a visitor may wait for hours). */
export const TICKET_TTL_S = 24 * 60 * 60;
/**
 * Whether a poll at `nowMs` re-issues the visitor's queue ticket (same visitor, same place, a new
 * TICKET_TTL_S): once less than half of its life is left, so a visitor who keeps the
 * page open keeps the place however far off the sale start is, and a visitor who polls at least
 * once per TICKET_TTL_S / 2 never meets an expired ticket.
 *
 * @param expiresAtMs the verified ticket's `exp`, epoch ms
 */
export function ticketNeedsRenewal(expiresAtMs: number, nowMs: number): boolean {
  return expiresAtMs - nowMs < (TICKET_TTL_S * 1000) / 2;
}
/** Longest lifetime an admission token may claim, in seconds (the admission TTL's upper bound). */
export const MAX_ADMISSION_AGE_S = 2 * 60 * 60;
/**
 * Clock skew tolerated on `exp` / `nbf` / `iat`, in seconds: on queue tickets and entry tokens, and
 * on an admission token's `iat`; never on an admission token's `exp` (docs/decisions/0051-clock-tolerance.md).
 * The origin SDK allows the same 5 s on `exp` for the origin's own clock.
 */
export const CLOCK_TOLERANCE_S = 5;
const ALG = 'ES256';

/** The settings tokens need, taken from `Env`. */
export interface TokenSettings {
  /** Private P-256 JWK (JSON) with `kid`: signs new tokens. */
  signingJwk: string;
  /** Optional public JWK (JSON) of the previous key: still verifies until its tokens expire. */
  previousPublicJwk?: string;
  /**
   * Secret that signs queue tickets with HMAC-SHA256 (at least MIN_TICKET_SECRET_CHARS). Unset or
   * empty: tickets are signed with the ES256 key, as before this secret existed (slower joins).
   */
  ticketSecret?: string;
  /** Optional previous ticket secret: its tickets still verify until it is removed. */
  previousTicketSecret?: string;
  issuer: string;
}

/** The claims the gateway reads from a verified ticket or admission token. */
export interface VisitorClaims {
  eventId: string;
  visitorId: string;
  /** Expiry, epoch ms. */
  expiresAtMs: number;
  /**
   * Admission tokens only (claim `sid`): the admission session, which the WaitingRoom can end
   * before `exp` (the visitor left). It is the admission time in epoch ms, as a string.
   */
  sessionId?: string;
  /**
   * Queue tickets only (claim `pl`): the visitor's place in line, `[bucket, idx, shard]` for a
   * FIFO place of the public queue, `[bucket, idx, shard, lane]` for one in a presale lane, or
   * `"pre"` for a lottery pre-queue entry. The edge answers polls from it.
   */
  place?: Place;
}

interface KeyRing {
  kid: string;
  signingKey: CryptoKey;
  jwks: { keys: JWK[] };
  verify: ReturnType<typeof createLocalJWKSet>;
  /** Current ticket key first, then the previous one; empty when tickets are ES256. */
  ticketKeys: TicketKey[];
  /** Every `kid` a token may verify under now (both ES256 keys, both ticket secrets). */
  kids: Set<string>;
}

let cached: { settings: TokenSettings; ring: Promise<KeyRing> } | null = null;

/** True when two settings name the same keys (compared field by field: this runs on every request). */
function sameKeys(a: TokenSettings, b: TokenSettings): boolean {
  return (
    a.signingJwk === b.signingJwk &&
    (a.previousPublicJwk ?? '') === (b.previousPublicJwk ?? '') &&
    (a.ticketSecret ?? '') === (b.ticketSecret ?? '') &&
    (a.previousTicketSecret ?? '') === (b.previousTicketSecret ?? '')
  );
}

function publicPart(jwk: JWK): JWK {
  const { kty, crv, x, y, kid } = jwk;
  return { kty, crv, x, y, kid, alg: ALG, use: 'sig' };
}

function parseJwk(json: string, name: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(json) as JWK;
  } catch {
    throw new Error(`${name} must be a JSON Web Key`);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.kid) throw new Error(`${name} must be an EC P-256 JWK with a kid`);
  return jwk;
}

/**
 * The key ring for these settings, built once per isolate.
 * @throws Error naming the variable when ADMISSION_SIGNING_JWK is missing or malformed
 */
function keyRing(settings: TokenSettings): Promise<KeyRing> {
  if (!cached || !sameKeys(cached.settings, settings)) {
    // Another key set: tokens verified under the old one are checked again (a removed key stops
    // working at once; so does a key replaced under the same kid).
    verified.clear();
    cached = { settings: { ...settings }, ring: buildRing(settings) };
    cached.ring.catch(() => (cached = null));
  }
  return cached.ring;
}

async function buildRing(settings: TokenSettings): Promise<KeyRing> {
  if (!settings.signingJwk) throw new Error('ADMISSION_SIGNING_JWK must be set (run `npm start` once to generate a dev key)');
  const current = parseJwk(settings.signingJwk, 'ADMISSION_SIGNING_JWK');
  if (!current.d) throw new Error('ADMISSION_SIGNING_JWK must be a private key (with "d")');
  const keys = [publicPart(current)];
  if (settings.previousPublicJwk) keys.push(publicPart(parseJwk(settings.previousPublicJwk, 'ADMISSION_PREVIOUS_PUBLIC_JWK')));
  const signingKey = (await importJWK({ ...current, alg: ALG }, ALG)) as CryptoKey;
  const jwks = { keys };
  const ticketKeys: TicketKey[] = [];
  if (settings.ticketSecret) {
    ticketKeys.push(await ticketKey(settings.ticketSecret, 'QUEUE_TICKET_SECRET'));
    if (settings.previousTicketSecret) ticketKeys.push(await ticketKey(settings.previousTicketSecret, 'QUEUE_TICKET_PREVIOUS_SECRET'));
  }
  const kids = new Set([...keys.map((k) => k.kid!), ...ticketKeys.map((k) => k.kid)]);
  return { kid: current.kid!, signingKey, jwks, verify: createLocalJWKSet(jwks), ticketKeys, kids };
}

/** The public JWKS (RFC 7517) for `/.well-known/jwks.json`: current key, then previous. */
export async function publicJwks(settings: TokenSettings): Promise<{ keys: JWK[] }> {
  return (await keyRing(settings)).jwks;
}

async function sign(settings: TokenSettings, typ: string, claims: VisitorClaims, nowMs: number): Promise<string> {
  const ring = await keyRing(settings);
  const extra: JWTPayload = {};
  if (claims.sessionId) extra[SESSION_CLAIM] = claims.sessionId;
  if (claims.place) extra[PLACE_CLAIM] = placeClaim(claims.place);
  return new SignJWT(extra)
    .setProtectedHeader({ alg: ALG, kid: ring.kid, typ })
    .setIssuer(settings.issuer)
    .setAudience(claims.eventId)
    .setSubject(claims.visitorId)
    .setJti(crypto.randomUUID())
    .setIssuedAt(Math.floor(nowMs / 1000))
    .setExpirationTime(Math.floor(claims.expiresAtMs / 1000))
    .sign(ring.signingKey);
}

/**
 * Signs a queue ticket for a visitor's place in line at an event, valid for TICKET_TTL_S: an HS256
 * JWT (RFC 7519) under the current ticket secret (ticket-mac.ts); ES256 when no ticket secret is set.
 */
export async function signQueueTicket(
  settings: TokenSettings,
  eventId: string,
  visitorId: string,
  place: Place,
  nowMs: number,
): Promise<string> {
  const claims: VisitorClaims = { eventId, visitorId, place, expiresAtMs: nowMs + TICKET_TTL_S * 1000 };
  const ring = await keyRing(settings);
  const key = ring.ticketKeys[0];
  if (!key) return sign(settings, TICKET_TYP, claims, nowMs);
  const payload = {
    iss: settings.issuer,
    aud: eventId,
    sub: visitorId,
    jti: crypto.randomUUID(),
    iat: Math.floor(nowMs / 1000),
    exp: Math.floor(claims.expiresAtMs / 1000),
    [PLACE_CLAIM]: placeClaim(place),
  };
  return macTicket(key, payload);
}

/** The `pl` claim of a place: `"pre"`, `[bucket, idx, shard]`, or `[bucket, idx, shard, lane]` for a presale lane's place. */
function placeClaim(place: Place): 'pre' | [number, number, number] | [number, number, number, string] {
  if ('pre' in place) return 'pre';
  return place.lane === undefined ? [place.bucket, place.idx, place.shard] : [place.bucket, place.idx, place.shard, place.lane];
}

/** The `pl` claim as a place, or null when it is not one (a lane must match LANE_PATTERN). */
function parsePlace(pl: unknown): Place | null {
  if (pl === 'pre') return { pre: true };
  if (!Array.isArray(pl) || (pl.length !== 3 && pl.length !== 4)) return null;
  const [bucket, idx, shard, lane] = pl as unknown[];
  if (![bucket, idx, shard].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
  const place = { bucket: bucket as number, idx: idx as number, shard: shard as number };
  if (pl.length === 3) return place;
  return typeof lane === 'string' && LANE_PATTERN.test(lane) ? { ...place, lane } : null;
}

/**
 * Signs an admission token that expires when the visitor's admission window ends (`expiresAtMs`)
 * and names the admission session (`sid`).
 */
export function signAdmission(settings: TokenSettings, claims: Required<Omit<VisitorClaims, 'place'>>, nowMs: number): Promise<string> {
  return sign(settings, ADMISSION_TYP, claims, nowMs);
}

/**
 * An ES256 token's payload, checked by jose: ES256 pinned, our issuer, `aud` = the event, the
 * kind's `typ` and required claims, lifetime capped (a token issued longer ago than its kind's cap
 * is refused whatever its `exp` says), CLOCK_TOLERANCE_S of skew.
 * @throws GatewayError TOKEN_EXPIRED / TOKEN_INVALID
 */
async function verifyEs256(
  ring: KeyRing,
  kind: 'ticket' | 'admission',
  token: string,
  issuer: string,
  eventId: string,
  nowMs: number,
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, ring.verify, {
      algorithms: [ALG],
      issuer,
      audience: eventId,
      typ: kind === 'ticket' ? TICKET_TYP : ADMISSION_TYP,
      requiredClaims: kind === 'ticket' ? ['exp', 'iat', 'sub', 'jti', PLACE_CLAIM] : ['exp', 'iat', 'sub', 'jti', SESSION_CLAIM],
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: kind === 'ticket' ? TICKET_TTL_S : MAX_ADMISSION_AGE_S,
      currentDate: new Date(nowMs),
    });
    return payload;
  } catch (err) {
    if (err instanceof JWTExpired) throw new GatewayError('TOKEN_EXPIRED', { detail: `the ${kind} has expired` });
    throw new GatewayError('TOKEN_INVALID', { detail: `the ${kind} is not valid for this event` });
  }
}

/** A verified token is trusted again without its signature check for at most this long, ms (or until it ends). */
const VERIFIED_CACHE_MS = 60_000;
/** Tokens remembered per isolate at most (two per admitted visitor: ticket and admission). */
const VERIFIED_CACHE_MAX = 20_000;
const verified = new VerifiedTokens<VisitorClaims>(VERIFIED_CACHE_MAX, VERIFIED_CACHE_MS);

/**
 * Verifies a queue ticket or admission token for one event: our issuer, `aud` = the event, the
 * expected `typ`, `exp`/`iat`/`sub`/`jti` required, with CLOCK_TOLERANCE_S of skew (for an admission
 * token only on `iat`: it ends exactly at `exp`). Admission tokens: ES256 only (no `none`, no HMAC). Tickets: HS256 under the current or previous ticket
 * secret, or ES256 (tickets minted without a ticket secret, or by an older gateway: a deploy
 * keeps every waiting visitor's place).
 *
 * @throws GatewayError TOKEN_EXPIRED when the token is past `exp`; TOKEN_INVALID for anything else
 *   (forged, tampered, other event, other kind, unknown key, malformed)
 */
export async function verifyToken(
  settings: TokenSettings,
  kind: 'ticket' | 'admission',
  token: string,
  eventId: string,
  nowMs: number,
): Promise<VisitorClaims> {
  // The same token string verified moments ago verifies again without the signature check (the
  // costly part of every admitted request): verified-tokens.ts answers only for the same kind,
  // event and issuer, before the token's exp (and maximum age), and while its kid is in the ring;
  // a ring that changes at all empties it (keyRing). Anything else is verified in full below.
  const ring = await keyRing(settings);
  const want = { kind, eventId, issuer: settings.issuer };
  const hit = verified.get(token, want, ring.kids, nowMs);
  if (hit) return hit;
  const rules = { issuer: settings.issuer, audience: eventId, nowMs, maxAgeS: TICKET_TTL_S, toleranceS: CLOCK_TOLERANCE_S };
  const payload =
    (kind === 'ticket' ? await verifyMacTicket(ring.ticketKeys, token, rules) : null) ??
    (await verifyEs256(ring, kind, token, settings.issuer, eventId, nowMs));
  const claims: VisitorClaims = { eventId, visitorId: payload.sub!, expiresAtMs: payload.exp! * 1000 };
  if (kind === 'admission') {
    // The gateway checks its own admissions by its own clock, the one the WaitingRoom frees the
    // slot by: it ends exactly at `exp`, without jose's skew tolerance (a checkout 3 s past
    // `exp` was 200 PAID while the room had given the slot away; the origin SDK keeps its tolerance).
    if (claims.expiresAtMs <= nowMs) throw new GatewayError('TOKEN_EXPIRED', { detail: 'the admission has expired' });
    if (typeof payload[SESSION_CLAIM] !== 'string')
      throw new GatewayError('TOKEN_INVALID', { detail: 'the admission is not valid for this event' });
    claims.sessionId = payload[SESSION_CLAIM] as string;
  } else {
    const place = parsePlace(payload[PLACE_CLAIM]);
    if (!place) throw new GatewayError('TOKEN_INVALID', { detail: 'the ticket is not valid for this event' });
    claims.place = place;
  }
  // Remembered until the first instant the full check could refuse it: exp, or iat + the kind's
  // maximum age (both without the skew tolerance, so the memory ends no later than the check would).
  const maxAgeS = kind === 'ticket' ? TICKET_TTL_S : MAX_ADMISSION_AGE_S;
  const kid = headerKid(token);
  if (kid && typeof payload.iat === 'number') {
    verified.put(token, { ...want, kid }, claims, Math.min(claims.expiresAtMs, (payload.iat + maxAgeS) * 1000), nowMs);
  }
  return claims;
}

/** TokenSettings from the Worker's environment. */
export function tokenSettings(
  env: Pick<
    Env,
    'ADMISSION_SIGNING_JWK' | 'ADMISSION_PREVIOUS_PUBLIC_JWK' | 'QUEUE_TICKET_SECRET' | 'QUEUE_TICKET_PREVIOUS_SECRET' | 'TOKEN_ISSUER'
  >,
): TokenSettings {
  return {
    signingJwk: env.ADMISSION_SIGNING_JWK,
    previousPublicJwk: env.ADMISSION_PREVIOUS_PUBLIC_JWK,
    ticketSecret: env.QUEUE_TICKET_SECRET,
    previousTicketSecret: env.QUEUE_TICKET_PREVIOUS_SECRET,
    issuer: env.TOKEN_ISSUER,
  };
}
