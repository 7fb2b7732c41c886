// Reads the CPU profile `wrangler check startup` writes (V8's .cpuprofile, the Chrome DevTools
// format): how long the Worker's own top-level code ran, and which part of the bundle ran it.
import { decode } from '@jridgewell/sourcemap-codec';
import { groupOf, type SourceMapV3 } from './bundle-composition.ts';

/** The subset of V8's `Profiler.Profile` (Chrome DevTools Protocol) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  /** The node on top of the stack at each sample. */
  samples: number[];
  /** Microseconds between a sample and the previous one (the first: since the profile's start). */
  timeDeltas: number[];
}

/** What the Worker's start-up cost, from one profile. */
export interface StartupFigures {
  /** CPU time of samples whose stack is inside the bundle (module evaluation: top-level code), ms. */
  scriptMs: number;
  /** That time by part of the bundle (self time of the frame on top, mapped through the source map), ms. */
  byGroup: Map<string, number>;
}

/**
 * Attributes each sample's duration (the gap to the next sample; a sample's own delta measures the
 * gap before it) to the bundle when any frame of its stack comes from `bundleUrl`.
 *
 * @param profile the parsed .cpuprofile
 * @param bundleUrl how the profile names the bundle's script (it ends with `index.js`)
 * @param map the bundle's source map, to name the part of the bundle of each sampled frame (optional)
 */
export function startupFigures(profile: CpuProfile, bundleUrl: (url: string) => boolean, map?: SourceMapV3): StartupFigures {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const lines = map ? decode(map.mappings) : [];
  const groupAt = (line: number, column: number): string => {
    const segments = lines[line] ?? [];
    let found = '(bundler)';
    for (const seg of segments) {
      if (seg[0] > column) break;
      found = seg.length > 1 ? groupOf(map!.sources[seg[1]!]!) : '(bundler)';
    }
    return found;
  };
  const gaps = profile.timeDeltas.slice(1).filter((d) => d > 0);
  const typicalGapUs = gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)] ?? 1000;
  let scriptUs = 0;
  const byGroup = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    let inBundle = false;
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) if (bundleUrl(byId.get(x)!.callFrame.url)) inBundle = true;
    if (!inBundle) return;
    const us = profile.timeDeltas[i + 1] ?? typicalGapUs;
    scriptUs += us;
    const top = byId.get(id)!.callFrame;
    const group = bundleUrl(top.url) ? groupAt(top.lineNumber, top.columnNumber) : '(runtime)';
    byGroup.set(group, (byGroup.get(group) ?? 0) + us / 1000);
  });
  return { scriptMs: scriptUs / 1000, byGroup };
}

/** Wrangler's summary of `check startup`: `Active: 38.5 ms (including 3.7 ms garbage collection)`. */
export function wranglerActiveMs(stdout: string): number {
  const m = /Active: ([\d.]+) ms/.exec(stdout);
  if (!m) throw new Error(`wrangler check startup printed no "Active: ... ms" line:\n${stdout}`);
  return Number(m[1]);
}
