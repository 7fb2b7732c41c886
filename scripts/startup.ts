// The gateway's start-up time next to a no-op Worker's, both measured by `wrangler check startup`
// (offline: a local workerd runs the bundle once and writes a CPU profile) in the same run.
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

/** Medians over the repetitions, ms, with the spread (fastest and slowest repetition). */
export interface StartupResult {
  /** Which gateway tree (`gateway`, or the `--base` one). */
  label: string;
  reps: number;
  /** Wrangler's "Active" figure (CPU while the isolate starts and evaluates the script), gateway. */
  gatewayActiveMs: number;
  /** Fastest and slowest repetition of `gatewayActiveMs`. */
  gatewayActiveSpread: [number, number];
  /** The same for a Worker whose whole script is one `fetch` returning "ok": the platform's floor. */
  noopActiveMs: number;
  /** Fastest and slowest repetition of `noopActiveMs`. */
  noopActiveSpread: [number, number];
  /** CPU time inside the gateway bundle's own top-level code (module evaluation). */
  gatewayScriptMs: number;
  /** Fastest and slowest repetition of `gatewayScriptMs`. */
  gatewayScriptSpread: [number, number];
  /** The parts of the bundle that ran longest at start-up, from the median repetition, ms. */
  topGroups: [string, number][];
  /** Wrangler's `Bundle: ... KiB / gzip: ... KiB` figure of the gateway. */
  bundle: string;
  /** Every repetition in order (the targets ran alternately: repetition i of each ran side by side). */
  runs: { activeMs: number[]; scriptMs: number[] };
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
const spread = (xs: number[]): [number, number] => [Math.min(...xs), Math.max(...xs)];

/** One gateway tree to time: this checkout, or another revision's (`--base DIR`, with its own node_modules). */
export interface StartupTarget {
  label: string;
  root: string;
}

/**
 * Builds each gateway tree and the no-op Worker once, then runs `wrangler check startup` `reps`
 * times on each, alternating (so a busy machine slows all of them alike).
 * @param targets the gateway trees (default: this checkout alone)
 * @returns one result per target, in order
 * @throws Error with wrangler's output when a build or a start-up fails
 */
export function measureStartup(reps = 3, targets: StartupTarget[] = [{ label: 'gateway', root: ROOT }]): StartupResult[] {
  mkdirSync(join(OUT, 'noop-src'), { recursive: true });
  writeFileSync(join(OUT, 'noop-src', 'index.js'), 'export default { fetch: () => new Response("ok") };\n');
  writeFileSync(join(OUT, 'noop-src', 'wrangler.toml'), 'name = "noop"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\n');
  const noopForm = build('noop', join(OUT, 'noop-src'));
  const runs = targets.map((t, k) => {
    const name = `gateway-${k}`;
    const form = build(name, t.root);
    const map = JSON.parse(readFileSync(join(OUT, name, 'index.js.map'), 'utf8')) as SourceMapV3;
    return { name, form, map, active: [] as number[], script: [] as { ms: number; groups: Map<string, number> }[], bundle: '' };
  });
  const noopActive: number[] = [];
  for (let i = 0; i < reps; i++) {
    for (const r of runs) {
      const profilePath = join(OUT, `${r.name}-${i}.cpuprofile`);
      const stdout = run(['check', 'startup', '--worker', r.form, '--outfile', profilePath], ROOT);
      r.active.push(wranglerActiveMs(stdout));
      r.bundle = /Bundle: (.*KiB)/.exec(stdout)?.[1] ?? '';
      const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
      const f = startupFigures(profile, (url) => url.endsWith('index.js'), r.map);
      r.script.push({ ms: f.scriptMs, groups: f.byGroup });
    }
    noopActive.push(
      wranglerActiveMs(run(['check', 'startup', '--worker', noopForm, '--outfile', join(OUT, `noop-${i}.cpuprofile`)], ROOT)),
    );
  }
  return runs.map((r, k) => {
    const mid = [...r.script].sort((a, b) => a.ms - b.ms)[Math.floor(r.script.length / 2)]!;
    return {
      label: targets[k]!.label,
      reps,
      gatewayActiveMs: median(r.active),
      gatewayActiveSpread: spread(r.active),
      noopActiveMs: median(noopActive),
      noopActiveSpread: spread(noopActive),
      gatewayScriptMs: mid.ms,
      gatewayScriptSpread: spread(r.script.map((x) => x.ms)),
      topGroups: [...mid.groups].sort((a, b) => b[1] - a[1]).slice(0, 5),
      bundle: r.bundle,
      runs: { activeMs: r.active, scriptMs: r.script.map((x) => x.ms) },
    };
  });
}

/**
 * The printed line (bench and this script): medians with their spread in brackets (fastest-slowest
 * repetition), the difference to the no-op Worker, where the time goes.
 */
export function startupLine(r: StartupResult): string {
  const parts = r.topGroups.map(([g, ms]) => `${g} ${ms.toFixed(0)}`).join(', ');
  const range = ([lo, hi]: [number, number]) => `[${lo.toFixed(1)}-${hi.toFixed(1)}]`;
  return (
    `start-up (wrangler check startup, median of ${r.reps}): ${r.label} ${r.gatewayActiveMs.toFixed(1)} ms active ` +
    `${range(r.gatewayActiveSpread)} vs no-op Worker ${r.noopActiveMs.toFixed(1)} ms ${range(r.noopActiveSpread)} ` +
    `(+${(r.gatewayActiveMs - r.noopActiveMs).toFixed(1)} ms); the bundle's top-level code ` +
    `${r.gatewayScriptMs.toFixed(1)} ms ${range(r.gatewayScriptSpread)} (${parts}); bundle ${r.bundle}`
  );
}

/**
 * This tree against the base, repetition by repetition (each pair ran side by side, so a busy
 * moment of a shared machine slows both): the median difference and the middle half of them, ms.
 */
function pairedLine(base: StartupResult, tree: StartupResult): string {
  const diffs = (a: number[], b: number[]) => b.map((x, i) => x - a[i]!).sort((x, y) => x - y);
  const show = (d: number[]) => {
    const at = (q: number) => d[Math.floor(q * (d.length - 1))]!;
    const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
    return `${sign(median(d))} ms (middle half ${sign(at(0.25))} to ${sign(at(0.75))})`;
  };
  return (
    `paired by repetition, ${tree.label} minus ${base.label}: active ${show(diffs(base.runs.activeMs, tree.runs.activeMs))}, ` +
    `top-level code ${show(diffs(base.runs.scriptMs, tree.runs.scriptMs))}`
  );
}

if (import.meta.main) {
  // node scripts/startup.ts [reps] [--base DIR]: DIR is another revision's tree (e.g. `git archive`
  // of it, with node_modules linked), timed in the same run for a before/after.
  const args = process.argv.slice(2);
  const baseAt = args.indexOf('--base');
  const targets: StartupTarget[] = [{ label: 'gateway', root: ROOT }];
  if (baseAt >= 0) targets.unshift({ label: `base (${args[baseAt + 1]})`, root: args[baseAt + 1]! });
  const reps = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--base') ?? 3);
  const results = measureStartup(reps, targets);
  for (const r of results) console.log(startupLine(r));
  if (results.length === 2) console.log(pairedLine(results[0]!, results[1]!));
}
