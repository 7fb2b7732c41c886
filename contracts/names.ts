// Names both Workers and the Durable Objects agree on: headers, token types and claims, slug patterns, object names.

// What an origin needs (the admission header and `typ`, the origin API's signing headers, the
// origin command header) is defined once in the origin SDK, which real origins install and which
// therefore imports nothing of this repository.
export {
  ADMISSION_HEADER,
  ADMISSION_TYP,
  CHANNEL_KEY_HEADER,
  COMMAND_HEADER,
  ORIGIN_PULL_HEADER,
  REVOKE_COMMAND,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
} from '../origin-sdk/src/protocol.ts';

/** JOSE `typ` of a queue ticket: proves a place in line, never admission. */
export const TICKET_TYP = 'wr-ticket+jwt';
/** Admission-token claim naming the admission session (the admission time in epoch ms, as a string). */
export const SESSION_CLAIM = 'sid';
/** Queue-ticket claim carrying the place in line: `[bucket, idx, shard]` or `"pre"`. */
export const PLACE_CLAIM = 'pl';

/** Request header carrying a solved join challenge (ALTCHA payload: base64 of `{ challenge, solution }`). */
export const PROOF_HEADER = 'x-wr-proof-of-work';

/** Event ids appear in URLs, cookie names and Durable Object names: lower-case slug, 1-64 chars. */
export const EVENT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Venue section names (in seat ids, hold ids and object names): upper-case letters and digits, 1-8 chars. */
export const SECTION_PATTERN = /^[A-Z0-9]{1,8}$/;
/**
 * Seat ids: row letters then seat number, e.g. `A1`, `AB25` (covers 100,000 rows of up to 1,000
 * seats), prefixed by the section and `-` in an event with sections (`S2-A14`).
 */
export const SEAT_ID_PATTERN = /^(?:[A-Z0-9]{1,8}-)?[A-Z]{1,4}[0-9]{1,4}$/;
/** General-admission tier names: lower-case slug, 1-32 chars. */
export const TIER_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** The single EventDirectory instance's object name. */
export const DIRECTORY_NAME = 'directory';

/** The QueueShard object name of shard `shard` (0-based) of an event: `<eventId>/<shard>`. */
export function shardName(eventId: string, shard: number): string {
  return `${eventId}/${shard}`;
}
