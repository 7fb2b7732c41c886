// The release tick's rules as pure functions of what the tick read: who is eligible, how many free
// slots and how much budget there are, where the admission cursor moves, and the gateway signals
// (hold latency, conflicts, no-shows) the release controller reads. The WaitingRoom reads rows,
// calls these, and writes what they return (DESIGN.md sections 5 and 6).
import { advanceCursor, comparePlaces, releasedInBucket, type BucketCounts, type FifoPlace } from '../../contracts/queue/cursor';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import { releaseBudget, type GatewaySignals } from './release-controller';

/** Gateway signals (hold latency, conflicts) count over this trailing window, ms. */
export const SIGNAL_WINDOW_MS = 30_000;
/**
 * The conflict rate counts only with at least this many holds in SIGNAL_WINDOW_MS: fewer say
 * nothing about the crowd. (Isolates report counts, not accounts, so this counts holds.)
 */
export const MIN_CONFLICT_HOLDS = 10;
/** A released visitor who has not claimed their admission this long after the release is a no-show, ms. */
export const NO_SHOW_AFTER_MS = 60_000;
/** No-shows count among visitors released in this trailing window, ms. */
export const NO_SHOW_WINDOW_MS = 5 * 60_000;
/** The no-show rate counts only with at least this many visitors released in the window. */
export const MIN_NO_SHOW_SAMPLE = 10;

/** The lottery draw's progress: entrants ranked, and ranks released so far. */
export interface DrawProgress {
  size: number;
  released: number;
}

/** Where arrivals stand: the cursor, per-shard counts from its bucket on, and the first bucket not final. */
export interface QueueCounts {
  /** First FIFO place not released yet. */
  cursor: FifoPlace;
  /** Arrivals per shard and bucket (buckets at or after the cursor's suffice). */
  counts: BucketCounts;
  /** Every bucket before this one is final on every shard (0 until every shard has reported). */
  sealedBefore: number;
}

/**
 * Unreleased places in counted buckets from the cursor's bucket on, sealed or not (the
 * visitors the room knows are in line by FIFO place).
 * @param onlySealed count only buckets before `sealedBefore` (those the cursor may pass now)
 */
export function unreleasedArrivals(q: QueueCounts, { onlySealed }: { onlySealed: boolean }): number {
  let n = 0;
  for (const [shard, buckets] of q.counts) {
    for (const [bucket, count] of buckets) {
      if (onlySealed && bucket >= q.sealedBefore) continue;
      n += count - releasedInBucket(q.cursor, bucket, new Map([[shard, count]]));
    }
  }
  return n;
}

/** Visitors the tick may release now: unreleased draw ranks, then unreleased places in sealed buckets. */
export function eligibleCount(q: QueueCounts, draw: DrawProgress): number {
  return draw.size - draw.released + unreleasedArrivals(q, { onlySealed: true });
}

/**
 * Visitors in line: before the draw the shards' pre-queue entrants, after it the unreleased draw
 * ranks; plus every counted, unreleased FIFO arrival (sealed or not).
 * @param preQueue pre-queue entrants the shards reported (ignored once drawn)
 */
export function waitingCount(q: QueueCounts, lottery: { drawn: boolean; preQueue: number; draw: DrawProgress }): number {
  const line = lottery.drawn ? lottery.draw.size - lottery.draw.released : lottery.preQueue;
  return line + unreleasedArrivals(q, { onlySealed: false });
}

/** The occupancy a tick's free slots come from. */
export interface Occupancy {
  /** The organizer's cap on active visitors. */
  maxActiveVisitors: number;
  /** The controller's current limit on active visitors. */
  activeLimit: number;
  /** Admitted visitors whose admission has not ended. */
  active: number;
  /** Unclaimed places: released within the claim window (admission-pace claimWindowMs), not claimed yet. */
  pending: number;
  /** Measured share of released visitors who never claim (0..1), or null while unknown (then all are expected). */
  noShowRate: number | null;
  /** The bound on unclaimed places of their own (admission-pace pendingLimit). */
  pendingLimit: number;
}

/**
 * Slots free for newly released visitors. Unclaimed places count apart from active visitors
 * (DESIGN.md section 5): against the lower of the organizer's cap and the controller's limit only
 * the share expected to arrive (1 - no-show rate, rounded up), and all of them against their own
 * bound; a place older than the claim window counts nowhere (it lapsed), so no-shows never stall
 * the queue. May be zero or negative.
 */
export function freeSlots(o: Occupancy): number {
  return Math.min(Math.min(o.maxActiveVisitors, o.activeLimit) - o.active - expectedArrivals(o), o.pendingLimit - o.pending);
}

/** Unclaimed places expected to arrive: all of them while the no-show rate is unknown. */
export function expectedArrivals(o: Pick<Occupancy, 'pending' | 'noShowRate'>): number {
  const show = o.noShowRate === null || !Number.isFinite(o.noShowRate) ? 1 : 1 - Math.min(1, Math.max(0, o.noShowRate));
  return Math.ceil(Math.max(0, o.pending) * show);
}

/** Why a tick releases nobody, whatever the budget. */
export type HoldReason = 'closed' | 'paused' | 'sold_out' | 'not_on_sale';

/**
 * Whether releases may happen at all: an open room, not sold out, at or after the sale start.
 * @returns null when they may, else the first reason they may not
 */
export function holdReason(room: { mode: RoomMode; soldOut: boolean; saleStartsAtMs: number }, nowMs: number): HoldReason | null {
  if (room.mode === 'closed') return 'closed';
  if (room.mode === 'paused') return 'paused';
  if (room.soldOut) return 'sold_out';
  if (nowMs < room.saleStartsAtMs) return 'not_on_sale';
  return null;
}

/** Everything one tick's release decision reads. Times epoch ms, rates per minute. */
export interface TickInput {
  nowMs: number;
  mode: RoomMode;
  soldOut: boolean;
  saleStartsAtMs: number;
  /** Admissions per minute the controller decided for this tick (after no-show compensation). */
  admitPerMinute: number;
  /** Fraction of a visitor carried from the last tick, [0, 1). */
  carry: number;
  /** When the last tick ran, epoch ms. */
  lastTickAtMs: number;
  occupancy: Occupancy;
  draw: DrawProgress;
  queue: QueueCounts;
}

/**
 * One tick's release: `hold` (nothing may be released; the carry resets so a pause earns no
 * burst), or `release` with the budget and the cursor's move. Draw ranks go first, then FIFO places.
 */
export type ReleasePlan =
  | { kind: 'hold'; reason: HoldReason; carry: 0 }
  | {
      kind: 'release';
      /** Visitors who could have been released (see eligibleCount). */
      eligible: number;
      /** Visitors the budget allowed (rate x elapsed, free slots, eligible), = fromDraw + fromQueue. */
      admit: number;
      carry: number;
      /** Draw ranks released now (the next `fromDraw` ranks after `draw.released`). */
      fromDraw: number;
      /** FIFO places released now. */
      fromQueue: number;
      /** The new cursor (the first FIFO place not released). */
      cursor: FifoPlace;
      /** The cursor moved (it may move over empty buckets with nobody released). */
      cursorMoved: boolean;
    };

/**
 * The tick's release: whether it may release, its budget (releaseBudget over the elapsed time,
 * free slots and eligible visitors), the draw ranks and FIFO places that budget covers, and the
 * cursor's new position.
 */
export function planRelease(t: TickInput): ReleasePlan {
  const reason = holdReason(t, t.nowMs);
  if (reason) return { kind: 'hold', reason, carry: 0 };
  const eligible = eligibleCount(t.queue, t.draw);
  const budget = releaseBudget(t.admitPerMinute, t.carry, t.nowMs - t.lastTickAtMs, freeSlots(t.occupancy), eligible);
  const fromDraw = Math.min(budget.admit, t.draw.size - t.draw.released);
  const moved = advanceCursor(t.queue.cursor, t.queue.counts, t.queue.sealedBefore, budget.admit - fromDraw);
  return {
    kind: 'release',
    eligible,
    admit: budget.admit,
    carry: budget.carry,
    fromDraw,
    fromQueue: moved.released,
    cursor: moved.cursor,
    cursorMoved: comparePlaces(moved.cursor, t.queue.cursor) !== 0,
  };
}

/** The trailing window of releases the no-show rate looks at: released in [fromMs, toMs], epoch ms. */
export function noShowWindow(nowMs: number): { fromMs: number; toMs: number } {
  return { fromMs: nowMs - NO_SHOW_WINDOW_MS, toMs: nowMs - NO_SHOW_AFTER_MS };
}

/**
 * How long release records are kept, ms: long enough to tell a claimable place (idle timeout) and
 * to count no-shows (NO_SHOW_WINDOW_MS).
 */
export function releaseKeepMs(idleTimeoutMs: number): number {
  return Math.max(idleTimeoutMs, NO_SHOW_WINDOW_MS);
}

/** Sums the tick read for the gateway signals. */
export interface SignalSums {
  /** Holds, conflicts and the worst isolate's hold p99 (ms) over SIGNAL_WINDOW_MS. */
  holds: number;
  conflicts: number;
  worstHoldP99Ms: number | null;
  /** Visitors released in the no-show window, and how many of them claimed. */
  released: number;
  claimed: number;
}

/**
 * The controller's gateway signals: hold p99 (null without holds), conflict rate (null under
 * MIN_CONFLICT_HOLDS holds), and no-show rate (null under MIN_NO_SHOW_SAMPLE released visitors).
 */
export function gatewaySignals(s: SignalSums): GatewaySignals {
  return {
    holdP99Ms: s.holds > 0 ? s.worstHoldP99Ms : null,
    conflictRate: s.holds >= MIN_CONFLICT_HOLDS ? s.conflicts / s.holds : null,
    noShowRate: s.released >= MIN_NO_SHOW_SAMPLE ? Math.max(0, s.released - s.claimed) / s.released : null,
  };
}
