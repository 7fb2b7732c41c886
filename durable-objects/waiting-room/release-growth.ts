// How the release law grows the rate and the active limit on a healthy report with evidence: slow
// start, conservative slow start (HyStart++, RFC 9406) and congestion avoidance with the Vegas band,
// a memory of the last overload's load, and the latency at half the load (a delay gradient). Pure;
// release-controller.ts decides when it applies.

/** Additive increase of the rate per healthy report, as a share of the organizer's maximum. */
const INCREASE_SHARE = 0.1;
/**
 * Congestion avoidance: rate and limit grow only while p99 stays under this share of the target;
 * between it and the target both hold (the alpha/beta band of TCP Vegas, Brakmo and Peterson 1995),
 * so the loop settles under the target instead of sawing across it.
 */
export const GROW_BELOW = 0.7;
/**
 * Congestion avoidance: the limit grows per report by this share x (1 - p99 / (GROW_BELOW x
 * target))^2, so growth fades out as p99 nears the band: with the square, because latency rises
 * steeply near a saturated origin's knee and a report's window (the SDK's 10 s) lags the load, so
 * growth must be small well before the band (a linear fade overshot the target by 23 % after a
 * recovery in the closed-loop simulation with a windowed p99)...
 */
const LIMIT_GROWTH = 0.25;
/** ...by only this share (at least 1) within NEAR_OVERLOAD of the load of the last overload... */
const LIMIT_CREEP = 0.01;
/** (a share of that load) */
const NEAR_OVERLOAD = 0.1;
/**
 * ...and only while in use: active + unclaimed >= this share of it. A limit less than half filled
 * says nothing about the origin (application-limited): the rule of Netflix concurrency-limits'
 * Gradient2 ("don't grow the limit if we are app limited": inflight < limit / 2) and of RFC 7661's
 * validated window (pipeACK >= cwnd / 2). Half, not nearly all: released visitors leave between
 * two ticks, so a limit that binds every tick reads well under full at the tick's start.
 */
const LIMIT_PROBE_AT = 0.5;
/**
 * A p99 at this share of the target is a delay rise: slow start turns conservative (HyStart++,
 * RFC 9406: growth divided by CSS_GROWTH_DIVISOR), not over, since one slow window is often noise.
 */
const SLOW_START_EXIT = 0.5;
/** Conservative slow start grows by (1 + headroom / this) per report (RFC 9406 CSS_GROWTH_DIVISOR). */
const CSS_GROWTH_DIVISOR = 4;
/**
 * Slow start ends after this many reports in conservative slow start (RFC 9406 CSS_ROUNDS; the
 * SDK's reports come every 2 s over a 10 s window, so 5 reports are one window).
 */
export const CSS_ROUNDS = 5;

/**
 * The latency at a lower load counts over this trailing window of the room's samples, ms (the
 * dashboard's, one every 5 s): long enough to hold a few samples at a lower load, short enough that
 * a change of the machine's or the network's latency shows within a minute.
 */
export const BASELINE_WINDOW_MS = 60_000;
/** A sample is "at a lower load" with at most this share of the active visitors now. */
export const BASELINE_LOAD_SHARE = 0.5;

/** One room sample as the baseline reads it (room-types Sample). Times epoch ms, p99 ms. */
export interface BaselineSample {
  at: number;
  originP99Ms: number | null;
  active: number;
}

/**
 * The origin's p99 at a lower load: the lowest p99 the room sampled within BASELINE_WINDOW_MS
 * before `nowMs` while at most BASELINE_LOAD_SHARE of `active` visitors were active, ms; null
 * without such a sample, or when none measured anything (under 1 ms). The controller's delay
 * gradient: latency that does not rise with the load (the machine's, the network's) leaves the
 * origin's headroom to the load, while latency that does (an origin nearing its knee) fades the
 * growth as before. As the "expected" round trip of TCP Vegas (Brakmo and Peterson 1995: the
 * base RTT at a smaller window) and the long-term RTT of Netflix's Gradient2 (growth while the
 * short-term RTT does not exceed it); a windowed minimum as BBR's min_rtt filter (Cardwell et al.
 * 2016, a 10 s window).
 * @param samples the room's samples (any order; older and newer ones are skipped)
 * @param active the active visitors now
 */
export function baselineP99(samples: readonly BaselineSample[], nowMs: number, active: number): number | null {
  let low: number | null = null;
  for (const x of samples) {
    if (x.at < nowMs - BASELINE_WINDOW_MS || x.at > nowMs || x.originP99Ms === null || !Number.isFinite(x.originP99Ms)) continue;
    if (x.originP99Ms < 1 || x.active > active * BASELINE_LOAD_SHARE) continue;
    low = low === null ? x.originP99Ms : Math.min(low, x.originP99Ms);
  }
  return low;
}

/** The phase the growth rules read and move (the ControllerState fields of the same names). */
interface GrowthPhase {
  slowStart: boolean;
  cssRounds: number;
  /** Active visitors at the last overload (0 = none), CUBIC's W_max. */
  overloadLimit: number;
}

/** One healthy report with evidence, as the growth rules read it. Rates per minute. */
export interface GrowthInput {
  phase: GrowthPhase;
  ratePerMinute: number;
  /** The active limit in force (or the one slow start begins from on the first report). */
  limit: number;
  /** Active visitors + unclaimed places: the limit's use. */
  inFlight: number;
  /** The report's p99 as a share of the target, in [0, 1]. */
  load: number;
  /**
   * The share of the room below the Vegas band (GROW_BELOW x target) that the load itself takes:
   * (p99 - baseline) / (band - baseline), in [0, 1], baseline = the p99 at half the load
   * (baselineP99); load / GROW_BELOW without a baseline. Growth fades with it and conservative slow
   * start begins at SLOW_START_EXIT / GROW_BELOW of it, so both are as before at a zero baseline.
   */
  rise: number;
  /** The organizer's maximum rate (the additive step is INCREASE_SHARE of it). */
  maxPerMinute: number;
}

/** The grown rate and limit (before the organizer's bounds), why, and the phase fields that moved. */
export interface GrowthStep {
  ratePerMinute: number;
  limit: number;
  /** Follows "healthy (p99 ...)" in the log: ", slow start x1.81", "" in congestion avoidance. */
  why: string;
  phase: Partial<GrowthPhase>;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * The growth step for one healthy report with evidence (release-controller nextReleaseRate calls
 * it only then):
 * - **Slow start** (TCP, RFC 5681 section 3.1): rate and limit grow by (1 + headroom), headroom =
 *   1 - load; the limit only while in use (LIMIT_PROBE_AT), unclaimed places counting as use.
 * - **Conservative slow start** (HyStart++, RFC 9406 section 4.3): a delay rise (`rise`) of
 *   SLOW_START_EXIT / GROW_BELOW or more divides the growth by CSS_GROWTH_DIVISOR (and a load of
 *   GROW_BELOW or more holds); a rise back under it resumes slow start; CSS_ROUNDS such reports end
 *   slow start. As in RFC 9406, the rise is over the delay at a lower load, not the absolute delay.
 * - **Congestion avoidance** (AIMD, Chiu and Jain 1989, with the Vegas band): below GROW_BELOW the
 *   rate grows by INCREASE_SHARE x max and the limit, while in use, by LIMIT_GROWTH x fade^2 (at
 *   least sqrt(limit) x fade, Gradient2's queue allowance), fade = 1 - rise, creeping by LIMIT_CREEP within
 *   NEAR_OVERLOAD of the last overload's load (CUBIC's W_max, Ha, Rhee and Xu 2008); from
 *   GROW_BELOW to the target both hold.
 * The rate never falls and the limit never shrinks here.
 */
export function growthStep(i: GrowthInput): GrowthStep {
  const { phase, ratePerMinute: rate, limit: current, load: u } = i;
  const rise = Math.min(1, Math.max(0, i.rise));
  const headroom = 1 - u;
  const step = Math.max(1, Math.ceil(i.maxPerMinute * INCREASE_SHARE));
  // Unclaimed places count as use, so a limit that binds before visitors have arrived still grows.
  const inUse = i.inFlight >= current * LIMIT_PROBE_AT;
  const hold = (why: string, moved: Partial<GrowthPhase> = {}): GrowthStep => ({ ratePerMinute: rate, limit: current, why, phase: moved });
  const grow = (g: number, why: string, moved: Partial<GrowthPhase>): GrowthStep => ({
    ratePerMinute: Math.max(rate + step, rate * g),
    limit: inUse ? current * g : current,
    why,
    phase: moved,
  });
  if (phase.slowStart) {
    if (rise < SLOW_START_EXIT / GROW_BELOW) {
      const resumed = phase.cssRounds > 0 ? ', slow start resumes' : '';
      return grow(1 + headroom, `${resumed}, slow start x${(1 + headroom).toFixed(2)}`, { cssRounds: 0 });
    }
    const rounds = phase.cssRounds + 1;
    const over = rounds >= CSS_ROUNDS;
    const moved: Partial<GrowthPhase> = over ? { slowStart: false, cssRounds: 0 } : { cssRounds: rounds };
    const where = over
      ? `slow start ends after ${CSS_ROUNDS} such reports`
      : `conservative slow start ${rounds}/${CSS_ROUNDS} (p99 at ${pct(u)} of target)`;
    if (u >= GROW_BELOW) return hold(`, ${where}, near target: hold`, moved);
    const g = 1 + headroom / CSS_GROWTH_DIVISOR;
    return grow(g, `, ${where}, x${g.toFixed(2)}`, moved);
  }
  if (u >= GROW_BELOW) return hold(', near target: hold');
  // Growth fades out toward GROW_BELOW, and creeps (LIMIT_CREEP per report) within 10 % of the
  // load of the last overload, so the limit approaches the origin's knee instead of jumping over it.
  const w = phase.overloadLimit;
  // At least sqrt(limit) x the fade per report, as the queue allowance Gradient2 adds to its limit
  // each update: a small limit (10 after a cut) then regains a short-visit sale's Little's-law need
  // (rate x time in the room, ~50 at 600/min) within about 20 s instead of +1 per report.
  const fade = 1 - rise;
  const fast = Math.max(current * (1 + LIMIT_GROWTH * fade ** 2), current + Math.sqrt(current) * fade);
  const near = w > 0 && current < w * (1 + NEAR_OVERLOAD) && fast > w * (1 - NEAR_OVERLOAD);
  const creep = current + Math.max(1, Math.ceil(current * LIMIT_CREEP));
  const grown = near ? Math.max(Math.min(fast, w * (1 - NEAR_OVERLOAD)), Math.min(creep, fast)) : fast;
  return { ratePerMinute: rate + step, limit: inUse ? Math.max(current + 1, Math.ceil(grown)) : current, why: '', phase: {} };
}
