// Authenticates origin API calls: HMAC-SHA256 over "<timestamp>.<raw body>" (see lib/hmac.ts).
import { createMiddleware } from 'hono/factory';
import { GatewayError } from '../lib/errors';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyOriginSignature } from '../lib/hmac';
import type { AppEnv } from '../types';

/** Variables set by `originSignature`. */
export interface OriginVariables {
  /** The request body exactly as signed. */
  rawBody: string;
}

/**
 * Refuses origin API requests without a valid, fresh signature and keeps the signed raw body.
 * @throws GatewayError SIGNATURE_INVALID (401)
 */
export function originSignature() {
  return createMiddleware<AppEnv>(async function originSignature(c, next) {
    const body = await c.req.text();
    const ok = await verifyOriginSignature(
      c.env.ORIGIN_HMAC_SECRET,
      body,
      c.req.header(TIMESTAMP_HEADER),
      c.req.header(SIGNATURE_HEADER),
      Date.now(),
    );
    if (!ok)
      throw new GatewayError(
        'SIGNATURE_INVALID',
        `sign "<timestamp>.<body>" with HMAC-SHA256 and send ${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER}`,
      );
    c.set('rawBody', body);
    await next();
  });
}
