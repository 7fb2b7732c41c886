// An event's room in the organizer API: its patterns checked (pure), then claimed in the room table
// before the event's objects are written, and put back if the rest of the change fails.
import { DIRECTORY_NAME } from '../../contracts/names';
import { defaultPatterns, parseRoom, type BypassRules, type RoomRules } from '../../contracts/room-patterns';
import type { ClaimAnswer, RoomClaim } from '../../contracts/room-table';
import { callDurableObject } from './do-call';
import { GatewayError } from './errors';

/**
 * The event's room as the organizer asked for it, checked: `patterns` (default
 * `/events/{eventId}/*`) and `bypass`.
 *
 * @throws GatewayError ROUTE_INVALID (400, malformed), ROUTE_RESERVED (400, would cover `/_wr/` or
 *   `/.well-known/`), ROUTE_OVERLAP (400, two of its patterns overlap); the message names the pattern
 */
export function roomClaim(eventId: string, input: { patterns?: string[] | undefined; bypass: BypassRules }): RoomClaim {
  const room: RoomRules = { eventId, patterns: input.patterns ?? defaultPatterns(eventId), bypass: input.bypass };
  const parsed = parseRoom(room.patterns, room.bypass);
  if ('code' in parsed) throw new GatewayError(parsed.code, { detail: parsed.message });
  return { room, keys: parsed.patterns.map((p) => p.key) };
}

function taken(claim: RoomClaim, answer: { key: string; eventId: string }): GatewayError {
  const source = claim.room.patterns[claim.keys.indexOf(answer.key)] ?? answer.key;
  return new GatewayError('ROUTE_TAKEN', { detail: `pattern ${JSON.stringify(source)} is already covered by event "${answer.eventId}"` });
}

/**
 * Claims the room in the EventDirectory (one transaction: all its pattern keys or none). Call it
 * after the event's objects accepted the change in a dry run and before they are written, and call
 * `undo` if writing them fails: so a refused change leaves the table as it was. A crash between
 * the claim and the objects leaves the room routing to an event that answers 404 at its URLs (fails
 * closed, never open) until the organizer's retry completes it.
 *
 * @returns `undo`, which puts back the event's previous room unless a later change replaced it
 * @throws GatewayError ROUTE_TAKEN (409) when another event already covers one of the patterns
 *   (nothing changed); OVERLOADED (503)
 */
export async function claimRoom(env: Pick<Env, 'DIRECTORY'>, claim: RoomClaim): Promise<{ undo(): Promise<void> }> {
  const directory = env.DIRECTORY.getByName(DIRECTORY_NAME);
  const { eventId } = claim.room;
  const answer = await callDurableObject<ClaimAnswer>(async () => directory.claimRoom(claim), {
    idempotent: true,
    name: 'directory.claimRoom',
    eventId,
  });
  if (answer.kind === 'taken') {
    throw taken(claim, answer);
  }
  return {
    undo: async () => {
      await callDurableObject<boolean>(async () => directory.restoreRoom(eventId, answer.previous, claim), {
        idempotent: true,
        name: 'directory.restoreRoom',
        eventId,
      });
    },
  };
}
