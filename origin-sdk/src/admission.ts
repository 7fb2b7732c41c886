// Verifying the gateway's admission token at the origin: jose against the gateway's JWKS, with
// exactly the gateway's algorithm, `typ`, issuer, audience and lifetime cap, and a clock tolerance
// for the origin's own clock (the gateway, which minted the token, allows none on `exp`).
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import {
  ADMISSION_ALG,
  ADMISSION_HEADER,
  ADMISSION_TYP,
  CLOCK_TOLERANCE_S,
  DEFAULT_ISSUER,
  JWKS_PATH,
  MAX_ADMISSION_AGE_S,
} from './protocol.ts';

/** A fetch function: the global `fetch`, or e.g. a Workers service binding's `fetch`. */
export type FetchLike = (request: Request) => Promise<Response>;

/**
 * Why an admission was refused: `ADMISSION_MISSING` (no token), `ADMISSION_EXPIRED` (past `exp`
 * beyond the tolerance: send the visitor back through the gateway), `ADMISSION_INVALID` (forged,
 * tampered, another event, a queue ticket, unknown key, malformed, not yet valid), or
 * `JWKS_UNAVAILABLE` (the gateway's keys could not be fetched: a fault of ours, not the visitor's).
 */
export type AdmissionErrorCode = 'ADMISSION_MISSING' | 'ADMISSION_EXPIRED' | 'ADMISSION_INVALID' | 'JWKS_UNAVAILABLE';

/** HTTP status an origin should answer for each code (401 for the visitor's token, 503 for missing keys). */
export const ADMISSION_ERROR_STATUS: Record<AdmissionErrorCode, 401 | 503> = {
  ADMISSION_MISSING: 401,
  ADMISSION_EXPIRED: 401,
  ADMISSION_INVALID: 401,
  JWKS_UNAVAILABLE: 503,
};

/** The refusal of `verifyAdmission`. Its message never contains the token. */
export class AdmissionError extends Error {
  readonly code: AdmissionErrorCode;
  /** HTTP status to answer (ADMISSION_ERROR_STATUS). */
  readonly status: 401 | 503;
  constructor(code: AdmissionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AdmissionError';
    this.code = code;
    this.status = ADMISSION_ERROR_STATUS[code];
  }
}

/** What a valid admission token tells the origin. Times are epoch ms. */
export interface Admission {
  /** The event the visitor was admitted to (`aud`). */
  eventId: string;
  /** The gateway's visitor id (`sub`): the account the gateway's holds belong to. */
  visitorId: string;
  /** The admission session (`sid`): the gateway can end it before `exp` (revoke, leave). */
  sessionId: string;
  /** Token id (`jti`). */
  tokenId: string;
  issuedAtMs: number;
  expiresAtMs: number;
}

/** Options of `verifyAdmission`. Give `gatewayUrl` (or `jwksUrl`), or your own `keys`. */
export interface AdmissionOptions {
  /** The event this origin page belongs to: the token's `aud` must be exactly this. */
  eventId: string;
  /** The gateway's base URL, e.g. `https://tickets.example.com`; keys come from its `/.well-known/jwks.json`. */
  gatewayUrl?: string | URL;
  /** The JWKS URL itself, when it is not at the gateway's well-known path. */
  jwksUrl?: string | URL;
  /** Key set to verify with instead of fetching (e.g. `createLocalJWKSet` in tests). */
  keys?: JWTVerifyGetKey;
  /** The gateway's `TOKEN_ISSUER` (default `waiting-room-gateway`). */
  issuer?: string;
  /** Skew allowed on `exp`/`nbf`/`iat` for this origin's clock, seconds (default 5; at most 60). */
  clockToleranceS?: number;
  /** How keys are fetched (default global `fetch`); e.g. `(r) => env.GATEWAY.fetch(r)` in a Worker. */
  fetch?: FetchLike;
  /** Current time for the check, epoch ms (default now; for tests). */
  nowMs?: number;
}

/** Anything an admission token can be read from: the token itself, a `Request`, or a Node request. */
export type AdmissionInput = string | Request | { headers: Headers | Record<string, string | string[] | undefined> };

/** How long fetched keys are used before they are fetched again, ms (jose's `cacheMaxAge`). */
export const JWKS_CACHE_MS = 5 * 60_000;
/** JWKS fetch timeout, ms (jose's `timeoutDuration`). */
export const JWKS_TIMEOUT_MS = 5_000;
/**
 * After a fetch, an unknown `kid` fetches the keys again only this long later, ms (jose's
 * `cooldownDuration`, 30 s by default; shorter here so a rotated key works within seconds).
 */
const JWKS_COOLDOWN_MS = 5_000;

/**
 * A remote key set for a gateway (jose `createRemoteJWKSet`): keys are fetched on first use,
 * cached JWKS_CACHE_MS, and fetched again early when a token names an unknown `kid` (key
 * rotation; at most once per `cooldownMs`). Keep one per gateway and pass it as `keys`.
 *
 * @param opts.fetch how to fetch (default global fetch); opts.cooldownMs default JWKS_COOLDOWN_MS
 * @throws TypeError when the URL is not http(s)
 */
export function gatewayKeys(jwksUrl: string | URL, opts: { fetch?: FetchLike; cooldownMs?: number } = {}): JWTVerifyGetKey {
  const url = new URL(jwksUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`jwksUrl must be http(s), got ${url.protocol}`);
  const f = opts.fetch;
  return createRemoteJWKSet(url, {
    cacheMaxAge: JWKS_CACHE_MS,
    timeoutDuration: JWKS_TIMEOUT_MS,
    cooldownDuration: opts.cooldownMs ?? JWKS_COOLDOWN_MS,
    ...(f ? { [customFetch]: (u: string, init: RequestInit) => f(new Request(u, init)) } : {}),
  });
}

/** One key set per JWKS URL in this process (one fetch per JWKS_CACHE_MS, not one per request); bounded. */
const keySets = new Map<string, JWTVerifyGetKey>();
const KEY_SETS_MAX = 32;

function keysFor(opts: AdmissionOptions): JWTVerifyGetKey {
  if (opts.keys) return opts.keys;
  const source = opts.jwksUrl ?? (opts.gatewayUrl !== undefined ? new URL(JWKS_PATH, opts.gatewayUrl) : undefined);
  if (source === undefined) throw new TypeError('verifyAdmission needs gatewayUrl, jwksUrl or keys');
  const url = new URL(source).href;
  // A custom fetch (a service binding) belongs to one caller: no shared cache entry for it.
  if (opts.fetch) return gatewayKeys(url, { fetch: opts.fetch });
  let set = keySets.get(url);
  if (!set) {
    if (keySets.size >= KEY_SETS_MAX) keySets.clear();
    set = gatewayKeys(url);
    keySets.set(url, set);
  }
  return set;
}

/** The admission token carried by `input` (`x-admission-token`), or null. */
export function admissionToken(input: AdmissionInput): string | null {
  if (typeof input === 'string') return input || null;
  const h = input.headers;
  const v = h instanceof Headers ? h.get(ADMISSION_HEADER) : h[ADMISSION_HEADER];
  const token = Array.isArray(v) ? v[0] : v;
  return token ? token : null;
}

function checkOptions(opts: AdmissionOptions): void {
  if (typeof opts?.eventId !== 'string' || opts.eventId.length === 0)
    throw new TypeError('eventId must be the event id (the token audience)');
  if (opts.issuer !== undefined && (typeof opts.issuer !== 'string' || !opts.issuer))
    throw new TypeError('issuer must be a non-empty string');
  const tol = opts.clockToleranceS;
  if (tol !== undefined && !(Number.isFinite(tol) && tol >= 0 && tol <= 60)) throw new TypeError('clockToleranceS must be 0-60 seconds');
}

/**
 * Verifies the gateway's admission token exactly as the gateway does (src/lib/token.ts): ES256
 * only (no `none`, no HMAC), `typ` = `wr-admission+jwt` (a queue ticket is refused), the
 * gateway's issuer, `aud` = the event, `exp`/`iat`/`sub`/`jti`/`sid` required, and no token older
 * than MAX_ADMISSION_AGE_S whatever its `exp`; CLOCK_TOLERANCE_S of skew for the origin's clock
 * (the gateway, on its own clock, ends the admission exactly at `exp`).
 *
 * @param input the token, or a request whose `x-admission-token` header carries it (the gateway
 *   sets that header on every request it proxies; a client-sent copy is replaced)
 * @returns the admission's claims
 * @throws AdmissionError ADMISSION_MISSING | ADMISSION_EXPIRED | ADMISSION_INVALID (status 401),
 *   JWKS_UNAVAILABLE (503); TypeError for bad options (nothing is fetched then)
 */
export async function verifyAdmission(input: AdmissionInput, options: AdmissionOptions): Promise<Admission> {
  checkOptions(options);
  const keys = keysFor(options);
  const token = admissionToken(input);
  if (!token) throw new AdmissionError('ADMISSION_MISSING', `no admission token (header ${ADMISSION_HEADER})`);
  let payload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      algorithms: [ADMISSION_ALG],
      typ: ADMISSION_TYP,
      issuer: options.issuer ?? DEFAULT_ISSUER,
      audience: options.eventId,
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'sid'],
      clockTolerance: options.clockToleranceS ?? CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_ADMISSION_AGE_S,
      ...(options.nowMs !== undefined ? { currentDate: new Date(options.nowMs) } : {}),
    }));
  } catch (err) {
    throw translate(err);
  }
  if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string')
    throw new AdmissionError('ADMISSION_INVALID', 'the admission token lacks its session, subject or id');
  return {
    eventId: options.eventId,
    visitorId: payload.sub,
    sessionId: payload.sid,
    tokenId: payload.jti,
    issuedAtMs: payload.iat! * 1000,
    expiresAtMs: payload.exp! * 1000,
  };
}

/** jose's error classes to our codes, in exactly one place. */
function translate(err: unknown): AdmissionError {
  if (err instanceof errors.JWTExpired) return new AdmissionError('ADMISSION_EXPIRED', 'the admission has expired', { cause: err });
  // A generic JOSEError (ERR_JOSE_GENERIC) is jose's "the JWKS answer was not 200 / not JSON".
  if (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')
  )
    return new AdmissionError('JWKS_UNAVAILABLE', `the gateway's keys could not be read (${err.code})`, { cause: err });
  if (err instanceof errors.JOSEError)
    return new AdmissionError('ADMISSION_INVALID', `the admission is not valid (${err.code})`, { cause: err });
  // Not jose's: fetching the key set failed (network, DNS, a non-JSON answer).
  return new AdmissionError('JWKS_UNAVAILABLE', "the gateway's keys could not be fetched", { cause: err });
}
