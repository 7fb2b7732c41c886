// The organizer API's one table of routes and the role each needs (docs/how-to/organizer-access.md).
import type { OrganizerRole } from '../../contracts/organizer-access';

/** Where the organizer API is mounted. */
export const ORGANIZER_BASE = '/_wr/admin';

/**
 * Every organizer route (`METHOD path`, the path under ORGANIZER_BASE as mounted) and the weakest
 * role that may call it: `viewer` reads, `operator` runs the sale (pause, resume, close, fixed
 * rate), `admin` configures events, channels, allocations and keys. A route missing here is
 * refused to everyone but admins (test/edge/organizer-roles.test.ts checks the table against the app).
 */
export const ORGANIZER_ROUTES = {
  'GET /me': 'viewer',
  'GET /events': 'viewer',
  'GET /events/:eventId': 'viewer',
  'GET /events/:eventId/preview': 'viewer',
  'POST /events/:eventId/preview': 'viewer',
  'GET /events/:eventId/audit': 'viewer',
  'GET /events/:eventId/changes': 'viewer',
  'GET /events/:eventId/channels': 'viewer',
  'GET /events/:eventId/schedule': 'viewer',
  'GET /events/:eventId/history': 'viewer',
  'GET /events/:eventId/report': 'viewer',
  'POST /events/:eventId/pause': 'operator',
  'POST /events/:eventId/resume': 'operator',
  'POST /events/:eventId/close': 'operator',
  'POST /events/:eventId/rate': 'operator',
  'PUT /events/:eventId': 'admin',
  'PATCH /events/:eventId': 'admin',
  'PUT /events/:eventId/schedule/:overrideId': 'admin',
  'DELETE /events/:eventId/schedule/:overrideId': 'admin',
  'PUT /events/:eventId/channels/:channelId': 'admin',
  'DELETE /events/:eventId/channels/:channelId': 'admin',
  'PUT /events/:eventId/allocations/:allocationId': 'admin',
  'DELETE /events/:eventId/allocations/:allocationId': 'admin',
  'GET /keys': 'admin',
  'POST /keys': 'admin',
  'DELETE /keys/:keyId': 'admin',
  'GET /changes': 'admin',
} as const satisfies Record<string, OrganizerRole>;

/** A route of the table, e.g. `POST /events/:eventId/pause`. */
export type OrganizerRoute = keyof typeof ORGANIZER_ROUTES;

/**
 * The role a mounted route needs.
 * @param method the route's method as registered (GET for a HEAD request)
 * @param fullPath the route's path as registered, ORGANIZER_BASE included
 */
export function roleForRoute(method: string, fullPath: string): OrganizerRole {
  const path = fullPath.startsWith(ORGANIZER_BASE) ? fullPath.slice(ORGANIZER_BASE.length) : fullPath;
  return (ORGANIZER_ROUTES as Record<string, OrganizerRole>)[`${method} ${path}`] ?? 'admin';
}
