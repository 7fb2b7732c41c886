// Closed-loop simulation of the release controller against the origin stub's capacity model, on an
// injected clock: the waiting room admits at the controller's rate, each admitted buyer stays on the
// origin for a session, the origin reports its p99 and error rate every few seconds.
import {
  initialControllerState,
  nextReleaseRate,
  releaseBudget,
  type ControllerBounds,
  type HealthReport,
} from '../../durable-objects/waiting-room/release-controller';
import { simulatedErrorRate, simulatedLatencyMs } from '../../origin-stub/load-model';

export interface SimOptions {
  ticks: number;
  bounds: ControllerBounds;
  /** Concurrent buyers the origin serves at base latency, per tick (may change mid-run). */
  knee: (tick: number) => number;
  baseLatencyMs?: number;
  /** How long a buyer stays on the origin, s. */
  sessionS?: number;
  /** The origin reports every this many ticks; `reportsUntil` stops reports after that tick. */
  reportEvery?: number;
  reportsUntil?: number;
}

export interface SimTick {
  tick: number;
  rate: number;
  limit: number;
  concurrent: number;
  p99: number;
  errorRate: number;
}

/** Runs the loop, one tick per second, and returns every tick. */
export function simulate(o: SimOptions): SimTick[] {
  const session = o.sessionS ?? 60;
  const base = o.baseLatencyMs ?? 20;
  const every = o.reportEvery ?? 2;
  let state = initialControllerState(o.bounds);
  let carry = 0;
  let report: HealthReport | null = null;
  const admittedAt: number[] = [];
  const out: SimTick[] = [];
  const t0 = 1_800_000_000_000;
  for (let tick = 0; tick < o.ticks; tick++) {
    const now = t0 + tick * 1000;
    while (admittedAt.length && admittedAt[0]! <= tick - session) admittedAt.shift();
    const concurrent = admittedAt.length;
    const p99 = simulatedLatencyMs(concurrent, base, o.knee(tick));
    const errorRate = simulatedErrorRate(concurrent, o.knee(tick));
    if (tick % every === 0 && tick < (o.reportsUntil ?? Infinity)) {
      report = { p99LatencyMs: p99, errorRate, activeBuyers: concurrent, reportedAtMs: now };
    }
    const d = nextReleaseRate(
      state,
      { origin: report, gateway: { holdP99Ms: null, conflictRate: null, noShowRate: null }, active: concurrent },
      o.bounds,
      now,
    );
    state = d.state;
    // The waiting room admits at the rate, never beyond the active limit (as WaitingRoom.alarm does).
    const b = releaseBudget(
      d.admitPerMinute,
      carry,
      1000,
      Math.min(o.bounds.maxActive, state.activeLimit) - concurrent,
      Number.MAX_SAFE_INTEGER,
    );
    carry = b.carry;
    for (let i = 0; i < b.admit; i++) admittedAt.push(tick);
    out.push({ tick, rate: state.ratePerMinute, limit: state.activeLimit, concurrent, p99, errorRate });
  }
  return out;
}

/** Figures of a run: from tick `from` on, the share of ticks with p99 under target, and the worst overshoot. */
export function summarize(ticks: SimTick[], targetP99Ms: number, from = 0) {
  const tail = ticks.slice(from);
  const under = tail.filter((t) => t.p99 <= targetP99Ms).length / tail.length;
  const worst = Math.max(...tail.map((t) => t.p99));
  const settledAt = ticks.findIndex((_, i) => ticks.slice(i).every((t) => t.p99 <= targetP99Ms * 1.25));
  return {
    underShare: under,
    overshootPct: Math.max(0, (worst / targetP99Ms - 1) * 100),
    settlingTick: settledAt,
    meanRate: tail.reduce((a, t) => a + t.rate, 0) / tail.length,
  };
}
