// `npm run bench`: the gateway under a flash crowd on this machine, next to no-op baselines measured
// in the same run, under Miniflare (the built Worker, no dev proxy): joins, polls of waiting
// visitors (and the object calls they cost), seat holds with hot-spot contention on 50,000 seats,
// the seat map for 1,000 concurrent readers.
//
// To add a row: add a Scenario to REQUEST_SCENARIOS (bench/gateway-requests.ts) or HOLD_SCENARIOS
// (bench/gateway-holds.ts): what to load, once per repetition; and a Row to ROWS (bench/gateway-rows.ts):
// how to print it, its baseline, its target. Scenarios run in list order in every repetition, so
// each one's baselines are measured minutes apart at most. The table's printing: bench/gateway-report.ts.
import { SEATS, load, startGateway, type Sample } from './harness.ts';
import { benchNodeOrigin, nodeOriginRows } from './node-origin.ts';
import { measureStartup, startupLine } from '../scripts/startup.ts';
import { loadavg } from 'node:os';
import { DURATION_S, HOLDS_PER_REP, type Rep, type Scenario } from './gateway-context.ts';
import { REQUEST_SCENARIOS } from './gateway-requests.ts';
import { HOLD_SCENARIOS, loadSeatIds } from './gateway-holds.ts';
import { mediansOf, printSpread, printTable } from './gateway-report.ts';

const REPS = Number(process.env.BENCH_REPS) || 3;
/** The machine's 1, 5 and 15 minute load averages (os.loadavg), for judging how noisy a run was. */
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** Scenario ids to run (comma-separated), for a short bounded run of a few rows; unset = all. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;

/** Every scenario, in the order each repetition runs them. */
const SCENARIOS: Scenario[] = [...REQUEST_SCENARIOS, ...HOLD_SCENARIOS];

async function main(): Promise<void> {
  const gw = await startGateway();
  await loadSeatIds(gw);
  console.log(
    `Miniflare at ${gw.base}; ${REPS} repetitions of ${DURATION_S} s (hold rows: ${HOLDS_PER_REP.toLocaleString()} holds), 50 connections; ${SEATS.toLocaleString()} seats, 80% of holds on the best 5%\n`,
  );
  const loadAtStart = loadAverage();
  // Warm the isolate (JIT, key import) so that baseline A is not measured cold.
  await load(`${gw.base}/__bench/noop`, 1);
  const samples = new Map<string, Sample[]>();
  const extras = new Map<string, number[]>();
  const facts = new Map<string, string[]>();
  for (let rep = 0; rep < REPS; rep++) {
    const r: Rep = {
      gw,
      rep,
      extra: (name, value) => extras.set(name, [...(extras.get(name) ?? []), value]),
      fact: (name, text) => facts.set(name, [...(facts.get(name) ?? []), text]),
    };
    for (const s of SCENARIOS) if (!ONLY || ONLY.has(s.id)) samples.set(s.id, [...(samples.get(s.id) ?? []), await s.run(r)]);
  }
  const logLines = gw.logLines();
  await gw.mf.dispose();
  printTable(samples, mediansOf(samples, extras), REPS);
  if (REPS > 1) printSpread(samples, REPS, { start: loadAtStart, end: loadAverage() });
  // The gateway in front of the Node example origin (its own Miniflare, with ORIGIN_URL set), after
  // the table above is printed, so that a failure here never loses it.
  if (!ONLY)
    try {
      const nodeOrigin = await benchNodeOrigin({ reps: REPS, durationS: DURATION_S, connections: 50 });
      for (const line of nodeOriginRows(nodeOrigin)) console.log(line);
    } catch (err) {
      console.log(`${'Node origin page rows'.padEnd(42)}  failed: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  // Start-up of a cold isolate: the gateway bundle next to a no-op Worker, both under
  // `wrangler check startup` now, after the load is over (BENCH_ONLY=startup for this line alone).
  if (!ONLY || ONLY.has('startup'))
    try {
      for (const r of measureStartup(REPS)) console.log(startupLine(r));
    } catch (err) {
      console.log(`start-up failed: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  console.log('');
  for (const [name, texts] of facts) console.log(`${name} per repetition: ${texts.join('; ')}`);
  console.log(`decision log lines written by the Worker during the run: ${logLines.toLocaleString()}`);
  if (samples.has('seat-map'))
    console.log('inventory consistency after every repetition: 0 seats with two orders, 0 sold seats without their order, 0 tier errors');
}

await main();
