// Release controller: the pure law that turns health signals into a release rate and an active
// limit, and the token-bucket release budget of one tick.

/** One health report from the origin, as stored by the WaitingRoom. */
export interface HealthReport {
  /**
   * p99 latency of the origin over the report window, in ms. Below MIN_MEASURED_P99_MS it means
   * "nothing measured" (an idle window): the origin is alive, but that is no reason to climb.
   */
  p99LatencyMs: number;
  /** Share of failed origin requests over the window, 0..1. */
  errorRate: number;
  /** Buyers the origin currently serves. */
  activeBuyers: number;
  /** Optional: how many concurrent buyers the origin says it can serve. */
  capacityHint?: number;
  /**
   * When the origin signed the report, clamped to the gateway's clock at receipt (never later),
   * epoch ms. Freshness counts from here, so replaying an old report cannot make it fresh again.
   */
  reportedAtMs: number;
}

/** The gateway's own signals over its last window, gathered by the WaitingRoom. */
export interface GatewaySignals {
  /** p99 of seat-hold round trips through the gateway, ms; null without holds in the window. */
  holdP99Ms: number | null;
  /** Share of holds refused because the seats were taken, 0..1; null without holds. */
  conflictRate: number | null;
  /** Share of recently released visitors who never claimed their admission, 0..1; null with too few. */
  noShowRate: number | null;
}

/** Everything the controller looks at in one tick. */
export interface Signals {
  origin: HealthReport | null;
  gateway: GatewaySignals;
  /** Active visitors now (admitted, not yet left or expired): the load the overload rule looks at. */
  active: number;
  /**
   * Unclaimed places: released within the claim window (CLAIM_WINDOW_MS) and not claimed yet. They
   * cost the origin nothing until they arrive; they count as use of the limit (so a limit that
   * binds through them can grow), never as load.
   */
  pending: number;
}

/** Organizer bounds, targets and overrides; rates are new visitors per minute. */
export interface ControllerBounds {
  minPerMinute: number;
  maxPerMinute: number;
  targetP99Ms: number;
  maxErrorRate: number;
  /** Seat-hold p99 above which the inventory counts as overloaded, ms. */
  holdTargetP99Ms: number;
  /** What a silent or failing origin gets: the minimum rate, or no releases at all. */
  onOriginDown: 'minimum' | 'pause';
  /** Organizer override: this exact rate, whatever the signals say; null = automatic. */
  fixedPerMinute: number | null;
  /** The organizer's cap on active visitors; the controller's own limit never exceeds it. */
  maxActive: number;
}

/** What the controller remembers between ticks. */
export interface ControllerState {
  /** Current release rate, new visitors per minute. */
  ratePerMinute: number;
  /**
   * The controller's own limit on active visitors, learned from the origin (<= bounds.maxActive):
   * cut below the current load when the origin is overloaded, probed upwards while it is healthy.
   */
  activeLimit: number;
  /** Slow start (as in TCP): rate and limit grow with the headroom until the first overload or delay rise. */
  slowStart: boolean;
  /** `reportedAtMs` of the last origin report acted on, so one report moves the rate once (0 = none yet). */
  lastReportAtMs: number;
  /**
   * Active visitors at the last overload (0 = none yet), as CUBIC's W_max (Ha, Rhee and Xu, 2008):
   * the limit grows fast well below it, creeps near it, and fast again once 10 % past it without
   * a new overload (the origin recovered or grew), so the loop does not saw across the knee.
   */
  overloadLimit: number;
}

/** An origin report older than this (ms) counts as missing: never a reason to climb. */
export const STALE_HEALTH_MS = 10_000;
/** An error rate at or above this means the origin is down, not just struggling. */
export const ORIGIN_DOWN_ERROR_RATE = 0.5;
/** A p99 under this (ms) measured nothing (an idle window, or a bogus 0): hold, never climb. */
export const MIN_MEASURED_P99_MS = 1;
/** Rate factor on missing health, and on overload not measured in latency (errors, slow holds). */
export const DECREASE_FACTOR = 0.5;
/** A latency overload cuts by target/p99, but never deeper than this factor... */
export const MIN_CUT_FACTOR = 0.5;
/** ...and never shallower than this one (a report just over target still cuts by a tenth). */
export const MAX_CUT_FACTOR = 0.9;
/** Additive increase of the rate per healthy report, as a share of the organizer's maximum. */
export const INCREASE_SHARE = 0.1;
/** Above this conflict rate most visitors find their seats gone: admitting more only adds load. */
export const HIGH_CONFLICT_RATE = 0.8;
/** No-show compensation admits at most this many times the rate. */
export const MAX_NO_SHOW_FACTOR = 2;
/** On an overload not measured in latency the active limit drops to this share of the active visitors. */
export const LIMIT_CUT = 0.7;
/**
 * Congestion avoidance: rate and limit grow only while p99 stays under this share of the target;
 * between it and the target both hold (the alpha/beta band of TCP Vegas, Brakmo and Peterson 1995),
 * so the loop settles under the target instead of sawing across it.
 */
export const GROW_BELOW = 0.7;
/**
 * Congestion avoidance: the limit grows per report by this share x (1 - p99 / (GROW_BELOW x
 * target)), so growth fades out as p99 nears the band...
 */
export const LIMIT_GROWTH = 0.25;
/** ...by only this share (at least 1) within NEAR_OVERLOAD of the load of the last overload... */
export const LIMIT_CREEP = 0.01;
/** (a share of that load) */
export const NEAR_OVERLOAD = 0.1;
/**
 * ...and only while in use: active + unclaimed >= this share of it (a limit not filled says nothing
 * about the origin: no growth while application-limited, RFC 7661).
 */
export const LIMIT_PROBE_AT = 0.95;
/** Slow start ends once p99 reaches this share of the target (a delay-based exit, as in HyStart). */
export const SLOW_START_EXIT = 0.5;
/** The active limit slow start begins from, once the origin's first report arrives; also the floor of cuts. */
export const INITIAL_LIMIT = 10;

/** The controller's answer for one tick. */
export interface RateDecision {
  state: ControllerState;
  /**
   * Why the rate or the active limit changed, naming both ("p99 1,840 ms over 800 ms target: rate
   * 300 -> 150/min, active limit 200 -> 50"); null when neither moved.
   */
  reason: string | null;
  /**
   * Visitors per minute to actually admit: the rate, raised to make up for no-shows when the
   * origin is healthy (at most MAX_NO_SHOW_FACTOR times, never above the organizer's maximum).
   */
  admitPerMinute: number;
}

/** The starting state: the minimum rate, until the origin says it is healthy. */
export function initialControllerState(bounds: ControllerBounds): ControllerState {
  // Until the origin's first report the organizer's cap is the only limit (and the rate the minimum).
  return {
    ratePerMinute: bounds.fixedPerMinute ?? bounds.minPerMinute,
    activeLimit: bounds.maxActive,
    slowStart: true,
    lastReportAtMs: 0,
    overloadLimit: 0,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const finite = (...xs: (number | undefined)[]) => xs.every((x) => x === undefined || Number.isFinite(x));

/**
 * Why the origin counts as down right now, or null when its report is fresh and usable: no
 * report, a malformed one (non-finite numbers, negative buyers, error rate outside 0..1), one
 * older than STALE_HEALTH_MS, or errors at or above ORIGIN_DOWN_ERROR_RATE.
 *
 * @param report the latest stored report, or null
 * @param nowMs the gateway's clock, epoch ms
 */
export function originDownReason(report: HealthReport | null, nowMs: number): string | null {
  if (!report) return 'no health report yet';
  const valid =
    finite(report.p99LatencyMs, report.errorRate, report.activeBuyers, report.reportedAtMs) &&
    report.p99LatencyMs >= 0 &&
    report.errorRate >= 0 &&
    report.errorRate <= 1 &&
    report.activeBuyers >= 0;
  if (!valid) return 'malformed health report';
  const age = Math.max(0, nowMs - report.reportedAtMs);
  if (age > STALE_HEALTH_MS) return `no health report for ${fmt(age / 1000)} s`;
  if (report.errorRate >= ORIGIN_DOWN_ERROR_RATE) return `origin failing (errors ${pct(report.errorRate)})`;
  return null;
}

/**
 * One step of the release law, applied once per fresh origin report. Two quantities move: the
 * **release rate** (the pace of new admissions) and the **active limit** (how many admitted
 * visitors may be on the sale at once, as the limit of Netflix's concurrency-limits):
 * - **Slow start** (TCP, RFC 5681 section 3.1): from the first report the limit starts at
 *   max(INITIAL_LIMIT, active + unclaimed) and, per healthy report, both grow by the factor
 *   (1 + headroom), headroom = 1 - p99/target; the limit while in use, where unclaimed places
 *   count as use, so it grows whether or not released visitors have claimed their admission yet.
 *   It ends at the first overload, or once p99 reaches SLOW_START_EXIT x target (delay-based exit,
 *   as HyStart: Ha and Rhee, 2008).
 * - **Congestion avoidance** (AIMD, Chiu and Jain 1989, with the Vegas band): below GROW_BELOW x
 *   target the rate grows by INCREASE_SHARE x max and the limit, while in use (active + unclaimed
 *   >= LIMIT_PROBE_AT x limit), by up to LIMIT_GROWTH per report, fading toward the band and
 *   creeping near the load of the last overload (`overloadLimit`); between GROW_BELOW x target and
 *   the target both hold.
 * - **Overload** (p99 over target, errors over the limit, seat-hold p99 over its target): both cut
 *   by target/p99 within [MIN_CUT_FACTOR, MAX_CUT_FACTOR] (a gradient, as Netflix's Gradient2), or
 *   by DECREASE_FACTOR / LIMIT_CUT for causes not measured in latency; the limit from
 *   the active visitors, so new admissions stop at once, never below INITIAL_LIMIT; once per
 *   overload (while the active visitors still exceed the cut limit, later reports hold).
 * A missing, stale, malformed or failing report means the origin is down (see originDownReason):
 * the rate halves toward the minimum (or drops to 0 when the organizer chose `pause`) and the
 * limit never grows, so the gateway never climbs blind. A p99 under MIN_MEASURED_P99_MS measured
 * nothing: hold. A high conflict rate holds both. An organizer's fixed rate overrides the rate.
 * Clock jumps are harmless: a report's age is never negative and each report acts once.
 *
 * @param state the previous state
 * @param signals the origin's latest report (or null), the gateway's own signals, active and unclaimed counts
 * @param bounds organizer bounds (may have changed since the last tick)
 * @param nowMs the current time, epoch ms
 * @returns the next state, the reason for a change of rate or limit (null when neither moved),
 *   and the admissions per minute after no-show compensation
 */
export function nextReleaseRate(state: ControllerState, signals: Signals, bounds: ControllerBounds, nowMs: number): RateDecision {
  const clamp = (r: number) => Math.min(bounds.maxPerMinute, Math.max(bounds.minPerMinute, r));
  const clampLimit = (l: number) => Math.min(bounds.maxActive, Math.max(1, Math.floor(l)));
  const fixed = bounds.fixedPerMinute;
  const rateOr = (r: number) => (fixed !== null ? Math.min(fixed, bounds.maxPerMinute) : r);
  const fixedNote = fixed !== null ? ` (rate fixed by the organizer at ${fmt(fixed)}/min)` : '';
  const active = Math.max(0, signals.active);
  const inFlight = active + Math.max(0, signals.pending);
  const decide = (
    rate: number,
    limit: number,
    lastReportAtMs: number,
    why: string,
    admitFactor = 1,
    slowStart = state.slowStart,
    overloadLimit = state.overloadLimit,
  ): RateDecision => {
    const next = { ratePerMinute: Math.max(0, Math.round(rate)), activeLimit: clampLimit(limit), slowStart, lastReportAtMs, overloadLimit };
    const changes: string[] = [];
    if (next.ratePerMinute !== state.ratePerMinute) {
      // A cut that ends above the old rate was the organizer's new minimum at work: say that.
      const floor = next.ratePerMinute > state.ratePerMinute && rate <= bounds.minPerMinute && fixed === null;
      changes.push(
        `rate ${fmt(state.ratePerMinute)} -> ${fmt(next.ratePerMinute)}/min${floor ? ` (the organizer's minimum of ${fmt(bounds.minPerMinute)}/min)` : ''}`,
      );
    }
    if (next.activeLimit !== state.activeLimit) {
      const cap = next.activeLimit === bounds.maxActive ? " (the organizer's max active)" : '';
      changes.push(`active limit ${fmt(state.activeLimit)} -> ${fmt(next.activeLimit)}${cap}`);
    }
    // No-show compensation never admits beyond the organizer's maximum (no-shows can be faked).
    const admit = Math.round(Math.min(next.ratePerMinute * admitFactor, Math.max(next.ratePerMinute, bounds.maxPerMinute)));
    return { state: next, reason: changes.length ? `${why}: ${changes.join(', ')}${fixedNote}` : null, admitPerMinute: admit };
  };

  const { origin, gateway } = signals;
  const down = originDownReason(origin, nowMs);
  if (down !== null) {
    const limit = Math.min(state.activeLimit, bounds.maxActive);
    if (fixed !== null) return decide(rateOr(fixed), limit, state.lastReportAtMs, down);
    if (bounds.onOriginDown === 'pause') return decide(0, limit, state.lastReportAtMs, `${down}, releases paused`);
    return decide(clamp(state.ratePerMinute * DECREASE_FACTOR), limit, state.lastReportAtMs, down);
  }
  const report = origin!;
  const noShow = gateway.noShowRate !== null && Number.isFinite(gateway.noShowRate) ? Math.min(Math.max(gateway.noShowRate, 0), 0.99) : 0;
  const admitFactor = Math.min(MAX_NO_SHOW_FACTOR, 1 / (1 - noShow));
  if (report.reportedAtMs <= state.lastReportAtMs) {
    // Already acted on this report; only re-apply bounds the organizer may have changed.
    return decide(rateOr(clamp(state.ratePerMinute)), state.activeLimit, state.lastReportAtMs, 'organizer bounds changed', admitFactor);
  }
  const at = report.reportedAtMs;
  // The first report starts the limit's slow start from what is in flight now.
  const first = state.lastReportAtMs === 0;
  const current = first ? clampLimit(Math.max(INITIAL_LIMIT, inFlight)) : state.activeLimit;
  const firstNote = first ? `first health report, slow start from ${fmt(current)} active` : '';
  const label = (why: string) => (firstNote ? `${firstNote}; ${why}` : why);
  const cut = (why: string, factor: number, limitFactor: number) => {
    // One cut per overload (as TCP cuts once per window, RFC 5681 section 3.2): while the active
    // visitors still exceed the limit the last cut set, no one is being admitted and the load the
    // report saw was admitted before that cut, so cutting again would only compound it.
    if (!first && active > current) return hold(`${why}, already cut (${fmt(active)} active over the limit ${fmt(current)})`);
    // Below the current load, but never below INITIAL_LIMIT; if our few visitors cannot be the
    // cause (fewer than INITIAL_LIMIT active), slow start stays on to recover quickly.
    const limit = Math.min(current, Math.max(INITIAL_LIMIT, active * limitFactor));
    const slow = active < INITIAL_LIMIT && state.slowStart;
    return decide(rateOr(clamp(state.ratePerMinute * factor)), limit, at, label(why), 1, slow, Math.max(active, INITIAL_LIMIT));
  };
  const hold = (why: string) => decide(rateOr(clamp(state.ratePerMinute)), current, at, label(why), admitFactor);
  const u = report.p99LatencyMs / bounds.targetP99Ms;
  if (u > 1) {
    const f = Math.min(MAX_CUT_FACTOR, Math.max(MIN_CUT_FACTOR, 1 / u));
    return cut(`p99 ${fmt(report.p99LatencyMs)} ms over ${fmt(bounds.targetP99Ms)} ms target, x${f.toFixed(2)}`, f, f);
  }
  if (report.errorRate > bounds.maxErrorRate) {
    return cut(`error rate ${pct(report.errorRate)} over ${pct(bounds.maxErrorRate)}`, DECREASE_FACTOR, LIMIT_CUT);
  }
  if (gateway.holdP99Ms !== null && Number.isFinite(gateway.holdP99Ms) && gateway.holdP99Ms > bounds.holdTargetP99Ms) {
    return cut(`seat-hold p99 ${fmt(gateway.holdP99Ms)} ms over ${fmt(bounds.holdTargetP99Ms)} ms`, DECREASE_FACTOR, LIMIT_CUT);
  }
  if (gateway.conflictRate !== null && gateway.conflictRate > HIGH_CONFLICT_RATE) {
    return hold(`most holds find their seats taken (${pct(gateway.conflictRate)}), hold`);
  }
  if (report.p99LatencyMs < MIN_MEASURED_P99_MS) return hold('no origin latency measured in the report window, hold');

  const headroom = 1 - u;
  const extra = admitFactor > 1 ? `; admitting x${admitFactor.toFixed(2)} for ${pct(noShow)} no-shows` : '';
  const seen = `p99 ${fmt(report.p99LatencyMs)} ms of ${fmt(bounds.targetP99Ms)} ms target, ${fmt(report.activeBuyers)} buyers`;
  const step = Math.max(1, Math.ceil(bounds.maxPerMinute * INCREASE_SHARE));
  // In use: admitted or released-but-unclaimed visitors fill most of the limit. Unclaimed places
  // count, so a limit that binds before visitors have arrived still grows.
  const inUse = inFlight >= current * LIMIT_PROBE_AT;
  if (state.slowStart && u < SLOW_START_EXIT) {
    const g = 1 + headroom;
    return decide(
      rateOr(clamp(Math.max(state.ratePerMinute + step, state.ratePerMinute * g))),
      inUse ? current * g : current,
      at,
      label(`healthy (${seen}), slow start x${g.toFixed(2)}${extra}`),
      admitFactor,
      true,
    );
  }
  const why = state.slowStart ? `healthy (${seen}), slow start ends at ${pct(u)} of target` : `healthy (${seen})`;
  if (u >= GROW_BELOW)
    return decide(rateOr(clamp(state.ratePerMinute)), current, at, label(`${why}, near target: hold${extra}`), admitFactor, false);
  // Growth fades out toward GROW_BELOW, and creeps (LIMIT_CREEP per report) within 10 % of the
  // load of the last overload, so the limit approaches the origin's knee instead of jumping over it.
  const w = state.overloadLimit;
  const fast = current * (1 + LIMIT_GROWTH * (1 - u / GROW_BELOW));
  const near = w > 0 && current < w * (1 + NEAR_OVERLOAD) && fast > w * (1 - NEAR_OVERLOAD);
  const creep = current + Math.max(1, Math.ceil(current * LIMIT_CREEP));
  const grown = near ? Math.max(Math.min(fast, w * (1 - NEAR_OVERLOAD)), Math.min(creep, fast)) : fast;
  const limit = inUse ? Math.max(current + 1, grown) : current;
  return decide(rateOr(clamp(state.ratePerMinute + step)), limit, at, label(`${why}${extra}`), admitFactor, false);
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
