// The gateway's wire protocol as an origin sees it: header and claim names, token rules, and the
// HMAC request signing of the origin API. Web Crypto only, so it runs on Node >= 20 and in Workers.

/** Header in which the gateway forwards the visitor's admission token to the origin. */
export const ADMISSION_HEADER = 'x-admission-token';
/** JOSE `typ` of an admission token (a queue ticket has `wr-ticket+jwt` and is never accepted here). */
export const ADMISSION_TYP = 'wr-admission+jwt';
/** The only signature algorithm the gateway uses (ECDSA P-256, RFC 7518 section 3.4). */
export const ADMISSION_ALG = 'ES256';
/** Default `iss` of the gateway's tokens (its `TOKEN_ISSUER` setting). */
export const DEFAULT_ISSUER = 'waiting-room-gateway';
/**
 * Clock skew an origin tolerates on `exp` / `nbf` / `iat` of an admission token, seconds: the
 * origin's clock may drift from the gateway's, which minted the token. The gateway itself ends an
 * admission exactly at `exp` by its own clock (docs/decisions/0051-clock-tolerance.md).
 */
export const CLOCK_TOLERANCE_S = 5;
/** Longest lifetime an admission token may claim, in seconds (a token issued earlier is refused). */
export const MAX_ADMISSION_AGE_S = 2 * 60 * 60;
/** Path of the gateway's public keys (RFC 8615 well-known URI, RFC 7517 JWK Set). */
export const JWKS_PATH = '/.well-known/jwks.json';

/** Header carrying the signing time of an origin API request, Unix seconds. */
export const TIMESTAMP_HEADER = 'x-wr-timestamp';
/** Header carrying `sha256=<hex HMAC>` of an origin API request. */
export const SIGNATURE_HEADER = 'x-wr-signature';
/** Signed requests older than this many seconds by the receiver's clock are refused (the replay window). */
export const SIGNATURE_WINDOW_S = 300;
/**
 * Signed requests dated more than this many seconds ahead of the receiver's clock are refused
 * (clock skew; a report signed far ahead must not lock out the correctly timed ones).
 */
export const MAX_FUTURE_SKEW_S = 5;

/**
 * Header naming the key a sales channel signs with: `<channelId>.<generation>`. The
 * signature itself is `SIGNATURE_HEADER` and `TIMESTAMP_HEADER`, made with `signOriginRequest`
 * and the channel's own secret instead of the origin's.
 */
export const CHANNEL_KEY_HEADER = 'x-wr-channel-key';

/** Origin response header with a command for the gateway; the gateway strips it before the browser sees it. */
export const COMMAND_HEADER = 'x-wr-command';
/** Value of `COMMAND_HEADER` that ends the visitor's admission session at once and frees its active slot. */
export const REVOKE_COMMAND = 'revoke';

const encoder = new TextEncoder();

/**
 * The signed text: `METHOD\nPATH\nTIMESTAMP\nBODY`. Binding method and path (which carries the
 * event and hold ids) means a captured signature cannot be replayed against another endpoint,
 * event or hold; the timestamp bounds replays of the same request to the window.
 */
export function signingInput(method: string, path: string, timestamp: string, body: string): string {
  return `${method.toUpperCase()}\n${path}\n${timestamp}\n${body}`;
}

function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function unhex(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2}){32}$/.test(text)) return null;
  const out = new Uint8Array(new ArrayBuffer(text.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function requireSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('secret must be the non-empty ORIGIN_HMAC_SECRET');
}

/**
 * Headers that sign a request to the gateway's origin API (or to an origin's own operator API) at
 * `nowMs`: `x-wr-timestamp` (Unix seconds) and `x-wr-signature: sha256=<hex>`, HMAC-SHA256 with
 * `secret` over `signingInput` (in the manner of Stripe's and GitHub's webhook signatures, with
 * the method and path added). Source: docs/reference/api.md, "Origin API (HMAC)".
 *
 * @param method HTTP method, any case
 * @param path the URL path without query, e.g. `/_wr/origin/events/demo/health`
 * @param body the exact body bytes that will be sent, as text (`''` for GET)
 * @param nowMs signing time, epoch ms (rounded down to whole seconds)
 * @throws TypeError when `secret` is empty or `path` does not start with `/`
 */
export async function signOriginRequest(
  secret: string,
  method: string,
  path: string,
  body: string,
  nowMs: number,
): Promise<Record<string, string>> {
  requireSecret(secret);
  if (!path.startsWith('/') || path.includes('?')) throw new TypeError(`path must be a URL path without query, got "${path}"`);
  const ts = String(Math.floor(nowMs / 1000));
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), encoder.encode(signingInput(method, path, ts, body)));
  return { [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `sha256=${hex(mac)}` };
}

/**
 * True when a timestamp header (Unix seconds) is well-formed and at most SIGNATURE_WINDOW_S
 * before, and at most MAX_FUTURE_SKEW_S after, `nowMs` (epoch ms).
 */
export function timestampFresh(timestamp: string | null | undefined, nowMs: number): boolean {
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
  const ageS = nowMs / 1000 - Number(timestamp);
  return ageS <= SIGNATURE_WINDOW_S && ageS >= -MAX_FUTURE_SKEW_S;
}

/**
 * Checks a signed request (the receiving side of `signOriginRequest`). The comparison is
 * `crypto.subtle.verify`, constant-time in both Node and workerd.
 *
 * @param request method, path without query, and the raw body text as received
 * @param timestamp the `x-wr-timestamp` header; signature the `x-wr-signature` header
 * @returns true only for a matching signature over this method, path, timestamp and body, with a
 *   timestamp at most SIGNATURE_WINDOW_S old and MAX_FUTURE_SKEW_S ahead of `nowMs`; false for
 *   anything else (never throws on bad input)
 */
export async function verifyOriginSignature(
  secret: string,
  request: { method: string; path: string; body: string },
  timestamp: string | null | undefined,
  signature: string | null | undefined,
  nowMs: number,
): Promise<boolean> {
  if (typeof secret !== 'string' || !secret || typeof signature !== 'string' || !timestampFresh(timestamp, nowMs)) return false;
  const mac = signature.startsWith('sha256=') ? unhex(signature.slice(7)) : null;
  if (!mac) return false;
  const input = encoder.encode(signingInput(request.method, request.path, timestamp!, request.body));
  return crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), mac, input);
}

/** `X-WR-Signature` value prefix of a v2 signature (`v2=<hex>`), which also covers the `Idempotency-Key`. */
export const SIGNATURE_V2_PREFIX = 'v2=';

/**
 * The v2 signed text: `v2\nMETHOD\nPATH\nTIMESTAMP\nIDEMPOTENCY-KEY\nBODY`, the key an empty line
 * when the request has none. v1 (`signingInput`) leaves the key out: a captured signed hold could
 * be sent again within the replay window under new keys, each one a new hold. The
 * leading `v2` keeps a signature of one version from ever matching the text of the other.
 * Source: docs/reference/api.md, "Sales channel API", signature versions.
 */
export function signingInputV2(method: string, path: string, timestamp: string, idempotencyKey: string, body: string): string {
  return `v2\n${method.toUpperCase()}\n${path}\n${timestamp}\n${idempotencyKey}\n${body}`;
}

/**
 * Headers that sign a sales-channel request v2 at `nowMs`: `x-wr-timestamp` (Unix seconds) and
 * `x-wr-signature: v2=<hex>`, HMAC-SHA256 with the channel's `secret` over `signingInputV2`. The
 * gateway requires v2 for every channel request that carries an `Idempotency-Key` (holds).
 *
 * @param path the URL path without query, e.g. `/_wr/channel/events/demo/holds`
 * @param body the exact body bytes that will be sent, as text (`''` for GET)
 * @param nowMs signing time, epoch ms (rounded down to whole seconds)
 * @param idempotencyKey the `Idempotency-Key` header that will be sent, or `''` for none
 * @throws TypeError when `secret` is empty or `path` does not start with `/`
 */
export async function signChannelRequest(
  secret: string,
  method: string,
  path: string,
  body: string,
  nowMs: number,
  idempotencyKey = '',
): Promise<Record<string, string>> {
  requireSecret(secret);
  if (!path.startsWith('/') || path.includes('?')) throw new TypeError(`path must be a URL path without query, got "${path}"`);
  const ts = String(Math.floor(nowMs / 1000));
  const input = signingInputV2(method, path, ts, idempotencyKey, body);
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), encoder.encode(input));
  return { [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `${SIGNATURE_V2_PREFIX}${hex(mac)}` };
}

/**
 * Checks a v2-signed request (the receiving side of `signChannelRequest`), in constant time.
 *
 * @param request method, path without query, raw body text, and the `Idempotency-Key` as received (`''` for none)
 * @returns true only for a `v2=` signature over exactly these, with a fresh timestamp (as
 *   `verifyOriginSignature`); false for anything else (never throws on bad input)
 */
export async function verifyChannelSignature(
  secret: string,
  request: { method: string; path: string; body: string; idempotencyKey: string },
  timestamp: string | null | undefined,
  signature: string | null | undefined,
  nowMs: number,
): Promise<boolean> {
  if (typeof secret !== 'string' || !secret || typeof signature !== 'string' || !timestampFresh(timestamp, nowMs)) return false;
  const mac = signature.startsWith(SIGNATURE_V2_PREFIX) ? unhex(signature.slice(SIGNATURE_V2_PREFIX.length)) : null;
  if (!mac) return false;
  const input = encoder.encode(signingInputV2(request.method, request.path, timestamp!, request.idempotencyKey, request.body));
  return crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), mac, input);
}

/** Something whose headers can be set: a `Headers`, a `Response`, or a Node `ServerResponse`-like object. */
export type HeaderTarget = Headers | { headers: Headers } | { setHeader(name: string, value: string): unknown };

/**
 * Tells the gateway to end this visitor's admission session when it relays this response
 * (`X-WR-Command: revoke`): the visitor's slot is freed at once, as after a completed checkout
 * (Cloudflare Waiting Room's `Cf-Waiting-Room-Command: revoke` does the same). The gateway strips
 * the header, so the browser never sees it. Set it only on responses to admitted visitors.
 *
 * @param target the response headers (a `Headers`, a `Response`, or a Node/Express response)
 * @throws TypeError when `target` has no way to set a header
 */
export function revokeSession(target: HeaderTarget): void {
  if (target instanceof Headers) return target.set(COMMAND_HEADER, REVOKE_COMMAND);
  if ('setHeader' in target && typeof target.setHeader === 'function') {
    target.setHeader(COMMAND_HEADER, REVOKE_COMMAND);
    return;
  }
  if ('headers' in target && target.headers instanceof Headers) return target.headers.set(COMMAND_HEADER, REVOKE_COMMAND);
  throw new TypeError('revokeSession needs a Headers, a Response or a Node response');
}

/**
 * Header the gateway sets on every request it forwards to the origin (rooms and pass-through
 * alike), overwriting any client-sent copy: the origin-pull key, so the origin can refuse requests
 * that reached it without passing the gateway (bots find origin hosts through DNS history and
 * certificates). The same idea as CloudFront's secret custom origin header; a network lock
 * (Cloudflare Tunnel, Authenticated Origin Pulls, a firewall to Cloudflare's addresses) is stronger
 * and can be combined with it.
 */
export const ORIGIN_PULL_HEADER = 'x-wr-origin-pull';

const ORIGIN_PULL_LABEL = 'waiting-room-gateway origin pull v1';

/**
 * The origin-pull key for `secret` (the shared ORIGIN_HMAC_SECRET): hex HMAC-SHA256(secret,
 * "waiting-room-gateway origin pull v1"), 64 characters. Derived, so no new secret is configured
 * and the HMAC secret itself never travels; it changes when the secret is rotated.
 *
 * @throws TypeError when `secret` is empty
 */
export async function originPullKey(secret: string): Promise<string> {
  requireSecret(secret);
  return hex(await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), encoder.encode(ORIGIN_PULL_LABEL)));
}

/**
 * True when a request came through the gateway: its `X-WR-Origin-Pull` header (`ORIGIN_PULL_HEADER`)
 * is the origin-pull key of one of `secrets` (the current ORIGIN_HMAC_SECRET, and the previous one
 * during a rotation). Compared in constant time (HMAC verify). A request without the header, or
 * with any other value, is false: answer it 403, or send it to the gateway's URL.
 *
 * @param value the request's `X-WR-Origin-Pull` header, or null/undefined when absent
 * @param secrets the secrets it may be derived from; empty strings are skipped
 */
export async function fromGateway(value: string | null | undefined, secrets: readonly string[]): Promise<boolean> {
  const mac = typeof value === 'string' ? unhex(value) : null;
  if (!mac) return false;
  for (const secret of secrets) {
    if (!secret) continue;
    if (await crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), mac, encoder.encode(ORIGIN_PULL_LABEL))) return true;
  }
  return false;
}
