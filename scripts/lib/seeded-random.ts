// Seeded random numbers for simulations, benchmarks and the crowd tool: the same seed gives the
// same run. pure-rand is the generator fast-check itself uses.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A stream of numbers in [0, 1), the same for the same `seed` (xoroshiro128+). */
export function seededRandom(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  return () => uniformFloat64(rng);
}
