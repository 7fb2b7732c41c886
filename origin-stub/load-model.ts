// The stub's capacity model and latency statistics: pure functions the Shop object feeds.

/**
 * Simulated service time of one request, in ms: `baseMs` while at most `knee` requests run at
 * once, then growing with the square of the excess (a queueing server past saturation).
 */
export function simulatedLatencyMs(concurrent: number, baseMs: number, knee: number): number {
  const excess = Math.max(0, concurrent - knee);
  return baseMs + excess * excess;
}

/** The q-quantile (0..1) of samples by nearest rank; 0 for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
