// The stub's capacity model and latency statistics: pure functions the Shop object feeds.

/**
 * Simulated service time of one request, in ms: `baseMs` while at most `knee` requests run at
 * once, then growing with the square of the excess (a queueing server past saturation).
 */
export function simulatedLatencyMs(concurrent: number, baseMs: number, knee: number): number {
  const excess = Math.max(0, concurrent - knee);
  return baseMs + excess * excess;
}

/**
 * Simulated error rate (0..1): none up to twice the knee, then rising linearly to 1 at four times
 * the knee (an origin that starts dropping requests once its queues overflow).
 */
export function simulatedErrorRate(concurrent: number, knee: number): number {
  return Math.min(1, Math.max(0, (concurrent - 2 * knee) / (2 * knee)));
}

export { quantile } from '../contracts/stats';
