// Admission cursor: pure rules for places in line across queue shards, and for answering a poll at
// the edge from a signed queue ticket plus the published cursor (DESIGN.md section 7).
import type { PageTemplate, QueueConfig, QueueMethod } from '../event-config';
import type { CursorEntry } from '../entry';
import type { ProofOfWorkConfig } from '../proof-of-work';
import type { EndedSessions } from './ended-sessions';
import { estimateWait, estimateWaitSeconds, onSale, pollAfterMs, waitingState, type QueueState, type RoomMode } from './queue-policy';

/** Arrivals are grouped in buckets of this many ms; FIFO holds exactly across buckets. */
export const BUCKET_MS = 1_000;
/** The cursor lists at most this many unreleased buckets for position estimates. */
export const CURSOR_QUEUE_BUCKETS = 600;

/**
 * A FIFO place in line, as the queue ticket carries it: the arrival bucket (epoch ms / BUCKET_MS),
 * the arrival's index within that bucket on its shard, and the shard. The global order is
 * (bucket, idx, shard) lexicographic: exact arrival order across buckets and within one shard;
 * round-robin over shards within one bucket (so FIFO across shards holds to within BUCKET_MS).
 */
export interface FifoPlace {
  bucket: number;
  idx: number;
  shard: number;
  /**
   * The presale lane the place is in line in (one of the event's `entry.lanes`); absent = the
   * public queue. Each lane is a line of its own with its own cursor: places of two lanes are
   * never compared.
   */
  lane?: string;
}

/** A place: FIFO, or `pre` = a lottery pre-queue entry (ranked by the draw at sale start). */
export type Place = FifoPlace | { pre: true };

export function isPre(place: Place): place is { pre: true } {
  return 'pre' in place;
}

/**
 * A place as a stable string (`pre`, or `bucket:idx:shard`): the identity of an admission. Fields
 * a newer Worker might add to a place never change it.
 */
export function placeKey(place: Place): string {
  if (isPre(place)) return 'pre';
  const fifo = `${place.bucket}:${place.idx}:${place.shard}`;
  return place.lane === undefined ? fifo : `${place.lane}/${fifo}`;
}

/** The place a `placeKey` names (`pre`, `bucket:idx:shard` or `lane/bucket:idx:shard`); null for anything else. */
export function parsePlaceKey(key: string): Place | null {
  if (key === 'pre') return { pre: true };
  const m = /^(?:([a-z0-9][a-z0-9-]{0,31})\/)?(\d+):(\d+):(\d+)$/.exec(key);
  if (!m) return null;
  const place: FifoPlace = { bucket: Number(m[2]), idx: Number(m[3]), shard: Number(m[4]) };
  return m[1] === undefined ? place : { ...place, lane: m[1] };
}

/** The presale lane of a place; null for the public queue (and the lottery pre-queue, which is part of it). */
export function laneOf(place: Place): string | null {
  return isPre(place) ? null : (place.lane ?? null);
}

/**
 * Whether `a` is released before `b` in the same line: lottery pre-queue places (ranked by the
 * draw) before every FIFO place of the public queue, FIFO places of one line by `comparePlaces`.
 * Two pre-queue places, or places of two different lanes (lines of their own), are not ordered (false).
 */
export function releasedBefore(a: Place, b: Place): boolean {
  if (laneOf(a) !== laneOf(b)) return false;
  if (isPre(a)) return !isPre(b);
  return !isPre(b) && comparePlaces(a, b) < 0;
}

/** Compares two FIFO places of one line (their lanes are not looked at) in release order; negative when `a` goes first. */
export function comparePlaces(a: FifoPlace, b: FifoPlace): number {
  return a.bucket - b.bucket || a.idx - b.idx || a.shard - b.shard;
}

/**
 * The shard (0..shards-1) that holds a visitor: FNV-1a 32-bit of the visitor id, modulo `shards`.
 * Stable for a visitor, spread evenly over random ids.
 */
export function shardOf(visitorId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < visitorId.length; i++) {
    h ^= visitorId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** Arrivals counted per bucket: shard -> bucket -> count. */
export type BucketCounts = ReadonlyMap<number, ReadonlyMap<number, number>>;

/**
 * Moves the FIFO cursor forward over at most `n` places in release order, through buckets before
 * `sealedBefore` only (a bucket is sealed once every shard has passed it, so no arrival can still
 * land before the cursor). The cursor is the first place *not* released.
 *
 * @param counts arrivals per shard and bucket (buckets at or after the cursor's suffice)
 * @returns the new cursor and how many places it passed (`released` <= n)
 */
export function advanceCursor(
  cursor: FifoPlace,
  counts: BucketCounts,
  sealedBefore: number,
  n: number,
): { cursor: FifoPlace; released: number } {
  const buckets = [...new Set([...counts.values()].flatMap((m) => [...m.keys()]))]
    .filter((b) => b >= cursor.bucket && b < sealedBefore)
    .sort((a, b) => a - b);
  const shards = [...counts.keys()].sort((a, b) => a - b);
  let at = cursor;
  let released = 0;
  for (const bucket of buckets) {
    if (released >= n) break;
    if (bucket > at.bucket) at = { bucket, idx: 0, shard: 0 };
    const sizes = shards.map((s) => counts.get(s)?.get(bucket) ?? 0);
    const deepest = Math.max(0, ...sizes);
    // Places in release order: (idx, shard) pairs, each shard contributing while it has arrivals.
    // The cursor moves to just after each released place: (idx, shard + 1) sorts before (idx + 1, 0).
    for (let idx = at.idx; idx < deepest && released < n; idx++) {
      for (let k = 0; k < shards.length && released < n; k++) {
        if ((idx === at.idx && shards[k]! < at.shard) || idx >= sizes[k]!) continue;
        released++;
        at = { bucket, idx, shard: shards[k]! + 1 };
      }
    }
  }
  // Everything sealed is released: park the cursor at the first unsealed bucket (the buckets it
  // skips were sealed, so no arrival can ever land in them).
  if (released < n && at.bucket < sealedBefore) at = { bucket: sealedBefore, idx: 0, shard: 0 };
  return { cursor: at, released };
}

/** Places of a bucket before `cursor` in release order, for one bucket's per-shard sizes. */
export function releasedInBucket(cursor: FifoPlace, bucket: number, sizes: ReadonlyMap<number, number>): number {
  if (bucket < cursor.bucket) return [...sizes.values()].reduce((a, b) => a + b, 0);
  if (bucket > cursor.bucket) return 0;
  let n = 0;
  for (const [shard, size] of sizes) n += Math.min(size, cursor.idx + (shard < cursor.shard ? 1 : 0));
  return n;
}

/**
 * What the coordinator publishes for the edge, refreshed at every tick and cached by each isolate
 * for about a second. Everything a waiting visitor's poll needs, and nothing personal.
 */
export interface AdmissionCursor {
  eventId: string;
  eventName: string;
  policy: QueueConfig['policy'];
  saleStartsAtMs: number;
  page: PageTemplate;
  pageStatus: 200 | 202 | 429;
  /** Lottery events: SHA-256 of the secret seed, published before the draw. */
  commitment: string | null;
  mode: RoomMode;
  /**
   * The queueing method in effect (contracts/event-config.ts QueueMethod); absent in cursors of
   * older rooms = `queue`. `methodEndsAtMs`: when a scheduled change that sets it ends, epoch ms
   * (null: the event's own method).
   */
  method?: QueueMethod;
  methodEndsAtMs?: number | null;
  soldOut: boolean;
  /** Queue shards K of the event: joins go to shard `shardOf(visitorId, K)`. */
  shards: number;
  idleTimeoutMs: number;
  /** First FIFO place not yet released. */
  fifo: FifoPlace;
  /** Lottery draw: entrants, how many ranks are released, the seed and the last released key. */
  draw: { drawn: boolean; size: number; released: number; seed: string | null; releasedKey: string | null } | null;
  /** Unreleased arrivals per bucket from the cursor's bucket on: [bucket, count], oldest first. */
  queue: [number, number][];
  /**
   * Admissions per minute measured over about the last minute while visitors waited (or the
   * admission rate in force without 10 s of such time); 0 = none: the basis of wait estimates
   * (queue-policy estimateWait, with the two figures below).
   */
  admitPerMinute: number;
  /**
   * Slots freed per minute with every slot of the slot bound taken (queue-policy WaitPace); absent
   * in cursors of older rooms (the estimate then reads `admitPerMinute` alone).
   */
  slotsFreedPerMinute?: number;
  /** Slots free now under the slot bound, may be <= 0 (queue-policy WaitPace); absent in cursors of older rooms. */
  freeSlots?: number;
  /** When the coordinator produced this cursor, epoch ms. */
  publishedAtMs: number;
  /**
   * The event's entry requirement (contracts/entry.ts): sign-in URL, token issuer, lanes, the
   * pinned account key id; null (or absent, from a room older than entry tokens) for an open event.
   */
  entry?: CursorEntry | null;
  /** The proof of work new visitors solve before they get a place (absent in cursors of older rooms = none). */
  proofOfWork?: ProofOfWorkConfig | null;
  /** Each presale lane's line, in release order (absent in cursors of rooms older than lanes = none). */
  lanes?: LaneCursor[];
  /**
   * Admission sessions ended before their `exp` (left, revoked, admitted again), until that `exp`
   * (ended-sessions.ts): the edge's session check. Absent in cursors of rooms older than the list =
   * unknown (the edge asks the WaitingRoom).
   */
  endedSessions?: EndedSessions;
}

/** One presale lane's line as the cursor publishes it, so polls of lane places stay answered at the edge. */
export interface LaneCursor {
  lane: string;
  /** The lane's sale start, epoch ms (the event's own when the organizer set none). */
  saleStartsAtMs: number;
  /** First place of the lane not yet released. */
  fifo: FifoPlace;
  /** The lane's unreleased arrivals per bucket from its cursor's bucket on: [bucket, count], oldest first. */
  queue: [number, number][];
}

/** A waiting visitor's view, computed at the edge from their place and the cursor. */
export interface PlaceView {
  state: QueueState;
  /** True when the cursor has passed the place: the coordinator must admit (or re-queue) them. */
  released: boolean;
  position: number | null;
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  pollAfterMs: number;
}

/** The lottery key of an entrant: SHA-256 hex of `${seed}:${visitorId}` (queue-policy lotteryOrder). */
export type LotteryKey = string;

/**
 * A visitor's view from their place and the cursor, with no object call. `key` is the visitor's
 * lottery key (needed only for pre-queue places once the draw is public).
 *
 * FIFO: released when the place is before its line's cursor (the public queue's, or its lane's);
 * `ahead` counts unreleased arrivals in that line's list before the place (a lower bound when the
 * place's bucket is not listed yet), plus the unreleased draw ranks for the public queue. A lane
 * place's state follows its lane's sale start. A lane the cursor does not list (no longer
 * configured) reads as released, so the room decides (it re-queues the visitor).
 * Lottery pre-queue: before the draw the position is unknown; after it, released when the key is
 * at or below the last released key, and the rank is estimated from the key (SHA-256 is uniform).
 */
export function viewPlace(cursor: AdmissionCursor, place: Place, key: LotteryKey | null, nowMs: number): PlaceView {
  const lane = isPre(place) || place.lane === undefined ? null : (cursor.lanes?.find((l) => l.lane === place.lane) ?? 'missing');
  const saleStartsAtMs = lane !== null && lane !== 'missing' ? lane.saleStartsAtMs : cursor.saleStartsAtMs;
  const config = { saleStartsAtMs } as QueueConfig;
  const state = waitingState(config, cursor.mode, nowMs, cursor.soldOut);
  const unknown = { state, released: false, position: null, ahead: null, estimatedWaitSeconds: null };
  let ahead: number;
  let released: boolean;
  if (isPre(place)) {
    const draw = cursor.draw;
    // A pre-queue ticket of an event that is not a lottery (any more): the room re-queues it.
    if (!draw) return { ...unknown, released: true, pollAfterMs: pollAfterMs(null, cursor.idleTimeoutMs) };
    if (!draw.drawn || key === null) return { ...unknown, pollAfterMs: pollAfterMs(null, cursor.idleTimeoutMs) };
    released = draw.released >= draw.size || (draw.releasedKey !== null && key <= draw.releasedKey);
    const rank = 1 + Math.floor(draw.size * keyFraction(key));
    ahead = Math.max(0, rank - draw.released - 1);
  } else if (lane === 'missing') {
    return { ...unknown, released: true, pollAfterMs: pollAfterMs(null, cursor.idleTimeoutMs) };
  } else {
    const line = lane ?? cursor;
    released = comparePlaces(place, line.fifo) < 0;
    const drawLeft = lane === null && cursor.draw ? Math.max(0, cursor.draw.size - cursor.draw.released) : 0;
    ahead = drawLeft + aheadInLine(place, line.fifo, line.queue, cursor.shards);
  }
  if (released)
    return { state, released, position: 1, ahead: 0, estimatedWaitSeconds: 0, pollAfterMs: pollAfterMs(0, cursor.idleTimeoutMs) };
  const untilStart = onSale(config, nowMs) ? 0 : Math.ceil((saleStartsAtMs - nowMs) / 1000);
  const wait = state === 'waiting' || state === 'not_open' ? estimateWait(ahead + 1, cursor) : null;
  return {
    state,
    released,
    position: ahead + 1,
    ahead,
    estimatedWaitSeconds: wait === null ? null : wait + untilStart,
    // Without an estimate, the release rate still bounds how soon the place can come: polled as if
    // that were the wait (in a surge's first seconds, slots full of
    // expected arrivals and no departures measured yet, every poll said 15 s; released visitors
    // came back that late and held their slots as unclaimed places: 0.41 x the maximum admitted).
    pollAfterMs: pollAfterMs(
      wait ?? (state === 'waiting' ? estimateWaitSeconds(ahead + 1, cursor.admitPerMinute) : null),
      cursor.idleTimeoutMs,
    ),
  };
}

/** Unreleased places of one line before `place`: the listed buckets before it, and about idx x K + shard within its own. */
function aheadInLine(place: FifoPlace, fifo: FifoPlace, queue: readonly [number, number][], shards: number): number {
  // Within the visitor's own bucket, about idx * K + shard places go first (exact for K = 1).
  const released0 = place.bucket === fifo.bucket ? fifo.idx * shards + fifo.shard : 0;
  const before = Math.max(0, place.idx * shards + place.shard - released0);
  let ahead = 0;
  let listed = false;
  for (const [bucket, count] of queue) {
    if (bucket > place.bucket) break;
    listed = bucket === place.bucket;
    ahead += listed ? Math.min(count, before) : count;
  }
  if (!listed) ahead += before;
  return Math.max(0, ahead);
}

/** A lottery key's place in [0, 1): its first 52 bits over 2^52. */
function keyFraction(key: LotteryKey): number {
  return parseInt(key.slice(0, 13), 16) / 2 ** 52;
}
