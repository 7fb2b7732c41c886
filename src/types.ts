// Hono environment of the gateway app, and the event-id route parameter.
// The per-request variables are declared here, not in the middleware that sets them, because every
// middleware takes `Context<AppEnv>`: declaring them there made an import circle (types <-> middleware).
import type { Context } from 'hono';
import { EVENT_ID_PATTERN } from '../contracts/names';
import type { RoomTableCache } from './lib/room-table';
import type { PageAssets } from './lib/page-assets';
import { GatewayError } from './lib/errors';
import type { VisitorClaims } from './lib/token';
import type { ChannelCaller } from '../contracts/channel-answers';
import type { Organizer } from '../contracts/organizer-access';
import type { KeyCache } from './lib/organizer-keys';

/** Variables set by `requireAdmission` (src/middleware/credentials.ts). */
interface AdmissionVariables {
  /** The admitted visitor; `visitorId` is the account used for seat holds. */
  admission: VisitorClaims;
}

/** Variables set by `originSignature` (src/middleware/origin-signature.ts). */
interface OriginVariables {
  /** The request body exactly as signed. */
  rawBody: string;
  /** The request's signed timestamp, epoch ms (whole seconds). */
  signedAtMs: number;
}

/** Variables set by `channelSignature` (src/middleware/channel-signature.ts), besides `rawBody`. */
interface ChannelVariables {
  /** The sales channel whose key signed the request (not yet checked against its registry: the Inventory does that). */
  channel: ChannelCaller;
}

/** Variables set by `organizerAuth` (src/middleware/organizer-auth.ts). */
interface OrganizerVariables {
  /** The organizer calling, and their role. */
  organizer: Organizer;
}

/** Bindings and per-request variables of the gateway's Hono app. */
export type AppEnv = {
  Bindings: Env;
  Variables: AdmissionVariables & OriginVariables & RoomVariables & ChannelVariables & OrganizerVariables;
};

/** Variables set by the app's room routing for every request. */
interface RoomVariables {
  /** This isolate's room table; the organizer API drops it after a change. */
  rooms: RoomTableCache;
  /** This isolate's page assets (the words and scripts of the gateway's pages). */
  pages: PageAssets;
  /** This isolate's memory of organizer keys the EventDirectory confirmed. */
  organizerKeys: KeyCache;
}

/**
 * The `:eventId` route parameter, validated.
 * @throws GatewayError EVENT_NOT_FOUND when it is not a well-formed event id
 */
export function eventIdParam(c: Context<AppEnv>): string {
  const id = c.req.param('eventId');
  if (!id || !EVENT_ID_PATTERN.test(id))
    throw new GatewayError('EVENT_NOT_FOUND', { detail: 'event ids are lower-case letters, digits and dashes' });
  return id;
}

/**
 * The `:eventId` of a request that creates or replaces an event: a malformed id is the
 * organizer's mistake, so it is `400 INVALID_REQUEST` (not 404: a script that treats 404 as
 * "create it" would loop).
 *
 * @throws GatewayError INVALID_REQUEST when the id is not 1-64 lower-case letters, digits and dashes (starting with a letter or digit)
 */
export function newEventIdParam(c: Context<AppEnv>): string {
  const id = c.req.param('eventId');
  if (!id || !EVENT_ID_PATTERN.test(id)) {
    throw new GatewayError('INVALID_REQUEST', {
      detail: 'event ids are 1-64 lower-case letters, digits and dashes, starting with a letter or digit',
    });
  }
  return id;
}
