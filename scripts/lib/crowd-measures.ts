// What a crowd run measured, read from its samples: admissions claimed and places released per
// minute over a span, the span while visitors waited, what bound over time, and the per-second
// series bench:control prints and writes (scripts/crowd.ts, scripts/bench-control.ts).
import type { CrowdResult } from './crowd-types.ts';

/** Claimed admissions per minute over [fromS, toS). */
export function admittedPerMinute(r: CrowdResult, fromS: number, toS: number): number {
  if (toS <= fromS) return 0;
  return (r.admittedAtS.filter((t) => t >= fromS && t < toS).length * 60) / (toS - fromS);
}

/** Places released per minute over [fromS, toS), from the samples. */
export function releasedPerMinute(r: CrowdResult, fromS: number, toS: number): number {
  const inside = r.samples.filter((s) => s.t >= fromS && s.t <= toS);
  if (inside.length < 2) return 0;
  const a = inside[0]!;
  const b = inside.at(-1)!;
  return b.t > a.t ? ((b.released - a.released) * 60) / (b.t - a.t) : 0;
}

/** The time span while visitors waited (first to last sample with waiting > 0), s. */
export function queuedSpan(r: CrowdResult): { fromS: number; toS: number } {
  const q = r.samples.filter((s) => s.waiting > 0);
  return q.length ? { fromS: q[0]!.t, toS: q.at(-1)!.t } : { fromS: 0, toS: 0 };
}

/** How often each constraint bound, as `binds xN` in first-seen order. */
export function bindingTimeline(r: CrowdResult): string {
  const runs: { binds: string; from: number; to: number }[] = [];
  for (const s of r.samples) {
    const last = runs.at(-1);
    if (last && last.binds === s.binds) last.to = s.t;
    else runs.push({ binds: s.binds, from: s.t, to: s.t });
  }
  return runs.map((x) => `${x.from.toFixed(0)}-${x.to.toFixed(0)} s ${x.binds}`).join(', ');
}

/** One second of a run: the room's rate, limit and counts, and the releases and claims in it. */
export interface SecondRow {
  /** Seconds since the run started (the sample's, rounded down). */
  t: number;
  rate: number;
  activeLimit: number;
  active: number;
  unclaimed: number;
  waiting: number;
  /** Places released / admissions claimed since the previous row. */
  released: number;
  claimed: number;
  binds: string;
  p99: number | null;
}

/**
 * The run as one row per sample (each SAMPLE_MS, 1 s): the room's state and the releases and
 * claims since the previous sample, so the rate, the limit and the claims that lag releases can be
 * read side by side.
 */
export function perSecondSeries(r: CrowdResult): SecondRow[] {
  return r.samples.map((s, i) => {
    const prev = r.samples[i - 1];
    return {
      t: Math.floor(s.t),
      rate: s.rate,
      activeLimit: s.activeLimit,
      active: s.active,
      unclaimed: s.unclaimed,
      waiting: s.waiting,
      released: prev ? s.released - prev.released : s.released,
      claimed: prev ? s.claimed - prev.claimed : s.claimed,
      binds: s.binds,
      p99: s.p99,
    };
  });
}

/**
 * The series as text lines, one per `everyS` seconds (releases and claims summed over them), from
 * `fromS` on: "t rate limit active unclaimed waiting released claimed p99 binds".
 */
export function formatSeries(rows: SecondRow[], everyS = 1, fromS = 0): string[] {
  const out = ['   t s  rate/min  limit  active  unclaimed  waiting  released  claimed  p99 ms  binds'];
  let group: SecondRow[] = [];
  const flush = () => {
    const last = group.at(-1);
    if (!last) return;
    const sum = (k: 'released' | 'claimed') => group.reduce((a, x) => a + x[k], 0);
    out.push(
      `  ${String(last.t).padStart(4)}  ${String(last.rate).padStart(8)}  ${String(last.activeLimit).padStart(5)}  ${String(last.active).padStart(6)}` +
        `  ${String(last.unclaimed).padStart(9)}  ${String(last.waiting).padStart(7)}  ${String(sum('released')).padStart(8)}` +
        `  ${String(sum('claimed')).padStart(7)}  ${String(last.p99 ?? '-').padStart(6)}  ${last.binds}`,
    );
    group = [];
  };
  for (const row of rows) {
    if (row.t < fromS) continue;
    if (group.length && Math.floor(row.t / everyS) !== Math.floor(group[0]!.t / everyS)) flush();
    group.push(row);
  }
  flush();
  return out;
}

/** The cliff targets of a run (the origin's p99 over 2 x its target), from the 1 s samples. */
export interface CliffFigures {
  /** Seconds with the last reported p99 over 2 x target, outside `graceS` after each imposed change. */
  overS: number;
  /** Of them, seconds before the first imposed change (the ramp-up; the whole run without one). */
  rampOverS: number;
  /** Episodes (runs of samples) with the p99 over 2 x target, and how many began after the first change. */
  collapses: number;
  collapsesAfterChange: number;
}

/**
 * Time over 2 x `targetMs` and collapses, from the samples' last reported p99: each sample counts
 * for the time to the next one. Seconds within `graceS` after a change in `changesAtS` do not count.
 */
export function cliffFigures(r: CrowdResult, targetMs: number, changesAtS: readonly number[], graceS = 10): CliffFigures {
  const first = changesAtS.length ? Math.min(...changesAtS) : Infinity;
  const f: CliffFigures = { overS: 0, rampOverS: 0, collapses: 0, collapsesAfterChange: 0 };
  let before = false;
  r.samples.forEach((s, i) => {
    const over = s.p99 !== null && s.p99 > 2 * targetMs;
    if (over && !before) {
      f.collapses++;
      if (s.t >= first) f.collapsesAfterChange++;
    }
    before = over;
    const dt = Math.min(5, (r.samples[i + 1]?.t ?? s.t + 1) - s.t);
    if (!over || changesAtS.some((c) => s.t >= c && s.t < c + graceS)) return;
    f.overS += dt;
    if (s.t < first) f.rampOverS += dt;
  });
  return f;
}
