// Authenticates sales-channel API calls: the origin API's HMAC signature, made with the channel's own key.
import { createMiddleware } from 'hono/factory';
import { GatewayError } from '../lib/errors';
import {
  MAX_FUTURE_SKEW_S,
  SIGNATURE_V2_PREFIX,
  SIGNATURE_WINDOW_S,
  timestampProblem,
  verifyChannelSignature,
  verifyOriginSignature,
} from '../../contracts/hmac';
import { CHANNEL_KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../contracts/names';
import { deriveChannelSecret, parseChannelKeyId } from '../lib/channel-keys';
import { gatewaySettings } from '../lib/settings';
import { readBodyText } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/**
 * Refuses channel API requests without a valid, fresh signature by the key `X-WR-Channel-Key`
 * names. Two signature versions (docs/reference/api.md, "Sales channel API"): v2 (`X-WR-Signature: v2=...`)
 * covers the `Idempotency-Key` too and is required on every request that carries one (a hold);
 * v1 (`sha256=...`) is still taken on requests without one. Sets `channel` (the caller, checked against the channel registry by the Inventory
 * in the same call as the action) and `rawBody`. Size, key id and timestamp are checked before the
 * body is read; no object is called, so unsigned floods stop here.
 * @throws GatewayError SIGNATURE_INVALID (401; also when CHANNEL_KEY_SECRET is unset), PAYLOAD_TOO_LARGE (413)
 */
export function channelSignature() {
  return createMiddleware<AppEnv>(async function channelSignature(c, next) {
    const now = Date.now();
    const eventId = eventIdParam(c);
    const caller = parseChannelKeyId(c.req.header(CHANNEL_KEY_HEADER));
    if (!caller)
      throw new GatewayError('SIGNATURE_INVALID', {
        detail: `send ${CHANNEL_KEY_HEADER}: <channelId>.<generation>, as the organizer gave it`,
      });
    const timestamp = c.req.header(TIMESTAMP_HEADER);
    const problem = timestampProblem(timestamp, now);
    if (problem === 'ahead')
      throw new GatewayError('SIGNATURE_INVALID', {
        detail: `${TIMESTAMP_HEADER} is ahead of the gateway's clock by more than ${MAX_FUTURE_SKEW_S} s`,
      });
    if (problem === 'too_old')
      throw new GatewayError('SIGNATURE_INVALID', { detail: `${TIMESTAMP_HEADER} is older than ${SIGNATURE_WINDOW_S} s` });
    const invalid = new GatewayError('SIGNATURE_INVALID', {
      detail: `sign "v2\\nMETHOD\\nPATH\\nTIMESTAMP\\nIDEMPOTENCY-KEY\\nBODY" with HMAC-SHA256 and the channel's secret; send ${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER}: v2=<hex> (an unknown channel or an old key fails here too)`,
    });
    if (problem !== null) throw invalid;
    const signature = c.req.header(SIGNATURE_HEADER);
    const idempotencyKey = c.req.header('idempotency-key');
    const v2 = signature?.startsWith(SIGNATURE_V2_PREFIX) ?? false;
    // A v1 signature leaves the key out: the same signed hold under new keys would be new holds.
    if (idempotencyKey !== undefined && !v2)
      throw new GatewayError('SIGNATURE_INVALID', {
        detail: `a request with Idempotency-Key must be signed v2, which covers the key: ${SIGNATURE_HEADER}: v2=<hex HMAC-SHA256 over "v2\\nMETHOD\\nPATH\\nTIMESTAMP\\nIDEMPOTENCY-KEY\\nBODY">`,
      });
    const root = gatewaySettings(c.env).channelKeySecret;
    if (!root) throw new GatewayError('SIGNATURE_INVALID', { detail: 'the channel API is off: the gateway has no CHANNEL_KEY_SECRET' });
    const body = await readBodyText(c.req.raw);
    const secret = await deriveChannelSecret(root, eventId, caller.channelId, caller.generation);
    const request = { method: c.req.method, path: new URL(c.req.url).pathname, body };
    const valid = v2
      ? await verifyChannelSignature(secret, { ...request, idempotencyKey: idempotencyKey ?? '' }, timestamp, signature, now)
      : await verifyOriginSignature(secret, request, timestamp, signature, now);
    if (!valid) throw invalid;
    c.set('rawBody', body);
    c.set('channel', caller);
    await next();
  });
}
