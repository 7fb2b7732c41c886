// Release controller: the pure AIMD law that turns health signals into a release rate.

/** One health report from the origin, as stored by the WaitingRoom. */
export interface HealthReport {
  /** p99 latency of the origin over the report window, in ms. */
  p99LatencyMs: number;
  /** Share of failed origin requests over the window, 0..1. */
  errorRate: number;
  /** Buyers the origin currently serves. */
  activeBuyers: number;
  /** Optional: how many concurrent buyers the origin says it can serve. */
  capacityHint?: number;
  /**
   * When the origin signed the report (its signed timestamp, never later than the gateway's clock),
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
  /** Share of recently admitted visitors who never reached the sale, 0..1; null with too few. */
  noShowRate: number | null;
}

/** Everything the controller looks at in one tick. */
export interface Signals {
  origin: HealthReport | null;
  gateway: GatewaySignals;
  /** Active visitors now (admitted, not yet left or expired): the load the gateway controls. */
  active: number;
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
  /** Slow start (as in TCP): the limit grows by half per healthy report until the first overload. */
  slowStart: boolean;
  /** `reportedAtMs` of the last origin report acted on, so one report moves the rate once (0 = none yet). */
  lastReportAtMs: number;
}

/** An origin report older than this (ms) counts as missing: never a reason to climb. */
export const STALE_HEALTH_MS = 10_000;
/** An error rate at or above this means the origin is down, not just struggling. */
export const ORIGIN_DOWN_ERROR_RATE = 0.5;
/** Multiplicative decrease factor on bad or missing health. */
export const DECREASE_FACTOR = 0.5;
/** Additive increase per healthy report, as a share of the organizer's maximum. */
export const INCREASE_SHARE = 0.1;
/** Above this conflict rate most visitors find their seats gone: admitting more only adds load. */
export const HIGH_CONFLICT_RATE = 0.8;
/** No-show compensation admits at most this many times the rate. */
export const MAX_NO_SHOW_FACTOR = 2;
/** On overload the active limit drops to this share of the current active visitors. */
export const LIMIT_CUT = 0.7;
/** While healthy and near its limit (>= LIMIT_PROBE_AT of it), the limit grows by this share per report. */
export const LIMIT_GROWTH = 0.02;
export const LIMIT_PROBE_AT = 0.8;
/** The limit grows only while p99 stays under this share of the target (headroom, as in TCP Vegas). */
export const LIMIT_HEADROOM = 0.3;
/** The active limit slow start begins from, once the origin's first report arrives. */
export const INITIAL_LIMIT = 10;
/** Growth factor of the active limit per healthy report during slow start. */
export const SLOW_START_GROWTH = 1.5;

/** The controller's answer for one tick. */
export interface RateDecision {
  state: ControllerState;
  /** Human-readable cause of a change ("p99 1,840 ms over 800 ms target: x0.5"); null if unchanged. */
  reason: string | null;
  /**
   * Visitors per minute to actually admit: the rate, raised to make up for no-shows when the
   * origin is healthy (at most MAX_NO_SHOW_FACTOR times; max active visitors still bounds it).
   */
  admitPerMinute: number;
}

/** The starting state: the minimum rate, until the origin says it is healthy. */
export function initialControllerState(bounds: ControllerBounds): ControllerState {
  // Until the origin's first report the organizer's cap is the only limit (and the rate the minimum).
  return { ratePerMinute: bounds.fixedPerMinute ?? bounds.minPerMinute, activeLimit: bounds.maxActive, slowStart: true, lastReportAtMs: 0 };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const finite = (...xs: (number | undefined)[]) => xs.every((x) => x === undefined || Number.isFinite(x));

/**
 * One step of the release law, applied once per fresh origin report. Two quantities move, both by
 * additive-increase / multiplicative-decrease (AIMD, the law of TCP congestion control: RFC 5681
 * section 3.1; Chiu and Jain, 1989):
 * - the **active limit** (how many admitted visitors may be on the sale at once), as in Netflix's
 *   concurrency-limits: on overload it drops to LIMIT_CUT x the current active visitors, so new
 *   admissions stop at once whatever the delay until buyers leave; while healthy, near the limit
 *   and with p99 under LIMIT_HEADROOM x target (the headroom test of TCP Vegas, Brakmo and
 *   Peterson, 1995) it grows by LIMIT_GROWTH per report; near the target it holds. It never exceeds the organizer's max active visitors.
 * - the **release rate** (the pace of new admissions): +INCREASE_SHARE x max per healthy report,
 *   x0.5 on overload, within the organizer's bounds.
 * Overload means p99 over target, errors over the limit, or seat-hold p99 over its target. A
 * missing, stale (older than STALE_HEALTH_MS), malformed or failing (errors >= 50 %) report means
 * the origin is down: the rate halves toward the minimum (or drops to 0 when the organizer chose
 * `pause`) and the limit never grows, so the gateway never climbs blind. A high conflict rate holds
 * both. An organizer's fixed rate overrides the rate. Clock jumps are harmless: a report's age is
 * never negative and each report acts once.
 *
 * @param state the previous state
 * @param signals the origin's latest report (or null), the gateway's own signals, the active count
 * @param bounds organizer bounds (may have changed since the last tick)
 * @param nowMs the current time, epoch ms
 * @returns the next state, the reason for a change (null when nothing moved), and the admissions
 *   per minute after no-show compensation
 */
export function nextReleaseRate(state: ControllerState, signals: Signals, bounds: ControllerBounds, nowMs: number): RateDecision {
  const clamp = (r: number) => Math.min(bounds.maxPerMinute, Math.max(bounds.minPerMinute, r));
  const clampLimit = (l: number) => Math.min(bounds.maxActive, Math.max(1, Math.floor(l)));
  const decide = (
    rate: number,
    limit: number,
    lastReportAtMs: number,
    why: string,
    admitFactor = 1,
    slowStart = state.slowStart,
  ): RateDecision => {
    const next = { ratePerMinute: Math.max(0, Math.round(rate)), activeLimit: clampLimit(limit), slowStart, lastReportAtMs };
    const moved = next.ratePerMinute !== state.ratePerMinute || next.activeLimit !== state.activeLimit;
    // A cut that ends above the old rate was the organizer's new minimum at work: say that.
    const because =
      why.includes(`x${DECREASE_FACTOR}`) && next.ratePerMinute > state.ratePerMinute
        ? `raised to the organizer's minimum of ${fmt(bounds.minPerMinute)}/min`
        : why;
    // No-show compensation never admits beyond the organizer's maximum (no-shows can be faked).
    const admit = Math.round(Math.min(next.ratePerMinute * admitFactor, Math.max(next.ratePerMinute, bounds.maxPerMinute)));
    return { state: next, reason: moved ? because : null, admitPerMinute: admit };
  };
  const fixed = bounds.fixedPerMinute;
  const rateOr = (r: number) => (fixed !== null ? Math.min(fixed, bounds.maxPerMinute) : r);
  const fixedNote = fixed !== null ? ` (rate fixed by the organizer at ${fmt(fixed)}/min)` : '';

  const { origin, gateway } = signals;
  const age = origin ? Math.max(0, nowMs - origin.reportedAtMs) : Infinity;
  const valid = origin !== null && finite(origin.p99LatencyMs, origin.errorRate, origin.activeBuyers, origin.reportedAtMs);
  let down: string | null = null;
  if (!origin) down = 'no health report yet';
  else if (!valid) down = 'malformed health report';
  else if (age > STALE_HEALTH_MS) down = `no health report for ${fmt(age / 1000)} s`;
  else if (origin.errorRate >= ORIGIN_DOWN_ERROR_RATE) down = `origin failing (errors ${pct(origin.errorRate)})`;
  if (down !== null) {
    const limit = Math.min(state.activeLimit, bounds.maxActive);
    if (fixed !== null) return decide(rateOr(fixed), limit, state.lastReportAtMs, `${down}${fixedNote}`);
    if (bounds.onOriginDown === 'pause') return decide(0, limit, state.lastReportAtMs, `${down}: releases paused`);
    return decide(clamp(state.ratePerMinute * DECREASE_FACTOR), limit, state.lastReportAtMs, `${down}: x${DECREASE_FACTOR}`);
  }
  const report = origin!;
  const noShow = gateway.noShowRate !== null && Number.isFinite(gateway.noShowRate) ? Math.min(Math.max(gateway.noShowRate, 0), 0.99) : 0;
  const admitFactor = Math.min(MAX_NO_SHOW_FACTOR, 1 / (1 - noShow));
  if (report.reportedAtMs <= state.lastReportAtMs) {
    // Already acted on this report; only re-apply bounds the organizer may have changed.
    return decide(
      rateOr(clamp(state.ratePerMinute)),
      state.activeLimit,
      state.lastReportAtMs,
      `organizer bounds changed${fixedNote}`,
      admitFactor,
    );
  }
  const at = report.reportedAtMs;
  // The first report starts the limit's slow start from what is active now.
  const current = state.lastReportAtMs === 0 ? Math.max(INITIAL_LIMIT, signals.active) : state.activeLimit;
  const cut = (why: string) => {
    // Below the current load, but never below INITIAL_LIMIT; if our few visitors cannot be the
    // cause (fewer than INITIAL_LIMIT active), slow start stays on to recover quickly.
    const limit = Math.min(current, Math.max(INITIAL_LIMIT, signals.active * LIMIT_CUT));
    const slow = signals.active < INITIAL_LIMIT && state.slowStart;
    return decide(
      rateOr(clamp(state.ratePerMinute * DECREASE_FACTOR)),
      limit,
      at,
      `${why}: active limit ${fmt(clampLimit(limit))}, rate x${DECREASE_FACTOR}${fixedNote}`,
      1,
      slow,
    );
  };
  if (report.p99LatencyMs > bounds.targetP99Ms) return cut(`p99 ${fmt(report.p99LatencyMs)} ms over ${fmt(bounds.targetP99Ms)} ms target`);
  if (report.errorRate > bounds.maxErrorRate) return cut(`error rate ${pct(report.errorRate)} over ${pct(bounds.maxErrorRate)}`);
  if (gateway.holdP99Ms !== null && Number.isFinite(gateway.holdP99Ms) && gateway.holdP99Ms > bounds.holdTargetP99Ms) {
    return cut(`seat-hold p99 ${fmt(gateway.holdP99Ms)} ms over ${fmt(bounds.holdTargetP99Ms)} ms`);
  }
  if (gateway.conflictRate !== null && gateway.conflictRate > HIGH_CONFLICT_RATE) {
    return decide(
      rateOr(clamp(state.ratePerMinute)),
      current,
      at,
      `most holds find their seats taken (${pct(gateway.conflictRate)}): hold`,
      admitFactor,
    );
  }
  const step = Math.max(1, Math.ceil(bounds.maxPerMinute * INCREASE_SHARE));
  const probing = signals.active >= current * LIMIT_PROBE_AT && report.p99LatencyMs < bounds.targetP99Ms * LIMIT_HEADROOM;
  const grown = state.slowStart ? current * SLOW_START_GROWTH : current + Math.max(1, Math.ceil(current * LIMIT_GROWTH));
  const limit = probing ? grown : current;
  const extra = admitFactor > 1 ? `; admitting x${admitFactor.toFixed(2)} for ${pct(noShow)} no-shows` : '';
  return decide(
    rateOr(clamp(state.ratePerMinute + step)),
    limit,
    at,
    `healthy (p99 ${fmt(report.p99LatencyMs)} ms, ${fmt(report.activeBuyers)} buyers): rate ${fmt(rateOr(clamp(state.ratePerMinute + step)))}/min${probing ? `, active limit ${fmt(clampLimit(limit))}` : ''}${extra}${fixedNote}`,
    admitFactor,
  );
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
