// Admission sessions ended before their token's `exp` (a leave, an origin's revoke, a re-admission),
// as the WaitingRoom publishes them in the admission cursor: a revocation list the edge reads from
// the cursor it caches anyway, so an admitted visitor's request costs no session call (DESIGN.md
// section 7). Short-lived tokens plus a list of the ones ended early, as certificate revocation
// lists do (RFC 5280 section 5); an entry lasts only until the session's own `exp`. Pure.

/**
 * Most entries the cursor carries. Past this the list is not published (`complete: false`) and the
 * edge asks the WaitingRoom per visitor instead, as before the list. About 11 bytes of JSON each
 * (55 KB at the cap), read by each isolate about once a second.
 */
export const ENDED_SESSIONS_MAX = 5_000;

/** The sessions ended before `exp` that are not past `exp` yet, as the cursor carries them. */
export interface EndedSessions {
  /** `sessionTag` of each, ascending, without repeats; empty when `complete` is false. */
  tags: number[];
  /** False when more than ENDED_SESSIONS_MAX are listed in the room: the edge must ask the object. */
  complete: boolean;
}

/**
 * A session's tag: `fnv1a32` of `visitorId` and the session id (the admission's time, epoch ms, as
 * the token's `sid` carries it). Two sessions may share a tag (about 1 in 4 billion), so a listed
 * tag means "ask the WaitingRoom", never "ended".
 * @returns an unsigned 32-bit integer
 */
export function sessionTag(visitorId: string, sessionId: string): number {
  return fnv1a32(`${visitorId}\n${sessionId}`);
}

/**
 * FNV-1a, 32 bits (Fowler, Noll, Vo; draft-eastlake-fnv), over the string's UTF-16 code units
 * (visitor ids and session ids are ASCII, so these are its bytes). Not cryptographic: it only
 * spreads tags, and a collision costs one object call, never a wrong answer.
 * @returns an unsigned 32-bit integer
 */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * What the cursor's list says of a session: `listed` (its tag is on it: ask the object, it most
 * likely ended), `unlisted` (it did not end early, as of the cursor's publication), or `unknown`
 * (no complete list: a cursor of an older room, or too many entries; ask the object).
 * @param ended the cursor's `endedSessions` (absent in cursors of rooms older than the list)
 */
export function lookUpSession(ended: EndedSessions | undefined, tag: number): 'listed' | 'unlisted' | 'unknown' {
  if (!ended?.complete) return 'unknown';
  const { tags } = ended;
  let lo = 0;
  let hi = tags.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = tags[mid]!;
    if (t === tag) return 'listed';
    if (t < tag) lo = mid + 1;
    else hi = mid - 1;
  }
  return 'unlisted';
}
