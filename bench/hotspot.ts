// Hot-spot seat choice for benchmarks: most requests want the best few seats, as in a real sale.

/** Share of requests that aim at the hot region. */
export const HOT_SHARE = 0.8;
/** The hot region: the first 5% of seats (the front rows). */
export const HOT_FRACTION = 0.05;

/** Deterministic PRNG (mulberry32): same seed, same sequence. */
export function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 1-6 adjacent seats of one row: with probability HOT_SHARE in the first HOT_FRACTION of the plan,
 * else anywhere. Returns 0-based seat indexes (row-major, `perRow` to a row).
 */
export function pickSeatIndexes(random: () => number, seatCount: number, perRow: number): number[] {
  const size = 1 + Math.floor(random() * 6);
  const region = random() < HOT_SHARE ? Math.max(perRow, Math.floor(seatCount * HOT_FRACTION)) : seatCount;
  const start = Math.floor(random() * region);
  const rowStart = start - (start % perRow);
  const first = Math.min(start, rowStart + perRow - size);
  return Array.from({ length: size }, (_, i) => first + i);
}
