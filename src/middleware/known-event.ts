// Visitor routes of events the room table does not list are refused at the edge, so a
// flood of made-up event ids starts no Durable Object and costs no object call.
import { createMiddleware } from 'hono/factory';
import { EVENT_ID_PATTERN } from '../../contracts/names';
import { GatewayError } from '../lib/errors';
import { directorySource } from '../lib/room-table';
import type { AppEnv } from '../types';

/**
 * Answers `404 EVENT_NOT_FOUND` for `/_wr/events/:eventId/...` when the isolate's room table does
 * not list the event (every event the organizer API created is listed: it claims the event's
 * URL patterns first). A new event is listed at once in the data centre that created it, elsewhere
 * within ROOM_TABLE_SHARED_MS (src/lib/room-table.ts `lists`). Malformed ids pass on to the route,
 * which refuses them itself. When no room table can be read at all (ROOM_TABLE_UNAVAILABLE), the
 * request goes on to the event's objects as it did before this check: joins keep working.
 *
 * @throws GatewayError EVENT_NOT_FOUND (404) for an id the table does not list
 */
export function knownEvent() {
  return createMiddleware<AppEnv>(async function knownEvent(c, next) {
    const eventId = c.req.param('eventId');
    if (eventId && EVENT_ID_PATTERN.test(eventId)) {
      const listed = await c.var.rooms.lists(directorySource(c.env, c.executionCtx), eventId, Date.now()).catch((err: unknown) => {
        if (err instanceof GatewayError && err.code === 'ROOM_TABLE_UNAVAILABLE') return true;
        throw err;
      });
      if (!listed) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
    }
    await next();
  });
}
