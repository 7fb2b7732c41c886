// `npm run bench:compare -- <git revision>`: this tree against another revision on a noisy machine.
// Both bench builds run side by side in one Miniflare (one workerd), and each load runs in short
// slices that alternate between the two, so whatever else the machine does slows both alike; the
// table shows medians over slices of each side's ratio to its own no-op route, and of this tree's
// req/s to the other's. Loopback only, bounded: SLICES x scenarios x 2 sides x SLICE_S seconds.
import { writePageAssets } from '../scripts/page-assets.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { generateDevSecrets } from '../scripts/lib/dev-secrets.ts';
import {
  ORIGIN_WORKER,
  PER_ROW,
  SEATS,
  admittedVisitors,
  benchWorker,
  gatewayAt,
  jarCookie,
  load,
  median,
  type BenchGateway,
} from './harness.ts';
import { pickSeatIndexes, prng } from './hotspot.ts';

const REV = process.argv[2] ?? 'main';
const SLICES = Number(process.env.BENCH_SLICES) || 5;
const SLICE_S = Number(process.env.BENCH_SECONDS) || 2;
const VISITORS = 200;
/**
 * Direct sockets skip Miniflare's entry Worker, which sets CF-Connecting-IP: set it here, so joins
 * pass through the IP join limiter as they do behind Cloudflare.
 */
const CLIENT = { 'cf-connecting-ip': '203.0.113.9' };

/** A load whose req/s is compared; `prepare` runs once per side before the slices. */
interface Target {
  id: string;
  name: string;
  prepare: (gw: BenchGateway, side: string) => Promise<(gw: BenchGateway) => Promise<number>>;
}

let ids: string[] = [];

/** Scenario ids to compare (comma-separated; the no-op and one-write baselines always run); unset = all. */
const ONLY = process.env.BENCH_ONLY ? new Set(['noop', 'write', ...process.env.BENCH_ONLY.split(',')]) : null;

const ALL_TARGETS: Target[] = [
  { id: 'noop', name: 'no-op Worker route (A)', prepare: async () => async (gw) => (await load(`${gw.base}/__bench/noop`, SLICE_S)).rps },
  {
    id: 'write',
    name: 'one-SQLite-write round trip (C)',
    prepare: async () => async (gw) => (await load(`${gw.base}/__bench/write-do`, SLICE_S)).rps,
  },
  {
    id: 'forward',
    name: 'bare forward to the origin (F)',
    prepare: async () => async (gw) => (await load(`${gw.base}/__bench/forward`, SLICE_S)).rps,
  },
  {
    id: 'pass-through',
    name: 'pass-through (no room covers it)',
    prepare: async () => async (gw) => (await load(`${gw.base}/site/home`, SLICE_S)).rps,
  },
  {
    id: 'admitted',
    name: 'admitted page request in a room',
    prepare: async (gw, side) => {
      const event = `cmp-admitted-${side}`;
      await gw.createEvent(event);
      const cookies = (await admittedVisitors(gw, event, VISITORS)).map(jarCookie);
      let n = 0;
      return async (g) =>
        (
          await load(`${g.base}/events/${event}/tickets`, SLICE_S, {
            requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[n++ % VISITORS]! } }) }],
          })
        ).rps;
    },
  },
  {
    id: 'joins',
    name: 'joins, 1 queue shard',
    prepare: async (gw, side) => {
      let slice = 0;
      return async (g) => {
        // A fresh event per slice, so every slice starts from the same state.
        const event = `cmp-join-${side}-${slice++}`;
        await g.createEvent(event, { queueShards: 1 });
        return (await load(`${g.base}/_wr/events/${event}/join`, SLICE_S, { method: 'POST', headers: CLIENT })).rps;
      };
    },
  },
  {
    id: 'joins-nolimit',
    name: 'joins, 1 shard, no limiter call',
    prepare: async (gw, side) => {
      let slice = 0;
      return async (g) => {
        const event = `cmp-join-nl-${side}-${slice++}`;
        await g.createEvent(event, { queueShards: 1 });
        // No CF-Connecting-IP: the IP join limiter is not called (Miniflare emulates it as an HTTP call to one object).
        return (await load(`${g.base}/_wr/events/${event}/join`, SLICE_S, { method: 'POST' })).rps;
      };
    },
  },
  {
    id: 'holds',
    name: 'holds end to end',
    prepare: async (gw, side) => {
      const event = `cmp-holds-${side}`;
      await gw.createEvent(event);
      const cookies = (await admittedVisitors(gw, event, VISITORS)).map(jarCookie);
      const random = prng(11);
      let n = 0;
      return async (g) =>
        (
          await load(`${g.base}/_wr/events/${event}/holds`, SLICE_S, {
            requests: [
              {
                method: 'POST',
                setupRequest: (req) => ({
                  ...req,
                  headers: {
                    ...req.headers,
                    cookie: cookies[n % VISITORS]!,
                    'content-type': 'application/json',
                    'idempotency-key': `c-${n++}`,
                  },
                  body: JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) }),
                }),
              },
            ],
          })
        ).rps;
    },
  },
  {
    // The Inventory RPC alone: the bench Worker calls Inventory.hold with the body, no gateway code.
    id: 'hold-direct',
    name: 'holds, Worker -> Inventory RPC only',
    prepare: async (gw, side) => {
      const event = `cmp-direct-${side}`;
      await gw.createEvent(event);
      const random = prng(17);
      return async (g) =>
        (
          await load(`${g.base}/__bench/hold-direct?event=${event}`, SLICE_S, {
            requests: [
              {
                method: 'POST',
                setupRequest: (req) => ({
                  ...req,
                  body: JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) }),
                }),
              },
            ],
          })
        ).rps;
    },
  },
  {
    // Holds back to back inside a fresh Inventory (one request, no network): the object's own cost.
    id: 'in-object',
    name: 'holds inside the object',
    prepare: async (_gw, side) => {
      let slice = 0;
      return async (g) => {
        const event = `cmp-in-${side}-${slice++}`;
        await g.createEvent(event);
        const t0 = performance.now();
        const res = await fetch(
          `${g.base}/__bench/in-object?event=${event}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=${slice}`,
        );
        await res.arrayBuffer();
        return IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000);
      };
    },
  },
];
/** Holds per slice of the in-object scenario. */
const IN_OBJECT_HOLDS = 600;

const TARGETS = ALL_TARGETS.filter((t) => !ONLY || ONLY.has(t.id));

/** Checks out `rev` under .build/ (git archive, node_modules linked) and bundles its bench Worker. */
function buildRevision(rev: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', rev], { encoding: 'utf8' }).trim();
  const dir = resolve('.build', `compare-${sha}`);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C ${dir}`]);
    symlinkSync(resolve('node_modules'), resolve(dir, 'node_modules'));
  }
  const out = `.build/compare-${sha}.js`;
  bundleWorker(resolve(dir, 'bench/bench-worker.ts'), out);
  return out;
}

async function main(): Promise<void> {
  const baseScript = buildRevision(REV);
  bundleWorker('bench/bench-worker.ts', '.build/bench-worker.js');
  await writePageAssets();
  const secrets = generateDevSecrets();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      handleStructuredLogs: () => {},
      workers: [
        { ...benchWorker('now', '.build/bench-worker.js', secrets, '7102'), unsafeDirectSockets: [{ port: 0 }] },
        { ...benchWorker('base', baseScript, secrets, '7103', false), unsafeDirectSockets: [{ port: 0 }] },
        ORIGIN_WORKER,
      ],
    }),
  );
  await mf.ready;
  const sides = {
    now: gatewayAt(mf, (await mf.unsafeGetDirectURL('now')).toString(), secrets, () => 0),
    base: gatewayAt(mf, (await mf.unsafeGetDirectURL('base')).toString(), secrets, () => 0),
  };
  ids = (await (await fetch(`${sides.now.base}/__bench/seat-ids?count=${SEATS}&perRow=${PER_ROW}`)).json()) as string[];
  console.log(`this tree vs ${REV}, side by side in one Miniflare: ${SLICES} slices of ${SLICE_S} s per scenario and side\n`);
  for (const gw of Object.values(sides)) await load(`${gw.base}/__bench/noop`, 1);
  const runs = new Map<string, Record<'now' | 'base', (gw: BenchGateway) => Promise<number>>>();
  for (const t of TARGETS) runs.set(t.id, { now: await t.prepare(sides.now, 'now'), base: await t.prepare(sides.base, 'base') });
  const rps = new Map<string, number[]>();
  const push = (k: string, v: number) => rps.set(k, [...(rps.get(k) ?? []), v]);
  for (let slice = 0; slice < SLICES; slice++) {
    // Alternate which side goes first, so neither always gets the calmer moment.
    const order = slice % 2 === 0 ? (['base', 'now'] as const) : (['now', 'base'] as const);
    for (const t of TARGETS) for (const side of order) push(`${t.id}:${side}`, await runs.get(t.id)![side](sides[side]));
  }
  // Paired latency: one request at a time, alternating sides request by request, so each pair
  // sees the same moment of the machine; the median of per-pair ratios is robust to its swings.
  const paired = process.env.BENCH_PAIRS === '0' ? {} : await pairedLatency(sides);
  await mf.dispose();
  const m = (k: string) => median(rps.get(k)!);
  const perSlice = (a: string, b: string) => median(rps.get(a)!.map((v, i) => v / rps.get(b)![i]!));
  console.log(`${'scenario (median of slices)'.padEnd(34)}  ${REV.padStart(10)} req/s   now req/s   ${REV} vs A   now vs A   now / ${REV}`);
  for (const t of TARGETS) {
    console.log(
      [
        t.name.padEnd(34),
        m(`${t.id}:base`).toFixed(0).padStart(16),
        m(`${t.id}:now`).toFixed(0).padStart(11),
        perSlice(`${t.id}:base`, 'noop:base')
          .toFixed(2)
          .padStart(8 + REV.length),
        perSlice(`${t.id}:now`, 'noop:now').toFixed(2).padStart(10),
        perSlice(`${t.id}:now`, `${t.id}:base`)
          .toFixed(2)
          .padStart(11 + REV.length),
      ].join(''),
    );
  }
  const vsC = (id: string) =>
    rps.has(`${id}:now`)
      ? `${REV} ${perSlice(`${id}:base`, 'write:base').toFixed(2)}, now ${perSlice(`${id}:now`, 'write:now').toFixed(2)}`
      : '-';
  if (rps.has('pass-through:now') && rps.has('forward:now'))
    console.log(
      `\npass-through vs F: ${REV} ${perSlice('pass-through:base', 'forward:base').toFixed(2)}, now ${perSlice('pass-through:now', 'forward:now').toFixed(2)} (target >= 0.90)`,
    );
  console.log(
    `\nholds vs C: ${vsC('holds')} (target >= 0.80); joins vs C: ${vsC('joins')}; joins without the limiter call vs C: ${vsC('joins-nolimit')}; ` +
      `Inventory RPC alone vs C: ${vsC('hold-direct')}; holds inside the object vs C: ${vsC('in-object')}`,
  );
  console.log(`\nsingle requests, one at a time, sides alternating (median of ${PAIRS} pairs):`);
  for (const [name, r] of Object.entries(paired))
    console.log(`${name.padEnd(34)}  ${REV} ${r.base.toFixed(2)} ms  now ${r.now.toFixed(2)} ms  now / ${REV} ${r.ratio.toFixed(2)}`);
}

const PAIRS = Number(process.env.BENCH_PAIRS) || 300;

/** Median latency (ms) of single joins and holds on each side, and the median per-pair ratio. */
async function pairedLatency(sides: Record<'now' | 'base', BenchGateway>) {
  const timed = async (f: () => Promise<Response>) => {
    const t0 = performance.now();
    const res = await f();
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  const setup = async (gw: BenchGateway, side: string) => {
    const joinEvent = `pair-join-${side}`;
    await gw.createEvent(joinEvent, { queueShards: 1 });
    const holdEvent = `pair-holds-${side}`;
    await gw.createEvent(holdEvent);
    const cookies = (await admittedVisitors(gw, holdEvent, 20)).map(jarCookie);
    const random = prng(13);
    let n = 0;
    return {
      join: () => fetch(`${gw.base}/_wr/events/${joinEvent}/join`, { method: 'POST', headers: CLIENT }),
      joinNoLimit: () => fetch(`${gw.base}/_wr/events/${joinEvent}/join`, { method: 'POST' }),
      hold: () =>
        fetch(`${gw.base}/_wr/events/${holdEvent}/holds`, {
          method: 'POST',
          headers: { cookie: cookies[n % cookies.length]!, 'content-type': 'application/json', 'idempotency-key': `p-${n++}` },
          body: JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) }),
        }),
      noop: () => fetch(`${gw.base}/__bench/noop`),
      forward: () => fetch(`${gw.base}/__bench/forward`),
      pass: () => fetch(`${gw.base}/site/home`),
      write: () => fetch(`${gw.base}/__bench/write-do`),
    };
  };
  const calls = { now: await setup(sides.now, 'now'), base: await setup(sides.base, 'base') };
  const out: Record<string, { base: number; now: number; ratio: number }> = {};
  for (const kind of ['noop', 'forward', 'pass', 'write', 'join', 'joinNoLimit', 'hold'] as const) {
    const base: number[] = [];
    const now: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        base.push(await timed(calls.base[kind]));
        now.push(await timed(calls.now[kind]));
      } else {
        now.push(await timed(calls.now[kind]));
        base.push(await timed(calls.base[kind]));
      }
    }
    const name = {
      noop: 'no-op Worker route (A)',
      forward: 'bare forward to the origin (F)',
      pass: 'pass-through',
      write: 'one-SQLite-write round trip (C)',
      join: 'join, 1 queue shard',
      joinNoLimit: 'join, no limiter call',
      hold: 'hold end to end',
    }[kind];
    out[name] = { base: median(base), now: median(now), ratio: median(now.map((v, i) => v / base[i]!)) };
  }
  return out;
}

await main();
