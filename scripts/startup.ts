// The gateway's start-up time next to a no-op Worker's, both measured by `wrangler check startup`
// (offline: a local workerd runs the bundle once and writes a CPU profile) in the same run (#16).
// `node scripts/startup.ts [reps]` prints medians; `npm run bench` prints the same line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, nodeBinary } from './lib/dev-server.ts';
import { startupFigures, wranglerActiveMs, type CpuProfile } from './lib/startup-profile.ts';
import type { SourceMapV3 } from './lib/bundle-composition.ts';

const OUT = join(ROOT, '.build', 'startup');
const WRANGLER = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CI: '1' };

/** Medians over the repetitions, ms. */
export interface StartupResult {
  reps: number;
  /** Wrangler's "Active" figure (CPU while the isolate starts and evaluates the script), gateway. */
  gatewayActiveMs: number;
  /** The same for a Worker whose whole script is one `fetch` returning "ok": the platform's floor. */
  noopActiveMs: number;
  /** CPU time inside the gateway bundle's own top-level code (module evaluation). */
  gatewayScriptMs: number;
  /** The parts of the bundle that ran longest at start-up, from the median repetition, ms. */
  topGroups: [string, number][];
  /** Wrangler's `Bundle: ... KiB / gzip: ... KiB` figure of the gateway. */
  bundle: string;
}

function run(args: string[], cwd: string): string {
  const r = spawnSync(nodeBinary(), [WRANGLER, ...args], { cwd, encoding: 'utf8', env: ENV });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** One `wrangler deploy --dry-run` of the Worker in `cwd`, as the upload form `check startup --worker` reads. */
function build(name: string, cwd: string): string {
  const form = join(OUT, `${name}.form`);
  run(['deploy', '--dry-run', '--outdir', join(OUT, name), '--outfile', form], cwd);
  return form;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Builds both Workers once, then runs `wrangler check startup` `reps` times on each, alternating.
 * @throws Error with wrangler's output when a build or a start-up fails
 */
export function measureStartup(reps = 3): StartupResult {
  mkdirSync(join(OUT, 'noop-src'), { recursive: true });
  writeFileSync(join(OUT, 'noop-src', 'index.js'), 'export default { fetch: () => new Response("ok") };\n');
  writeFileSync(join(OUT, 'noop-src', 'wrangler.toml'), 'name = "noop"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\n');
  const forms = { gateway: build('gateway', ROOT), noop: build('noop', join(OUT, 'noop-src')) };
  const map = JSON.parse(readFileSync(join(OUT, 'gateway', 'index.js.map'), 'utf8')) as SourceMapV3;
  const active = { gateway: [] as number[], noop: [] as number[] };
  const script: { ms: number; groups: Map<string, number> }[] = [];
  let bundle = '';
  for (let i = 0; i < reps; i++) {
    for (const name of ['gateway', 'noop'] as const) {
      const profilePath = join(OUT, `${name}-${i}.cpuprofile`);
      const stdout = run(['check', 'startup', '--worker', forms[name], '--outfile', profilePath], ROOT);
      active[name].push(wranglerActiveMs(stdout));
      if (name !== 'gateway') continue;
      bundle = /Bundle: (.*KiB)/.exec(stdout)?.[1] ?? '';
      const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
      const f = startupFigures(profile, (url) => url.endsWith('index.js'), map);
      script.push({ ms: f.scriptMs, groups: f.byGroup });
    }
  }
  const mid = [...script].sort((a, b) => a.ms - b.ms)[Math.floor(script.length / 2)]!;
  return {
    reps,
    gatewayActiveMs: median(active.gateway),
    noopActiveMs: median(active.noop),
    gatewayScriptMs: mid.ms,
    topGroups: [...mid.groups].sort((a, b) => b[1] - a[1]).slice(0, 5),
    bundle,
  };
}

/** The printed line (bench and this script): medians, the ratio to the no-op Worker, where the time goes. */
export function startupLine(r: StartupResult): string {
  const parts = r.topGroups.map(([g, ms]) => `${g} ${ms.toFixed(0)}`).join(', ');
  return (
    `start-up (wrangler check startup, median of ${r.reps}): gateway ${r.gatewayActiveMs.toFixed(1)} ms active vs no-op Worker ` +
    `${r.noopActiveMs.toFixed(1)} ms (+${(r.gatewayActiveMs - r.noopActiveMs).toFixed(1)} ms); the bundle's top-level code ` +
    `${r.gatewayScriptMs.toFixed(1)} ms (${parts}); bundle ${r.bundle}`
  );
}

if (import.meta.main) console.log(startupLine(measureStartup(Number(process.argv[2] ?? 3))));
