// Fixed-window request counters kept in an object's memory: a rate limit that costs no storage
// write and no extra call, because the object is already handling the request.

/**
 * Counts requests per key in fixed windows of `periodMs` and refuses the ones over `limit`. The
 * counts live in memory only: an object restart forgets them (a soft limit, never a correctness
 * guard). At most `maxKeys` keys are tracked; past that the counts start afresh.
 */
export class FixedWindowLimiter {
  private window = -1;
  private readonly counts = new Map<string, number>();

  /**
   * @param limit requests allowed per key and window
   * @param periodMs window length, ms
   * @param maxKeys keys tracked before the counts are cleared (memory bound)
   */
  constructor(
    private readonly limit: number,
    private readonly periodMs: number,
    private readonly maxKeys = 50_000,
  ) {}

  /**
   * Counts one request of `key` at `nowMs` (epoch ms).
   * @returns true when it is within the limit, false when it is refused (and not counted)
   */
  take(key: string, nowMs: number): boolean {
    const window = Math.floor(nowMs / this.periodMs);
    if (window !== this.window || this.counts.size >= this.maxKeys) {
      this.window = window;
      this.counts.clear();
    }
    const n = this.counts.get(key) ?? 0;
    if (n >= this.limit) return false;
    this.counts.set(key, n + 1);
    return true;
  }
}
