// What one origin health report tells the release controller: whether the origin counts as down,
// and whether the report carries enough latency evidence to raise the rate or the limit on. Pure.

/** One health report from the origin, as stored by the WaitingRoom. */
export interface HealthReport {
  /**
   * p99 latency of the origin over the report window, in ms. Below MIN_MEASURED_P99_MS it means
   * "nothing measured" (an idle window): the origin is alive, but that is no reason to climb.
   */
  p99LatencyMs: number;
  /** Share of failed origin requests over the window, 0..1. */
  errorRate: number;
  /** Buyers the origin currently serves (the SDK: distinct admitted visitors seen in the last 60 s). */
  activeBuyers: number;
  /**
   * Requests the origin measured in the report window (p99 is over these, the error rate over the
   * completed ones), or undefined from reporters older than the field. Growth needs
   * MIN_LATENCY_SAMPLES completed ones (`sampleCount - inFlight`).
   */
  sampleCount?: number;
  /**
   * Of `sampleCount`, requests still running at report time, counted with their age so far (a
   * lower bound of their latency: stuck requests raise the p99 before they end); undefined or 0
   * when none is. A lower bound is evidence to cut on, never to grow on.
   */
  inFlight?: number;
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
  /**
   * The worst p99 an isolate measured of admitted requests' waits at the edge for a place under
   * its limit of requests in flight to the origin (src/lib/origin-limit.ts), ms; null or missing
   * when none waited. The law judges the origin's p99 plus it: the queue the origin's report cannot show.
   */
  edgeWaitP99Ms?: number | null;
}

/** An origin report older than this (ms) counts as missing: never a reason to climb. */
export const STALE_HEALTH_MS = 10_000;
/** An error rate at or above this means the origin is down, not just struggling. */
const ORIGIN_DOWN_ERROR_RATE = 0.5;
/** A p99 under this (ms) measured nothing (an idle window, or a bogus 0): hold, never climb. */
const MIN_MEASURED_P99_MS = 1;
/**
 * A report whose window holds fewer requests than this says too little about latency to grow on
 * (it may still cut): the p99 of a handful of requests is their maximum, and the requests of an
 * idle origin (an operator call, a health check) are not the load the room sends. The number is
 * HyStart++'s N_RTT_SAMPLE (RFC 9406 section 4.3), the samples a round needs before its delay
 * counts.
 */
export const MIN_LATENCY_SAMPLES = 8;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const finite = (...xs: (number | undefined)[]) => xs.every((x) => x === undefined || Number.isFinite(x));

/**
 * Why the origin counts as down right now, or null when its report is fresh and usable: no
 * report, a malformed one (non-finite numbers, negative buyers or samples, error rate outside
 * 0..1), one older than STALE_HEALTH_MS, or errors at or above ORIGIN_DOWN_ERROR_RATE.
 *
 * @param report the latest stored report, or null
 * @param nowMs the gateway's clock, epoch ms
 */
export function originDownReason(report: HealthReport | null, nowMs: number): string | null {
  if (!report) return 'no health report yet';
  const valid =
    finite(report.p99LatencyMs, report.errorRate, report.activeBuyers, report.sampleCount, report.inFlight, report.reportedAtMs) &&
    report.p99LatencyMs >= 0 &&
    report.errorRate >= 0 &&
    report.errorRate <= 1 &&
    report.activeBuyers >= 0 &&
    (report.sampleCount === undefined || report.sampleCount >= 0) &&
    (report.inFlight === undefined || report.inFlight >= 0);
  if (!valid) return 'malformed health report';
  const age = Math.max(0, nowMs - report.reportedAtMs);
  if (age > STALE_HEALTH_MS) return `no health report for ${fmt(age / 1000)} s`;
  if (report.errorRate >= ORIGIN_DOWN_ERROR_RATE) return `origin failing (errors ${pct(report.errorRate)})`;
  return null;
}

/**
 * Why a fresh, healthy-looking report is no evidence to grow on, or null when it is: a p99 under
 * MIN_MEASURED_P99_MS (nothing measured), fewer than MIN_LATENCY_SAMPLES requests completed in the
 * window (`sampleCount` less the `inFlight` ones still running: the age of a request that has not
 * ended bounds its latency from below, so a window of young running requests proves nothing fast),
 * or, from a reporter that sends no `sampleCount`, no active buyers (nothing the room released
 * was measured). Such a report holds the rate and the limit; it never raises them (a report of an
 * idle origin, p99 26 ms of one operator call and 0 buyers, once started slow start at an origin
 * that was failing).
 */
export function noGrowthEvidence(report: HealthReport): string | null {
  if (report.p99LatencyMs < MIN_MEASURED_P99_MS) return 'no origin latency measured in the report window';
  if (report.sampleCount !== undefined) {
    const running = report.inFlight ?? 0;
    const completed = report.sampleCount - running;
    if (completed >= MIN_LATENCY_SAMPLES) return null;
    const also = running > 0 ? `, ${fmt(running)} more still running` : '';
    return `${fmt(completed)} requests measured in the report window${also} (at least ${MIN_LATENCY_SAMPLES} to grow on)`;
  }
  return report.activeBuyers < 1 ? 'no active buyers in the report (and no sample count)' : null;
}
