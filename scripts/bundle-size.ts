// Bundles the gateway and the origin stub exactly as `wrangler deploy` would upload them (a dry run:
// no Cloudflare account, no network) and prints each bundle's size, raw and gzip.
// `--composition` also prints what the gateway bundle is made of (docs/explanation/scaling.md, "Bundle").
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, nodeBinary } from './lib/dev-server.ts';
import { composition, compositionMarkdown, type SourceMapV3 } from './lib/bundle-composition.ts';

/**
 * The gateway's size ceiling, KiB gzip: a check for accidents, not a target. Over it, this script
 * (a step of `npm test`) fails. 200 KiB is well above the gateway's size (about 125 KiB gzip), so
 * ordinary growth passes while an accidental heavy import fails (classic zod instead
 * of zod/mini alone added about 800 KiB raw). The platform allows 3 MB gzip on the Free plan and 10 MB on Paid (Cloudflare
 * Workers limits); start-up time, which a larger script costs on every cold isolate, is measured
 * in the bench (scripts/startup.ts), not here.
 */
export const GATEWAY_GZIP_BUDGET_KIB = 200;

const WORKERS = [
  { name: 'gateway', cwd: ROOT },
  { name: 'origin-stub', cwd: join(ROOT, 'origin-stub') },
] as const;

/**
 * The failure message when the gateway's gzip size is over GATEWAY_GZIP_BUDGET_KIB, else null.
 * @param gzipKiB wrangler's gzip figure, KiB
 */
export function overBudget(gzipKiB: number): string | null {
  if (gzipKiB <= GATEWAY_GZIP_BUDGET_KIB) return null;
  return (
    `gateway bundle is ${gzipKiB.toFixed(2)} KiB gzip, over its budget of ${GATEWAY_GZIP_BUDGET_KIB} KiB. ` +
    'See what it is made of with `node scripts/bundle-size.ts --composition` (docs/explanation/scaling.md, "The gateway\'s bundle and start-up"); ' +
    'page texts belong in the page assets (src/pages/asset-sources.ts), not in code the Worker imports.'
  );
}

/** Wrangler's own summary line: `Total Upload: 258.69 KiB / gzip: 84.60 KiB`. */
const TOTAL = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/;

/** Where a worker's dry-run output goes: `index.js` and its source map `index.js.map`. */
export function bundleDir(name: string): string {
  return join(ROOT, '.build', 'bundle', name);
}

/**
 * One dry run into `.build/bundle/<name>`.
 * @returns raw and gzip size in KiB, as wrangler reports them
 * @throws Error with wrangler's output when the build fails or prints no size
 */
export function bundleSize(name: string, cwd: string): { rawKiB: number; gzipKiB: number } {
  const wrangler = join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const run = spawnSync(nodeBinary(), [wrangler, 'deploy', '--dry-run', '--outdir', bundleDir(name)], {
    cwd,
    encoding: 'utf8',
    // Offline and quiet: no metrics, no update check.
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CI: '1' },
  });
  const match = TOTAL.exec(run.stdout);
  if (run.status !== 0 || !match) throw new Error(`wrangler deploy --dry-run failed for ${name}:\n${run.stdout}\n${run.stderr}`);
  return { rawKiB: Number(match[1]), gzipKiB: Number(match[2]) };
}

if (import.meta.main) {
  for (const { name, cwd } of WORKERS) {
    const { rawKiB, gzipKiB } = bundleSize(name, cwd);
    const budget = name === 'gateway' ? ` (budget ${GATEWAY_GZIP_BUDGET_KIB} KiB gzip)` : '';
    console.log(`${name.padEnd(12)} ${rawKiB.toFixed(2).padStart(8)} KiB raw, ${gzipKiB.toFixed(2).padStart(7)} KiB gzip${budget}`);
    const over = name === 'gateway' ? overBudget(gzipKiB) : null;
    if (over) {
      console.error(over);
      process.exitCode = 1;
    }
    if (name === 'gateway' && process.argv.includes('--composition')) {
      const code = readFileSync(join(bundleDir(name), 'index.js'), 'utf8');
      const map = JSON.parse(readFileSync(join(bundleDir(name), 'index.js.map'), 'utf8')) as SourceMapV3;
      console.log(compositionMarkdown(composition(code, map), rawKiB, gzipKiB));
    }
  }
}
