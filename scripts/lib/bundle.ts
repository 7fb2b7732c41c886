// Bundles a Worker entry for Miniflare (tests and benchmarks), with the workerd built-ins left external.
import { buildSync } from 'esbuild';

/** Bundles `entry` (TypeScript) into one ES module at `outfile`. */
export function bundleWorker(entry: string, outfile: string): void {
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    external: ['cloudflare:workers'],
    logLevel: 'warning',
  });
}
