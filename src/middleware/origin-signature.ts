// Authenticates origin API calls: HMAC-SHA256 over method, path, timestamp and body (contracts/hmac.ts).
import { createMiddleware } from 'hono/factory';
import { GatewayError } from '../lib/errors';
import { MAX_FUTURE_SKEW_S, SIGNATURE_WINDOW_S, timestampProblem, verifyOriginSignature } from '../../contracts/hmac';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../contracts/names';
import { gatewaySettings } from '../lib/settings';
import { readBodyText } from '../lib/validate';
import type { AppEnv } from '../types';

/**
 * Refuses origin API requests without a valid, fresh signature and keeps the signed raw body.
 * Size and timestamp are checked before the body is read.
 * @throws GatewayError SIGNATURE_INVALID (401), PAYLOAD_TOO_LARGE (413)
 */
export function originSignature() {
  return createMiddleware<AppEnv>(async function originSignature(c, next) {
    const now = Date.now();
    const invalid = new GatewayError('SIGNATURE_INVALID', {
      detail: `sign "METHOD\\nPATH\\nTIMESTAMP\\nBODY" with HMAC-SHA256; send ${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER}`,
    });
    const timestamp = c.req.header(TIMESTAMP_HEADER);
    const problem = timestampProblem(timestamp, now);
    // A clock off by more than the window is an origin to fix, not a forgery: say which way.
    if (problem === 'ahead')
      throw new GatewayError('SIGNATURE_INVALID', {
        detail: `${TIMESTAMP_HEADER} is ${Math.round(Number(timestamp) - now / 1000)} s ahead of the gateway's clock (at most ${MAX_FUTURE_SKEW_S} s allowed): check the origin's clock`,
      });
    if (problem === 'too_old')
      throw new GatewayError('SIGNATURE_INVALID', {
        detail: `${TIMESTAMP_HEADER} is older than ${SIGNATURE_WINDOW_S} s: sign each request when sending it`,
      });
    if (problem !== null) throw invalid;
    // Counted in bytes while reading (a UTF-8 body of 16 K characters can be 48 KiB).
    const body = await readBodyText(c.req.raw);
    const request = { method: c.req.method, path: new URL(c.req.url).pathname, body };
    if (!(await verifyOriginSignature(gatewaySettings(c.env).originHmacSecret, request, timestamp, c.req.header(SIGNATURE_HEADER), now)))
      throw invalid;
    c.set('rawBody', body);
    c.set('signedAtMs', Number(timestamp) * 1000);
    await next();
  });
}
