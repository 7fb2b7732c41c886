// Request-body parsing: size limit, nesting limit, JSON, zod schema; every failure is a 4xx GatewayError.
import type * as z from 'zod/mini';
import '../../contracts/zod';
import { GatewayError } from './errors';
import { MAX_TEMPLATE_BYTES } from '../../contracts/page-template';

/** Largest JSON body the gateway reads, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024;
/**
 * Largest body of an event's configuration or a scheduled change, in bytes: room for a waiting
 * page template (MAX_TEMPLATE_BYTES) twice over, as JSON escapes its quotes and line breaks.
 */
export const MAX_CONFIG_BODY_BYTES = MAX_BODY_BYTES + 2 * MAX_TEMPLATE_BYTES;
/** Deepest nesting of arrays and objects a JSON body may have (the deepest valid body, an event config, has 3). */
export const MAX_JSON_DEPTH = 8;

/**
 * The deepest array/object nesting in a JSON text, counted without parsing (strings skipped), so
 * a hostile `[[[[...` never reaches the recursive parser.
 */
function jsonDepth(raw: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) max = Math.max(max, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

/** A `Content-Length` value: 1*DIGIT (RFC 9110 section 8.6). */
const CONTENT_LENGTH = /^\d{1,15}$/;

/**
 * Reads a request body as text, stopping as soon as it exceeds `maxBytes` (a declared
 * `Content-Length` over the limit is refused before reading anything). A body with a declared
 * length within the limit is read whole in one runtime call (HTTP framing ends it at that length,
 * and its size is checked again after reading); one without (chunked) is read chunk by chunk,
 * cancelled at the first byte over. The one-call read saved about a quarter of a millisecond
 * per hold over the chunk loop, as profiled by `npm run bench:profile`.
 * @throws GatewayError PAYLOAD_TOO_LARGE (413); INVALID_REQUEST for bytes that are not UTF-8
 */
export async function readBodyText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const tooLarge = () => new GatewayError('PAYLOAD_TOO_LARGE', { detail: `the body exceeds ${maxBytes} bytes` });
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  if (!request.body) return '';
  if (declared !== null && CONTENT_LENGTH.test(declared)) {
    const whole = await request.arrayBuffer();
    if (whole.byteLength > maxBytes) throw tooLarge();
    return utf8(whole);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return utf8(all);
}

/**
 * The body as text, refusing bytes that are not UTF-8 (RFC 8259 section 8.1: JSON exchanged
 * between systems is UTF-8): a lenient decoder would store U+FFFD in their place.
 * @throws GatewayError INVALID_REQUEST
 */
function utf8(bytes: ArrayBuffer | Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new GatewayError('INVALID_REQUEST', { detail: 'the body is not valid UTF-8' });
  }
}

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether any string or member name in parsed JSON holds a lone surrogate. */
function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return LONE_SURROGATE.test(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (typeof v === 'object' && v !== null) return Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(x));
  return false;
}

/**
 * Parses a raw body against a schema. Unknown fields follow the schema: every body schema of the
 * gateway is a strict object (`z.strictObject`), so they are refused (docs/reference/api.md).
 * @throws GatewayError PAYLOAD_TOO_LARGE over `maxBytes`; INVALID_REQUEST for nesting deeper than
 *   MAX_JSON_DEPTH, bad JSON or shape (the detail names the first offending field)
 */
export function parseJsonBody<S extends z.ZodMiniType>(raw: string, schema: S, maxBytes = MAX_BODY_BYTES): z.infer<S> {
  if (new TextEncoder().encode(raw).byteLength > maxBytes)
    throw new GatewayError('PAYLOAD_TOO_LARGE', { detail: `the body exceeds ${maxBytes} bytes` });
  if (jsonDepth(raw) > MAX_JSON_DEPTH)
    throw new GatewayError('INVALID_REQUEST', { detail: `the body nests deeper than ${MAX_JSON_DEPTH} levels` });
  let data: unknown;
  try {
    data = raw === '' ? undefined : JSON.parse(raw);
  } catch {
    throw new GatewayError('INVALID_REQUEST', { detail: 'the body is not valid JSON' });
  }
  // Valid UTF-8 holds no surrogates, but JSON's \u escapes can write half of a pair (RFC 8259
  // section 8.2 allows it; RFC 7493 I-JSON does not): stored, it is text no client can read back.
  if (/\\u[dD][89a-fA-F]/.test(raw) && hasLoneSurrogate(data))
    throw new GatewayError('INVALID_REQUEST', {
      detail: 'the body holds half of a surrogate pair (a \\uD800-\\uDFFF escape without its other half): not text (RFC 7493 section 2.1)',
    });
  const result = schema.safeParse(data);
  if (!result.success) throw issueError(result.error.issues[0]!);
  return result.data as z.infer<S>;
}

/**
 * The GatewayError of a schema issue: INVALID_REQUEST with the field path and zod's message, or
 * the code a check names in its issue's `params.gatewayCode` (a waiting page template's problem:
 * PAGE_TEMPLATE_INVALID with its `rule`, `line` and `column` as members of the answer).
 */
export function issueError(issue: z.core.$ZodIssue): GatewayError {
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  const params = issue.code === 'custom' ? (issue.params as Record<string, unknown> | undefined) : undefined;
  if (params?.gatewayCode === 'PAGE_TEMPLATE_INVALID') {
    const { rule, line, column } = params;
    return new GatewayError('PAGE_TEMPLATE_INVALID', { detail: `${where}: ${issue.message}`, extra: { field: where, rule, line, column } });
  }
  return new GatewayError('INVALID_REQUEST', { detail: `${where}: ${issue.message}` });
}

/** Reads and parses a JSON request body: `readBodyText` then `parseJsonBody`. */
export async function readJsonBody<S extends z.ZodMiniType>(request: Request, schema: S, maxBytes = MAX_BODY_BYTES): Promise<z.infer<S>> {
  return parseJsonBody(await readBodyText(request, maxBytes), schema, maxBytes);
}
