// Closed-loop simulation of the real path that `npm run bench:control` measures, request by request
// on a virtual clock: the room's tick (the release law, the tick's free slots and budget), visitors
// who claim after a poll's lag (or never), browse the origin page by page for a stay and check
// out, an origin that serves them by processor sharing with a knee and a cliff (the stub's
// capacity model), a machine that stalls now and then (the shared cores: requests pile up and reach
// the origin together), the edge's limit on requests in flight, the gateway's origin timeout, and
// health reports over the SDK's window.
import { claimWindowMs, pendingLimit } from '../../durable-objects/waiting-room/admission-pace';
import { freeSlots, gatewaySignals, noShowWindow, releaseBudget } from '../../durable-objects/waiting-room/tick-plan';
import { CLAIM_LAGS_KEPT, unclaimedPlaces } from '../../durable-objects/waiting-room/unclaimed-places';
import {
  initialControllerState,
  nextReleaseRate,
  type ControllerBounds,
  type ControllerState,
} from '../../durable-objects/waiting-room/release-controller';
import { FLOOR_WINDOW_MS, floorP99, type FloorSample } from '../../durable-objects/waiting-room/release-growth';
import type { HealthReport } from '../../durable-objects/waiting-room/health-signals';
import { SimEdge } from './sim-edge';
import { Processor, prng, type OriginCapacity } from './sim-origin';

/** One simulated run's settings. Times in s unless named ms. */
export interface CrowdSimOptions {
  seconds: number;
  bounds: ControllerBounds;
  /** The origin's capacity at second `t` (changes apply to requests in service, as the stub's switch). */
  capacity: (t: number) => OriginCapacity;
  /** A visitor browses this long (wall time) before checking out, s (the crowd's staySeconds). */
  stayS: number;
  /** Think time between pages, s: uniform in thinkS x [0.8, 1.2] (the crowd's). */
  thinkS?: number;
  /** Share of released visitors who never claim. */
  noShowShare: number;
  /** A visitor who shows claims this long after release: uniform in [min, max] s (their next poll). */
  claimLagS: [number, number];
  /** Health reports every this many ms (the stub's 2,000), each shifted by up to ± `reportJitterMs`. */
  reportEveryMs?: number;
  reportJitterMs: number;
  /** The SDK's report window, ms (10,000). */
  reportWindowMs?: number;
  /**
   * Machine stalls: this many per s on average (Poisson), each exponential with a mean of
   * `stallMeanMs` x (1 + origin requests per s / `stallLoadRps`), capped at 2 s: the gateway, the
   * stub and the crowd share the cores, so the busier the path the longer its pauses.
   */
  stallsPerS: number;
  stallMeanMs: number;
  stallLoadRps?: number;
  /** The gateway's origin timeout, ms (15,000): the request leaves the origin and the visitor moves on. */
  originTimeoutMs?: number;
  /**
   * The gateway's learned limit on requests in flight to the origin (src/lib/origin-limit.ts):
   * requests over it wait at the edge in arrival order. Off: every request goes straight in (the
   * origin's own capacity, as the capacity oracle measures it).
   */
  originLimit?: boolean;
  /** Instead of the release law, hold active + unclaimed at this many (the capacity oracle). */
  holdAt?: number;
  seed: number;
}

/** One second of a run, as bench:control samples the room. */
export interface CrowdSimSecond {
  t: number;
  rate: number;
  limit: number;
  active: number;
  pending: number;
  released: number;
  /** Admissions claimed in this second. */
  claimed: number;
  /** Visits ended (the visitor left) in this second. */
  left: number;
  /** The longest wait at the edge (under the origin limit) of the requests sent to the origin in this second, ms. */
  edgeWaitMs: number;
  /** The p99 of the origin's last report as the room holds it, ms (null before the first). */
  reportedP99: number | null;
  reason: string | null;
}

const STEP_MS = 5;

/** Nearest-rank quantile of sorted samples (origin-sdk latency-window quantile). */
function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Visitor {
  claimAtMs: number;
  leaveAtMs: number;
  /** 'page' while browsing, 'checkout' on the last request. */
  phase: 'page' | 'checkout';
}

/** Runs one simulated crowd and returns one entry per second. */
export function simulateCrowd(o: CrowdSimOptions): CrowdSimSecond[] {
  const random = prng(o.seed);
  const noise = prng(o.seed * 7919 + 13);
  const t0 = 1_800_000_000_000;
  const endMs = o.seconds * 1000;
  const thinkS = o.thinkS ?? 2;
  const every = o.reportEveryMs ?? 2_000;
  const windowMs = o.reportWindowMs ?? 10_000;
  const timeoutMs = o.originTimeoutMs ?? 15_000;
  const claimWindow = claimWindowMs(300_000);
  const origin = new Processor(o.capacity(0));
  // Timers: a bucket per step.
  const timers = new Map<number, (() => void)[]>();
  const at = (ms: number, fn: () => void) => {
    const k = Math.max(0, Math.ceil(ms / STEP_MS));
    const list = timers.get(k);
    if (list) list.push(fn);
    else timers.set(k, [fn]);
  };
  let nowMs = 0;
  let active = 0;
  let nextId = 1;
  const visitors = new Map<number, Visitor>();
  /** Requests held by a machine stall, sent when it ends. */
  let stalledUntil = -1;
  let held: number[] = [];
  const requestOf = new Map<number, number>(); // request id -> visitor id
  const timeoutOf = new Map<number, number>(); // request id -> deadline ms
  const completions: { doneMs: number; ms: number }[] = [];
  let report: HealthReport | null = null;
  let state: ControllerState = initialControllerState(o.bounds);
  let carry = 0;
  const releases: { at: number; count: number; claimed: number }[] = [];
  const lags: number[] = [];
  const samples: FloorSample[] = [];
  const out: CrowdSimSecond[] = [];
  let second = { claimed: 0, left: 0 };
  /** Origin requests sent in the current and the last second. */
  let sent = { now: 0, last: 0 };

  const send = (visitorId: number) => {
    const id = nextId++;
    sent.now++;
    requestOf.set(id, visitorId);
    if (nowMs < stalledUntil) held.push(id);
    else enter(id);
  };
  // The gateway's limit on requests in flight (origin-limit.ts): over it, requests wait at the edge.
  const edge = new SimEdge(o.originLimit === true, t0, (id, ms) => origin.arrive(id, ms));
  const enter = (id: number) => {
    edge.enter(id, nowMs, visitors.get(requestOf.get(id)!)?.phase === 'checkout');
    timeoutOf.set(id, nowMs + timeoutMs);
    at(nowMs + timeoutMs, () => {
      // The gateway gave up (waiting at the edge or at the origin): the stub records the request's
      // real time, the visitor moves on.
      const atEdge = edge.giveUp(id, nowMs);
      if (timeoutOf.get(id) === undefined || (!atEdge && !origin.abandon(id))) return;
      if (!atEdge) completions.push({ doneMs: nowMs, ms: timeoutMs });
      answered(id);
      edge.ended(id, nowMs);
    });
  };
  const answered = (id: number) => {
    timeoutOf.delete(id);
    const vid = requestOf.get(id)!;
    requestOf.delete(id);
    const v = visitors.get(vid)!;
    if (v.phase === 'checkout') return leave(vid);
    const think = thinkS * 1000 * (0.8 + random() * 0.4);
    if (nowMs + think >= v.leaveAtMs) {
      // The seat map and the hold go through the gateway only; 70 % then check out on the origin.
      if (random() < 0.7) {
        v.phase = 'checkout';
        return at(nowMs + 100, () => send(vid));
      }
      return at(nowMs + 100, () => leave(vid));
    }
    at(nowMs + think, () => send(vid));
  };
  const leave = (vid: number) => {
    visitors.delete(vid);
    active--;
    second.left++;
  };
  const claim = (release: number) => {
    releases[release]!.claimed++;
    lags.push(nowMs - releases[release]!.at * 1000);
    if (lags.length > CLAIM_LAGS_KEPT) lags.shift();
    const vid = nextId++;
    visitors.set(vid, { claimAtMs: nowMs, leaveAtMs: nowMs + o.stayS * 1000, phase: 'page' });
    active++;
    second.claimed++;
    send(vid);
  };
  const healthReport = (): HealthReport => {
    while (completions.length > 0 && completions[0]!.doneMs < nowMs - windowMs) completions.shift();
    const done = completions.map((c) => c.ms).sort((a, b) => a - b);
    const p99done = quantileSorted(done, 0.99);
    // The SDK counts running requests at least as old as the completed ones' p99, with their age.
    const running = origin.running.map((r) => nowMs - r.atMs).filter((age) => age >= p99done && age > 0);
    const all = [...done, ...running].sort((a, b) => a - b);
    const ms = all.length ? quantileSorted(all, 0.99) : 0;
    return {
      p99LatencyMs: Math.round(ms),
      errorRate: 0,
      activeBuyers: active,
      sampleCount: all.length,
      ...(running.length ? { inFlight: running.length } : {}),
      // The gateway counts a report as of its signed second (health-intake acceptHealthReport).
      reportedAtMs: t0 + nowMs - (nowMs % 1000),
    };
  };
  const tick = () => {
    const now = t0 + nowMs;
    const tickS = nowMs / 1000;
    const shows = noShowWindow(now);
    const judged = releases.filter((r) => t0 + r.at * 1000 >= shows.fromMs && t0 + r.at * 1000 <= shows.toMs);
    const noShowRate = gatewaySignals({
      holds: 0,
      conflicts: 0,
      worstHoldP99Ms: null,
      released: judged.reduce((a, r) => a + r.count, 0),
      claimed: judged.reduce((a, r) => a + r.claimed, 0),
    }).noShowRate;
    const unclaimed = unclaimedPlaces(
      releases
        .filter((r) => nowMs - r.at * 1000 < claimWindow)
        .map((r) => ({ atMs: t0 + r.at * 1000, count: r.count, claimed: r.claimed })),
      now,
      noShowRate,
      lags,
    );
    let admit = 0;
    let reason: string | null = null;
    if (o.holdAt !== undefined) {
      admit = Math.max(0, Math.min(o.holdAt - active - unclaimed.expected, o.holdAt));
    } else {
      const d = nextReleaseRate(
        state,
        {
          origin: report,
          gateway: {
            holdP99Ms: null,
            conflictRate: null,
            noShowRate,
            edgeWaitP99Ms: edge.edgeWaitP99Ms(nowMs),
          },
          active,
          pending: unclaimed.expected,
          floorP99Ms: floorP99(samples, now),
        },
        o.bounds,
        now,
      );
      state = d.state;
      reason = d.reason;
      const slots = freeSlots({
        maxActiveVisitors: o.bounds.maxActive,
        activeLimit: state.activeLimit,
        active,
        pending: unclaimed.pending,
        expected: unclaimed.expected,
        pendingLimit: pendingLimit(d.admitPerMinute, claimWindow),
      });
      const b = releaseBudget(d.admitPerMinute, carry, 1000, slots, Number.MAX_SAFE_INTEGER);
      carry = b.carry;
      admit = b.admit;
    }
    if (tickS % 5 === 0) samples.push({ at: now, originP99Ms: report?.p99LatencyMs ?? null });
    while (samples.length > 0 && samples[0]!.at < now - FLOOR_WINDOW_MS) samples.shift();
    if (admit > 0) {
      releases.push({ at: tickS, count: admit, claimed: 0 });
      const r = releases.length - 1;
      for (let i = 0; i < admit; i++) {
        if (random() < o.noShowShare) continue;
        const [lo, hi] = o.claimLagS;
        at(nowMs + (lo + random() * (hi - lo)) * 1000, () => claim(r));
      }
    }
    out.push({
      t: tickS,
      rate: state.ratePerMinute,
      limit: o.holdAt ?? state.activeLimit,
      active,
      pending: unclaimed.pending,
      released: admit,
      claimed: second.claimed,
      left: second.left,
      edgeWaitMs: Math.round(edge.takeLongestWait()),
      reportedP99: report?.p99LatencyMs ?? null,
      reason,
    });
    second = { claimed: 0, left: 0 };
  };

  // The first report comes with the first traffic (the stub arms its health job on a request).
  let nextReportMs = Infinity;
  let nextStallMs = (-Math.log(1 - noise()) / Math.max(1e-9, o.stallsPerS)) * 1000;
  for (let step = 0; step * STEP_MS <= endMs; step++) {
    nowMs = step * STEP_MS;
    const model = o.capacity(Math.floor(nowMs / 1000));
    origin.model = model;
    for (const done of origin.advance(STEP_MS, nowMs)) {
      if (!timeoutOf.has(done.id)) continue;
      completions.push({ doneMs: done.doneMs, ms: done.doneMs - done.atMs });
      answered(done.id);
      edge.ended(done.id, nowMs);
    }
    if (nowMs >= nextStallMs) {
      const mean = o.stallMeanMs * (1 + sent.last / (o.stallLoadRps ?? Infinity));
      stalledUntil = nowMs + Math.min(2_000, -Math.log(1 - noise()) * mean);
      nextStallMs = stalledUntil + (-Math.log(1 - noise()) / Math.max(1e-9, o.stallsPerS)) * 1000;
    }
    if (nowMs >= stalledUntil && held.length > 0) {
      for (const id of held) enter(id);
      held = [];
    }
    // A timer may set another for this same step: run until none is left.
    for (let due = timers.get(step); due; due = timers.get(step)) {
      timers.delete(step);
      for (const fn of due) fn();
    }
    if (nextReportMs === Infinity && origin.running.length > 0) nextReportMs = nowMs + every;
    if (nowMs >= nextReportMs) {
      report = healthReport();
      nextReportMs += every + (noise() * 2 - 1) * o.reportJitterMs;
    }
    if (nowMs % 1000 === 0) {
      tick();
      sent = { now: 0, last: sent.now };
    }
  }
  return out;
}
