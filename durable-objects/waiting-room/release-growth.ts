// How the release law grows the rate and the active limit on a healthy report with evidence: the
// limit follows the load and grows only while it binds, a rise of p99 over its measured floor (a
// delay gradient) holds it at the load before the origin's cliff, and the load of the last overload
// is approached slowly. Pure; release-controller.ts decides when it applies.

/** The active limit slow start begins from, once the origin's first report arrives; also the floor of cuts and of a following limit. */
export const INITIAL_LIMIT = 10;
/** Additive increase of the rate per healthy report, as a share of the organizer's maximum. */
const INCREASE_SHARE = 0.1;
/**
 * The rate grows only while p99 stays under this share of the target; between it and the target
 * it holds (the alpha/beta band of TCP Vegas, Brakmo and Peterson 1995), so the loop settles under
 * the target instead of sawing across it. The rate is only the pace: the active limit protects.
 */
export const GROW_BELOW = 0.7;
/**
 * The delay gradient: a p99 over this many times its floor (floorP99) is queueing at the origin,
 * the first sign of its knee: the limit stops growing and is held at the load. As the expected
 * versus actual round trip of TCP Vegas (Brakmo and Peterson 1995), BBR's min_rtt (Cardwell et al.
 * 2016: a queue shows as round trips over the windowed minimum) and Netflix's Gradient2 limiter
 * (growth only while the short-term latency stays within `rttTolerance`, 2 by default, of the
 * long-term one). With a processor-sharing origin the p99 at a load the origin still serves is
 * its service time, while bursts past the knee cost the square of the excess: the real collapse
 * of bench:control came with p99 at 2.8 x the p99 at half the load, two seconds before the cliff.
 */
const DELAY_TOLERANCE = 2;
/**
 * ...and at least this share of the target over the floor: a floor of a few ms (an origin next
 * door) doubles on noise alone, and a rise of 2.5 % of the target costs visitors nothing.
 */
const DELAY_MIN_RISE = 0.025;
/**
 * The limit grows only while it binds: when the pace would fill it before the next report (active
 * + unclaimed + the rate x BIND_HORIZON_S reach it). Gradient2's rule ("don't grow the limit if we
 * are app limited") and RFC 7661's validated window: a limit that does not bind says nothing about
 * the origin. Judged with the pace, not as a share of the limit: with short visits a limit that
 * binds every tick reads well under full at the tick's start (visitors leave between two ticks).
 */
export const BIND_HORIZON_S = 2;
/**
 * A limit that does not bind follows the load: at most this share over what binds it (active +
 * unclaimed + the pace of BIND_HORIZON_S; at least INITIAL_LIMIT), so a delay rise stops the load
 * within one report wherever the rate is. An unused limit far over the load protects nothing (a
 * limit of 700 over 225 buyers let the rate take the origin over its cliff).
 */
export const LIMIT_HEADROOM = 0.1;
/**
 * A p99 over this many times its floor (and over it by DELAY_KNEE_RISE x target) is the origin's
 * knee: the limit backs off to KNEE_BACKOFF x its use (active + unclaimed), remembered as the knee to
 * creep near (release-controller), before the cliff rather than after it. Gradient2 likewise
 * shrinks its limit by the gradient once latency passes its tolerance.
 */
const DELAY_KNEE = 3;
const DELAY_KNEE_RISE = 0.05;
/** The limit's share of the load after a knee (delayKnee), as the smallest cut (MAX_CUT_FACTOR). */
export const KNEE_BACKOFF = 0.9;
/**
 * On a delay rise the limit is held at most this share over the load: it keeps binding (admissions
 * replace leaving visitors) but never lets the load grow past the rise. Not at the load itself:
 * a report's window holds one burst's p99 for 10 s, and a limit set to the load on each of its
 * reports would ratchet down with every visitor who leaves meanwhile.
 */
export const DELAY_HOLD_HEADROOM = 0.1;
/**
 * ...and falls to it by at most this share of the limit per report, never staying over what the
 * pace binds (the level an unbound limit follows): the SDK's 10 s window shows one slow spell on
 * five reports, and with short visits the load between two reports is mostly visitors still
 * arriving, so holding at each report's load ratcheted a healthy origin's limit 49 -> 31 -> 14 ->
 * 10 in bench:control on a spell of p99 2.4-3.0 x its floor with 20 visitors active. A delay rise
 * is a warning, not an overload (that cuts at once); Gradient2 smooths its limit the same way.
 */
export const DELAY_HOLD_STEP = 0.1;
/** Slow start grows a binding limit by this factor per report (2 s) until the first delay rise. */
const SLOW_START_GROWTH = 1.5;
/**
 * Congestion avoidance grows a binding limit by this share per report, at least sqrt(limit)
 * (Gradient2's queue allowance): away from the last overload's load, where no knee is known, the
 * delay gradient is what stops it (a small limit after a cut regains a short-visit sale's need,
 * rate x time in the room, ~50 at 600/min, within about 20 s)...
 */
const LIMIT_GROWTH = 0.25;
/**
 * ...but only by this share of it (at least 1) within NEAR_OVERLOAD of the load of the last overload... */
const LIMIT_CREEP = 0.02;
/** (a share of that load: CUBIC's plateau around W_max, Ha, Rhee and Xu 2008). */
const NEAR_OVERLOAD = 0.1;
/**
 * Slow start ends after this many reports with a delay rise in a row (RFC 9406 CSS_ROUNDS; the
 * SDK's reports come every 2 s over a 10 s window, so 5 reports are one window); the limit holds
 * meanwhile, and slow start resumes when the rise passes (one slow window is often noise).
 */
export const CSS_ROUNDS = 5;
/**
 * Between delay rises in conservative slow start the limit grows by this fraction of slow start's
 * step (RFC 9406 CSS_GROWTH_DIVISOR: x1.125 instead of x1.5)...
 */
const CSS_GROWTH_DIVISOR = 4;
/**
 * ...and returns to full slow start only once the p99 is back under this many times its floor
 * (RFC 9406 leaves conservative slow start when the delay falls under the baseline it measured):
 * one report just under DELAY_TOLERANCE is no sign that the rise passed.
 */
const CSS_RESUME = 1.25;
/** The floor never counts under this, ms: the minimum measured p99 (health-signals MIN_MEASURED_P99_MS is 1). */
const MIN_FLOOR_MS = 1;

/**
 * The floor counts over this trailing window of the room's samples, ms (the dashboard's, one every
 * 5 s): long enough to remember the p99 at the load before a climb, short enough that a lasting
 * change of the machine's or the network's latency becomes the new floor within a few minutes.
 */
export const FLOOR_WINDOW_MS = 300_000;

/** One room sample as the floor reads it (room-types Sample). Times epoch ms, p99 ms. */
export interface FloorSample {
  at: number;
  originP99Ms: number | null;
}

/**
 * The origin's p99 floor: the lowest p99 the room sampled within FLOOR_WINDOW_MS before `nowMs`,
 * ms; null without such a sample (or none of at least MIN_FLOOR_MS). A windowed minimum as BBR's
 * min_rtt filter (Cardwell et al. 2016) and the base round trip of TCP Vegas: what the origin
 * answers in when no queue forms, at whatever load it was seen (a p99 seen at a higher load bounds
 * the floor as well; one seen at a lower load during an overload does not raise it).
 * @param samples the room's samples (any order; older and newer ones are skipped)
 */
export function floorP99(samples: readonly FloorSample[], nowMs: number): number | null {
  let low: number | null = null;
  for (const x of samples) {
    if (x.at < nowMs - FLOOR_WINDOW_MS || x.at > nowMs || x.originP99Ms === null || !Number.isFinite(x.originP99Ms)) continue;
    if (x.originP99Ms < MIN_FLOOR_MS) continue;
    low = low === null ? x.originP99Ms : Math.min(low, x.originP99Ms);
  }
  return low;
}

/** The phase the growth rules read and move (the ControllerState fields of the same names). */
interface GrowthPhase {
  slowStart: boolean;
  /** Reports in a row with a delay rise during slow start (0 = none). */
  cssRounds: number;
  /** The limit's use (active + unclaimed) at the last overload or knee (0 = none), CUBIC's W_max. */
  overloadLimit: number;
}

/** One healthy report with evidence, as the growth rules read it. Rates per minute, latencies ms. */
export interface GrowthInput {
  phase: GrowthPhase;
  ratePerMinute: number;
  /** The active limit in force (or the one slow start begins from on the first report). */
  limit: number;
  /** Active visitors + unclaimed places expected to arrive: the limit's use. */
  inFlight: number;
  /** Active visitors alone: with fewer than INITIAL_LIMIT, a delay rise is not theirs (as a cut's rule). */
  active: number;
  p99Ms: number;
  /** The p99 floor (floorP99), or null without one. */
  floorMs: number | null;
  targetP99Ms: number;
  /** The organizer's maximum rate (the additive step is INCREASE_SHARE of it). */
  maxPerMinute: number;
}

/** The grown rate and limit (before the organizer's bounds), why, and the phase fields that moved. */
export interface GrowthStep {
  ratePerMinute: number;
  limit: number;
  /** Follows "healthy (p99 ...)" in the log: ", slow start x1.50", ", limit follows the load", "". */
  why: string;
  phase: Partial<GrowthPhase>;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** Rounds up, less a floating-point error (100 x 1.1 is 110.00000000000001). */
const ceil = (x: number) => Math.ceil(x - 1e-9);

/**
 * Whether `p99Ms` is a delay rise over `floorMs`: over DELAY_TOLERANCE x the floor and over it by
 * at least DELAY_MIN_RISE x the target. Never without a floor.
 */
export function delayRise(p99Ms: number, floorMs: number | null, targetP99Ms: number): boolean {
  if (floorMs === null || !Number.isFinite(floorMs) || floorMs < MIN_FLOOR_MS) return false;
  return p99Ms > DELAY_TOLERANCE * floorMs && p99Ms - floorMs > DELAY_MIN_RISE * targetP99Ms;
}

/** Whether `p99Ms` says the origin is at its knee: over DELAY_KNEE x `floorMs` and DELAY_KNEE_RISE x target over it. */
export function delayKnee(p99Ms: number, floorMs: number | null, targetP99Ms: number): boolean {
  if (floorMs === null || !Number.isFinite(floorMs) || floorMs < MIN_FLOOR_MS) return false;
  return p99Ms > DELAY_KNEE * floorMs && p99Ms - floorMs > DELAY_KNEE_RISE * targetP99Ms;
}

/**
 * The growth step for one healthy report with evidence (release-controller nextReleaseRate calls
 * it only then). The limit, in order:
 * - **near the target** (p99 >= GROW_BELOW x target) or on a **delay rise** (delayRise: p99 over
 *   DELAY_TOLERANCE x its floor): held at the load (DELAY_HOLD_HEADROOM over active + unclaimed;
 *   on a delay rise falling by at most DELAY_HOLD_STEP a report, never staying over what the pace
 *   binds, and not under it with fewer than INITIAL_LIMIT active), so
 *   admissions only replace leaving visitors; in slow start, CSS_ROUNDS such reports in a row end it
 *   (HyStart++'s conservative slow start, RFC 9406 section 4.3, holding instead of growing).
 * - **not binding** (the pace would not fill it within BIND_HORIZON_S): slow start keeps it,
 *   congestion avoidance follows the load down to (1 + LIMIT_HEADROOM) x what would bind it.
 * - **binding**: slow start x SLOW_START_GROWTH (TCP, RFC 5681 section 3.1); congestion avoidance
 *   x (1 + LIMIT_GROWTH), at least + sqrt(limit) (Gradient2's queue allowance), creeping by
 *   LIMIT_CREEP within NEAR_OVERLOAD of the load of the last overload (CUBIC's W_max), + sqrt(limit)
 *   past it.
 * The rate is the pace the organizer allows: it grows (slow start x (1 + headroom), then + INCREASE_SHARE
 * x max) while p99 is under GROW_BELOW x target, whatever the limit does. Never a fall here.
 */
export function growthStep(i: GrowthInput): GrowthStep {
  const { phase, ratePerMinute: rate, limit: current } = i;
  const u = Math.min(1, Math.max(0, i.p99Ms / i.targetP99Ms));
  const step = Math.max(1, Math.ceil(i.maxPerMinute * INCREASE_SHARE));
  const nearTarget = u >= GROW_BELOW;
  const grownRate = nearTarget ? rate : phase.slowStart ? Math.max(rate + step, rate * (2 - u)) : rate + step;
  // What the pace would fill before the next report: the limit's use.
  const binding = i.inFlight + (rate / 60) * BIND_HORIZON_S;
  const follow = Math.max(INITIAL_LIMIT, ceil(binding * (1 + LIMIT_HEADROOM)));
  if (nearTarget || delayRise(i.p99Ms, i.floorMs, i.targetP99Ms)) {
    const atLoad = Math.max(INITIAL_LIMIT, ceil(i.inFlight * (1 + DELAY_HOLD_HEADROOM)));
    // A rise with fewer than INITIAL_LIMIT active is not their queue: follow the pace, no step down.
    const stepped = i.active < INITIAL_LIMIT ? follow : Math.floor(current * (1 - DELAY_HOLD_STEP));
    const limit = Math.min(current, nearTarget ? atLoad : Math.max(atLoad, Math.min(stepped, follow)));
    const rounds = phase.slowStart ? phase.cssRounds + 1 : 0;
    const over = phase.slowStart && rounds >= CSS_ROUNDS;
    const cause = nearTarget ? 'near target' : `p99 ${(i.p99Ms / i.floorMs!).toFixed(1)} x its floor of ${fmt(i.floorMs!)} ms`;
    const where = !phase.slowStart
      ? ''
      : over
        ? `, slow start ends after ${CSS_ROUNDS} such reports`
        : `, conservative slow start ${rounds}/${CSS_ROUNDS}`;
    const moved: Partial<GrowthPhase> = !phase.slowStart ? {} : over ? { slowStart: false, cssRounds: 0 } : { cssRounds: rounds };
    return { ratePerMinute: grownRate, limit, why: `, ${cause}: limit held at the load${where}`, phase: moved };
  }
  const inCss = phase.slowStart && phase.cssRounds > 0;
  const risePassed = i.floorMs === null || i.p99Ms <= CSS_RESUME * i.floorMs;
  const resumed: Partial<GrowthPhase> = inCss && risePassed ? { cssRounds: 0 } : {};
  if (binding < current) {
    // Slow start keeps its limit (at most SLOW_START_GROWTH x the load it last bound at), so the
    // pace can fill it between two reports; congestion avoidance follows the load.
    if (phase.slowStart) return { ratePerMinute: grownRate, limit: current, why: '', phase: resumed };
    const limit = Math.min(current, follow);
    return { ratePerMinute: grownRate, limit, why: limit < current ? ', limit follows the load' : '', phase: resumed };
  }
  if (inCss && !risePassed) {
    // Conservative slow start (RFC 9406 section 4.3): a fraction of the step, CSS_ROUNDS reports at most.
    const rounds = phase.cssRounds + 1;
    const growth = 1 + (SLOW_START_GROWTH - 1) / CSS_GROWTH_DIVISOR;
    const over = rounds >= CSS_ROUNDS;
    return {
      ratePerMinute: grownRate,
      limit: Math.max(current + 1, ceil(current * growth)),
      why: `, conservative slow start x${growth.toFixed(3)} ${rounds}/${CSS_ROUNDS}${over ? ', slow start ends' : ''}`,
      phase: over ? { slowStart: false, cssRounds: 0 } : { cssRounds: rounds },
    };
  }
  if (phase.slowStart) {
    return {
      ratePerMinute: grownRate,
      limit: current * SLOW_START_GROWTH,
      why: `, slow start x${SLOW_START_GROWTH.toFixed(2)}`,
      phase: resumed,
    };
  }
  // Congestion avoidance: x (1 + LIMIT_GROWTH), creeping within NEAR_OVERLOAD of the last overload's load.
  const w = phase.overloadLimit;
  const fast = Math.max(current * (1 + LIMIT_GROWTH), current + Math.max(1, Math.sqrt(current)));
  const near = w > 0 && current < w * (1 + NEAR_OVERLOAD) && fast > w * (1 - NEAR_OVERLOAD);
  const creep = current + Math.max(1, Math.ceil(current * LIMIT_CREEP));
  // Past it without an overload, probe by + sqrt(limit) (Gradient2's queue allowance), not x1.25:
  // a cliff that gave no warning at the knee gives none just past it either.
  const past = w > 0 && current >= w * (1 + NEAR_OVERLOAD);
  const probe = current + Math.max(1, Math.sqrt(current));
  const grown = near ? Math.max(Math.min(fast, w * (1 - NEAR_OVERLOAD)), Math.min(creep, fast)) : past ? probe : fast;
  return {
    ratePerMinute: grownRate,
    limit: Math.max(current + 1, Math.ceil(grown)),
    why: near ? ', near the last overload: creep' : '',
    phase: {},
  };
}
