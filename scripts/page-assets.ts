// Writes the page assets (the gateway pages' words in every language, their inline scripts, the
// dashboard) into the Workers Static Assets directory, from src/pages/asset-sources.ts.
// wrangler.toml runs it before every build (`[build] command`: deploy, dry runs, `wrangler dev`);
// the test and bench configs call writePageAssets() themselves. Files are rewritten only when their
// text changed, and files no source names any more are removed.
import { buildSync, transformSync } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './lib/dev-server.ts';

/** The assets directory (wrangler.toml `[assets] directory`); git-ignored, generated. */
export const PAGE_ASSETS_DIR = join(ROOT, '.build', 'page-assets');

function listFiles(dir: string): string[] {
  let out: string[] = [];
  try {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      out = out.concat(e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]);
  } catch {
    // no directory yet
  }
  return out;
}

/** Bundles the sources module for Node (esbuild, in memory) and evaluates it. */
async function loadSources<T>(entry: string): Promise<T> {
  const built = buildSync({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    logLevel: 'warning',
  });
  const code = built.outputFiles[0]!.text;
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as T;
}

/**
 * The visitor pages' inline scripts, minified: the waiting page's weight with its script stays
 * under 15 KB in any one language. The dashboard's script is kept as written (its page embeds the
 * same text).
 */
const MINIFIED = /\/(waiting|check|draw)\.js$/;

function minified(path: string, text: string): string {
  if (!MINIFIED.test(path)) return text;
  return transformSync(text, { minify: true, target: 'es2022', logLevel: 'warning' }).code.trim();
}

/**
 * Evaluates src/pages/asset-sources.ts (the pages' words, scripts and style) and writes each asset
 * under PAGE_ASSETS_DIR at its path.
 * @returns the number of assets and how many of them changed
 * @throws Error when the sources do not build
 */
export async function writePageAssets(): Promise<{ files: number; changed: number }> {
  const pages = await loadSources<{ pageAssetSources: () => Record<string, string> }>(join('src', 'pages', 'asset-sources.ts'));
  const files = pages.pageAssetSources();
  let changed = 0;
  const wanted = new Set<string>();
  for (const [path, source] of Object.entries(files)) {
    const text = minified(path, source);
    const file = join(PAGE_ASSETS_DIR, ...path.split('/').filter(Boolean));
    wanted.add(file);
    let old: string | null = null;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      // new file
    }
    if (old === text) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    changed++;
  }
  for (const file of listFiles(PAGE_ASSETS_DIR)) if (!wanted.has(file) && !relative(PAGE_ASSETS_DIR, file).startsWith('.')) rmSync(file);
  return { files: Object.keys(files).length, changed };
}

if (import.meta.main) {
  const { files, changed } = await writePageAssets();
  console.log(`page assets: ${files} files in ${relative(ROOT, PAGE_ASSETS_DIR)}/ (${changed} changed)`);
}
