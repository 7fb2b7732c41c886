// A sliding window of request timings: latency percentiles and error rate over the last N ms.
// Pure: every method takes the time as an argument, so tests control the clock.

/** Default window length, ms: the gateway counts a report older than 10 s as a silent origin. */
export const DEFAULT_WINDOW_MS = 10_000;
/** Default cap on samples kept in the window (memory bound); the oldest are dropped first. */
export const DEFAULT_MAX_SAMPLES = 20_000;

/** Statistics of one window. Latencies in ms, `errorRate` 0..1 (0 with no samples). */
export interface WindowStats {
  /** Requests measured in the window. */
  count: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  errorRate: number;
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

  /** Statistics of the samples within `windowMs` before `nowMs` (older ones are forgotten). */
  stats(nowMs: number): WindowStats {
    this.trim(nowMs);
    const n = this.ms.length;
    const errors = this.failed.reduce((sum, f) => sum + (f ? 1 : 0), 0);
    return { count: n, p50LatencyMs: quantile(this.ms, 0.5), p99LatencyMs: quantile(this.ms, 0.99), errorRate: n === 0 ? 0 : errors / n };
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
