// Hono environment of the gateway app, and the event-id route parameter.
import type { Context } from 'hono';
import type { AdmissionVariables } from './middleware/credentials';
import type { OriginVariables } from './middleware/origin-signature';
import { EVENT_ID_PATTERN } from './lib/event-config';
import { GatewayError } from './lib/errors';

/** Bindings and per-request variables of the gateway's Hono app. */
export type AppEnv = { Bindings: Env; Variables: AdmissionVariables & OriginVariables };

/**
 * The `:eventId` route parameter, validated.
 * @throws GatewayError EVENT_NOT_FOUND when it is not a well-formed event id
 */
export function eventIdParam(c: Context<AppEnv>): string {
  const id = c.req.param('eventId');
  if (!id || !EVENT_ID_PATTERN.test(id)) throw new GatewayError('EVENT_NOT_FOUND', 'event ids are lower-case letters, digits and dashes');
  return id;
}
