// `npm run bench:control`: the release controller's closed-loop benchmark. Four crowd runs against
// one gateway (wrangler dev on a free port, temporary storage), each bounded in time (at most
// 100 + 100 + 210 + 45 s, +10 s each for busy visitors), and one table: each scenario's measure, its
// target, met or not. Each run also prints its whole rate log and a 5 s series (rate, active limit,
// active, unclaimed, released, claimed); `--json FILE` writes every run with its per-second series.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CROWD, runCrowd, type CrowdOptions, type CrowdResult } from './lib/crowd-run.ts';
import {
  admittedPerMinute,
  bindingTimeline,
  cliffFigures,
  formatSeries,
  perSecondSeries,
  queuedSpan,
  releasedPerMinute,
} from './lib/crowd-measures.ts';
import { freePort, startDevServer } from './lib/dev-server.ts';

interface Row {
  scenario: string;
  measure: string;
  target: string;
  met: boolean;
  binds: string;
}

const TARGET_P99 = 800;
/** The cliff targets: seconds over 2 x the p99 target at most (outside 10 s after an imposed change), none before one. */
const MAX_OVER_2X_S = 10;
/** The halved row gives the origin its capacity back at this many s (the halving is at 45 s). */
const RESTORE_AT_S = 150;
const base: CrowdOptions = { ...DEFAULT_CROWD, seats: 2000, maxPerMinute: 600, minPerMinute: 150, maxActive: 700, progress: false };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/**
 * The measuring window: from 30 s after the first health report (the ramp allowance) to the
 * last admission while visitors still waited, within the run's deadline.
 */
const window = (r: CrowdResult, o: CrowdOptions) => {
  const q = queuedSpan(r);
  const to = Math.min(q.toS, o.maxSeconds, r.admittedAtS.length ? Math.max(...r.admittedAtS) : 0);
  const from = Math.min((r.firstReportS ?? q.fromS) + 30, to - 10);
  return { from, to };
};
const p99Note = (r: CrowdResult, fromS: number) => {
  const p = r.samples.filter((s) => s.p99 !== null && s.t >= fromS).map((s) => s.p99!);
  return p.length ? `origin p99 median ${median(p)} ms` : 'no origin report';
};
const mostly = (r: CrowdResult) => {
  const n = new Map<string, number>();
  for (const s of r.samples) if (s.waiting > 0) n.set(s.binds, (n.get(s.binds) ?? 0) + 1);
  return [...n]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${Math.round((100 * v) / Math.max(1, r.samples.length))}%`)
    .join(', ');
};

const scenarios: {
  name: string;
  o: CrowdOptions;
  judge: (r: CrowdResult, o: CrowdOptions) => Omit<Row, 'scenario' | 'binds'>;
  /** false: not judged on the cliff targets (the failing origin). */
  cliff?: boolean;
}[] = [
  {
    name: 'healthy origin, 600/min maximum, 700 visitors',
    o: { ...base, visitors: 700, maxSeconds: 100 },
    judge: (r, o) => {
      const q = queuedSpan(r);
      const from = Math.min((r.firstReportS ?? q.fromS) + 30, q.toS - 10);
      const x = admittedPerMinute(r, from, q.toS) / o.maxPerMinute;
      // Claims lag releases (a released visitor learns it at the next poll): say both, the rate
      // they were released at, and the unclaimed places and active visitors the limit counted.
      const inside = r.samples.filter((s) => s.t >= from && s.t <= q.toS);
      const mean = (k: 'rate' | 'activeLimit' | 'active' | 'unclaimed') =>
        inside.reduce((a, s) => a + s[k], 0) / Math.max(1, inside.length);
      const released = releasedPerMinute(r, from, q.toS) / o.maxPerMinute;
      const held = `released ${released.toFixed(2)} x; mean rate ${mean('rate').toFixed(0)}/min, limit ${mean('activeLimit').toFixed(0)}, active ${mean('active').toFixed(0)} + unclaimed ${mean('unclaimed').toFixed(0)}`;
      return {
        measure: `admitted ${x.toFixed(2)} x the maximum (${from.toFixed(0)}-${q.toS.toFixed(0)} s; ${held}; ${p99Note(r, from)})`,
        target: '>= 0.90 x maximum',
        met: x >= 0.9,
      };
    },
  },
  {
    name: '50 % no-shows (600/min, 700 visitors)',
    o: { ...base, visitors: 700, noShowShare: 0.5, maxSeconds: 100 },
    judge: (r, o) => {
      const { from, to } = window(r, o);
      const inside = r.samples.filter((s) => s.t >= from && s.t <= to);
      const rate = inside.reduce((a, s) => a + s.rate, 0) / Math.max(1, inside.length);
      const x = releasedPerMinute(r, from, to) / Math.max(1, rate);
      return {
        measure: `released ${x.toFixed(2)} x the rate (mean rate ${rate.toFixed(0)}/min, ${from.toFixed(0)}-${to.toFixed(0)} s; claimed ${admittedPerMinute(r, from, to).toFixed(0)}/min; ${p99Note(r, from)})`,
        target: '>= 0.90 x rate',
        met: x >= 0.9,
      };
    },
  },
  {
    name: 'origin capacity halves at 45 s (visitors stay 20 s)',
    o: {
      ...base,
      // Enough that visitors still wait 30 s after the capacity comes back, so the recovery is judged.
      visitors: 1600,
      staySeconds: 20,
      // p99 can settle only once the visitors admitted before the change have left (nobody is
      // admitted meanwhile). A crowd that shared 48 requests in flight among every visitor, with a
      // stay of 10 pages however slow, never settled: at the halved origin (2 s a page at 48 in
      // flight) 357 visitors needed minutes to leave, longer than the row's 180 s. So
      // each admitted visitor is its own browser and stays 20 s of wall time (crowd-run.ts).
      // The capacity comes back at RESTORE_AT_S: how long until the rate and the limit are back
      // (the target: back to the maximum within 60 s of the origin recovering).
      maxSeconds: RESTORE_AT_S + 60,
      origin: { baseLatencyMs: 20, capacityKnee: 8 },
      originChanges: [
        { atS: 45, model: { baseLatencyMs: 20, capacityKnee: 4 } },
        { atS: RESTORE_AT_S, model: { baseLatencyMs: 20, capacityKnee: 8 } },
      ],
    },
    judge: (r, o) => {
      // One entry per health report (the samples repeat a report until the next arrives), from the
      // change to the restore.
      const seen = new Set<number>();
      const reports = r.samples.filter((s) => {
        if (s.p99 === null || s.reportedAtS === null || s.reportedAtS < 45 || s.reportedAtS >= RESTORE_AT_S || seen.has(s.reportedAtS))
          return false;
        seen.add(s.reportedAtS);
        return true;
      });
      const settled = reports.findIndex((_, i) => reports.slice(i).every((s) => s.p99! <= TARGET_P99 * 1.1));
      const settledReports = settled >= 0 ? reports.slice(settled) : [];
      const settleS = settled >= 0 ? reports[settled]!.reportedAtS! - 45 : null;
      // The load the halved origin must drain first: admitted visitors at the change, how long the
      // visits claimed before it lasted, and the active visitors after it.
      const atChange = r.samples.find((s) => s.t >= 45)?.active ?? 0;
      const before = r.visits.filter((v) => v.fromS < 45).map((v) => v.toS - v.fromS);
      const drain = [0, 30, 60, 90].map((d) => `${r.samples.find((s) => s.t >= 45 + d)?.active ?? '-'}`).join(' -> ');
      const inFlight = Math.max(0, ...r.samples.filter((s) => s.t >= 45).map((s) => s.visitorInFlight));
      const load = `${atChange} active at the change, ${drain} at +0/30/60/90 s; visits claimed before it: median ${median(before).toFixed(0)} s, max ${Math.max(0, ...before).toFixed(0)} s; visitor requests in flight after it at most ${inFlight}`;
      // Recovery: the first sample after the restore with the rate at the maximum, and with the
      // limit back at its value just before the halving.
      const limitBefore = [...r.samples].reverse().find((s) => s.t < 45)?.activeLimit ?? 0;
      const after = (ok: (s: CrowdResult['samples'][number]) => boolean) => {
        const hit = r.samples.find((s) => s.t >= RESTORE_AT_S && ok(s));
        return hit ? `${(hit.t - RESTORE_AT_S).toFixed(0)} s` : `not by ${(r.elapsedS - RESTORE_AT_S).toFixed(0)} s`;
      };
      // The recovery is judged only while visitors wait: admissions after the queue ran dry say
      // nothing about the law (one 10 s window of admissions at least).
      const emptyAt = r.samples.find((s) => s.t >= RESTORE_AT_S && s.waiting === 0)?.t ?? Infinity;
      const waited =
        emptyAt - RESTORE_AT_S >= 10 ? '' : ` (the queue ran dry ${Math.max(0, emptyAt - RESTORE_AT_S).toFixed(0)} s after it: not judged)`;
      // Back to 0.90 of the capacity within 30 s: the admissions of 10 s against those before the
      // halving (from 20 s after the first report; at most the maximum).
      const capacity = Math.min(o.maxPerMinute, admittedPerMinute(r, Math.min(40, (r.firstReportS ?? 0) + 20), 45));
      const back = [...Array(61).keys()]
        .map((k) => RESTORE_AT_S + k)
        .find((t) => t <= emptyAt && admittedPerMinute(r, t - 10, t) >= 0.9 * capacity);
      const judgeRecovery = waited === '';
      const recovered = !judgeRecovery || (back !== undefined && back - RESTORE_AT_S <= 30);
      const recovery = `capacity restored at ${RESTORE_AT_S} s: admissions back at 0.90 x ${capacity.toFixed(0)}/min after ${back === undefined ? 'more than 60 s' : `${back - RESTORE_AT_S} s`}; rate back at ${o.maxPerMinute}/min after ${after((s) => s.rate >= o.maxPerMinute)}, limit back at ${limitBefore} after ${after((s) => s.activeLimit >= limitBefore)}${waited}`;
      return {
        measure:
          settleS === null
            ? `not settled by ${RESTORE_AT_S} s (${reports.length} reports after the change; p99 median ${median(reports.map((s) => s.p99!))} ms after it; ${load}; ${recovery})`
            : `settled ${settleS.toFixed(0)} s after the change (report ${settled + 1} of ${reports.length} after it); p99 after: median ${median(settledReports.map((s) => s.p99!))}, max ${Math.max(...settledReports.map((s) => s.p99!))} ms; ${load}; ${recovery}`,
        target: `settled (p99 <= ${Math.round(TARGET_P99 * 1.1)} ms from then on) within 60 s of the halving; >= 0.90 of the capacity within 30 s of its return`,
        met: settleS !== null && settleS <= 60 && settledReports.length >= 3 && recovered,
      };
    },
  },
  {
    name: 'origin failing (p99 >= 900 ms > 800 ms target from the start)',
    o: { ...base, visitors: 200, maxSeconds: 45, origin: { baseLatencyMs: 900, capacityKnee: 5 } },
    cliff: false,
    judge: (r, o) => {
      const first = r.samples.findIndex((s) => s.p99 !== null);
      const later = first >= 0 ? r.samples.slice(first) : [];
      const maxRate = Math.max(...r.samples.map((s) => s.rate));
      const grew = later.some((s, i) => i > 0 && (s.rate > later[i - 1]!.rate || s.activeLimit > later[i - 1]!.activeLimit));
      return {
        measure: `rate at most ${maxRate}/min (minimum ${o.minPerMinute}); ${grew ? 'rate or limit grew' : 'rate and limit never grew'} after the first report`,
        target: 'never climbs',
        met: maxRate <= o.minPerMinute && !grew,
      };
    },
  },
];

// `--json FILE` also writes every run (its per-second series and samples, the whole rate log, counts)
// to FILE; `--only TEXT` runs the scenarios whose name contains TEXT.
const { values: args } = parseArgs({ options: { json: { type: 'string' }, only: { type: 'string' } } });
const runs: { scenario: string; series: ReturnType<typeof perSecondSeries>; result: CrowdResult }[] = [];
const state = mkdtempSync(join(tmpdir(), 'wr-bench-control-'));
const started = Date.now();
console.log('bench:control: starting a gateway (wrangler dev on a free port, temporary storage)...');
const server = await startDevServer({ port: await freePort(), persistTo: state, quiet: true });
const rows: Row[] = [];
try {
  for (const s of scenarios.filter((x) => x.name.includes(args.only ?? ''))) {
    console.log(`\n▶ ${s.name}`);
    const r = await runCrowd(server, s.o, (line) => console.log(line));
    runs.push({ scenario: s.name, series: perSecondSeries(r), result: r });
    const judged = s.judge(r, s.o);
    // Every row but the failing origin's (failing from the start: its p99 is the origin's, not the
    // load's) is also judged on the cliff: at most MAX_OVER_2X_S over 2 x target outside 10 s after
    // an imposed change, none before one, at most one collapse after one.
    const cliff = cliffFigures(
      r,
      TARGET_P99,
      s.o.originChanges.map((c) => c.atS),
    );
    // 5xx answers the crowd got: the origin failing, and admitted requests refused at the edge after
    // waiting as long as the origin gets (src/lib/origin-limit.ts).
    const cliffNote = `; p99 over 2 x target ${cliff.overS.toFixed(0)} s (${cliff.rampOverS.toFixed(0)} s before any change), collapses ${cliff.collapses} (${cliff.collapsesAfterChange} after a change); 5xx answers ${r.counts.httpErrors ?? 0}`;
    const cliffMet = s.cliff === false || (cliff.overS <= MAX_OVER_2X_S && cliff.rampOverS === 0 && cliff.collapsesAfterChange <= 1);
    judged.measure += cliffNote;
    judged.target += s.cliff === false ? '' : `; <= ${MAX_OVER_2X_S} s over 2 x target, none before a change, <= 1 collapse after one`;
    judged.met = judged.met && cliffMet;
    // A scenario whose capacity model the stub never got measured the default origin: say so, never "met".
    const row = r.originModelApplied
      ? { scenario: s.name, ...judged, binds: mostly(r) }
      : { scenario: s.name, ...judged, measure: `origin model NOT applied (see the log); ${judged.measure}`, met: false, binds: mostly(r) };
    rows.push(row);
    console.log(`  ${row.measure} (target ${row.target}: ${row.met ? 'met' : 'NOT met'}); consistency ${r.consistent ? 'PASS' : 'FAIL'}`);
    console.log(`  what bound, over time: ${bindingTimeline(r)}`);
    // The whole rate log, oldest first, with seconds since the run's start, then the 5 s series.
    const t0 = r.startedAtMs;
    console.log(`  rate log (${r.rateLog.length} changes, s since the start):`);
    for (const e of [...r.rateLog].reverse()) console.log(`    ${((e.at - t0) / 1000).toFixed(0).padStart(4)} s  ${e.reason}`);
    console.log('  series (released and claimed summed over each 5 s):');
    for (const line of formatSeries(perSecondSeries(r), 5)) console.log(`  ${line}`);
  }
} finally {
  await server.stop();
  rmSync(state, { recursive: true, force: true });
}
if (args.json) writeFileSync(args.json, JSON.stringify(runs, null, 1));
console.log(`\nbench:control (${((Date.now() - started) / 1000).toFixed(0)} s in all)\n`);
console.log('| scenario | measured | target | met | what bound while visitors waited |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.scenario} | ${r.measure} | ${r.target} | ${r.met ? 'yes' : 'no'} | ${r.binds} |`);
process.exit(rows.every((r) => r.met) ? 0 : 1);
