// Release controller: the pure law that turns health signals into a release rate and an active
// limit (its growth rules in release-growth.ts; the tick's budget in tick-plan.ts releaseBudget).
import { noGrowthEvidence, originDownReason, type GatewaySignals, type HealthReport } from './health-signals';

import { INITIAL_LIMIT, KNEE_BACKOFF, delayKnee, growthStep } from './release-growth';

export { INITIAL_LIMIT } from './release-growth';

/** Everything the controller looks at in one tick. */
export interface Signals {
  origin: HealthReport | null;
  gateway: GatewaySignals;
  /** Active visitors now (admitted, not yet left or expired): the load the overload rule looks at. */
  active: number;
  /**
   * Unclaimed places expected to arrive (unclaimed-places unclaimedPlaces: released within the claim
   * window, not claimed yet, less the measured no-shows). They cost the origin nothing until they
   * arrive; they count as use of the limit (so a limit that binds through them can grow), never as
   * load.
   */
  pending: number;
  /**
   * The origin's p99 floor (release-growth floorP99: the lowest sampled in the last five minutes),
   * ms; null or missing without one. Only growth reads
   * it: a p99 well over it holds the limit at the load (the delay gradient); it never stops a cut.
   */
  floorP99Ms?: number | null;
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
  /** Slow start (as in TCP) until the first overload or knee, or a delay rise outlasting `cssRounds`. */
  slowStart: boolean;
  /** Reports in a row with a delay rise in slow start (HyStart++, RFC 9406: CSS_ROUNDS end it); 0 = none. */
  cssRounds: number;
  /** `reportedAtMs` of the last origin report acted on, so one report moves the rate once (0 = none yet). */
  lastReportAtMs: number;
  /**
   * The limit's use (active + unclaimed) at the last overload or knee (0 = none yet), in the
   * limit's own units, as CUBIC's W_max (Ha, Rhee and Xu, 2008): the limit grows fast well below
   * it, creeps near it, and fast again once 10 % past it without a new overload (the origin
   * recovered or grew), so the loop does not saw across the knee.
   */
  overloadLimit: number;
  /**
   * `reportedAtMs` of the report that last cut (0 = none yet): the next cut waits CUT_SPACING_MS
   * (two report windows) from it, and comes then even while the active visitors still exceed the limit.
   */
  lastCutAtMs: number;
}

/** Rate factor on missing health, and on overload not measured in latency (errors, slow holds). */
const DECREASE_FACTOR = 0.5;
/**
 * An origin silent this long (no report for it, ms) gets the minimum rate at once: ticks halving
 * the rate every second would have reached it long before, but a room asleep (every slot taken)
 * runs no ticks (the first tick after 562 s of silence released at 300/min, half of the last
 * rate, not at the minimum).
 */
const SILENT_TO_MINIMUM_MS = 60_000;
/** A latency overload cuts by target/p99, but never deeper than this factor... */
export const MIN_CUT_FACTOR = 0.5;
/** ...and never shallower than this one (a report just over target still cuts by a tenth). */
export const MAX_CUT_FACTOR = 0.9;
/** Above this conflict rate most visitors find their seats gone: admitting more only adds load. */
const HIGH_CONFLICT_RATE = 0.8;
/** No-show compensation admits at most this many times the rate. */
const MAX_NO_SHOW_FACTOR = 2;
/** On an overload not measured in latency the active limit drops to this share of the active visitors. */
const LIMIT_CUT = 0.7;
/**
 * At most one cut per this many ms of report time, and a cut again once it has passed while the
 * overload persists: two of the origin SDK's report windows (DEFAULT_WINDOW_MS, 10 s). A report
 * window's slow requests stay in the reports for a whole window after they end, so an excursion
 * of up to one window shows over target for up to two: the report that may cut again measured
 * only requests made a whole window after the last cut, and a single excursion never cuts twice
 * (one window, 10 s, cut again on the same excursion's lingering window: bench:control took a
 * healthy origin's limit 152 -> 23 -> 10). TCP's rule: at most one multiplicative decrease per
 * round trip (Jacobson 1988; RFC 5681 section 3.1); Gradient2 updates once per sample window.
 */
export const CUT_SPACING_MS = 20_000;
/**
 * A p99 over the target by at most this share holds instead of cutting (the settling band:
 * within 10 % of the target). bench:control: 21 s after a cut, one report of
 * 824 ms (3 % over; the window still held the overload's tail) cut the limit 48 -> 13 from the 15
 * visitors then active, and the healthy origin's limit regrew +1..+4 a report: 0.65 x the maximum.
 */
export const CUT_TOLERANCE = 0.1;

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
 * - **Growth** on a healthy report with evidence (release-growth.ts growthStep): the limit grows
 *   only while it binds (the pace would fill it before the next report) and p99 stays near its
 *   floor (`signals.floorP99Ms`, the windowed minimum): slow start (TCP, RFC 5681 section 3.1)
 *   from the first report, then congestion avoidance, creeping near the load of the last overload
 *   (`overloadLimit`, CUBIC's W_max). An unbound limit follows the load. A p99 over twice its floor
 *   (the delay gradient of TCP Vegas, BBR's min RTT, Netflix's Gradient2) holds the limit at the
 *   load; over three times it, once per climb, the limit backs off under the load and the load is
 *   remembered as the knee, before the cliff. The rate (the pace) grows while p99 is under the
 *   Vegas band, whatever the limit does: the limit protects the origin.
 * - **Overload** (p99 over target, errors over the limit, seat-hold p99 over its target): both cut
 *   by target/p99 within [MIN_CUT_FACTOR, MAX_CUT_FACTOR] (a gradient, as Netflix's Gradient2), or
 *   by DECREASE_FACTOR / LIMIT_CUT for causes not measured in latency; the limit from
 *   the active visitors, so new admissions stop at once, never below INITIAL_LIMIT; at most once
 *   per CUT_SPACING_MS (two report windows, so one excursion never cuts twice; TCP's one decrease
 *   per round trip: reports inside it hold), and again after it while the overload persists, from
 *   the load then. With fewer than INITIAL_LIMIT active, the room's visitors cannot be the cause: slow start stays on
 *   and the load is not remembered as the origin's knee; nor on the first report, whose window
 *   measured visitors admitted before any learned limit.
 * A missing, stale, malformed or failing report means the origin is down (see originDownReason):
 * the rate halves toward the minimum (at once after SILENT_TO_MINIMUM_MS of silence; 0 when the
 * organizer chose `pause`) and the limit never grows, so the gateway never climbs blind. A high conflict rate holds both. An
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
    const long = origin !== null && nowMs - origin.reportedAtMs > SILENT_TO_MINIMUM_MS;
    return decide(clamp(long ? 0 : state.ratePerMinute * DECREASE_FACTOR), limit, state.lastReportAtMs, down);
  }
  const report = origin!;
  const noShow = gateway.noShowRate !== null && Number.isFinite(gateway.noShowRate) ? Math.min(Math.max(gateway.noShowRate, 0), 0.99) : 0;
  const admitFactor = Math.min(MAX_NO_SHOW_FACTOR, 1 / (1 - noShow));
  if (report.reportedAtMs <= state.lastReportAtMs) {
    // Already acted on this report; only re-apply bounds the organizer may have changed.
    return decide(rateOr(clamp(state.ratePerMinute)), state.activeLimit, state.lastReportAtMs, 'organizer bounds changed', admitFactor);
  }
  const at = report.reportedAtMs;
  const e = gateway.edgeWaitP99Ms;
  const edge = e !== undefined && e !== null && Number.isFinite(e) && e > 0 ? e : 0;
  const p99 = report.p99LatencyMs + edge;
  const p99Is = `p99 ${fmt(p99)} ms${edge > 0 ? ` (${fmt(edge)} ms of it waiting at the edge)` : ''}`;
  // The first report starts the limit's slow start from what is in flight now.
  const first = state.lastReportAtMs === 0;
  const current = first ? clampLimit(Math.max(INITIAL_LIMIT, inFlight)) : state.activeLimit;
  // Unclaimed places count in the load slow start begins from: the note says how many.
  const startLoad =
    signals.pending > 0 && inFlight > INITIAL_LIMIT
      ? `${fmt(current)} in flight (${fmt(active)} active + ${fmt(inFlight - active)} unclaimed)`
      : `${fmt(current)} active`;
  const firstNote = first ? `first health report, slow start from ${startLoad}` : '';
  const label = (why: string) => (firstNote ? `${firstNote}; ${why}` : why);
  const cut = (why: string, factor: number, limitFactor: number) => {
    // One cut per CUT_SPACING_MS (two report windows): a report inside it may still hold requests
    // made before the last cut, or in the excursion that caused it, so cutting on it would
    // compound that cut.
    const since = at - state.lastCutAtMs;
    if (!first && state.lastCutAtMs > 0 && since < CUT_SPACING_MS) {
      return hold(why);
    }
    // Two windows later the overload persists: cut again from the load now (Gradient2's limit =
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
    // Name the load the limit was cut from ("x0.90: active limit 33 -> 16" was 18
    // active x0.90, and "slow start from 59 active" counted unclaimed places the cut did not use).
    const from = limit < current ? ` (limit: ${fmt(active)} active x${limitFactor.toFixed(2)})` : '';
    // Nor is the first report's load a knee: its window measured visitors admitted before any
    // learned limit, at the minimum rate under the organizer's cap, often during the join burst
    // (the crowd tool: p99 907 ms with 15 active on the shared machine ended slow start, and
    // congestion avoidance then grew the limit by 1 a report from 10).
    const few = active < INITIAL_LIMIT || first;
    // The knee counts in the limit's units (a knee of 17 active held a short-visit sale near 17 with
    // 33 in flight). A cut that goes on cutting one overload (within two spacings) sees a load draining
    // under a window that still holds it: no new knee, which falls at most to half the one remembered.
    const going = state.lastCutAtMs > 0 && at - state.lastCutAtMs <= 2 * CUT_SPACING_MS;
    const knee = going ? Math.max(inFlight, Math.floor(state.overloadLimit * MIN_CUT_FACTOR)) : inFlight;
    return decide(rateOr(clamp(state.ratePerMinute * factor)), limit, at, label(`${why}${from}`), 1, {
      slowStart: few && state.slowStart,
      cssRounds: few ? state.cssRounds : 0,
      overloadLimit: few ? state.overloadLimit : knee,
      lastCutAtMs: at,
    });
  };
  const hold = (why: string) => decide(rateOr(clamp(state.ratePerMinute)), current, at, label(why), admitFactor);
  const u = p99 / bounds.targetP99Ms;
  if (u > 1 + CUT_TOLERANCE) {
    const f = Math.min(MAX_CUT_FACTOR, Math.max(MIN_CUT_FACTOR, 1 / u));
    return cut(`${p99Is} over ${fmt(bounds.targetP99Ms)} ms target, x${f.toFixed(2)}`, f, f);
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
  // idle) stalled the queue until their admissions ended (the demo's 11th visitor waited
  // ~8 min while its page said "less than a minute"). The rate stays where it is (the minimum
  // until evidence arrives) and the first report with evidence starts slow start.
  if (idle !== null && first) return decide(rateOr(clamp(state.ratePerMinute)), state.activeLimit, 0, `${idle}, hold`, admitFactor);
  if (idle !== null) return hold(`${idle}, hold`);

  const extra = admitFactor > 1 ? `; admitting x${admitFactor.toFixed(2)} for ${pct(noShow)} no-shows` : '';
  const f = signals.floorP99Ms;
  const floor = f !== undefined && f !== null && Number.isFinite(f) && f >= 1 ? f : null;
  const floorNote = floor !== null ? ` (floor ${fmt(floor)} ms)` : '';
  const seen = `${p99Is}${floorNote} of ${fmt(bounds.targetP99Ms)} ms target, ${fmt(report.activeBuyers)} buyers`;
  // The knee, seen in the delay gradient before the cliff: the limit backs off under its use
  // (active + unclaimed), that use is remembered as the knee, the rate stays. Limit, knee and the
  // test below all count in the limit's units: a back-off from active + unclaimed tested against
  // a knee of active visitors fired again on each report of one window (163 -> 110 -> 91 in
  // sim:control). Once per climb to a knee: not while the load is
  // under the knee and the limit still under its back-off (a window holds one burst for 10 s: a
  // back-off on each of its reports compounded, 107 -> 74 in 8 s); again once the limit regrew over
  // it (the origin lost capacity). Never on the first report; an overload after it is cut at once.
  const backedOff = state.overloadLimit > 0 && inFlight < state.overloadLimit && current <= Math.ceil(state.overloadLimit * KNEE_BACKOFF);
  if (!first && !backedOff && active >= INITIAL_LIMIT && delayKnee(p99, floor, bounds.targetP99Ms)) {
    const limit = Math.min(current, Math.max(INITIAL_LIMIT, Math.floor(inFlight * KNEE_BACKOFF)));
    const load = inFlight > active ? `${fmt(inFlight)} in flight (${fmt(active)} active)` : `${fmt(active)} active`;
    const why = `${p99Is}, ${(p99 / floor!).toFixed(1)} x its floor of ${fmt(floor!)} ms: the origin's knee at ${load}`;
    return decide(rateOr(clamp(state.ratePerMinute)), limit, at, why, admitFactor, {
      slowStart: false,
      cssRounds: 0,
      overloadLimit: inFlight,
    });
  }
  const g = growthStep({
    phase: state,
    ratePerMinute: state.ratePerMinute,
    limit: current,
    inFlight,
    active,
    p99Ms: p99,
    floorMs: floor,
    targetP99Ms: bounds.targetP99Ms,
    maxPerMinute: bounds.maxPerMinute,
  });
  return decide(rateOr(clamp(g.ratePerMinute)), g.limit, at, label(`healthy (${seen})${g.why}${extra}`), admitFactor, g.phase);
}
