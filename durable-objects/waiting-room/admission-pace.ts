// Admission pace: how long unclaimed places count and their bound (tick-plan freeSlots counts them
// apart from active visitors), what binds admissions now, and the admission rate actually measured
// (the basis of wait estimates).
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
 * "nobody waiting, arrivals are let in" would be false (review: the demo's dashboard said so with
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
export const MIN_MEASURED_SPAN_MS = 10_000;
/** The measured admission rate looks back this far, ms. */
export const MEASURE_WINDOW_MS = 60_000;

/**
 * Admissions per minute a waiting visitor can count on, measured over the last MEASURE_WINDOW_MS
 * while visitors waited: only intervals that began with a queue count (an idle room releases
 * whoever comes, which says nothing about the pace of a queue), and only after `fromMs` (the sale
 * start). The basis of the waiting page's estimate; 0 means "we cannot estimate yet" (the
 * estimate is then null, queue-policy estimateWaitSeconds).
 * - **A slot bound full now** (`slotsFull`: the controller's active limit or the organizer's max
 *   active, admission-pace whatBinds `active_limit`/`max_active`): the line moves only as slots
 *   free, so the rate is the releases that replaced a departure: releases minus the rise of the
 *   active visitors over those intervals (a release that filled a free slot frees nothing later).
 *   With under MIN_MEASURED_SPAN_MS measured, or nothing freed, it is 0: nothing may free for up
 *   to the admission TTL, so any number would be a guess (review F11: "less than a minute" for a
 *   line behind a full max active, from the release rate or from the releases that filled it).
 * - **Otherwise**: the releases measured; with under MIN_MEASURED_SPAN_MS of such time,
 *   `fallbackPerMinute` (the admission rate in force).
 *
 * @param samples samples oldest first, plus the current state as the last one
 * @param nowMs the current time, epoch ms
 * @param fromMs ignore time before this (sale start), epoch ms
 * @param fallbackPerMinute the rate to use without enough measured time (slots not full)
 * @param slotsFull whether a slot bound leaves no room now
 * @returns admissions per minute, 0 when it cannot be estimated
 */
export function measuredAdmissionRate(
  samples: readonly AdmissionSample[],
  nowMs: number,
  fromMs: number,
  fallbackPerMinute: number,
  slotsFull = false,
): number {
  let span = 0;
  let admitted = 0;
  let activeRise = 0;
  for (let k = 1; k < samples.length; k++) {
    const a = samples[k - 1]!;
    const b = samples[k]!;
    if (a.at < Math.max(fromMs, nowMs - MEASURE_WINDOW_MS) || a.waiting <= 0 || b.at <= a.at) continue;
    span += b.at - a.at;
    admitted += Math.max(0, b.admittedTotal - a.admittedTotal);
    activeRise += b.active - a.active;
  }
  if (span < MIN_MEASURED_SPAN_MS) return slotsFull ? 0 : fallbackPerMinute;
  const counted = slotsFull ? Math.max(0, admitted - Math.max(0, activeRise)) : admitted;
  return (counted * 60_000) / span;
}
