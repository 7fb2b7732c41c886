// `npm run sim:control`: the release law against 20 seeded crowd simulations of bench:control's
// real path (test/helpers/control-targets.ts), in seconds: one line per seed, then each target's
// worst and median. `--seed N` prints that seed's rate log and a 5 s series instead;
// `--no-origin-limit` runs the release law without the edge's limit on requests in flight.
import { buildSync } from 'esbuild';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type * as Targets from '../test/helpers/control-targets.ts';

const { values: args } = parseArgs({ options: { seed: { type: 'string' }, 'no-origin-limit': { type: 'boolean' } } });
// The simulation imports the Durable Object's pure rules (extensionless imports): bundle it for Node.
const outfile = join(import.meta.dirname, '..', '.build', 'control-targets.mjs');
buildSync({
  entryPoints: ['test/helpers/control-targets.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'es2024',
  logLevel: 'warning',
});
const sim = (await import(pathToFileURL(outfile).href)) as typeof Targets;

const started = Date.now();
if (args.seed) {
  const v = sim.judgeSeed(Number(args.seed), !args['no-origin-limit']);
  console.log(sim.seedLine(v));
  for (const s of v.run) if (s.reason) console.log(`  ${String(s.t).padStart(4)} s  ${s.reason}`);
  console.log('     t  rate limit active pending claimed/5s edge-wait-ms p99');
  for (const s of v.run.filter((x) => x.t % 5 === 0))
    console.log(
      `  ${String(s.t).padStart(4)} ${String(s.rate).padStart(5)} ${String(s.limit).padStart(5)} ${String(s.active).padStart(6)} ${String(s.pending).padStart(7)} ${String(v.run.slice(Math.max(0, s.t - 4), s.t + 1).reduce((a, x) => a + x.claimed, 0)).padStart(10)} ${String(s.edgeWaitMs).padStart(12)} ${s.reportedP99 ?? '-'}`,
    );
} else {
  const vs = sim.SIM_SEEDS.map((seed) => sim.judgeSeed(seed, !args['no-origin-limit']));
  for (const v of vs) console.log(sim.seedLine(v));
  console.log(`\nsim:control: ${vs.length} seeds in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  for (const line of sim.targetTable(vs)) console.log(line);
  process.exit(vs.every((v) => v.met) ? 0 : 1);
}
