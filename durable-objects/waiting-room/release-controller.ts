// Release controller: the pure law that turns health signals into a release rate and an active
// limit, and the token-bucket release budget of one tick.
import { noGrowthEvidence, originDownReason, type HealthReport } from './health-signals';

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
  /**
   * Slow start (as in TCP): rate and limit grow with the headroom until the first overload, or
   * until a delay rise outlasts conservative slow start (`cssRounds`).
   */
  slowStart: boolean;
  /**
   * Reports spent in conservative slow start (HyStart++, RFC 9406 section 4.3) since p99 rose to
   * SLOW_START_EXIT x target; 0 when not in it. Slow start resumes when p99 falls back under that
   * share (the rise was noise) and ends after CSS_ROUNDS such reports.
   */
  cssRounds: number;
  /** `reportedAtMs` of the last origin report acted on, so one report moves the rate once (0 = none yet). */
  lastReportAtMs: number;
  /**
   * Active visitors at the last overload (0 = none yet), as CUBIC's W_max (Ha, Rhee and Xu, 2008):
   * the limit grows fast well below it, creeps near it, and fast again once 10 % past it without
   * a new overload (the origin recovered or grew), so the loop does not saw across the knee.
   */
  overloadLimit: number;
  /**
   * `reportedAtMs` of the report that last cut (0 = none yet): the next cut waits CUT_SPACING_MS
   * from it, and comes then even while the active visitors still exceed the limit.
   */
  lastCutAtMs: number;
}

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
 * target))^2, so growth fades out as p99 nears the band: with the square, because latency rises
 * steeply near a saturated origin's knee and a report's window (the SDK's 10 s) lags the load, so
 * growth must be small well before the band (a linear fade overshot the target by 23 % after a
 * recovery in the closed-loop simulation with a windowed p99)...
 */
export const LIMIT_GROWTH = 0.25;
/** ...by only this share (at least 1) within NEAR_OVERLOAD of the load of the last overload... */
export const LIMIT_CREEP = 0.01;
/** (a share of that load) */
export const NEAR_OVERLOAD = 0.1;
/**
 * ...and only while in use: active + unclaimed >= this share of it. A limit less than half filled
 * says nothing about the origin (application-limited): the rule of Netflix concurrency-limits'
 * Gradient2 ("don't grow the limit if we are app limited": inflight < limit / 2) and of RFC 7661's
 * validated window (pipeACK >= cwnd / 2). Half, not nearly all: released visitors leave between
 * two ticks, so a limit that binds every tick reads well under full at the tick's start.
 */
export const LIMIT_PROBE_AT = 0.5;
/**
 * A p99 at this share of the target is a delay rise: slow start turns conservative (HyStart++,
 * RFC 9406: growth divided by CSS_GROWTH_DIVISOR), not over, since one slow window is often noise.
 */
export const SLOW_START_EXIT = 0.5;
/** Conservative slow start grows by (1 + headroom / this) per report (RFC 9406 CSS_GROWTH_DIVISOR). */
export const CSS_GROWTH_DIVISOR = 4;
/**
 * Slow start ends after this many reports in conservative slow start (RFC 9406 CSS_ROUNDS; the
 * SDK's reports come every 2 s over a 10 s window, so 5 reports are one window).
 */
export const CSS_ROUNDS = 5;
/**
 * At most one cut per this many ms of report time, and a cut again once it has passed while the
 * overload persists: the origin SDK's report window (DEFAULT_WINDOW_MS, 10 s), so the report that
 * cuts again measured only requests made after the last cut. TCP's rule: at most one
 * multiplicative decrease per round trip (Jacobson 1988; RFC 5681 section 3.1), and Gradient2
 * updates its limit once per sample window.
 */
export const CUT_SPACING_MS = 10_000;
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
    cssRounds: 0,
    lastReportAtMs: 0,
    overloadLimit: 0,
    lastCutAtMs: 0,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * One step of the release law, applied once per fresh origin report. Two quantities move: the
 * **release rate** (the pace of new admissions) and the **active limit** (how many admitted
 * visitors, plus unclaimed places expected to arrive, may be on the sale at once, as the limit of
 * Netflix's concurrency-limits). Growth needs evidence: a report with too few requests measured or
 * no buyers (health-signals noGrowthEvidence) holds both; it may still cut.
 * - **Slow start** (TCP, RFC 5681 section 3.1): from the first report the limit starts at
 *   max(INITIAL_LIMIT, active + unclaimed) and, per healthy report, both grow by the factor
 *   (1 + headroom), headroom = 1 - p99/target; the limit while in use (LIMIT_PROBE_AT), where
 *   unclaimed places count as use, so it grows whether or not released visitors have claimed yet.
 * - **Conservative slow start** (HyStart++, RFC 9406 section 4.3): a report at SLOW_START_EXIT x
 *   target or more divides the growth by CSS_GROWTH_DIVISOR (and holds in the Vegas band, below);
 *   a report back under it resumes slow start (the rise was noise: one slow window of a cold or
 *   busy origin used to end slow start for good); CSS_ROUNDS such reports end slow start.
 * - **Congestion avoidance** (AIMD, Chiu and Jain 1989, with the Vegas band): below GROW_BELOW x
 *   target the rate grows by INCREASE_SHARE x max and the limit, while in use, by up to
 *   LIMIT_GROWTH per report, fading toward the band and creeping near the load of the last
 *   overload (`overloadLimit`, CUBIC's W_max); between GROW_BELOW x target and the target both hold.
 * - **Overload** (p99 over target, errors over the limit, seat-hold p99 over its target): both cut
 *   by target/p99 within [MIN_CUT_FACTOR, MAX_CUT_FACTOR] (a gradient, as Netflix's Gradient2), or
 *   by DECREASE_FACTOR / LIMIT_CUT for causes not measured in latency; the limit from
 *   the active visitors, so new admissions stop at once, never below INITIAL_LIMIT; at most once
 *   per report window (CUT_SPACING_MS, TCP's one decrease per round trip: reports inside it hold),
 *   and again each window while the overload persists, from the load then. With
 *   fewer than INITIAL_LIMIT active, the room's visitors cannot be the cause: slow start stays on
 *   and the load is not remembered as the origin's knee.
 * A missing, stale, malformed or failing report means the origin is down (see originDownReason):
 * the rate halves toward the minimum (or drops to 0 when the organizer chose `pause`) and the
 * limit never grows, so the gateway never climbs blind. A high conflict rate holds both. An
 * organizer's fixed rate overrides the rate. Clock jumps are harmless: a report's age is never
 * negative and each report acts once.
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
  /** The next state; phase fields not given stay as they were. */
  type Phase = Partial<Pick<ControllerState, 'slowStart' | 'cssRounds' | 'overloadLimit' | 'lastCutAtMs'>>;
  const decide = (rate: number, limit: number, lastReportAtMs: number, why: string, admitFactor = 1, phase: Phase = {}): RateDecision => {
    const next: ControllerState = {
      ratePerMinute: Math.max(0, Math.round(rate)),
      activeLimit: clampLimit(limit),
      slowStart: phase.slowStart ?? state.slowStart,
      cssRounds: phase.cssRounds ?? state.cssRounds,
      lastReportAtMs,
      overloadLimit: phase.overloadLimit ?? state.overloadLimit,
      lastCutAtMs: phase.lastCutAtMs ?? state.lastCutAtMs,
    };
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
    // One cut per report window (CUT_SPACING_MS): a report inside it still holds requests made
    // before the last cut, so cutting on it would compound that cut.
    const since = at - state.lastCutAtMs;
    if (!first && state.lastCutAtMs > 0 && since < CUT_SPACING_MS) {
      return hold(`${why}, already cut ${fmt(since / 1000)} s ago (one cut per ${fmt(CUT_SPACING_MS / 1000)} s report window)`);
    }
    // A window later the overload persists: cut again from the load now (Gradient2's limit =
    // in flight x gradient), even while the active visitors still exceed the last cut's limit.
    // Waiting for them to fall under it first (the old rule) held a halved origin at p99 2 s for
    // 87 s in bench:control: visitors whose pages took 2 s stayed admitted for over a minute, and
    // the one cut's limit (half the load then) was still above the origin's knee. From the load,
    // not the last limit: the limit follows the draining load down and admissions resume only
    // once p99 is back under the target, never compounding to the floor while nothing is admitted.
    // Never below INITIAL_LIMIT; if our few visitors cannot be the cause (fewer than
    // INITIAL_LIMIT active), slow start stays on to recover quickly, and their load is no knee to
    // creep near (a W_max of 10 once held a healthy origin's limit at 10-13).
    const limit = Math.min(current, Math.max(INITIAL_LIMIT, active * limitFactor));
    const few = active < INITIAL_LIMIT;
    return decide(rateOr(clamp(state.ratePerMinute * factor)), limit, at, label(why), 1, {
      slowStart: few && state.slowStart,
      cssRounds: few ? state.cssRounds : 0,
      overloadLimit: few ? state.overloadLimit : active,
      lastCutAtMs: at,
    });
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
  const idle = noGrowthEvidence(report);
  // A first report without evidence does not start slow start: dropping the organizer's max active
  // to INITIAL_LIMIT is a back-off with no measured reason, and at a limit of 10 the admitted
  // visitors who only browse the gateway's seat map (no origin requests, so every report stays
  // idle) stalled the queue until their admissions ended (review: the demo's 11th visitor waited
  // ~8 min while its page said "less than a minute"). The rate stays where it is (the minimum
  // until evidence arrives) and the first report with evidence starts slow start.
  if (idle !== null && first) return decide(rateOr(clamp(state.ratePerMinute)), state.activeLimit, 0, `${idle}, hold`, admitFactor);
  if (idle !== null) return hold(`${idle}, hold`);

  const headroom = 1 - u;
  const extra = admitFactor > 1 ? `; admitting x${admitFactor.toFixed(2)} for ${pct(noShow)} no-shows` : '';
  const seen = `p99 ${fmt(report.p99LatencyMs)} ms of ${fmt(bounds.targetP99Ms)} ms target, ${fmt(report.activeBuyers)} buyers`;
  const step = Math.max(1, Math.ceil(bounds.maxPerMinute * INCREASE_SHARE));
  // In use: admitted or released-but-unclaimed visitors fill at least LIMIT_PROBE_AT of the limit.
  // Unclaimed places count, so a limit that binds before visitors have arrived still grows.
  const inUse = inFlight >= current * LIMIT_PROBE_AT;
  const grow = (g: number, why: string, phase: Phase) =>
    decide(
      rateOr(clamp(Math.max(state.ratePerMinute + step, state.ratePerMinute * g))),
      inUse ? current * g : current,
      at,
      label(`${why}${extra}`),
      admitFactor,
      phase,
    );
  if (state.slowStart) {
    if (u < SLOW_START_EXIT) {
      const resumed = state.cssRounds > 0 ? `, slow start resumes (p99 back under ${pct(SLOW_START_EXIT)} of target)` : '';
      return grow(1 + headroom, `healthy (${seen})${resumed}, slow start x${(1 + headroom).toFixed(2)}`, { cssRounds: 0 });
    }
    const rounds = state.cssRounds + 1;
    const over = rounds >= CSS_ROUNDS;
    const phase: Phase = over ? { slowStart: false, cssRounds: 0 } : { cssRounds: rounds };
    const where = over
      ? `slow start ends after ${CSS_ROUNDS} reports at ${pct(SLOW_START_EXIT)} of target or more`
      : `conservative slow start ${rounds}/${CSS_ROUNDS} (p99 at ${pct(u)} of target)`;
    if (u >= GROW_BELOW)
      return decide(
        rateOr(clamp(state.ratePerMinute)),
        current,
        at,
        label(`healthy (${seen}), ${where}, near target: hold`),
        admitFactor,
        phase,
      );
    const g = 1 + headroom / CSS_GROWTH_DIVISOR;
    return grow(g, `healthy (${seen}), ${where}, x${g.toFixed(2)}`, phase);
  }
  const why = `healthy (${seen})`;
  if (u >= GROW_BELOW)
    return decide(rateOr(clamp(state.ratePerMinute)), current, at, label(`${why}, near target: hold${extra}`), admitFactor);
  // Growth fades out toward GROW_BELOW, and creeps (LIMIT_CREEP per report) within 10 % of the
  // load of the last overload, so the limit approaches the origin's knee instead of jumping over it.
  const w = state.overloadLimit;
  // At least sqrt(limit) x the fade per report, as the queue allowance Gradient2 adds to its limit
  // each update: a small limit (10 after a cut) then regains a short-visit sale's Little's-law need
  // (rate x time in the room, ~50 at 600/min) within about 20 s instead of +1 per report.
  const fade = 1 - u / GROW_BELOW;
  const fast = Math.max(current * (1 + LIMIT_GROWTH * fade ** 2), current + Math.sqrt(current) * fade);
  const near = w > 0 && current < w * (1 + NEAR_OVERLOAD) && fast > w * (1 - NEAR_OVERLOAD);
  const creep = current + Math.max(1, Math.ceil(current * LIMIT_CREEP));
  const grown = near ? Math.max(Math.min(fast, w * (1 - NEAR_OVERLOAD)), Math.min(creep, fast)) : fast;
  const limit = inUse ? Math.max(current + 1, Math.ceil(grown)) : current;
  return decide(rateOr(clamp(state.ratePerMinute + step)), limit, at, label(`${why}${extra}`), admitFactor);
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
