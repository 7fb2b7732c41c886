// Closed-loop simulation of the release controller against the origin stub's capacity model, on an
// injected clock: the waiting room releases places at the controller's pace (the tick's own freeSlots
// and releaseBudget), a released visitor claims after a delay or never (a no-show), a claimed visitor
// stays on the origin for a session, and the origin reports its p99 and error rate every few seconds.
import { claimWindowMs, pendingLimit } from '../../durable-objects/waiting-room/admission-pace';
import {
  CLAIM_LAGS_KEPT,
  freeSlots,
  gatewaySignals,
  noShowWindow,
  releaseBudget,
  unclaimedPlaces,
} from '../../durable-objects/waiting-room/tick-plan';
import { initialControllerState, nextReleaseRate, type ControllerBounds } from '../../durable-objects/waiting-room/release-controller';
import { FLOOR_WINDOW_MS, floorP99, type FloorSample } from '../../durable-objects/waiting-room/release-growth';
import type { HealthReport } from '../../durable-objects/waiting-room/health-signals';
import { simulatedErrorRate, simulatedLatencyMs } from '../../origin-stub/load-model';

export interface SimOptions {
  ticks: number;
  bounds: ControllerBounds;
  /** Concurrent buyers the origin serves at base latency, per tick (may change mid-run). */
  knee: (tick: number) => number;
  baseLatencyMs?: number;
  /** How long a claimed visitor stays on the origin, s (60). */
  sessionS?: number;
  /** The origin reports every this many ticks (2); `reportsUntil` stops reports after that tick. */
  reportEvery?: number;
  /**
   * Each report covers the requests of this many past ticks (10, as the origin SDK's 10 s window):
   * its p99 and error rate are over those requests (one per buyer and tick), not the latest tick's.
   */
  reportWindowS?: number;
  reportsUntil?: number;
  /** The origin's first report comes at this tick (0); silent before it (the minimum rate, the organizer's cap). */
  reportsFrom?: number;
  /** Share of released visitors who never claim (0). */
  noShowShare?: number;
  /** A visitor who shows claims this many s after release: [min, max] (uniform; [1, 1]). */
  claimDelayS?: [number, number];
  /** Visitors waiting at the start (unbounded by default). */
  visitors?: number;
  /** Idle timeout of the event, ms (300 000): bounds the claim window. */
  idleTimeoutMs?: number;
  /** PRNG seed (1). */
  seed?: number;
  /**
   * What the origin reports while no buyer is on it (the stub: its own operator calls, e.g. p99
   * 26 ms of 1 request); by default the capacity model's latency at no load, with no sample count.
   */
  idleReport?: { p99LatencyMs: number; sampleCount: number };
  /**
   * Closed-loop visitors instead of fixed sessions (the crowd tool's): a claimed visitor loads
   * `pages` origin pages one after another, thinking `thinkS` s before each, and leaves after the
   * last, so a visit stretches with the origin's latency; the client sends at most
   * `clientConcurrency` requests at once (crowd's --concurrency), so the origin sees at most that
   * many and the rest wait at the client.
   */
  visit?: { pages: number; thinkS: number; clientConcurrency: number };
  /**
   * Latency added to every request of a tick whatever the load, ms (0): the machine's, not the
   * origin's knee (bench:control's stub shares two cores with the gateway and the crowd, so a
   * join burst or another process shows as origin p99 while our visitors are few).
   */
  noiseMs?: (tick: number) => number;
}

export interface SimTick {
  tick: number;
  rate: number;
  limit: number;
  /** Active (claimed) visitors on the origin. */
  concurrent: number;
  /** Unclaimed places inside the claim window. */
  pending: number;
  /** Places released this tick. */
  released: number;
  /** Admissions claimed this tick. */
  claimed: number;
  p99: number;
  errorRate: number;
  reason: string | null;
}

/** The room samples every this many ticks (room-reads SAMPLE_EVERY_MS, 5 s). */
const SAMPLE_EVERY_S = 5;

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Served {
  latencyMs: number;
  errorRate: number;
  requests: number;
}

/**
 * p99 and error rate over a window of ticks, weighting each tick by its requests (what the origin
 * SDK's sliding window reports); a window with no requests reports the latest tick's latency.
 */
function windowStats(window: readonly Served[]): { p99: number; errorRate: number; requests: number } {
  const requests = window.reduce((a, t) => a + t.requests, 0);
  if (requests === 0) return { p99: window.at(-1)?.latencyMs ?? 0, errorRate: 0, requests: 0 };
  const byLatency = [...window].sort((a, b) => a.latencyMs - b.latencyMs);
  let seen = 0;
  let p99 = byLatency.at(-1)!.latencyMs;
  for (const t of byLatency) {
    seen += t.requests;
    if (seen >= 0.99 * requests) {
      p99 = t.latencyMs;
      break;
    }
  }
  return { p99, errorRate: window.reduce((a, t) => a + t.errorRate * t.requests, 0) / requests, requests };
}

/**
 * The origin's latency (ms) and pages served per s with `active` closed-loop visitors: the
 * fixed point of concurrency = active x L / (think + L) (Little's law over a page cycle) and
 * L = the capacity model's latency at that concurrency, capped by the client's concurrency
 * (beyond it the client's queue, not the origin, holds the requests).
 */
function closedLoop(active: number, visit: NonNullable<SimOptions['visit']>, base: number, knee: number, fromMs: number) {
  let latencyMs = fromMs;
  for (let k = 0; k < 50; k++) {
    const l = latencyMs / 1000;
    const c = Math.min(visit.clientConcurrency, (active * l) / (visit.thinkS + l));
    latencyMs = (latencyMs + simulatedLatencyMs(c, base, knee)) / 2;
  }
  const l = latencyMs / 1000;
  const wanted = active / (visit.thinkS + l);
  const concurrent = Math.min(visit.clientConcurrency, wanted * l);
  return { latencyMs, concurrent, pagesPerS: Math.min(wanted, visit.clientConcurrency / l) };
}

/** Runs the loop, one tick per second, and returns every tick. */
export function simulate(o: SimOptions): SimTick[] {
  const session = o.sessionS ?? 60;
  const base = o.baseLatencyMs ?? 20;
  const every = o.reportEvery ?? 2;
  const [dMin, dMax] = o.claimDelayS ?? [1, 1];
  const window = claimWindowMs(o.idleTimeoutMs ?? 300_000);
  const random = prng(o.seed ?? 1);
  let waiting = o.visitors ?? Number.MAX_SAFE_INTEGER;
  let state = initialControllerState(o.bounds);
  let carry = 0;
  let report: HealthReport | null = null;
  const windowS = o.reportWindowS ?? 10;
  /** The origin's last `windowS` ticks: each tick's latency, error rate and requests. */
  const served: Served[] = [];
  /** Unclaimed places: their release (an index into `releases`), and the tick the visitor claims (Infinity for a no-show). */
  let places: { release: number; claimsAt: number }[] = [];
  /** Each tick's release, as the room's release records: tick, places, claimed so far. */
  const releases: { at: number; count: number; claimed: number }[] = [];
  /** The latest claim lags, ms, as the room keeps them (RoomStore.claimLagsMs). */
  const lags: number[] = [];
  const admittedAt: number[] = [];
  /** Closed-loop visitors: pages each has left to load. */
  let visits: number[] = [];
  let lastLatencyMs = base;
  /** The room's samples (one every SAMPLE_EVERY_S ticks, as the WaitingRoom's dashboard samples), for the baseline. */
  const samples: FloorSample[] = [];
  const out: SimTick[] = [];
  const t0 = 1_800_000_000_000;
  for (let tick = 0; tick < o.ticks; tick++) {
    const now = t0 + tick * 1000;
    while (admittedAt.length && admittedAt[0]! <= tick - session) admittedAt.shift();
    let claimed = 0;
    places = places.filter((p) => {
      if (p.claimsAt > tick) return true;
      releases[p.release]!.claimed++;
      lags.push((tick - releases[p.release]!.at) * 1000);
      if (lags.length > CLAIM_LAGS_KEPT) lags.shift();
      if (o.visit) visits.push(o.visit.pages);
      else admittedAt.push(tick);
      claimed++;
      return false;
    });
    // The room's own counts: the no-show rate over its window (tick-plan noShowWindow,
    // gatewaySignals) and the unclaimed places inside the claim window (unclaimedPlaces).
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
      releases.filter((r) => (tick - r.at) * 1000 < window).map((r) => ({ atMs: t0 + r.at * 1000, count: r.count, claimed: r.claimed })),
      now,
      noShowRate,
      lags,
    );
    const pending = unclaimed.pending;
    let concurrent = admittedAt.length;
    let p99 = simulatedLatencyMs(concurrent, base, o.knee(tick));
    let errorRate = simulatedErrorRate(concurrent, o.knee(tick));
    let requests = concurrent;
    if (o.visit) {
      // Active = admitted visitors with pages left; the origin sees the requests in flight.
      concurrent = visits.length;
      const loop = closedLoop(concurrent, o.visit, base, o.knee(tick), lastLatencyMs);
      lastLatencyMs = p99 = loop.latencyMs;
      // The stub's capacity model only slows down (origin-stub/shop.ts): no errors.
      errorRate = 0;
      requests = loop.pagesPerS;
      const each = concurrent > 0 ? loop.pagesPerS / concurrent : 0;
      visits = visits.map((left) => left - each).filter((left) => left > 0);
    }
    p99 += o.noiseMs?.(tick) ?? 0;
    served.push({ latencyMs: p99, errorRate, requests });
    if (served.length > windowS) served.shift();
    if (tick % every === 0 && tick >= (o.reportsFrom ?? 0) && tick < (o.reportsUntil ?? Infinity)) {
      const w = windowStats(served);
      report =
        w.requests === 0 && o.idleReport
          ? { ...o.idleReport, errorRate: 0, activeBuyers: 0, reportedAtMs: now }
          : {
              p99LatencyMs: w.p99,
              errorRate: w.errorRate,
              activeBuyers: concurrent,
              sampleCount: Math.round(w.requests),
              reportedAtMs: now,
            };
    }
    // As the WaitingRoom's tick: the p99 floor from the room's samples (room-tick.ts).
    const floorP99Ms = floorP99(samples, now);
    const d = nextReleaseRate(
      state,
      {
        origin: report,
        gateway: { holdP99Ms: null, conflictRate: null, noShowRate },
        active: concurrent,
        pending: unclaimed.expected,
        floorP99Ms,
      },
      o.bounds,
      now,
    );
    if (tick % SAMPLE_EVERY_S === 0) samples.push({ at: now, originP99Ms: report?.p99LatencyMs ?? null });
    while (samples.length > 0 && samples[0]!.at < now - FLOOR_WINDOW_MS) samples.shift();
    state = d.state;
    // The tick's own budget rules (tick-plan freeSlots over releaseBudget), as WaitingRoom.alarm.
    const slots = freeSlots({
      maxActiveVisitors: o.bounds.maxActive,
      activeLimit: state.activeLimit,
      active: concurrent,
      pending,
      expected: unclaimed.expected,
      pendingLimit: pendingLimit(d.admitPerMinute, window),
    });
    const b = releaseBudget(d.admitPerMinute, carry, 1000, slots, waiting);
    carry = b.carry;
    waiting -= b.admit;
    if (b.admit > 0) releases.push({ at: tick, count: b.admit, claimed: 0 });
    for (let i = 0; i < b.admit; i++) {
      const noShow = random() < (o.noShowShare ?? 0);
      const delay = dMin + Math.floor(random() * (dMax - dMin + 1));
      places.push({ release: releases.length - 1, claimsAt: noShow ? Infinity : tick + delay });
    }
    out.push({
      tick,
      rate: state.ratePerMinute,
      limit: state.activeLimit,
      concurrent,
      pending,
      released: b.admit,
      claimed,
      p99,
      errorRate,
      reason: d.reason,
    });
  }
  return out;
}

/** Figures of a run: from tick `from` on, the share of ticks with p99 under target, and the worst overshoot. */
export function summarize(ticks: SimTick[], targetP99Ms: number, from = 0) {
  const tail = ticks.slice(from);
  const under = tail.filter((t) => t.p99 <= targetP99Ms).length / tail.length;
  const worst = Math.max(...tail.map((t) => t.p99));
  const settledAt = ticks.findIndex((_, i) => ticks.slice(i).every((t) => t.p99 <= targetP99Ms * 1.1));
  return {
    underShare: under,
    overshootPct: Math.max(0, (worst / targetP99Ms - 1) * 100),
    /** First tick from which p99 stays within target + 10 % to the end (-1: never). */
    settlingTick: settledAt,
    meanRate: tail.reduce((a, t) => a + t.rate, 0) / tail.length,
  };
}

/** Places released per minute over ticks [from, to). */
export function releasedPerMinute(ticks: SimTick[], from: number, to: number): number {
  return (ticks.slice(from, to).reduce((a, t) => a + t.released, 0) * 60) / (to - from);
}

/** Number of times p99 crosses the target (from under to over) in ticks [from, to): 0 = no oscillation. */
export function targetCrossings(ticks: SimTick[], targetP99Ms: number, from = 0, to = ticks.length): number {
  let n = 0;
  for (let k = Math.max(1, from); k < to; k++) if (ticks[k - 1]!.p99 <= targetP99Ms && ticks[k]!.p99 > targetP99Ms) n++;
  return n;
}
