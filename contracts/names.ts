// Names both Workers and the Durable Objects agree on: headers, token types and claims, slug patterns, object names.

/** Request header carrying the admission token to the origin (and from cookie-less apps to the gateway). */
export const ADMISSION_HEADER = 'x-admission-token';
/** Origin API header carrying the signing time, Unix seconds (contracts/hmac.ts). */
export const TIMESTAMP_HEADER = 'x-wr-timestamp';
/** Origin API header carrying `sha256=<hex HMAC>` (contracts/hmac.ts). */
export const SIGNATURE_HEADER = 'x-wr-signature';

/** JOSE `typ` of a queue ticket: proves a place in line, never admission. */
export const TICKET_TYP = 'wr-ticket+jwt';
/** JOSE `typ` of an admission token: lets a visitor into the sale area until `exp`. */
export const ADMISSION_TYP = 'wr-admission+jwt';
/** Admission-token claim naming the admission session (the admission time in epoch ms, as a string). */
export const SESSION_CLAIM = 'sid';
/** Queue-ticket claim carrying the place in line: `[bucket, idx, shard]` or `"pre"`. */
export const PLACE_CLAIM = 'pl';

/** Event ids appear in URLs, cookie names and Durable Object names: lower-case slug, 1-64 chars. */
export const EVENT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Seat ids: row letters then seat number, e.g. `A1`, `AB25`; covers 100,000 rows of up to 1,000 seats. */
export const SEAT_ID_PATTERN = /^[A-Z]{1,4}[0-9]{1,4}$/;
/** General-admission tier names: lower-case slug, 1-32 chars. */
export const TIER_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** The single EventDirectory instance's object name. */
export const DIRECTORY_NAME = 'directory';

/** The QueueShard object name of shard `shard` (0-based) of an event: `<eventId>/<shard>`. */
export function shardName(eventId: string, shard: number): string {
  return `${eventId}/${shard}`;
}
