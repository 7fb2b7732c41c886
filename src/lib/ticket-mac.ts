// HS256 queue tickets built and checked by hand (RFC 7515/7519 compact JWS): one HMAC per join
// instead of jose's generic builder, which cost about ten times the MAC itself (docs/explanation/scaling.md).
import type { JWTPayload } from 'jose';
import { TICKET_TYP } from '../../contracts/names';
import { GatewayError } from './errors';

/** JOSE `alg` of a queue ticket: only the gateway reads tickets, so a shared-secret MAC is enough. */
const TICKET_ALG = 'HS256';
/** Shortest ticket secret accepted, in characters (32 random bytes as base64 are 44). */
const MIN_TICKET_SECRET_CHARS = 32;

/** One HMAC ticket key: its `kid`, the ticket header it signs under (base64url), the key. */
export interface TicketKey {
  kid: string;
  /** The whole protected header, base64url: a ticket verifies only with exactly this header. */
  header: string;
  key: CryptoKey;
}

/** What a ticket's claims must satisfy (the rules jose's jwtVerify applies). */
export interface TicketRules {
  issuer: string;
  audience: string;
  nowMs: number;
  /** A ticket issued longer ago than this is expired whatever its `exp` says, seconds. */
  maxAgeS: number;
  /** Clock skew tolerated on `exp` / `nbf` / `iat`, seconds. */
  toleranceS: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** base64url without padding (RFC 7515 section 2) of bytes. */
function b64url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]!);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of base64url text, or null when it is not base64url. */
function fromB64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/**
 * A ticket key from its secret: kid = `t-` + 8 base64url characters of
 * SHA-256("wr-ticket-kid\n" + secret), so tickets name their secret without revealing it.
 * @param name the variable holding the secret, for the error
 * @throws Error naming the variable when the secret is shorter than MIN_TICKET_SECRET_CHARS
 */
export async function ticketKey(secret: string, name: string): Promise<TicketKey> {
  if (secret.length < MIN_TICKET_SECRET_CHARS) throw new Error(`${name} must be at least ${MIN_TICKET_SECRET_CHARS} characters`);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`wr-ticket-kid\n${secret}`)));
  const kid = `t-${b64url(digest).slice(0, 8)}`;
  const header = b64url(encoder.encode(JSON.stringify({ alg: TICKET_ALG, kid, typ: TICKET_TYP })));
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return { kid, header, key };
}

/** The compact JWS of `payload` under `key`: `header.payload.mac`, all base64url. */
export async function macTicket(key: TicketKey, payload: JWTPayload): Promise<string> {
  const signed = `${key.header}.${b64url(encoder.encode(JSON.stringify(payload)))}`;
  const mac = await crypto.subtle.sign('HMAC', key.key, encoder.encode(signed));
  return `${signed}.${b64url(new Uint8Array(mac))}`;
}

/**
 * The checked payload of an HS256 ticket signed by one of `keys`, or null when its header is not
 * one of theirs (then it may be an ES256 ticket). The header must equal a key's header byte for
 * byte, which pins `alg`, `typ` and `kid` at once; the MAC is compared in constant time by
 * `crypto.subtle.verify`; then the claims as jose checks them: issuer, audience, `sub`/`jti`
 * strings, `iat`/`exp` numbers, `nbf` (if any) passed, `exp` not passed and `iat` no older than
 * `maxAgeS`, all with `toleranceS` of skew.
 *
 * @throws GatewayError TOKEN_EXPIRED past `exp` or `maxAgeS`; TOKEN_INVALID when the header is ours
 *   but anything else is wrong
 */
export async function verifyMacTicket(keys: readonly TicketKey[], token: string, rules: TicketRules): Promise<JWTPayload | null> {
  const parts = token.split('.');
  const key = parts.length === 3 ? keys.find((k) => k.header === parts[0]) : undefined;
  if (!key) return null;
  const invalid = () => new GatewayError('TOKEN_INVALID', { detail: 'the ticket is not valid for this event' });
  const mac = fromB64url(parts[2]!);
  const body = fromB64url(parts[1]!);
  if (!mac || !body || !(await crypto.subtle.verify('HMAC', key.key, mac, encoder.encode(`${parts[0]}.${parts[1]}`)))) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(body));
  } catch {
    throw invalid();
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw invalid();
  const { iss, aud, sub, jti, iat, exp, nbf } = payload as JWTPayload;
  const now = Math.floor(rules.nowMs / 1000);
  const skew = rules.toleranceS;
  if (iss !== rules.issuer || aud !== rules.audience || typeof sub !== 'string' || !sub || typeof jti !== 'string') throw invalid();
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) throw invalid();
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + skew)) throw invalid();
  if (now - iat < -skew) throw invalid();
  if (exp <= now - skew || now - iat - skew > rules.maxAgeS) throw new GatewayError('TOKEN_EXPIRED', { detail: 'the ticket has expired' });
  return payload as JWTPayload;
}
