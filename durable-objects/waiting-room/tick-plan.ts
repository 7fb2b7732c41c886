// The release tick's rules as pure functions of what the tick read: who is eligible, how many free
// slots and how much budget there are, where the admission cursor moves, and the gateway signals
// (hold latency, conflicts, no-shows) the release controller reads. The WaitingRoom reads rows,
// calls these, and writes what they return (DESIGN.md sections 5 and 6).
import { advanceCursor, comparePlaces, releasedInBucket, type BucketCounts, type FifoPlace } from '../../contracts/queue/cursor';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import { splitLaneBudget } from './lane-split';
import type { GatewaySignals } from './health-signals';

/** Gateway signals (hold latency, conflicts) count over this trailing window, ms. */
export const SIGNAL_WINDOW_MS = 30_000;
/**
 * Edge waits count over this window, ms: two origin reports' windows' worth of flushes
 * (src/lib/edge-wait.ts sends every 2 s), short enough that a queue drained at the edge stops
 * counting within one report window.
 */
export const EDGE_WAIT_WINDOW_MS = 10_000;
/**
 * The conflict rate counts only with at least this many holds in SIGNAL_WINDOW_MS: fewer say
 * nothing about the crowd. (Isolates report counts, not accounts, so this counts holds.)
 */
export const MIN_CONFLICT_HOLDS = 10;
/**
 * A released visitor who has not claimed their admission this long after the release is a no-show,
 * ms: the claim window (admission-pace CLAIM_WINDOW_MS: a visitor who shows claims within one poll,
 * at most 15 s + 20 % jitter). It was 60 s, so the no-show rate was unknown for the first minute of
 * releases and every unclaimed place counted as an arrival meanwhile (bench:control,
 * 50 % no-shows: 133 unclaimed places held a cut limit of 10 full for 25 s, nothing released).
 */
export const NO_SHOW_AFTER_MS = 30_000;
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
  /** Of those, the places expected to arrive (see unclaimedPlaces). */
  expected: number;
  /** The bound on unclaimed places of their own (admission-pace pendingLimit). */
  pendingLimit: number;
}

/**
 * Slots free for newly released visitors. Unclaimed places count apart from active visitors
 * (DESIGN.md section 5): against the lower of the organizer's cap and the controller's limit only
 * those expected to arrive (unclaimedPlaces), and all of them against their own bound; a place
 * older than the claim window counts nowhere (it lapsed), so no-shows never stall the queue. May
 * be zero or negative.
 */
export function freeSlots(o: Occupancy): number {
  return Math.min(Math.min(o.maxActiveVisitors, o.activeLimit) - o.active - o.expected, o.pendingLimit - o.pending);
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
  /** The event's presale lanes in the organizer's (release) order; empty for an event without lanes. */
  lanes: readonly LaneTick[];
  /**
   * Each line's carried rounding credit from the last tick's plan (`credit`: the lanes in order,
   * then the public queue; missing: 0). Kept in memory: a restart loses under 2 visitors' worth.
   */
  laneCredit?: readonly number[];
}

/** A presale lane as one tick reads it. */
export interface LaneTick {
  lane: string;
  /** The lane's sale start, epoch ms (the event's own when the organizer set none): nobody of it is released before. */
  saleStartsAtMs: number;
  /** Its share of each tick's budget, whole percent (the public queue gets 100 minus the lanes' shares). */
  sharePercent: number;
  /** The lane's own line: cursor, arrivals, and the shards' seal. */
  queue: QueueCounts;
}

/** What one tick releases from one lane: how many, and where its cursor moves. */
interface LaneRelease {
  lane: string;
  released: number;
  cursor: FifoPlace;
  cursorMoved: boolean;
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
      /** Each lane's part, in the lanes' order (lane places released = the sum of `released`). */
      lanes: LaneRelease[];
      /** Each line's rounding credit to pass as the next tick's `laneCredit` (lane-split.ts). */
      credit: number[];
    };

/**
 * The tick's release: whether it may release (from the first sale start of the public queue and
 * the lanes on), its budget (releaseBudget over the elapsed time, free slots and the visitors
 * eligible now), how that budget is split among the lanes in the organizer's order and then the
 * public queue (lane-split.ts splitLaneBudget: each its share, rounding carried from tick to tick,
 * capped by what it can release; what one cannot use flows on to the next in order), and each line's new cursor. A line releases
 * nobody before its own sale start. In the public queue draw ranks go first, then FIFO places.
 */
export function planRelease(t: TickInput): ReleasePlan {
  const firstStartMs = Math.min(t.saleStartsAtMs, ...t.lanes.map((l) => l.saleStartsAtMs));
  const reason = holdReason({ ...t, saleStartsAtMs: firstStartMs }, t.nowMs);
  if (reason) return { kind: 'hold', reason, carry: 0 };
  const publicEligible = t.nowMs >= t.saleStartsAtMs ? eligibleCount(t.queue, t.draw) : 0;
  const laneEligible = t.lanes.map((l) => (t.nowMs >= l.saleStartsAtMs ? unreleasedArrivals(l.queue, { onlySealed: true }) : 0));
  const eligible = laneEligible.reduce((a, b) => a + b, publicEligible);
  const budget = releaseBudget(t.admitPerMinute, t.carry, t.nowMs - t.lastTickAtMs, freeSlots(t.occupancy), eligible);
  const laneShares = t.lanes.reduce((a, l) => a + l.sharePercent, 0);
  const { admit: split, credit } = splitLaneBudget(
    budget.admit,
    [
      ...t.lanes.map((l, i) => ({ eligible: laneEligible[i]!, sharePercent: l.sharePercent })),
      { eligible: publicEligible, sharePercent: Math.max(0, 100 - laneShares) },
    ],
    t.laneCredit,
  );
  const publicAdmit = split[t.lanes.length]!;
  const fromDraw = Math.min(publicAdmit, t.draw.size - t.draw.released);
  const moved = advanceCursor(t.queue.cursor, t.queue.counts, t.queue.sealedBefore, publicAdmit - fromDraw);
  const lanes = t.lanes.map((l, i): LaneRelease => {
    const m = advanceCursor(l.queue.cursor, l.queue.counts, l.queue.sealedBefore, split[i]!);
    return { lane: l.lane, released: m.released, cursor: m.cursor, cursorMoved: comparePlaces(m.cursor, l.queue.cursor) !== 0 };
  });
  return {
    kind: 'release',
    eligible,
    admit: budget.admit,
    carry: budget.carry,
    fromDraw,
    fromQueue: moved.released,
    cursor: moved.cursor,
    cursorMoved: comparePlaces(moved.cursor, t.queue.cursor) !== 0,
    lanes,
    credit,
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

/** Longest gap between ticks that earns release budget, in ms: a late alarm never bursts. */
export const MAX_TICK_GAP_MS = 5_000;

/**
 * How many visitors one tick may admit: `rate x elapsed` plus the fraction carried from the last
 * tick, capped by free active slots and by the queue length (a token bucket of depth ~1).
 *
 * @param ratePerMinute admissions per minute
 * @param carry fractional visitor carried from the previous tick, in [0, 1)
 * @param elapsedMs time since the previous tick, ms (capped at MAX_TICK_GAP_MS)
 * @param freeSlots max active visitors minus active visitors (may be <= 0)
 * @param waiting visitors eligible for admission now
 * @returns whole visitors to admit and the carry for the next tick
 */
export function releaseBudget(
  ratePerMinute: number,
  carry: number,
  elapsedMs: number,
  freeSlots: number,
  waiting: number,
): { admit: number; carry: number } {
  const earned = (ratePerMinute * Math.min(Math.max(elapsedMs, 0), MAX_TICK_GAP_MS)) / 60_000;
  const allowance = carry + earned;
  const admit = Math.max(0, Math.min(Math.floor(allowance), freeSlots, waiting));
  return { admit, carry: Math.min(allowance - admit, 0.999) };
}
