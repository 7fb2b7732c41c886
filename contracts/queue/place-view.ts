// A waiting visitor's place as the edge answers it from the signed place and the published cursor:
// an exact position where the cursor knows it, a range where it only bounds it, none while the
// visitor's second of arrivals is still being counted (DESIGN.md section 4, "positions are a promise").
import type { QueueConfig } from '../event-config';
import {
  CURSOR_QUEUE_BUCKETS,
  comparePlaces,
  isPre,
  type AdmissionCursor,
  type DrawMarks,
  type FifoPlace,
  type LotteryKey,
  type Place,
} from './cursor';
import { estimateWait, estimateWaitSeconds, onSale, pollAfterMs, waitingState, type QueueState } from './queue-policy';

/**
 * People ahead of a place, as far as the cursor knows: exactly (`min === max`), within a range,
 * `max` null when only a lower bound is known (the place is past the cursor's listing).
 */
export interface AheadBounds {
  min: number;
  max: number | null;
}

/** A waiting visitor's view, computed at the edge from their place and the cursor. */
export interface PlaceView {
  state: QueueState;
  /** True when the cursor has passed the place: the coordinator must admit (or re-queue) them. */
  released: boolean;
  /**
   * The place in line: exact, or the upper end of `positionRange` (a bound that never rises while
   * the visitor waits); null while unknown (before the draw, while the arrivals of the visitor's
   * second are still being counted, or past the cursor's listing).
   */
  position: number | null;
  /** When the position is known only within a range: its ends (`max` null = "more than `min` - 1"); null when exact or unknown. */
  positionRange: { min: number; max: number | null } | null;
  /** True while the visitor's second of arrivals is still being counted across the shards: no position yet. */
  counting: boolean;
  /** People ahead: `position - 1` (the upper bound when the position is a range). */
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  pollAfterMs: number;
}

/** How soon a visitor whose arrivals are still being counted polls again, ms: about one count and one cursor cache. */
const COUNTING_POLL_MS = 2_000;

/**
 * A visitor's view from their place and the cursor, with no object call. `key` is the visitor's
 * lottery key (needed only for pre-queue places once the draw is public).
 *
 * FIFO: released when the place is before its line's cursor (the public queue's, or its lane's).
 * Otherwise the people ahead are bounded (fifoAhead): exact with one queue shard, a range within
 * the visitor's own second with several; unknown while that second is not sealed yet. A lane
 * place's state follows its lane's sale start; a lane the cursor does not list (no longer
 * configured) reads as released, so the room decides (it re-queues the visitor).
 * Lottery pre-queue: before the draw the position is unknown; after it, released when the key is
 * at or below the last released key, and the rank is read from the draw's marks (drawAhead), or
 * estimated from the key (SHA-256 is uniform) in cursors of rooms older than the marks.
 */
export function viewPlace(cursor: AdmissionCursor, place: Place, key: LotteryKey | null, nowMs: number): PlaceView {
  const lane = isPre(place) || place.lane === undefined ? null : (cursor.lanes?.find((l) => l.lane === place.lane) ?? 'missing');
  const saleStartsAtMs = lane !== null && lane !== 'missing' ? lane.saleStartsAtMs : cursor.saleStartsAtMs;
  const config = { saleStartsAtMs } as QueueConfig;
  const state = waitingState(config, cursor.mode, nowMs, cursor.soldOut);
  const unknown = { state, released: false, position: null, positionRange: null, counting: false, ahead: null, estimatedWaitSeconds: null };
  const idle = pollAfterMs(null, cursor.idleTimeoutMs);
  let ahead: AheadBounds | 'counting';
  let released: boolean;
  if (isPre(place)) {
    const draw = cursor.draw;
    // A pre-queue ticket of an event that is not a lottery (any more): the room re-queues it.
    if (!draw) return { ...unknown, released: true, pollAfterMs: idle };
    if (!draw.drawn || key === null) return { ...unknown, pollAfterMs: idle };
    released = draw.released >= draw.size || (draw.releasedKey !== null && key <= draw.releasedKey);
    ahead = drawAhead(key, draw);
  } else if (lane === 'missing') {
    return { ...unknown, released: true, pollAfterMs: idle };
  } else {
    const line = lane ?? cursor;
    released = comparePlaces(place, line.fifo) < 0;
    // Later arrivals of a lottery event queue after every drawn entrant; the draw's size is known once drawn.
    const draw = lane === null ? cursor.draw : null;
    const fifo = fifoAhead(place, line.fifo, line.queue, cursor.shards, cursor.sealedBefore ?? Infinity);
    ahead =
      draw && !draw.drawn ? 'counting' : fifo === 'counting' ? fifo : shiftBounds(fifo, draw ? Math.max(0, draw.size - draw.released) : 0);
  }
  if (released)
    return {
      ...unknown,
      released,
      position: 1,
      ahead: 0,
      estimatedWaitSeconds: 0,
      pollAfterMs: pollAfterMs(0, cursor.idleTimeoutMs),
    };
  if (ahead === 'counting') return { ...unknown, counting: true, pollAfterMs: COUNTING_POLL_MS };
  if (ahead.max === null) {
    return { ...unknown, positionRange: { min: ahead.min + 1, max: null }, pollAfterMs: pollAfterMs(null, cursor.idleTimeoutMs) };
  }
  const most = ahead.max;
  const untilStart = onSale(config, nowMs) ? 0 : Math.ceil((saleStartsAtMs - nowMs) / 1000);
  // Estimates take the upper bound: a wait said too short misleads, one said a little long does not.
  const wait = state === 'waiting' || state === 'not_open' ? estimateWait(most + 1, cursor) : null;
  return {
    state,
    released,
    position: most + 1,
    positionRange: ahead.min < most ? { min: ahead.min + 1, max: most + 1 } : null,
    counting: false,
    ahead: most,
    estimatedWaitSeconds: wait === null ? null : wait + untilStart,
    // Without an estimate, the release rate still bounds how soon the place can come: polled as if
    // that were the wait (in a surge's first seconds, with slots full of expected arrivals and no
    // departures measured yet, a fixed 15 s made released visitors come back late).
    pollAfterMs: pollAfterMs(
      wait ?? (state === 'waiting' ? estimateWaitSeconds(most + 1, cursor.admitPerMinute) : null),
      cursor.idleTimeoutMs,
    ),
  };
}

function shiftBounds(b: AheadBounds, by: number): AheadBounds {
  return { min: b.min + by, max: b.max === null ? null : b.max + by };
}

/**
 * Unreleased places of one FIFO line before `place`, bounded from the cursor's listing: every
 * listed (sealed, so final) bucket before the place's, plus the places before it in its own
 * bucket, which go in (idx, shard) order. Within that bucket the visitor's own shard's earlier
 * arrivals are known exactly (the lower bound); each other shard can hold at most `idx` (+1 for a
 * lower shard) places before it (the upper bound, capped by the bucket's listed count once it is
 * final). With one shard the two meet. 'counting' while a bucket before the place's is not sealed
 * (its arrivals are not all counted yet), and `max` null for a place past a full listing.
 *
 * @param sealedBefore the first bucket some shard may still add to (Infinity when the cursor does not say)
 */
function fifoAhead(
  place: FifoPlace,
  fifo: FifoPlace,
  queue: readonly [number, number][],
  shards: number,
  sealedBefore: number,
): AheadBounds | 'counting' {
  // Buckets before the seal are final. The place's own bucket at the seal is still open, but no
  // later arrival can go before the place within it by more than the grid bound, and on one shard
  // by nothing at all. A bucket past the seal leaves uncounted buckets before the place.
  if (place.bucket > sealedBefore) return 'counting';
  const final = place.bucket < sealedBefore;
  const sameBucket = place.bucket === fifo.bucket;
  const cursorGrid = sameBucket ? fifo.idx * shards + fifo.shard : 0;
  const grid = Math.max(0, place.idx * shards + place.shard - cursorGrid);
  const own = Math.max(0, place.idx - (sameBucket ? fifo.idx + (place.shard < fifo.shard ? 1 : 0) : 0));
  let before = 0;
  let listedOwn: number | null = null;
  for (const [bucket, count] of queue) {
    if (bucket > place.bucket) break;
    if (bucket === place.bucket) listedOwn = count;
    else before += count;
  }
  const lastListed = queue.length > 0 ? queue[queue.length - 1]![0] : -Infinity;
  if (listedOwn === null && queue.length >= CURSOR_QUEUE_BUCKETS && place.bucket > lastListed) return { min: before + own, max: null };
  const most = listedOwn === null || !final ? grid : Math.min(grid, Math.max(0, listedOwn - 1));
  return { min: before + Math.min(own, most), max: before + most };
}

/**
 * Unreleased draw ranks before an entrant's key, from the cursor's marks: exact within the window
 * of the next ranks, else between the two fixed marks around the key (the marks sit at fixed ranks
 * for the whole draw, so the range only narrows). Without marks (a room older than them): an
 * estimate from the key, the same number as both ends.
 */
export function drawAhead(key: LotteryKey, draw: NonNullable<AdmissionCursor['draw']>): AheadBounds {
  const marks = draw.marks;
  if (!marks) {
    const rank = 1 + Math.floor(draw.size * keyFraction(key));
    const ahead = Math.max(0, rank - draw.released - 1);
    return { min: ahead, max: ahead };
  }
  const k = key.slice(0, MARK_HEX);
  const i = firstAtOrAfter(marks.next, k);
  if (i < marks.next.length || marks.released + marks.next.length >= draw.size) {
    return exactFrom(marks, draw.released, i);
  }
  return blockAhead(k, marks, draw);
}

function exactFrom(marks: DrawMarks, released: number, i: number): AheadBounds {
  // Ranks in the window are counted from the marks' own release point; the cursor's may be later.
  const ahead = Math.max(0, marks.released + i - released);
  return { min: ahead, max: ahead };
}

function blockAhead(k: string, marks: DrawMarks, draw: NonNullable<AdmissionCursor['draw']>): AheadBounds {
  const windowEnd = marks.released + marks.next.length;
  const j = firstAtOrAfter(
    marks.fixed.map(([, key]) => key),
    k,
  );
  const upper = j < marks.fixed.length ? marks.fixed[j]![0] : draw.size;
  const lower = Math.max(windowEnd + 1, j > 0 ? marks.fixed[j - 1]![0] + 1 : windowEnd + 1);
  return { min: Math.max(0, lower - draw.released - 1), max: Math.max(0, upper - draw.released - 1) };
}

/** Index of the first key >= `k` in an ascending list (its length when none). */
function firstAtOrAfter(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The draw's marks after `released` ranks, from the whole draw's keys in rank order (rank = index
 * + 1): what the WaitingRoom publishes (durable-objects/waiting-room/position-store.ts reads the
 * same from its table), as a function for tests and small draws.
 * @param limits how many next ranks are listed key by key, and about how many fixed marks cover the draw
 */
export function drawMarksFrom(keys: readonly LotteryKey[], released: number, limits: { next: number; fixed: number }): DrawMarks {
  const size = keys.length;
  const step = Math.max(1, Math.ceil(size / limits.fixed));
  const next = keys.slice(released, released + limits.next).map((k) => k.slice(0, MARK_HEX));
  const from = released + next.length;
  const fixed: [number, string][] = [];
  if (from < size) {
    for (let rank = (Math.floor(from / step) + 1) * step; rank <= size; rank += step)
      fixed.push([rank, keys[rank - 1]!.slice(0, MARK_HEX)]);
    if (fixed.at(-1)?.[0] !== size) fixed.push([size, keys[size - 1]!.slice(0, MARK_HEX)]);
  }
  return { released, next, step, fixed };
}

/** Hex digits of a lottery key the draw's marks carry (52 bits: ties among real entrants are negligible). */
export const MARK_HEX = 13;

/** A lottery key's place in [0, 1): its first 52 bits over 2^52. */
function keyFraction(key: LotteryKey): number {
  return parseInt(key.slice(0, 13), 16) / 2 ** 52;
}
