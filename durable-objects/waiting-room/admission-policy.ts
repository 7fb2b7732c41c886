// The admit decision: whether a released place becomes an admission, is handed out again, waits,
// or is gone (spent, lapsed, not in the draw). Pure: the WaitingRoom passes the rows it read and
// two lookups, then writes what the decision says.
import { comparePlaces, isPre, parsePlaceKey, placeKey, releasedBefore, type FifoPlace, type Place } from '../../contracts/queue/cursor';
import { admissionEndsAtMs, worthHandingOut } from '../../contracts/queue/lifetimes';
import type { AdmitAnswer } from '../../contracts/room-answers';

/** The visitor's stored admission (their one row), times epoch ms. */
export interface PriorAdmission {
  /** `placeKey` of the place it was admitted from. */
  place: string;
  state: 'admitted' | 'left';
  admittedAtMs: number;
  expiresAtMs: number;
}

/**
 * A release record: when a batch of places was released, and its id (to count the claim); id 0
 * stands for a record pruned while its visitor waited for a slot (at: their first ask).
 */
export interface ReleaseRef {
  id: number;
  atMs: number;
}

/**
 * How long a visitor whose released place waits for a slot keeps one reserved after their last
 * ask, ms: a released place is polled every MIN_POLL_MS (2 s, 20 % jitter), so a few missed polls.
 */
export const SLOT_ASK_KEPT_MS = 10_000;
/** At most this many visitors waiting for a slot are remembered (a bound on the room's memory). */
export const SLOT_ASKS_KEPT = 10_000;

/** What the decision reads about the room. */
export interface AdmitRoom {
  policy: 'fifo' | 'random';
  idleTimeoutMs: number;
  admissionTtlMs: number;
  /** Queue shards K the event counts now. */
  shards: number;
  drawn: boolean;
  /** Draw ranks released so far. */
  drawReleased: number;
  /** Draw ranks at or below this were released too long ago to claim (their records are pruned). */
  lapsedDraw: number;
  /** The admission cursor: the first FIFO place not released. */
  cursor: FifoPlace;
  /** FIFO places before this were released too long ago to claim (their records are pruned). */
  lapsed: FifoPlace;
  /** Each presale lane the event lists: its own cursor and lapse mark (a place of a lane not listed lapses). */
  lanes: ReadonlyMap<string, { cursor: FifoPlace; lapsed: FifoPlace }>;
  /**
   * How long after its release an unclaimed place still holds a slot, ms (the claim horizon, at
   * most the claim window: tick-plan claimHorizonMs): a claim later than that needs a free slot.
   */
  heldForMs: number;
}

/** The lookups the decision may need (each at most once). */
export interface AdmitLookups {
  /** The visitor's draw rank, or null when they are not in the draw. */
  drawRank(): number | null;
  /** The release that released draw rank `rank`, or null. */
  releaseOfRank(rank: number): ReleaseRef | null;
  /** The release that released FIFO place `place`, or null. */
  releaseOfPlace(place: FifoPlace): ReleaseRef | null;
  /**
   * Whether an admission fits now: fewer active visitors than the organizer's max; for a `late`
   * claim (its place no longer holds a slot) also a slot free under the lower of that max and the
   * controller's limit, after the active visitors, the places expected to arrive and the visitors
   * who asked for a slot before this one.
   */
  fits(late: boolean): boolean;
  /** When the visitor first asked for a slot, if they are still asking (SLOT_ASK_KEPT_MS), else null. */
  askedAtMs(): number | null;
}

/**
 * The decision: an answer to return as is (`waiting`, `requeue`, or `admitted` for the admission
 * handed out again), `claim`: store a new admission from release `release` (count the claim), or
 * `wait_for_slot`: the place is kept, the visitor is told to wait (`waiting`) and the next free
 * slot is theirs (the room reserves it for SLOT_ASK_KEPT_MS after each ask).
 */
export type AdmitDecision =
  | { kind: 'answer'; answer: Exclude<AdmitAnswer, { kind: 'event_not_found' }> }
  | { kind: 'wait_for_slot' }
  | { kind: 'claim'; release: ReleaseRef; placeKey: string; admittedAtMs: number; expiresAtMs: number };

const answer = (a: Exclude<AdmitAnswer, { kind: 'event_not_found' }>): AdmitDecision => ({ kind: 'answer', answer: a });

/**
 * Whether `place` admits `visitorId` now. In order:
 * - the place of the visitor's stored admission: the same admission again while it has at least
 *   MIN_USEFUL_ADMISSION_MS left (contracts/queue/lifetimes.ts), else `requeue ended` (an admission
 *   about to end is not handed out: its token would die on the next page load);
 * - a place released before that one is spent (`requeue ended`): an older ticket never admits again;
 * - a pre-queue place: `not_in_draw` for a non-lottery event or a visitor the draw left out,
 *   `waiting` before the draw or while the rank is not released;
 * - a FIFO place from a shard the event no longer counts, or of a presale lane it no longer lists:
 *   `lapsed`; not passed by its line's cursor (the public queue's, or its lane's): `waiting`;
 * - released longer than the idle timeout ago (or its record pruned): `lapsed`, unless the visitor
 *   is still asking for a slot (AdmitLookups `askedAtMs`: polling is not idle);
 * - no room for it (AdmitLookups `fits`): `waiting`, or `wait_for_slot` when it is late (released
 *   more than `heldForMs` ago, so it holds no slot of its own any more);
 * - else `claim`: a new admission ending on the whole second at or before now + the admission TTL.
 *
 * Failing input: max active 5, 150 joins whose tickets did not poll
 * for 2 minutes: their places stopped holding slots (measured no-shows) and all 150 claimed at
 * once: 150 active against a max of 5. A place claimed after it stopped holding a slot now needs
 * a free one, and no claim admits past the organizer's max.
 */
export function decideAdmit(
  visitorId: string,
  place: Place,
  room: AdmitRoom,
  prior: PriorAdmission | null,
  lookups: AdmitLookups,
  nowMs: number,
): AdmitDecision {
  const key = placeKey(place);
  if (prior?.place === key) {
    if (prior.state === 'admitted' && prior.expiresAtMs > nowMs && worthHandingOut(nowMs, prior.expiresAtMs)) {
      return answer({ kind: 'admitted', admittedAtMs: prior.admittedAtMs, expiresAtMs: prior.expiresAtMs });
    }
    return answer({ kind: 'requeue', reason: 'ended' });
  }
  const priorPlace = prior ? parsePlaceKey(prior.place) : null;
  if (priorPlace && releasedBefore(place, priorPlace)) return answer({ kind: 'requeue', reason: 'ended' });
  let release: ReleaseRef | null;
  if (isPre(place)) {
    if (room.policy !== 'random') return answer({ kind: 'requeue', reason: 'not_in_draw' });
    if (!room.drawn) return answer({ kind: 'waiting' });
    const rank = lookups.drawRank();
    if (rank === null) return answer({ kind: 'requeue', reason: 'not_in_draw' });
    if (rank > room.drawReleased) return answer({ kind: 'waiting' });
    release = rank <= room.lapsedDraw ? null : lookups.releaseOfRank(rank);
  } else {
    if (place.shard >= room.shards) return answer({ kind: 'requeue', reason: 'lapsed' });
    const line = place.lane === undefined ? room : room.lanes.get(place.lane);
    if (!line) return answer({ kind: 'requeue', reason: 'lapsed' });
    if (comparePlaces(place, line.cursor) >= 0) return answer({ kind: 'waiting' });
    release = comparePlaces(place, line.lapsed) < 0 ? null : lookups.releaseOfPlace(place);
  }
  const lapsed = release === null || nowMs - release.atMs > room.idleTimeoutMs;
  // A visitor waiting for a slot is not idle: the place is kept while they keep asking.
  const asked = lapsed ? lookups.askedAtMs() : null;
  if (lapsed && asked === null) return answer({ kind: 'requeue', reason: 'lapsed' });
  const late = lapsed || nowMs - release!.atMs > room.heldForMs;
  // A place still holding its slot needs no ask: the tick fills no slot an expected arrival holds.
  if (!lookups.fits(late)) return late ? { kind: 'wait_for_slot' } : answer({ kind: 'waiting' });
  return {
    kind: 'claim',
    release: release ?? { id: 0, atMs: asked! },
    placeKey: key,
    admittedAtMs: nowMs,
    expiresAtMs: admissionEndsAtMs(nowMs, room.admissionTtlMs),
  };
}
