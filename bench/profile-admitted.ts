// The admitted visitor's path in `npm run bench:profile` (PROFILE_ADMITTED_ONLY=1): whole requests
// timed inside the Worker with the workerd CPU each costs, and the profiled loads of the bare
// forward F, pass-through and an admitted page request in a room.
import { admittedVisitors, jarCookie, load, startGateway } from './harness.ts';
import { cpuMeter } from './process-cpu.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;

/**
 * Whole requests inside the Worker (no inspector), the admitted page request among them: wall time
 * per request (the second of two runs), then the workerd processes' CPU per request of the bare
 * forward, pass-through and the admitted page, each over 1,000 requests one after another (no load
 * generator competing: the steadiest figure on a shared machine), median of 3.
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
  console.log(`\nworkerd CPU per request, 1,000 one after another inside the Worker, median of 3:`);
  for (const only of ['forward to the origin Worker (F)', 'pass-through through the gateway', 'admitted page request in a room']) {
    const runs: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      const cpu = cpuMeter();
      await (await fetch(`${stepsUrl}&n=1000&only=${encodeURIComponent(only)}`)).arrayBuffer();
      runs.push(cpu() / 1000);
    }
    console.log(
      `${only.padEnd(52)}  ${runs
        .sort((a, b) => a - b)[1]!
        .toFixed(0)
        .padStart(6)} us  (runs ${runs.map((r) => r.toFixed(0)).join(', ')})`,
    );
  }
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
