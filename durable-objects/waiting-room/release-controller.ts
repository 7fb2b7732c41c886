// Release controller: the pure AIMD law that turns origin health reports into a release rate.

/** One health report from the origin, as stored by the WaitingRoom. */
export interface HealthReport {
  /** p99 latency of the origin over the report window, in ms. */
  p99LatencyMs: number;
  /** Share of failed origin requests over the window, 0..1. */
  errorRate: number;
  /** Buyers the origin currently serves. */
  activeBuyers: number;
  /**
   * When the origin signed the report (its signed timestamp, never later than the gateway's clock),
   * epoch ms. Freshness counts from here, so replaying an old report cannot make it fresh again.
   */
  reportedAtMs: number;
}

/** Organizer bounds and targets; rates are new visitors per minute. */
export interface ControllerBounds {
  minPerMinute: number;
  maxPerMinute: number;
  targetP99Ms: number;
  maxErrorRate: number;
}

/** What the controller remembers between ticks. */
export interface ControllerState {
  /** Current release rate, new visitors per minute. */
  ratePerMinute: number;
  /** `reportedAtMs` of the last report acted on, so one report moves the rate once. */
  lastReportAtMs: number;
}

/** A health report older than this (ms) counts as missing: never a reason to climb. */
export const STALE_HEALTH_MS = 10_000;
/** Multiplicative decrease factor on bad or missing health. */
export const DECREASE_FACTOR = 0.5;
/** Additive increase per healthy report, as a share of the organizer's maximum. */
export const INCREASE_SHARE = 0.1;

/** The controller's answer for one tick: the new state and, when the rate moved, why. */
export interface RateDecision {
  state: ControllerState;
  /** Human-readable cause of a change ("p99 1,840 ms over 800 ms target: x0.5"); null if unchanged. */
  reason: string | null;
}

/** The starting state: the minimum rate, until the origin says it is healthy. */
export function initialControllerState(bounds: ControllerBounds): ControllerState {
  return { ratePerMinute: bounds.minPerMinute, lastReportAtMs: 0 };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * One step of additive-increase / multiplicative-decrease (AIMD), the law of TCP congestion
 * control (RFC 5681 section 3.1; Chiu and Jain, 1989): each fresh healthy report adds
 * `INCREASE_SHARE x max` per minute; a report with p99 over target or errors over the limit
 * halves the rate; a missing or stale report (older than `STALE_HEALTH_MS`) halves it too, down to
 * the minimum, so the gateway never climbs blind. The result always lies in [min, max].
 *
 * @param state the previous state
 * @param report the latest report received, or null if none ever was
 * @param bounds organizer bounds (may have changed since the last tick)
 * @param nowMs the current time, epoch ms
 * @returns the next state and the reason for a change (null when the rate stayed)
 */
export function nextReleaseRate(
  state: ControllerState,
  report: HealthReport | null,
  bounds: ControllerBounds,
  nowMs: number,
): RateDecision {
  const clamp = (r: number) => Math.min(bounds.maxPerMinute, Math.max(bounds.minPerMinute, r));
  const decide = (rate: number, lastReportAtMs: number, why: string): RateDecision => {
    const next = { ratePerMinute: clamp(Math.round(rate)), lastReportAtMs };
    return {
      state: next,
      reason: next.ratePerMinute === state.ratePerMinute ? null : why,
    };
  };

  const fresh = report !== null && nowMs - report.reportedAtMs <= STALE_HEALTH_MS;
  if (!fresh) {
    const age = report ? `no health report for ${fmt((nowMs - report.reportedAtMs) / 1000)} s` : 'no health report yet';
    return decide(state.ratePerMinute * DECREASE_FACTOR, state.lastReportAtMs, `${age}: x${DECREASE_FACTOR}`);
  }
  if (report.reportedAtMs <= state.lastReportAtMs) {
    // Already acted on this report; only re-apply bounds the organizer may have changed.
    return decide(state.ratePerMinute, state.lastReportAtMs, 'organizer bounds changed');
  }
  if (report.p99LatencyMs > bounds.targetP99Ms) {
    return decide(
      state.ratePerMinute * DECREASE_FACTOR,
      report.reportedAtMs,
      `p99 ${fmt(report.p99LatencyMs)} ms over ${fmt(bounds.targetP99Ms)} ms target: x${DECREASE_FACTOR}`,
    );
  }
  if (report.errorRate > bounds.maxErrorRate) {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    return decide(
      state.ratePerMinute * DECREASE_FACTOR,
      report.reportedAtMs,
      `error rate ${pct(report.errorRate)} over ${pct(bounds.maxErrorRate)}: x${DECREASE_FACTOR}`,
    );
  }
  const step = Math.max(1, Math.ceil(bounds.maxPerMinute * INCREASE_SHARE));
  return decide(
    state.ratePerMinute + step,
    report.reportedAtMs,
    `healthy (p99 ${fmt(report.p99LatencyMs)} ms, ${fmt(report.activeBuyers)} buyers): +${fmt(step)}/min`,
  );
}

/** Longest gap between ticks that earns release budget, in ms: a late alarm never bursts. */
export const MAX_TICK_GAP_MS = 5_000;

/**
 * How many visitors one tick may admit: `rate x elapsed` plus the fraction carried from the last
 * tick, capped by free active slots and by the queue length (a token bucket of depth ~1).
 *
 * @param ratePerMinute release rate, new visitors per minute
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
