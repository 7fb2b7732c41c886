// When the WaitingRoom's alarm should next fire: every tick while releases can happen, else only
// at the moment something can change (an object awake is billed; asleep costs nothing).
import type { RoomMode } from '../../contracts/queue/queue-policy';

/**
 * Why the alarm is being planned:
 * - `tick`: at the end of a release tick that saw no wake while it ran;
 * - `event`: a queue shard's wake after a join, an organizer change (configure, resume, a fixed
 *   rate, more inventory), or a wake that arrived while a tick ran. It always earns one tick, so
 *   new arrivals get counted and the change gets acted on;
 * - `capacity`: something that may free a slot or raise the active limit (a leave, a health
 *   report). It earns a tick only when slots are what holds releases back; otherwise it is
 *   planned like `tick` (a health report to a paused room, or one before the sale start, is read by
 *   the next tick and wakes nobody).
 */
export type AlarmCause = 'tick' | 'event' | 'capacity';

/** What the plan reads. Times epoch ms. */
export interface AlarmFacts {
  nowMs: number;
  /** Interval of the release tick, ms. */
  tickMs: number;
  cause: AlarmCause;
  mode: RoomMode;
  soldOut: boolean;
  saleStartsAtMs: number;
  /** A lottery whose draw has not been made yet (it is made by the first tick at or after the sale start). */
  drawPending: boolean;
  /** Visitors in line (tick-plan waitingCount). */
  waiting: number;
  /** Slots free for new releases (tick-plan freeSlots). */
  freeSlots: number;
  /**
   * When the next slot frees by itself, epoch ms: the first instant a claimable release has lapsed
   * (released at + idle timeout + 1 ms) or an admission has ended (its end); null when nothing
   * pending or active ends.
   */
  nextSlotFreesAtMs: number | null;
  /**
   * Whether the waiting page shows the stock against the line (the organizer's `page.showStock`):
   * the figures come from the Inventory at each tick, so a room waiting for a slot still ticks
   * every STOCK_REFRESH_MS to keep them current. Absent: not shown.
   */
  stockShown?: boolean;
}

/**
 * Longest sleep of a room whose line waits for a slot while the page shows the stock, ms: the
 * seats left change as admitted buyers hold and pay (and a restarted room has no figures until
 * it ticks), and the people waiting read them.
 */
export const STOCK_REFRESH_MS = 10_000;

/**
 * The next alarm: `tick` (with the time to fire), or `sleep` until `atMs` or until an event wakes
 * the room (`atMs` null). `reason` names the state, for tests and the bench.
 */
export type AlarmPlan =
  | { kind: 'tick'; atMs: number; reason: 'event' | 'draw' | 'releasing' | 'capacity' }
  | { kind: 'sleep'; atMs: number; reason: 'sale_start' | 'slots_full' }
  | { kind: 'sleep'; atMs: null; reason: 'closed' | 'paused' | 'sold_out' | 'nobody_waiting' | 'slots_full' };

/**
 * The alarm rule. In order: an event earns one tick; before the sale start the room sleeps until
 * it; a lottery due for its draw ticks; a closed, paused or sold-out room sleeps until an event
 * (resume, reopen, more inventory); with nobody in line the room sleeps until a join; with every
 * slot taken it sleeps until the next slot frees (a pending release lapses or an admission ends;
 * a `capacity` cause wakes it sooner), at most STOCK_REFRESH_MS when the page shows the stock;
 * else it ticks.
 */
export function planAlarm(f: AlarmFacts): AlarmPlan {
  const next = f.nowMs + f.tickMs;
  if (f.cause === 'event') return { kind: 'tick', atMs: next, reason: 'event' };
  if (f.nowMs < f.saleStartsAtMs) return { kind: 'sleep', atMs: f.saleStartsAtMs, reason: 'sale_start' };
  if (f.drawPending) return { kind: 'tick', atMs: next, reason: 'draw' };
  if (f.mode === 'closed' || f.mode === 'paused') return { kind: 'sleep', atMs: null, reason: f.mode };
  if (f.soldOut) return { kind: 'sleep', atMs: null, reason: 'sold_out' };
  if (f.waiting <= 0) return { kind: 'sleep', atMs: null, reason: 'nobody_waiting' };
  if (f.freeSlots <= 0) {
    if (f.cause === 'capacity') return { kind: 'tick', atMs: next, reason: 'capacity' };
    // Never in the past: a deadline that has passed is due at once, not in a loop at the same ms.
    const frees = f.nextSlotFreesAtMs === null ? null : Math.max(f.nextSlotFreesAtMs, f.nowMs + 1);
    const wake = f.stockShown ? Math.min(frees ?? Infinity, f.nowMs + STOCK_REFRESH_MS) : frees;
    return wake === null ? { kind: 'sleep', atMs: null, reason: 'slots_full' } : { kind: 'sleep', atMs: wake, reason: 'slots_full' };
  }
  return { kind: 'tick', atMs: next, reason: 'releasing' };
}

/**
 * How to apply a plan to the armed alarm. Inside the alarm handler (`inAlarm`) the fired alarm is
 * gone, so set the plan's time or leave none; anywhere else only ever move an armed alarm earlier
 * (never drop or delay one that a tick or the sale start needs).
 * @param armedAtMs the alarm armed now (null: none)
 * @returns `set` with a time, `delete`, or `keep`
 */
export function alarmChange(
  plan: Pick<AlarmPlan, 'atMs'>,
  where: { inAlarm: boolean },
  armedAtMs: number | null,
): { kind: 'set'; atMs: number } | { kind: 'delete' } | { kind: 'keep' } {
  if (plan.atMs === null) return where.inAlarm && armedAtMs !== null ? { kind: 'delete' } : { kind: 'keep' };
  if (where.inAlarm || armedAtMs === null || plan.atMs < armedAtMs) return { kind: 'set', atMs: plan.atMs };
  return { kind: 'keep' };
}

/**
 * When the next slot frees by itself, epoch ms, or null when nothing pending or active ends: a
 * release lapses 1 ms after its idle timeout (a place is claimable through `released at + idle
 * timeout`), an admission ends at its end.
 * @param firstPendingAtMs when the earliest still-claimable release with unclaimed places was made
 * @param firstAdmissionEndMs the earliest end of an active admission
 */
export function nextSlotFreesAt(
  ends: { firstPendingAtMs: number | null; firstAdmissionEndMs: number | null },
  idleTimeoutMs: number,
): number | null {
  const lapse = ends.firstPendingAtMs === null ? null : ends.firstPendingAtMs + idleTimeoutMs + 1;
  const times = [lapse, ends.firstAdmissionEndMs].filter((t): t is number => t !== null);
  return times.length > 0 ? Math.min(...times) : null;
}
