// The report after the sale as pure rules: the time-in-queue distribution and the runs of minutes
// that were paused or had origin trouble, from what the room recorded.
import type { MinuteFigures } from '../../contracts/history';
import type { Incident, QueueTimeDistribution } from '../../contracts/report';
import { percentile } from './history-policy';

/** Histogram bucket bounds of the time in queue, ms: 1, 5, 15, 30 and 60 minutes, then longer. */
export const QUEUE_TIME_BUCKETS_MS = [60_000, 300_000, 900_000, 1_800_000, 3_600_000] as const;

/** The distribution of `waitsMs` (each admission's time in queue, ms). */
export function queueTimeDistribution(waitsMs: readonly number[]): QueueTimeDistribution {
  const counts = Array.from({ length: QUEUE_TIME_BUCKETS_MS.length + 1 }, () => 0);
  for (const w of waitsMs) {
    const i = QUEUE_TIME_BUCKETS_MS.findIndex((b) => w <= b);
    counts[i === -1 ? QUEUE_TIME_BUCKETS_MS.length : i]!++;
  }
  return {
    count: waitsMs.length,
    p50Ms: percentile(waitsMs, 0.5),
    p90Ms: percentile(waitsMs, 0.9),
    p99Ms: percentile(waitsMs, 0.99),
    buckets: counts.map((count, i) => ({ upToMs: QUEUE_TIME_BUCKETS_MS[i] ?? null, count })),
  };
}

/**
 * The runs of consecutive points (each `stepMs` apart) for which `bad` holds, with the worst
 * origin figures of each run.
 */
export function incidents(points: readonly MinuteFigures[], stepMs: number, bad: (p: MinuteFigures) => boolean): Incident[] {
  const out: Incident[] = [];
  let run: Incident | null = null;
  for (const p of points) {
    if (!bad(p)) {
      run = null;
      continue;
    }
    if (run && p.atMs - run.toMs <= stepMs) {
      run.toMs = p.atMs;
      run.worstP99Ms = maxOf(run.worstP99Ms, p.originP99Ms);
      run.worstErrorRate = maxOf(run.worstErrorRate, p.originErrorRate);
    } else {
      run = { fromMs: p.atMs, toMs: p.atMs, worstP99Ms: p.originP99Ms, worstErrorRate: p.originErrorRate };
      out.push(run);
    }
  }
  return out;
}

function maxOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}
