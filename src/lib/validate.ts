// Request-body parsing: size limit, JSON, zod schema; every failure is a 4xx GatewayError.
import type { z } from 'zod';
import { GatewayError } from './errors';

/** Largest JSON body the gateway reads, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Parses a raw body against a schema.
 * @throws GatewayError PAYLOAD_TOO_LARGE over `maxBytes`; INVALID_REQUEST for bad JSON or shape
 *   (the detail names the first offending field)
 */
export function parseJsonBody<S extends z.ZodType>(raw: string, schema: S, maxBytes = MAX_BODY_BYTES): z.infer<S> {
  if (new TextEncoder().encode(raw).byteLength > maxBytes)
    throw new GatewayError('PAYLOAD_TOO_LARGE', `the body exceeds ${maxBytes} bytes`);
  let data: unknown;
  try {
    data = raw === '' ? undefined : JSON.parse(raw);
  } catch {
    throw new GatewayError('INVALID_REQUEST', 'the body is not valid JSON');
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
    throw new GatewayError('INVALID_REQUEST', `${where}: ${issue.message}`);
  }
  return result.data as z.infer<S>;
}
