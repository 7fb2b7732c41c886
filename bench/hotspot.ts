// Hot-spot seat choice for benchmarks: most requests want the best few seats, as in a real sale.
import { seededRandom } from '../scripts/lib/seeded-random.ts';

/** Share of requests that aim at the hot region. */
export const HOT_SHARE = 0.8;
/** The hot region: the first 5% of seats (the front rows). */
export const HOT_FRACTION = 0.05;

/** Seeded random numbers in [0, 1): same seed, same sequence. */
export const prng = seededRandom;

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
