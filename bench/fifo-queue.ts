// One Durable Object as a queue: a single FIFO server (it runs one request at a time) fed with seeded
// Poisson arrivals of the calls the sale simulation (bench/sale-sim.ts) gives it.
import { prng } from './hotspot.ts';
import type { ObjectLoad } from './sale-sim.ts';

/** One job at a single-threaded object: when it arrives and how long it runs, ms. */
export interface Job {
  atMs: number;
  costMs: number;
}

/**
 * A FIFO single server (one Durable Object runs one request at a time): each job's wait before
 * it starts, ms, in arrival order. `jobs` must be sorted by `atMs`.
 */
export function fifoWaits(jobs: readonly Job[]): number[] {
  let freeAt = 0;
  return jobs.map((j) => {
    const start = Math.max(freeAt, j.atMs);
    freeAt = start + j.costMs;
    return start - j.atMs;
  });
}

/**
 * `seconds` of one object's calls: Poisson arrivals of every non-periodic call (seeded, so the
 * same seed gives the same jobs), periodic ones at the top of each second; a call's cost is its
 * units times `unitMs`.
 */
export function jobsOf(o: ObjectLoad, seconds: number, seed: number, unitMs: number): Job[] {
  const random = prng(seed);
  const jobs: Job[] = [];
  const streams = o.calls.filter((c) => !c.periodic && c.perS > 0);
  const total = streams.reduce((sum, c) => sum + c.perS, 0);
  if (total > 0) {
    for (let t = -Math.log(1 - random()) * (1000 / total); t < seconds * 1000; t += -Math.log(1 - random()) * (1000 / total)) {
      let pick = random() * total;
      const c = streams.find((x) => (pick -= x.perS) < 0) ?? streams[streams.length - 1]!;
      jobs.push({ atMs: t, costMs: c.units * unitMs });
    }
  }
  for (const c of o.calls.filter((x) => x.periodic && x.perS > 0))
    for (let sec = 0; sec < seconds; sec++) jobs.push({ atMs: sec * 1000, costMs: c.units * unitMs });
  return jobs.sort((a, b) => a.atMs - b.atMs);
}
