// Admission pace: how long unclaimed places count and their bound (tick-plan freeSlots counts them
// apart from active visitors), what binds admissions now, and what the wait estimate reads: the
// admission rate and the departures actually measured (contracts/queue/queue-policy estimateWait).
import { MAX_TICK_GAP_MS } from './tick-plan';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * How long after its release an unclaimed place counts as pending, ms: a visitor who shows up
 * claims within one poll (at most 15 s, +20 % jitter), so a place unclaimed after 30 s is most
 * likely a no-show. It lapses from the budget then (it may still be claimed until the idle
 * timeout; the visitor then counts as active like anyone else).
 */
export const CLAIM_WINDOW_MS = 30_000;
/** The unclaimed-place bound never drops below this many places. */
export const MIN_PENDING_LIMIT = 10;

/**
 * The claim window of an event: CLAIM_WINDOW_MS, or the idle timeout when that is shorter (a place
 * cannot be claimed after it).
 * @param idleTimeoutMs the event's idle timeout, ms
 */
export function claimWindowMs(idleTimeoutMs: number): number {
  return Math.min(CLAIM_WINDOW_MS, idleTimeoutMs);
}

/**
 * The bound on unclaimed places, on its own: one claim window's worth of admissions at the
 * current admission rate (at least MIN_PENDING_LIMIT), so it follows the rate down on overload.
 * @param admitPerMinute admissions per minute after no-show compensation
 * @param windowMs the claim window, ms
 */
export function pendingLimit(admitPerMinute: number, windowMs: number): number {
  return Math.max(MIN_PENDING_LIMIT, Math.ceil((Math.max(0, admitPerMinute) * windowMs) / 60_000));
}

/** What limits admissions right now (most decisive first). */
export type BindingConstraint =
  | 'closed'
  | 'sold_out'
  | 'not_on_sale'
  | 'paused'
  | 'queue_empty'
  | 'max_active'
  | 'active_limit'
  | 'unclaimed_places'
  | 'origin_silent'
  | 'fixed_rate'
  | 'release_rate';

/** Inputs of `whatBinds`. Counts are visitors, rates per minute. */
export interface BindingInput {
  mode: 'open' | 'paused' | 'closed';
  soldOut: boolean;
  onSale: boolean;
  /** Visitors waiting to be released. */
  waiting: number;
  active: number;
  pending: number;
  expectedArrivals: number;
  pendingLimit: number;
  /** The controller's limit (before the organizer's cap). */
  activeLimit: number;
  maxActive: number;
  releaseRatePerMinute: number;
  admitPerMinute: number;
  fixedPerMinute: number | null;
  /** originDownReason for the current report, or null. */
  originDown: string | null;
  /** The room's release tick, ms (RELEASE_TICK_MS): a limit binds when it cuts the next tick's release. */
  tickMs: number;
}

/**
 * The constraint that limits admissions now, with a sentence for the dashboard: the organizer's
 * mode, the sale window, active slots (the organizer's cap or the controller's limit) or the
 * unclaimed-place bound leaving fewer places than the rate releases in one tick, an empty queue,
 * else the rate (held down by a silent origin, fixed by the organizer, or the controller's).
 * A slot count, not "full": visitors leave between two ticks, so a limit that cuts every tick's
 * release is seldom full when read between ticks (a crowd run read `release_rate` 77 % of the
 * time while the limit held admissions at 0.54 of the rate).
 * The slots come before the empty queue: with every slot taken the next arrival waits too, so
 * "nobody waiting, arrivals are let in" would be false (the demo's dashboard said so with
 * 10 of 10 active, and the 11th visitor waited minutes).
 */
export function whatBinds(i: BindingInput): { binds: BindingConstraint; detail: string } {
  const limit = Math.min(i.activeLimit, i.maxActive);
  if (i.mode === 'closed') return { binds: 'closed', detail: 'the sale is closed: nobody is released' };
  if (i.soldOut) return { binds: 'sold_out', detail: 'the inventory is sold out: nobody is released' };
  if (!i.onSale) return { binds: 'not_on_sale', detail: 'the sale has not started' };
  if (i.mode === 'paused') return { binds: 'paused', detail: 'releases are paused by the organizer' };
  // What the rate releases in one tick (at least one visitor; a tick earns at most
  // MAX_TICK_GAP_MS of budget): a bound leaving less cuts it.
  const tickMs = Math.min(Math.max(0, i.tickMs), MAX_TICK_GAP_MS);
  const perTick = Math.max(1, Math.ceil((Math.max(0, i.admitPerMinute) * tickMs) / 60_000));
  const free = limit - i.active - i.expectedArrivals;
  // With nobody in line a bound binds only once it leaves no place at all: the next arrival waits.
  const nobody = i.waiting <= 0 ? '; nobody waits now, the next arrival waits for a slot' : '';
  const short = i.waiting <= 0 ? 1 : perTick;
  if (free < short) {
    const slots = `${fmt(i.active)} active + ${fmt(i.expectedArrivals)} expected of ${fmt(i.pending)} unclaimed`;
    const state = free <= 0 ? `is full: ${slots}` : `leaves ${fmt(free)} of the ${fmt(perTick)} places a tick releases: ${slots}`;
    return i.activeLimit >= i.maxActive
      ? { binds: 'max_active', detail: `the organizer's max active (${fmt(i.maxActive)}) ${state}${nobody}` }
      : { binds: 'active_limit', detail: `the controller's active limit (${fmt(limit)}) ${state}${nobody}` };
  }
  if (i.pendingLimit - i.pending < short)
    return {
      binds: 'unclaimed_places',
      detail: `${fmt(i.pending)} released places are unclaimed (bound ${fmt(i.pendingLimit)})${nobody}`,
    };
  if (i.waiting <= 0) return { binds: 'queue_empty', detail: 'arrivals are let in at the release rate as they come' };
  if (i.originDown !== null && i.fixedPerMinute === null)
    return { binds: 'origin_silent', detail: `${i.originDown}: the rate is held at ${fmt(i.releaseRatePerMinute)}/min` };
  if (i.fixedPerMinute !== null) return { binds: 'fixed_rate', detail: `the organizer fixed the rate at ${fmt(i.fixedPerMinute)}/min` };
  return { binds: 'release_rate', detail: `the release rate: ${fmt(i.admitPerMinute)}/min admitted` };
}

/** One dashboard sample as the wait estimate reads it: the time, releases so far, visitors waiting, active visitors. */
export interface AdmissionSample {
  at: number;
  admittedTotal: number;
  waiting: number;
  active: number;
}

/** The measured admission rate needs at least this much backlogged time, ms. */
const MIN_MEASURED_SPAN_MS = 10_000;
/** The measured admission rate and departures look back this far, ms. */
const MEASURE_WINDOW_MS = 60_000;

/**
 * The samples from `fromAt` on, the first one interpolated at `fromAt` when it falls between two
 * (its `waiting` is the earlier one's: the interval began with or without a queue). So the measure
 * window slides smoothly instead of jumping a whole sample interval (SAMPLE_EVERY_MS, 5 s) at once:
 * with bursty departures that jump moved the figures by about a fifth from one second to the next.
 * @param samples samples oldest first
 * @param fromAt epoch ms
 */
function samplesFrom(samples: readonly AdmissionSample[], fromAt: number): AdmissionSample[] {
  const k = samples.findIndex((x) => x.at >= fromAt);
  if (k < 0) return [];
  const b = samples[k]!;
  if (k === 0 || b.at === fromAt) return samples.slice(k);
  const a = samples[k - 1]!;
  const f = (fromAt - a.at) / (b.at - a.at);
  const at: AdmissionSample = {
    at: fromAt,
    admittedTotal: a.admittedTotal + f * (b.admittedTotal - a.admittedTotal),
    waiting: a.waiting,
    active: a.active + f * (b.active - a.active),
  };
  return [at, ...samples.slice(k)];
}

/**
 * Admissions per minute a waiting visitor can count on, measured over the last MEASURE_WINDOW_MS
 * while visitors waited: only intervals that began with a queue count (an idle room releases
 * whoever comes, which says nothing about the pace of a queue), and only after `fromMs` (the sale
 * start); with under MIN_MEASURED_SPAN_MS of such time, `fallbackPerMinute` (the admission rate in
 * force). Every release counts, whatever bound held it: behind a slot bound the releases are the
 * departures they replaced, and the slot term of the estimate (queue-policy estimateWait, from
 * `measuredDepartures` and the free slots) covers the wait for slots. It once switched to
 * "releases minus the rise of the active visitors" whenever a slot bound was full at that instant,
 * and the page's estimate flipped between polls (test/unit/wait-pace.test.ts).
 * The first part of the cursor's wait pace; 0 means nothing was released while visitors waited.
 *
 * @param samples samples oldest first, plus the current state as the last one
 * @param nowMs the current time, epoch ms
 * @param fromMs ignore time before this (sale start), epoch ms
 * @param fallbackPerMinute the rate to use without enough measured time
 * @returns admissions per minute
 */
export function measuredAdmissionRate(
  samples: readonly AdmissionSample[],
  nowMs: number,
  fromMs: number,
  fallbackPerMinute: number,
): number {
  const window = samplesFrom(samples, Math.max(fromMs, nowMs - MEASURE_WINDOW_MS));
  let span = 0;
  let admitted = 0;
  for (let k = 1; k < window.length; k++) {
    const a = window[k - 1]!;
    const b = window[k]!;
    if (a.waiting <= 0 || b.at <= a.at) continue;
    span += b.at - a.at;
    admitted += Math.max(0, b.admittedTotal - a.admittedTotal);
  }
  return span < MIN_MEASURED_SPAN_MS ? fallbackPerMinute : (admitted * 60_000) / span;
}

/**
 * The slots-freed pace needs at least this many departures measured (or the slot bound, when
 * smaller): fewer say little about how long visitors stay. Right after a room fills only its
 * quickest visitors have left: a model room (max active 100, stays of 30-90 s) estimated 4,207 s
 * for a wait of 183 s after its first departure, and the estimate crept up between departures.
 */
export const MIN_DEPARTURES = 10;

/** Departures measured over about the last minute (units: visitors per minute). */
export interface DepartureMeasure {
  /**
   * Admitted visitors who left, were revoked or expired, per minute (the dashboard's figure); null
   * with under MIN_MEASURED_SPAN_MS on sale to measure over.
   */
  perMinute: number | null;
  /**
   * Slots freed per minute with every slot of the bound taken: `perMinute` x slot bound / mean
   * active visitors over the span (each admitted visitor leaves at the pace measured, so a room
   * filling up frees more as it fills: 100 active leaving 100/min under a bound of 1,000 free
   * about 1,000/min once it is full); 0 without a measure or with fewer than MIN_DEPARTURES
   * departures (or the slot bound, when smaller). The cursor's `slotsFreedPerMinute`.
   */
  slotsFreedPerMinute: number;
}

/**
 * Departures over the last MEASURE_WINDOW_MS on sale: admissions claimed minus the rise of the
 * active visitors (a claim adds one active visitor, a departure removes one; an unclaimed place
 * that lapses was never active). Unclaimed places are left out on purpose: they count against
 * the bound only as the share expected to arrive (the free slots say so), and those arrive as
 * claims. Departures count whether or not visitors waited: admitted visitors leave at their own
 * pace. The window starts between two samples: the departures of that sample interval count
 * for the part of it inside the window (claims follow releases within a second or two, so
 * interpolating the active visitors instead missed them).
 *
 * @param samples samples oldest first, with the current state (`active` now) as the last one
 * @param nowMs the current time, epoch ms
 * @param fromMs the first sale start, epoch ms: no time before it counts
 * @param claimsSince admissions claimed after an epoch ms (the room's store)
 * @param slotBound the lower of the controller's active limit and the organizer's max active, now
 */
export function measuredDepartures(
  samples: readonly AdmissionSample[],
  nowMs: number,
  fromMs: number,
  claimsSince: (atMs: number) => number,
  slotBound: number,
): DepartureMeasure {
  const window = samplesFrom(samples, Math.max(fromMs, nowMs - MEASURE_WINDOW_MS));
  const start = window[0];
  const now = samples.at(-1);
  if (!start || !now || nowMs - start.at < MIN_MEASURED_SPAN_MS || now.at <= start.at) return { perMinute: null, slotsFreedPerMinute: 0 };
  // Departures from sample `a` to `b`, both stored (or `b` the current state).
  const left = (a: AdmissionSample, b: AdmissionSample) => claimsSince(a.at) - claimsSince(b.at) - (b.active - a.active);
  const k = samples.findIndex((x) => x.at >= start.at);
  const whole = samples[k]!;
  let departed = left(whole, now);
  if (whole.at > start.at && k > 0) {
    const a = samples[k - 1]!;
    departed += (left(a, whole) * (whole.at - start.at)) / (whole.at - a.at);
  }
  departed = Math.max(0, departed);
  const span = now.at - start.at;
  const perMinute = (departed * 60_000) / span;
  if (departed < Math.min(MIN_DEPARTURES, Math.max(1, slotBound))) return { perMinute, slotsFreedPerMinute: 0 };
  // Mean active visitors over the span (trapezoids between samples), at least one.
  let area = 0;
  for (let j = 1; j < window.length; j++) {
    const a = window[j - 1]!;
    const b = window[j]!;
    area += ((a.active + b.active) / 2) * Math.max(0, b.at - a.at);
  }
  const meanActive = Math.max(1, area / span);
  return { perMinute, slotsFreedPerMinute: (perMinute * Math.max(0, slotBound)) / meanActive };
}

/** What the wait estimate reads (contracts/queue/queue-policy WaitPace, units per minute), and the departures measured. */
export interface RoomPace {
  /** Admissions per minute while visitors waited, or the rate in force (measuredAdmissionRate). */
  admitPerMinute: number;
  /** Departures per minute over about the last minute; null with under MIN_MEASURED_SPAN_MS measured (the dashboard's figure). */
  departuresPerMinute: number | null;
  /** Slots freed per minute with the slot bound full (measuredDepartures). */
  slotsFreedPerMinute: number;
  /** Slots free now under the slot bound: bound - active - expected arrivals (may be <= 0). */
  freeSlots: number;
}

/**
 * The wait pace of a room from its samples: the admissions measured while visitors waited, the
 * departures (measuredDepartures), and the free slots now.
 *
 * @param samples samples of about the last minute, oldest first, with the current state last
 * @param nowMs the current time, epoch ms
 * @param fromMs the first sale start, epoch ms: no time before it counts
 * @param fallbackPerMinute the admission rate in force (without enough measured time)
 * @param claimsSince admissions claimed after an epoch ms (the room's store)
 * @param slots the slot bound now (the lower of the controller's limit and the organizer's max),
 *   the active visitors and the unclaimed places expected to arrive (room-report bindingReport)
 */
export function roomPace(
  samples: readonly AdmissionSample[],
  nowMs: number,
  fromMs: number,
  fallbackPerMinute: number,
  claimsSince: (atMs: number) => number,
  slots: { bound: number; active: number; expectedArrivals: number },
): RoomPace {
  const departures = measuredDepartures(samples, nowMs, fromMs, claimsSince, slots.bound);
  return {
    admitPerMinute: measuredAdmissionRate(samples, nowMs, fromMs, fallbackPerMinute),
    departuresPerMinute: departures.perMinute,
    slotsFreedPerMinute: departures.slotsFreedPerMinute,
    freeSlots: slots.bound - slots.active - slots.expectedArrivals,
  };
}
