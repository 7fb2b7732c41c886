// Origin API request signing: HMAC-SHA256 over method, path, timestamp and raw body.
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './names';

/** Signed requests older than this many seconds are refused (the replay window). */
export const SIGNATURE_WINDOW_S = 300;
/**
 * Signed requests dated more than this many seconds ahead of the receiver's clock are refused: a
 * correct clock never signs in the future, so only skew (NTP keeps it well under a second) is
 * allowed, the same as the tokens' clock tolerance. A wider future window let one report signed
 * 300 s ahead lock out every correctly timed one (#14.6).
 */
export const MAX_FUTURE_SKEW_S = 5;

const encoder = new TextEncoder();

/**
 * The signed text: `METHOD\nPATH\nTIMESTAMP\nBODY`. Binding method and path (which carries the
 * event and hold ids) means a captured signature cannot be replayed against another endpoint,
 * event or hold; the timestamp bounds replays of the same request to the window.
 */
export function signingInput(method: string, path: string, timestamp: string, body: string): string {
  return `${method.toUpperCase()}\n${path}\n${timestamp}\n${body}`;
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Headers that sign a request to the origin API at `nowMs` (in the manner of Stripe's and GitHub's
 * webhook signatures, with the method and path added).
 *
 * @param path the URL path, without query, e.g. `/_wr/origin/events/demo/health`
 */
export async function signOriginRequest(
  secret: string,
  method: string,
  path: string,
  body: string,
  nowMs: number,
): Promise<Record<string, string>> {
  const ts = String(Math.floor(nowMs / 1000));
  return { [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `sha256=${await hmacHex(secret, signingInput(method, path, ts, body))}` };
}

/** Why a signed timestamp is refused: missing or malformed, older than the window, or ahead of the clock. */
export type TimestampProblem = 'malformed' | 'too_old' | 'ahead';

/**
 * Checks a signed timestamp (Unix seconds) against the receiver's clock: at most
 * SIGNATURE_WINDOW_S old and at most MAX_FUTURE_SKEW_S ahead. Checked before the body is read, so
 * unsigned floods cost little.
 * @returns null when fresh, else the problem
 */
export function timestampProblem(timestamp: string | undefined, nowMs: number): TimestampProblem | null {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return 'malformed';
  const ageS = nowMs / 1000 - Number(timestamp);
  if (ageS > SIGNATURE_WINDOW_S) return 'too_old';
  if (ageS < -MAX_FUTURE_SKEW_S) return 'ahead';
  return null;
}

/** True when a timestamp header is well-formed and inside the window around `nowMs` (see timestampProblem). */
export function timestampFresh(timestamp: string | undefined, nowMs: number): boolean {
  return timestampProblem(timestamp, nowMs) === null;
}

/**
 * Checks a signed origin request.
 * @returns true only for a matching signature over this method, path, timestamp and body, with a
 *   timestamp inside the window
 */
export async function verifyOriginSignature(
  secret: string,
  request: { method: string; path: string; body: string },
  timestamp: string | undefined,
  signature: string | undefined,
  nowMs: number,
): Promise<boolean> {
  if (!secret || !signature || !timestampFresh(timestamp, nowMs)) return false;
  const expected = `sha256=${await hmacHex(secret, signingInput(request.method, request.path, timestamp!, request.body))}`;
  return secretsEqual(expected, signature);
}

/**
 * Compares a presented secret with the expected one in constant time: both are hashed with
 * SHA-256 first, so the compared buffers always have equal length (a length difference leaks
 * nothing either), then `crypto.subtle.timingSafeEqual` (a Workers runtime extension) compares
 * every byte without an early exit.
 * @returns true only when the two strings are identical
 */
export async function secretsEqual(presented: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(presented)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
