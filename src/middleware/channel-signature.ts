// Authenticates sales-channel API calls: the origin API's HMAC signature, made with the channel's own key.
import { createMiddleware } from 'hono/factory';
import { GatewayError } from '../lib/errors';
import { MAX_FUTURE_SKEW_S, SIGNATURE_WINDOW_S, timestampProblem, verifyOriginSignature } from '../../contracts/hmac';
import { CHANNEL_KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../contracts/names';
import { deriveChannelSecret, parseChannelKeyId } from '../lib/channel-keys';
import { gatewaySettings } from '../lib/settings';
import { readBodyText } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/**
 * Refuses channel API requests without a valid, fresh signature by the key `X-WR-Channel-Key`
 * names, and sets `channel` (the caller, checked against the channel registry by the Inventory
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
      detail: `sign "METHOD\\nPATH\\nTIMESTAMP\\nBODY" with HMAC-SHA256 and the channel's secret; send ${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} (an unknown channel or an old key fails here too)`,
    });
    if (problem !== null) throw invalid;
    const root = gatewaySettings(c.env).channelKeySecret;
    if (!root) throw new GatewayError('SIGNATURE_INVALID', { detail: 'the channel API is off: the gateway has no CHANNEL_KEY_SECRET' });
    const body = await readBodyText(c.req.raw);
    const secret = await deriveChannelSecret(root, eventId, caller.channelId, caller.generation);
    const request = { method: c.req.method, path: new URL(c.req.url).pathname, body };
    if (!(await verifyOriginSignature(secret, request, timestamp, c.req.header(SIGNATURE_HEADER), now))) throw invalid;
    c.set('rawBody', body);
    c.set('channel', caller);
    await next();
  });
}
