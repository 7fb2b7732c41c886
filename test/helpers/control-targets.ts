// The release law's targets over seeded crowd simulations (crowd-sim.ts): one scenario per seed
// (a healthy origin, its capacity halved, then restored), the origin's capacity measured by holding
// the load fixed, and each target judged per run; `npm run sim:control` prints the table and
// test/unit/release-targets.test.ts asserts it.
import type { ControllerBounds } from '../../durable-objects/waiting-room/release-controller';
import { simulateCrowd, type CrowdSimOptions, type CrowdSimSecond } from './crowd-sim';
import { prng, type OriginCapacity } from './sim-origin';

/** The event's bounds, as bench:control's rows (600/min maximum, 150/min minimum, 700 active, p99 target 800 ms). */
export const SIM_BOUNDS: ControllerBounds = {
  minPerMinute: 150,
  maxPerMinute: 600,
  targetP99Ms: 800,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  fixedPerMinute: null,
  maxActive: 700,
};
/** The capacity halves at this second and comes back at the next; the run ends at the last. */
const HALVE_AT_S = 90;
const RESTORE_AT_S = 180;
const END_S = 240;
/** Seconds after an imposed capacity change that the time-over-2x target does not count. */
const CHANGE_GRACE_S = 10;

/** The targets (the release law's principal issue): limits per run. */
export const TARGETS = {
  /** Seconds with the reported p99 over 2 x target, outside the grace after a change; none before the halving. */
  maxOver2xS: 10,
  /** Admitted rate >= 0.90 x min(maximum, measured capacity) within this many s of the first report. */
  reachS: 20,
  /** After the halving, p99 under target and staying there within this many s, with at most one collapse. */
  settleS: 60,
  /** After the restore, admitted rate >= 0.90 x min(maximum, measured capacity) within this many s. */
  recoverS: 30,
  share: 0.9,
};

/** One seed's origin, crowd and machine. */
interface SimCase {
  seed: number;
  capacity: OriginCapacity;
  stayS: number;
  noShowShare: number;
  reportJitterMs: number;
  stallMeanMs: number;
}

/** Seed `seed`'s case: knee 6-12, steepness 0.5-2, stays 10-30 s, no-shows 0-50 %, report jitter 0-500 ms, stalls of 10-20 ms mean at no load. */
function simCase(seed: number): SimCase {
  const r = prng(seed * 104729 + 1);
  return {
    seed,
    capacity: { baseLatencyMs: 20, knee: 6 + Math.floor(r() * 7), steepness: Math.exp(Math.log(0.5) + r() * Math.log(4)) },
    stayS: 10 + Math.round(r() * 20),
    noShowShare: Math.round(r() * 50) / 100,
    reportJitterMs: Math.round(r() * 500),
    stallMeanMs: 10 + Math.round(r() * 10),
  };
}

/** The shared machine pauses this often, per s. */
const STALLS_PER_S = 2;
/** Stalls twice as long at this many origin requests per s (the shared machine's load). */
const STALL_LOAD_RPS = 50;

const options = (c: SimCase, seconds: number, capacity: CrowdSimOptions['capacity']): CrowdSimOptions => ({
  seconds,
  bounds: SIM_BOUNDS,
  capacity,
  stayS: c.stayS,
  noShowShare: c.noShowShare,
  claimLagS: [0.5, 3],
  reportJitterMs: c.reportJitterMs,
  stallsPerS: STALLS_PER_S,
  stallMeanMs: c.stallMeanMs,
  stallLoadRps: STALL_LOAD_RPS,
  seed: c.seed,
});

const halved = (m: OriginCapacity): OriginCapacity => ({ ...m, knee: m.knee / 2 });

/** Admissions claimed per minute over the 10 s up to each second. */
function admittedPerMinute(run: readonly CrowdSimSecond[]): number[] {
  return run.map((_, i) => run.slice(Math.max(0, i - 9), i + 1).reduce((a, s) => a + s.claimed, 0) * 6);
}

/**
 * The origin's capacity in admissions per minute: the most visitors (active + unclaimed) held
 * fixed for 120 s whose reported p99 never exceeds the target once they are all in, times the
 * visits they complete per minute. A bisection over held loads with the case's own noise.
 */
function measuredCapacity(c: SimCase, m: OriginCapacity): { visitors: number; perMinute: number } {
  const holds = (n: number) => {
    const run = simulateCrowd({ ...options(c, 120, () => m), bounds: { ...SIM_BOUNDS, maxActive: n }, holdAt: n });
    const full = run.findIndex((s) => s.active >= n * (1 - c.noShowShare) * 0.9);
    const from = full < 0 ? 60 : full + 10;
    const ok = run.slice(from).every((s) => s.reportedP99 === null || s.reportedP99 <= SIM_BOUNDS.targetP99Ms);
    const perMinute = run.slice(60).reduce((a, s) => a + s.left, 0);
    return { ok, perMinute };
  };
  let lo = 5;
  let hi = SIM_BOUNDS.maxActive;
  let best = { visitors: lo, perMinute: holds(lo).perMinute };
  if (holds(hi).ok) return { visitors: hi, perMinute: holds(hi).perMinute };
  while (hi - lo > Math.max(2, lo * 0.05)) {
    const mid = Math.round((lo + hi) / 2);
    const h = holds(mid);
    if (h.ok) {
      lo = mid;
      best = { visitors: mid, perMinute: h.perMinute };
    } else hi = mid;
  }
  return best;
}

/** One seed's figures against the targets. */
export interface SimVerdict {
  c: SimCase;
  /** Capacity in admissions per minute, full and halved. */
  capacity: number;
  /** Seconds the reported p99 spent over 2 x target (outside the grace after a change), and before the halving. */
  over2xS: number;
  over2xRampS: number;
  /** Episodes of p99 over 2 x target in the run, and after the halving. */
  collapses: number;
  collapsesAfterHalving: number;
  /** s from the first report to 0.90 x min(maximum, capacity) admitted (Infinity: never). */
  reachS: number;
  /** Admitted per minute from 20 s after the first report to the halving, as a share of min(maximum, capacity). */
  healthyShare: number;
  /** s from the halving until p99 stays under target to the restore (Infinity: never). */
  settleS: number;
  /** s from the restore to 0.90 x min(maximum, capacity) admitted (Infinity: never). */
  recoverS: number;
  /** The longest any request waited at the edge for its turn at the origin, ms. */
  edgeWaitMs: number;
  met: boolean;
  run: CrowdSimSecond[];
}

/** Counts the episodes (maximal runs of seconds) with the reported p99 over `limit` in [from, to). */
function episodes(run: readonly CrowdSimSecond[], limit: number, from = 0, to = run.length): number {
  let n = 0;
  for (let t = from; t < Math.min(to, run.length); t++) {
    const over = (run[t]!.reportedP99 ?? 0) > limit;
    const before = t > from && (run[t - 1]!.reportedP99 ?? 0) > limit;
    if (over && !before) n++;
  }
  return n;
}

/**
 * Runs seed `seed`'s scenario and judges it.
 * @param originLimit with the edge's limit on requests in flight to the origin (the product), or
 *   without it (the release law alone)
 */
export function judgeSeed(seed: number, originLimit = true): SimVerdict {
  const c = simCase(seed);
  const full = measuredCapacity(c, c.capacity);
  // The product's path: the release law and the edge's limit on requests in flight to the origin.
  const run = simulateCrowd({
    ...options(c, END_S, (t) => (t >= HALVE_AT_S && t < RESTORE_AT_S ? halved(c.capacity) : c.capacity)),
    originLimit,
  });
  const target = SIM_BOUNDS.targetP99Ms;
  // Claims: no-shows never claim, and no-show compensation admits at most the maximum.
  const goal = TARGETS.share * Math.min(SIM_BOUNDS.maxPerMinute * (1 - c.noShowShare), full.perMinute);
  const admitted = admittedPerMinute(run);
  const over = run.map((s) => (s.reportedP99 ?? 0) > 2 * target);
  const grace = (t: number) =>
    (t >= HALVE_AT_S && t < HALVE_AT_S + CHANGE_GRACE_S) || (t >= RESTORE_AT_S && t < RESTORE_AT_S + CHANGE_GRACE_S);
  const over2xS = over.filter((o, t) => o && !grace(t)).length;
  const over2xRampS = over.slice(0, HALVE_AT_S).filter(Boolean).length;
  const firstReport = run.findIndex((s) => s.reportedP99 !== null);
  const reach = admitted.findIndex((a, t) => t >= firstReport && a >= goal);
  const lastOver = run.slice(HALVE_AT_S, RESTORE_AT_S).findLastIndex((s) => (s.reportedP99 ?? 0) > target);
  const from = Math.max(0, firstReport) + TARGETS.reachS;
  const healthyShare =
    (run.slice(from, HALVE_AT_S).reduce((a, s) => a + s.claimed, 0) * 60) / Math.max(1, HALVE_AT_S - from) / (goal / TARGETS.share);
  const recover = admitted.findIndex((a, t) => t >= RESTORE_AT_S && a >= goal);
  const v = {
    c,
    capacity: full.perMinute,
    over2xS,
    over2xRampS,
    collapses: episodes(run, 2 * target),
    collapsesAfterHalving: episodes(run, 2 * target, HALVE_AT_S, RESTORE_AT_S),
    reachS: reach < 0 || firstReport < 0 ? Infinity : reach - firstReport,
    healthyShare,
    settleS: lastOver < 0 ? 0 : lastOver + 1 === RESTORE_AT_S - HALVE_AT_S ? Infinity : lastOver + 1,
    recoverS: recover < 0 ? Infinity : recover - RESTORE_AT_S,
    edgeWaitMs: Math.max(0, ...run.map((s) => s.edgeWaitMs)),
    run,
  };
  const met =
    v.over2xS <= TARGETS.maxOver2xS &&
    v.over2xRampS === 0 &&
    v.reachS <= TARGETS.reachS &&
    v.healthyShare >= TARGETS.share &&
    v.settleS <= TARGETS.settleS &&
    v.collapsesAfterHalving <= 1 &&
    v.recoverS <= TARGETS.recoverS;
  return { ...v, met };
}

/** The seeds the targets are judged over. */
export const SIM_SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const worst = (xs: number[]) => Math.max(...xs);
const show = (x: number) => (!Number.isFinite(x) ? 'never' : Number.isInteger(x) ? String(x) : x.toFixed(2));

/** The table over the verdicts: each target's worst and median, and how many runs met it. */
export function targetTable(vs: readonly SimVerdict[]): string[] {
  const rows: [string, string, number[], (x: number) => boolean][] = [
    [
      's over 2 x target (outside 10 s after a change)',
      `<= ${TARGETS.maxOver2xS}`,
      vs.map((v) => v.over2xS),
      (x) => x <= TARGETS.maxOver2xS,
    ],
    ['s over 2 x target before the halving', '0', vs.map((v) => v.over2xRampS), (x) => x === 0],
    ['s to 0.90 x min(max, capacity) after first report', `<= ${TARGETS.reachS}`, vs.map((v) => v.reachS), (x) => x <= TARGETS.reachS],
    [
      'admitted / min(max, capacity) from 20 s after first report to the halving',
      `>= ${TARGETS.share}`,
      vs.map((v) => v.healthyShare),
      (x) => x >= TARGETS.share,
    ],
    ['s to settle after the halving', `<= ${TARGETS.settleS}`, vs.map((v) => v.settleS), (x) => x <= TARGETS.settleS],
    ['collapses after the halving', '<= 1', vs.map((v) => v.collapsesAfterHalving), (x) => x <= 1],
    ['s to 0.90 x capacity after the restore', `<= ${TARGETS.recoverS}`, vs.map((v) => v.recoverS), (x) => x <= TARGETS.recoverS],
    ['collapses in the run', '-', vs.map((v) => v.collapses), () => true],
    ['longest wait at the edge for the origin, ms', '-', vs.map((v) => v.edgeWaitMs), () => true],
  ];
  const lines = ['| target | limit | worst | median | runs met |', '|---|---|---|---|---|'];
  for (const [name, limit, xs, ok] of rows)
    lines.push(
      `| ${name} | ${limit} | ${show(name.startsWith('admitted') ? Math.min(...xs) : worst(xs))} | ${show(median(xs))} | ${xs.filter(ok).length}/${xs.length} |`,
    );
  lines.push(`| all targets | | | | ${vs.filter((v) => v.met).length}/${vs.length} |`);
  return lines;
}

/** One line per seed: its case, capacity and figures. */
export function seedLine(v: SimVerdict): string {
  const c = v.c;
  return (
    `seed ${String(c.seed).padStart(2)}: knee ${c.capacity.knee} steep ${c.capacity.steepness.toFixed(2)} stay ${c.stayS} s no-shows ${Math.round(c.noShowShare * 100)}% ` +
    `jitter ${c.reportJitterMs} ms stalls ${c.stallMeanMs} ms | capacity ${Math.round(v.capacity)}/min | over 2x ${v.over2xS} s (ramp ${v.over2xRampS}) ` +
    `collapses ${v.collapses} (${v.collapsesAfterHalving} after halving) | reach ${show(v.reachS)} s, then ${v.healthyShare.toFixed(2)} x | settle ${show(v.settleS)} s recover ${show(v.recoverS)} s | edge wait <= ${v.edgeWaitMs} ms | ${v.met ? 'met' : 'NOT met'}`
  );
}
