// Structured decision logs: one JSON line per decision, with nothing secret or personal in it.

/** A value a log field may carry. */
export type LogValue = string | number | boolean | null;

/**
 * Field names never written, whatever their value: credentials and personal data. Matched
 * case-insensitively anywhere in the name (`visitorId`, `clientIp`, `x-admission-token`...).
 */
const FORBIDDEN_FIELD =
  /token|ticket|cookie|secret|authorization|signature|password|jwk|ip$|^ip|address|email|phone|name$|visitor|account/i;
/** A compact JWS/JWT (three base64url parts), wherever it sits in a string. */
const JWT_LIKE = /[\w-]{8,}\.[\w-]{8,}\.[\w-]*/g;
/**
 * A `sha256=<hex>` signature, a bare SHA-256 hex, or a base64 run longer than any id we log (event
 * ids are at most 64 characters): keys, HMACs, token fragments.
 */
const SECRET_LIKE = /sha256=[0-9a-f]*|\b[0-9a-fA-F]{64}\b|[A-Za-z0-9+/_=-]{65,}/g;
/** Longest string value kept, in characters (the rest is cut). */
const MAX_LOG_STRING = 200;

/**
 * Cleans one field value: numbers and booleans pass, strings lose anything token- or key-shaped,
 * control characters (so one decision stays one line) and everything past MAX_LOG_STRING.
 */
export function redactValue(value: LogValue): LogValue {
  if (typeof value !== 'string') return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
  return (
    value
      .replace(JWT_LIKE, '[redacted]')
      .replace(SECRET_LIKE, '[redacted]')
      // oxlint-disable-next-line no-control-regex -- control characters are what this removes (log injection)
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
      .slice(0, MAX_LOG_STRING)
  );
}

/**
 * Writes one decision as one JSON line on `console.log` (Workers Logs and `wrangler tail` index
 * JSON lines by field): `{"at": ISO time, "decision": event, ...fields}`.
 *
 * Allowed in fields: event ids, hold ids, error codes, HTTP statuses, counts, durations (ms),
 * rates and reasons. Redaction guarantee: a field whose name looks like a credential or personal
 * datum (see FORBIDDEN_FIELD: tokens, tickets, cookies, secrets, signatures, IPs, visitor and
 * account ids, names, addresses) is dropped, and string values lose JWT-, HMAC- and key-shaped
 * substrings and control characters, so a careless caller cannot leak a token through a message.
 *
 * @param event dotted decision name, e.g. `hold.granted`, `hold.refused`, `origin.fault`
 * @param fields flat values only; nested objects are not accepted
 */
export function logDecision(event: string, fields: Record<string, LogValue> = {}): void {
  const line: Record<string, LogValue> = { at: new Date().toISOString(), decision: redactValue(event) };
  for (const [name, value] of Object.entries(fields)) {
    if (FORBIDDEN_FIELD.test(name) || name === 'at' || name === 'decision') continue;
    line[name] = redactValue(value);
  }
  console.log(JSON.stringify(line));
}
