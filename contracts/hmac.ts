// Origin API request signing: HMAC-SHA256 over method, path, timestamp and raw body. The rules and
// the signing code are the origin SDK's (origin-sdk/src/protocol.ts, the one source an origin and
// the gateway share); this module adds what only the receiving gateway needs: why a timestamp is
// refused (for distinct error codes) and a constant-time comparison of bearer secrets.
import { MAX_FUTURE_SKEW_S, SIGNATURE_WINDOW_S } from '../origin-sdk/src/protocol.ts';

export {
  MAX_FUTURE_SKEW_S,
  SIGNATURE_V2_PREFIX,
  SIGNATURE_WINDOW_S,
  signChannelRequest,
  signOriginRequest,
  originPullKey,
  verifyChannelSignature,
  verifyOriginSignature,
} from '../origin-sdk/src/protocol.ts';

const encoder = new TextEncoder();

/** Why a signed timestamp is refused: missing or malformed, older than the window, or ahead of the clock. */
export type TimestampProblem = 'malformed' | 'too_old' | 'ahead';

/**
 * Checks a signed timestamp (Unix seconds) against the receiver's clock: at most
 * SIGNATURE_WINDOW_S old and at most MAX_FUTURE_SKEW_S ahead (the same rule as the SDK's
 * `timestampFresh`, with the reason). Checked before the body is read, so unsigned floods cost little.
 * @returns null when fresh, else the problem
 */
export function timestampProblem(timestamp: string | undefined, nowMs: number): TimestampProblem | null {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return 'malformed';
  const ageS = nowMs / 1000 - Number(timestamp);
  if (ageS > SIGNATURE_WINDOW_S) return 'too_old';
  if (ageS < -MAX_FUTURE_SKEW_S) return 'ahead';
  return null;
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
