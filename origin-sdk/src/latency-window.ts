// A sliding window of request timings: latency percentiles and error rate over the last N ms.
// Pure: every method takes the time as an argument, so tests control the clock.

/** Default window length, ms: the gateway counts a report older than 10 s as a silent origin. */
export const DEFAULT_WINDOW_MS = 10_000;
/** Default cap on samples kept in the window (memory bound); the oldest are dropped first. */
export const DEFAULT_MAX_SAMPLES = 20_000;
/**
 * Default age, ms, after which a request still running is no longer counted (`RunningRequests`):
 * a request begun and never ended (a lost handle) must not hold the report's p99 up for good. It
 * is 8 times the gateway's ORIGIN_TIMEOUT_MS (15 s), after which no client waits for the answer.
 */
export const DEFAULT_MAX_IN_FLIGHT_MS = 120_000;

/**
 * Statistics of one window. Latencies in ms, `errorRate` 0..1 (0 with no completed samples).
 * With requests still running (`stats`' `runningAgesMs`), the latencies count those at least as
 * old as the completed requests' p99 with their age so far, a lower bound of their latency
 * (censored samples), so a window of stuck requests never reads as fast or empty.
 */
export interface WindowStats {
  /** Samples of the window: requests completed in it, plus the running ones counted (`inFlight`). */
  count: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  /** Failures among the completed requests of the window (a running request has no outcome yet). */
  errorRate: number;
  /** Of `count`, requests still running, counted with their age so far (0 when none is). */
  inFlight: number;
}

/** The q-quantile (0..1) of samples by nearest rank (the smallest value with at least q of the samples at or below it); 0 for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Request timings of the last `windowMs`. Samples are kept in arrival order in a ring; `stats`
 * drops those older than the window. Statistics cover at most the newest `maxSamples` requests,
 * and at most twice that many are stored between two reads, so a flood costs bounded memory.
 */
export class LatencyWindow {
  readonly windowMs: number;
  readonly maxSamples: number;
  private at: number[] = [];
  private ms: number[] = [];
  private failed: boolean[] = [];

  /**
   * @param opts.windowMs window length, ms (default 10,000; 1,000-3,600,000)
   * @param opts.maxSamples samples kept at most (default 20,000; 1-1,000,000)
   * @throws TypeError naming the option when it is out of range
   */
  constructor(opts: { windowMs?: number; maxSamples?: number } = {}) {
    const windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    const maxSamples = opts.maxSamples ?? DEFAULT_MAX_SAMPLES;
    if (!Number.isInteger(windowMs) || windowMs < 1_000 || windowMs > 3_600_000)
      throw new TypeError('windowMs must be a whole number of ms, 1000-3600000');
    if (!Number.isInteger(maxSamples) || maxSamples < 1 || maxSamples > 1_000_000) throw new TypeError('maxSamples must be 1-1000000');
    this.windowMs = windowMs;
    this.maxSamples = maxSamples;
  }

  /**
   * Adds one request: finished at `nowMs` (epoch ms), took `latencyMs`, `ok` false for a failure
   * (5xx or an exception). A sample with a negative or non-finite latency is ignored (a clock step).
   */
  record(nowMs: number, latencyMs: number, ok: boolean): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0 || !Number.isFinite(nowMs)) return;
    this.at.push(nowMs);
    this.ms.push(latencyMs);
    this.failed.push(!ok);
    if (this.at.length > this.maxSamples * 2) this.trim(nowMs);
  }

  /**
   * Statistics of the samples within `windowMs` before `nowMs` (older ones are forgotten), and of
   * the requests still running at `nowMs`: each running request at least as old as the completed
   * samples' p99 counts as one more sample, its age so far standing for its latency (a lower
   * bound: it ends no sooner). Only those count because a younger one may still end fast or slow,
   * and counting it as fast would lower the percentiles below what completed requests measured;
   * with nothing completed (p99 0) every running request counts. So the percentiles are never
   * below those of the completed samples alone, equal to them when nothing runs, and a window
   * where nothing completed but requests are stuck reads their ages, not "nothing measured".
   * A running request is never also a completed sample: it is recorded once, when it ends.
   * @param runningAgesMs ages so far, ms, of the requests running now (`RunningRequests.ages`)
   */
  stats(nowMs: number, runningAgesMs: readonly number[] = []): WindowStats {
    this.trim(nowMs);
    const completed = this.ms.length;
    const errors = this.failed.reduce((sum, f) => sum + (f ? 1 : 0), 0);
    const floor = quantile(this.ms, 0.99);
    const censored = runningAgesMs.filter((age) => Number.isFinite(age) && age >= floor);
    const ms = censored.length === 0 ? this.ms : [...this.ms, ...censored];
    return {
      count: ms.length,
      p50LatencyMs: quantile(ms, 0.5),
      p99LatencyMs: quantile(ms, 0.99),
      errorRate: completed === 0 ? 0 : errors / completed,
      inFlight: censored.length,
    };
  }

  private trim(nowMs: number): void {
    let drop = 0;
    while (drop < this.at.length && nowMs - this.at[drop]! > this.windowMs) drop++;
    drop = Math.max(drop, this.at.length - this.maxSamples);
    if (drop > 0) {
      this.at.splice(0, drop);
      this.ms.splice(0, drop);
      this.failed.splice(0, drop);
    }
  }
}

/**
 * Requests begun and not yet ended, with when each began (the latency timer's ms), so a report can
 * count their age so far (`LatencyWindow.stats`). Pure: every method takes the time. Bounded: one
 * running past `maxInFlightMs` is forgotten (a lost handle), and past `max` entries the oldest are.
 */
export class RunningRequests {
  readonly maxInFlightMs: number;
  readonly max: number;
  /** Start time by request id, in insertion order (start order with a monotonic timer). */
  private readonly started = new Map<number, number>();
  private nextId = 0;

  /**
   * @param opts.maxInFlightMs forget a request running longer, ms (default 120,000; 1,000-600,000)
   * @param opts.max entries kept at most (default 20,000; 1-1,000,000)
   * @throws TypeError naming the option when it is out of range
   */
  constructor(opts: { maxInFlightMs?: number; max?: number } = {}) {
    const maxInFlightMs = opts.maxInFlightMs ?? DEFAULT_MAX_IN_FLIGHT_MS;
    const max = opts.max ?? DEFAULT_MAX_SAMPLES;
    if (!Number.isInteger(maxInFlightMs) || maxInFlightMs < 1_000 || maxInFlightMs > 600_000)
      throw new TypeError('maxInFlightMs must be a whole number of ms, 1000-600000');
    if (!Number.isInteger(max) || max < 1 || max > 1_000_000) throw new TypeError('max must be 1-1000000');
    this.maxInFlightMs = maxInFlightMs;
    this.max = max;
  }

  /** How many are running (as of the last `ages` call's forgetting). */
  get size(): number {
    return this.started.size;
  }

  /** Notes a request begun at `startedMs` (timer ms); returns its id for `end`. */
  begin(startedMs: number): number {
    const id = this.nextId++;
    this.started.set(id, startedMs);
    if (this.started.size > this.max) this.started.delete(this.started.keys().next().value!);
    return id;
  }

  /** The request `id` ended (or was abandoned): it no longer counts. Unknown ids are ignored. */
  end(id: number): void {
    this.started.delete(id);
  }

  /** Ages at `nowMs`, ms (>= 0), of the requests running; those older than `maxInFlightMs` are forgotten. */
  ages(nowMs: number): number[] {
    const out: number[] = [];
    for (const [id, at] of this.started) {
      const age = nowMs - at;
      if (age > this.maxInFlightMs) this.started.delete(id);
      else out.push(Math.max(0, age));
    }
    return out;
  }
}

/**
 * Distinct visitors seen within `activeMs` (a buyer counts as active this long after their last
 * request). Bounded: past `max` entries the oldest are forgotten.
 */
export class ActiveVisitors {
  private readonly seen = new Map<string, number>();
  readonly activeMs: number;
  readonly max: number;

  /** @param activeMs how long a visitor counts after their last request, ms (default 60,000); max entries kept (default 100,000) */
  constructor(activeMs = 60_000, max = 100_000) {
    this.activeMs = activeMs;
    this.max = max;
  }

  /** Marks `visitorId` active at `nowMs`. */
  touch(visitorId: string, nowMs: number): void {
    this.seen.delete(visitorId);
    this.seen.set(visitorId, nowMs);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }

  /** How many were active within `activeMs` before `nowMs`. */
  count(nowMs: number): number {
    // Map order is insertion order = last-seen order (touch re-inserts): stale ones are at the front.
    for (const [id, at] of this.seen) {
      if (nowMs - at <= this.activeMs) break;
      this.seen.delete(id);
    }
    return this.seen.size;
  }
}
