// Origin API request signing: HMAC-SHA256 over "<timestamp>.<raw body>", with a replay window.

/** Header carrying the signing time, Unix seconds. */
export const TIMESTAMP_HEADER = 'x-wr-timestamp';
/** Header carrying `sha256=<hex HMAC>`. */
export const SIGNATURE_HEADER = 'x-wr-signature';
/** Signed requests older or newer than this many seconds are refused. */
export const SIGNATURE_WINDOW_S = 300;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Headers that sign `body` at `nowMs` (the scheme of Stripe / GitHub webhooks: a timestamp is
 * part of the MAC so a captured request can be replayed only inside the window).
 */
export async function signOriginRequest(secret: string, body: string, nowMs: number): Promise<Record<string, string>> {
  const ts = String(Math.floor(nowMs / 1000));
  return { [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `sha256=${await hmacHex(secret, `${ts}.${body}`)}` };
}

/**
 * Checks a signed origin request.
 * @returns true only for a well-formed, matching signature whose timestamp is inside the window
 */
export async function verifyOriginSignature(
  secret: string,
  body: string,
  timestamp: string | undefined,
  signature: string | undefined,
  nowMs: number,
): Promise<boolean> {
  if (!secret || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_S) return false;
  const expected = `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;
  if (expected.length !== signature.length) return false;
  // Constant-time comparison: no early exit on the first differing byte.
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ signature.charCodeAt(i);
  return diff === 0;
}
