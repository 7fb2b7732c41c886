// What the gateway bundle is made of: each output byte attributed to its source file through the
// bundle's source map, grouped by package or folder, with what each group adds to the gzip size.
import { gzipSync } from 'node:zlib';
import { decode } from '@jridgewell/sourcemap-codec';

/** A source map as esbuild (through wrangler) writes it (Source Map Revision 3, ECMA-426). */
export interface SourceMapV3 {
  sources: string[];
  mappings: string;
}

/** One row of the composition table. */
export interface CompositionRow {
  /** The package (`zod`, `@scope/pkg`) or the project folder (`src/pages`, `durable-objects/inventory`). */
  group: string;
  /** Bytes of the minified bundle that map to this group, KiB (1 KiB = 1,024 bytes; UTF-8). */
  rawKiB: number;
  /**
   * What the group adds to the gzip size, KiB: gzip(bundle) minus gzip(bundle without the group's
   * bytes). Gzip shares repeats across groups, so these do not add up to the total exactly.
   */
  gzipKiB: number;
}

/** The group a source path belongs to: the npm package for `node_modules/...`, else its first two folders. */
export function groupOf(source: string): string {
  const path = source.replace(/\\/g, '/').replace(/^(\.\.\/)+/, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : path;
}

/** The gzip size in KiB as wrangler's `Total Upload ... gzip` reports it (zlib's default level). */
function gzipKiB(text: string): number {
  return gzipSync(Buffer.from(text, 'utf8')).length / 1024;
}

/**
 * Attributes each character of `code` to a group through `map` (a generated segment runs from its
 * column to the next segment's; text before a line's first segment and unmapped segments go to
 * `(bundler)`: esbuild's runtime helpers and separators).
 *
 * @param code the bundle exactly as written next to the map (UTF-16 columns, as source maps count)
 * @returns for each group, the text of the bundle with that group's characters blanked out, and its raw size
 */
function splitByGroup(code: string, map: SourceMapV3): Map<string, { chars: boolean[]; bytes: number }> {
  const lines = code.split('\n');
  const decoded = decode(map.mappings);
  const groups = new Map<string, { chars: boolean[]; bytes: number }>();
  const owner = (g: string) => {
    let entry = groups.get(g);
    if (!entry) groups.set(g, (entry = { chars: [], bytes: 0 }));
    return entry;
  };
  let offset = 0;
  lines.forEach((line, i) => {
    const segments = decoded[i] ?? [];
    const mark = (from: number, to: number, g: string) => {
      const entry = owner(g);
      for (let c = from; c < to; c++) entry.chars[offset + c] = true;
      entry.bytes += Buffer.byteLength(line.slice(from, to), 'utf8');
    };
    if ((segments[0]?.[0] ?? line.length) > 0) mark(0, segments[0]?.[0] ?? line.length, '(bundler)');
    segments.forEach((seg, s) => {
      const end = segments[s + 1]?.[0] ?? line.length;
      mark(seg[0], end, seg.length > 1 ? groupOf(map.sources[seg[1]!]!) : '(bundler)');
    });
    offset += line.length + 1;
  });
  return groups;
}

/**
 * The composition table of a bundle, largest raw share first.
 *
 * @param code the bundle (`.build/bundle/gateway/index.js`)
 * @param map its source map (`index.js.map`)
 * @returns one row per group whose raw share is at least `minKiB` (default 0.5), then one `(other)` row for the rest
 */
export function composition(code: string, map: SourceMapV3, minKiB = 0.5): CompositionRow[] {
  const total = gzipKiB(code);
  const rows: CompositionRow[] = [];
  let otherBytes = 0;
  const otherChars: boolean[] = [];
  for (const [group, { chars, bytes }] of splitByGroup(code, map)) {
    if (bytes / 1024 < minKiB) {
      otherBytes += bytes;
      chars.forEach((on, i) => on && (otherChars[i] = true));
      continue;
    }
    rows.push({ group, rawKiB: bytes / 1024, gzipKiB: total - gzipKiB(without(code, chars)) });
  }
  rows.sort((a, b) => b.rawKiB - a.rawKiB);
  if (otherBytes > 0) rows.push({ group: '(other)', rawKiB: otherBytes / 1024, gzipKiB: total - gzipKiB(without(code, otherChars)) });
  return rows;
}

function without(code: string, chars: boolean[]): string {
  let out = '';
  let start = 0;
  for (let i = 0; i <= code.length; i++) {
    if (i === code.length || chars[i]) {
      out += code.slice(start, i);
      start = i + 1;
    }
  }
  return out;
}

/** The table as Markdown (for docs/explanation/scaling.md), with the bundle's own totals as the last row. */
export function compositionMarkdown(rows: readonly CompositionRow[], totalRawKiB: number, totalGzipKiB: number): string {
  const out = ['| part of the bundle | raw KiB | adds gzip KiB |', '|---|---:|---:|'];
  for (const r of rows) out.push(`| ${r.group} | ${r.rawKiB.toFixed(1)} | ${r.gzipKiB.toFixed(1)} |`);
  out.push(`| **total** (wrangler) | **${totalRawKiB.toFixed(1)}** | **${totalGzipKiB.toFixed(1)}** |`);
  return out.join('\n');
}
