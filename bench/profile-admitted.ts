// The admitted visitor's path in `npm run bench:profile` (PROFILE_ADMITTED_ONLY=1): whole requests
// timed inside the Worker, the admitted request stage by stage in workerd CPU, and (unless
// PROFILE_STEPS_ONLY) the profiled loads of the bare forward F, pass-through and an admitted page
// request in a room.
import { admittedVisitors, jarCookie, load, startGateway } from './harness.ts';
import { fineCpuMeter } from './process-cpu.ts';
import { ADMITTED_STAGES } from './bench-routes.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;
/** Requests per stage loop and rounds of the stage table (PROFILE_STAGE_N, PROFILE_STAGE_ROUNDS). */
const STAGE_N = Number(process.env.PROFILE_STAGE_N) || 300;
const STAGE_ROUNDS = Number(process.env.PROFILE_STAGE_ROUNDS) || 40;

/** The value below which a fraction `q` of `xs` lies (nearest rank). */
const quantile = (xs: readonly number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;
const median = (xs: readonly number[]) => quantile(xs, 0.5);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(0)}`;

/**
 * The admitted request built up stage by stage (admitted-micro.ts): workerd CPU per request of each
 * stage, over STAGE_N requests one after another, in STAGE_ROUNDS rounds that run every stage in
 * turn (so a busy moment of the shared machine hits all stages alike). Prints each stage's median,
 * its 10th percentile, its range, the median over the rounds of what it adds to the stage before it,
 * and the same difference between the two stages' 10th percentiles: other work on the machine only
 * ever adds CPU to a loop (cache misses, a shared core), so the quiet rounds repeat from run to run
 * where medians moved by 10-30 us. Thread CPU time in ns
 * (`fineCpuMeter`) lets the loops be short, so the rounds are many and close together.
 */
async function stageTable(base: string, cookie: string): Promise<void> {
  const run = async (stage: number, n: number) => {
    const res = await fetch(`${base}/__bench/admitted-stage?stage=${stage}&n=${n}&event=steps-admitted`, { method: 'POST', body: cookie });
    if (!res.ok) throw new Error(`admitted-stage ${stage}: ${res.status} ${await res.text()}`);
  };
  for (let s = 0; s < ADMITTED_STAGES.length; s++) await run(s, 300);
  const cpu: number[][] = ADMITTED_STAGES.map(() => []);
  for (let round = 0; round < STAGE_ROUNDS; round++) {
    for (let s = 0; s < ADMITTED_STAGES.length; s++) {
      const meter = fineCpuMeter();
      await run(s, STAGE_N);
      cpu[s]!.push(meter() / STAGE_N);
    }
  }
  console.log(`\nan admitted page request stage by stage, workerd CPU per request, ${STAGE_N} requests x ${STAGE_ROUNDS} rounds:`);
  console.log(`${'stage'.padEnd(56)}  median   p10     range    adds  p10 adds`);
  ADMITTED_STAGES.forEach((name, s) => {
    const runs = cpu[s]!;
    // The whole request is compared with F; every other stage with the one before it.
    const before = s === 0 ? null : cpu[s === ADMITTED_STAGES.length - 1 ? 0 : s - 1]!;
    const adds = before ? signed(median(runs.map((v, k) => v - before[k]!))) : '';
    const quietAdds = before ? signed(quantile(runs, 0.1) - quantile(before, 0.1)) : '';
    const range = `${Math.min(...runs).toFixed(0)}-${Math.max(...runs).toFixed(0)}`;
    console.log(
      `${name.padEnd(56)}  ${median(runs).toFixed(0).padStart(6)}  ${quantile(runs, 0.1).toFixed(0).padStart(4)}  ${range.padStart(8)}  ${adds.padStart(6)}  ${quietAdds.padStart(8)}`,
    );
  });
}

/**
 * Whole requests inside the Worker (no inspector), the admitted page request among them: wall time
 * per request (the second of two runs), then the admitted request's stage table (`stageTable`: CPU
 * per request with no load generator competing, the steadiest figure on a shared machine).
 */
export async function admittedSteps(): Promise<void> {
  const plain = await startGateway();
  await plain.createEvent('steps-join', { queueShards: 1 });
  await plain.createEvent('steps-stub', { queueShards: 1 });
  await plain.createEvent('steps-admitted');
  const [cookie] = (await admittedVisitors(plain, 'steps-admitted', 1)).map(jarCookie);
  const stepsUrl = `${plain.base}/__bench/request-steps?join=steps-join&stub=steps-stub&admitted=steps-admitted&cookie=${encodeURIComponent(cookie!)}`;
  await fetch(`${stepsUrl}&n=300`);
  const steps = (await (await fetch(`${stepsUrl}&n=300`)).json()) as Record<string, number>;
  console.log(`whole requests inside the Worker, mean of 300, one after another (second run):`);
  for (const [step, us] of Object.entries(steps)) console.log(`${step.padEnd(52)}  ${String(us).padStart(6)} us`);
  await stageTable(plain.base, cookie!);
  await plain.mf.dispose();
}

/**
 * An admitted buyer's page request in a room (valid ticket and admission cookies, the origin Worker
 * behind), next to the bare forward to the same origin and a pass-through, each warmed first.
 */
export async function profiledAdmitted(
  gw: Awaited<ReturnType<typeof startGateway>>,
  profiled: (label: string, run: () => Promise<{ rps: number; cpuUs: number }>) => Promise<void>,
): Promise<void> {
  const event = 'profile-admitted';
  await gw.createEvent(event);
  const cookies = (await admittedVisitors(gw, event, 200)).map(jarCookie);
  const page = `${gw.base}/events/${event}/tickets`;
  let a = 0;
  const admitted = (durationS: number) =>
    load(page, durationS, {
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[a++ % cookies.length]! } }) }],
    });
  await load(`${gw.base}/__bench/forward`, 1);
  await profiled('no-op forward to the origin Worker (F)', () => load(`${gw.base}/__bench/forward`, DURATION_S));
  await load(`${gw.base}/site/home`, 1);
  await profiled('pass-through (no room covers the URL)', () => load(`${gw.base}/site/home`, DURATION_S));
  await admitted(1);
  await profiled('admitted page request in a room', () => admitted(DURATION_S));
}
