// `npm run bench:profile`: where a join's and a hold's time goes. Runs the bench Worker under
// Miniflare with the V8 inspector open, loads one path for a few seconds while the CPU profiler
// samples the Worker's isolate (the gateway and its Durable Objects run in it), and prints each
// stage's share of the samples: a stage owns every sample whose stack passes through one of its
// functions (first match in STAGES order wins, so nested stages are listed before their callers).
import { PER_ROW, SEATS, admittedVisitors, jarCookie, load, startGateway } from './harness.ts';
import { STUB_HEADER } from './bench-routes.ts';
import { pickSeatIndexes, prng } from './hotspot.ts';
import { freePort } from '../scripts/lib/dev-server.ts';
import { admittedSteps, profiledAdmitted } from './profile-admitted.ts';
import { buildSync } from 'esbuild';
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';

const PROFILE_BUNDLE = '.build/bench-worker-profile.js';

const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;
/** Sampling interval of the V8 CPU profiler, microseconds. */
const SAMPLING_US = 200;

/** A stage of a request: the source files (bundle paths, matched as substrings) its code lives in. */
interface Stage {
  name: string;
  files: readonly string[];
}

/**
 * Stages in priority order: a sample counts for the first stage whose files appear anywhere on its
 * stack (so a SQLite call made by the shard counts for the shard, jose called by token.ts for the
 * tokens). Native frames (no source) count for their nearest JavaScript caller.
 */
const STAGES: readonly Stage[] = [
  { name: 'ticket/token signing + verification (jose, token.ts)', files: ['node_modules/jose/', 'src/lib/token.ts'] },
  { name: 'decision log line (log.ts, console.log)', files: ['src/lib/log.ts'] },
  { name: 'rate limiter call', files: ['src/middleware/rate-limit.ts'] },
  { name: 'QueueShard.join in the object (SQLite write)', files: ['durable-objects/waiting-room/queue-shard.ts'] },
  { name: 'WaitingRoom in the object', files: ['durable-objects/waiting-room/'] },
  { name: 'Inventory.hold in the object (SQLite)', files: ['durable-objects/inventory/'] },
  { name: 'hold signals', files: ['src/lib/hold-signals.ts'] },
  { name: 'body read + validation (zod)', files: ['src/lib/validate.ts', 'node_modules/zod/'] },
  { name: 'cursor read', files: ['src/lib/cursor-cache.ts'] },
  { name: 'entry-token / proof-of-work checks', files: ['src/lib/entry-token.ts', 'src/lib/proof-of-work.ts'] },
  { name: 'decision tally', files: ['src/lib/decision-tally.ts'] },
  { name: 'room table + matching', files: ['src/lib/room-table.ts', 'contracts/room-patterns.ts'] },
  { name: 'proxy: header rewriting, forward', files: ['src/lib/proxy.ts'] },
  { name: 'settings', files: ['src/lib/settings.ts', 'contracts/settings.ts'] },
  {
    name: 'credentials: cookies, session check',
    files: ['src/middleware/credentials.ts', 'src/lib/cookies.ts', 'src/lib/session-cache.ts'],
  },
  { name: 'Durable Object call wrapper', files: ['src/lib/do-call.ts'] },
  { name: 'router inventoryFor', files: ['src/lib/inventory-router.ts', 'contracts/inventory-names.ts'] },
  { name: 'response building (object-answers.ts)', files: ['src/lib/object-answers.ts'] },
  { name: 'route handlers (queue.ts, holds.ts)', files: ['src/routes/'] },
  { name: 'security headers', files: ['src/lib/security-headers.ts', 'src/lib/cache-control.ts'] },
  { name: 'hono (routing, context, cookies, JSON)', files: ['node_modules/hono/', 'src/middleware/same-origin.ts', 'src/app.ts'] },
  { name: 'bench wrapper', files: ['bench/'] },
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function devtools(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const pending = new Map<number, (v: unknown) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  };
  return {
    send: <T>(method: string, params: Record<string, unknown> = {}) =>
      new Promise<T>((resolve) => {
        const id = next++;
        pending.set(id, resolve as (v: unknown) => void);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** Shares of the profile's samples by stage, plus the top self-time source locations. */
function summarize(profile: Profile, map: SourceMap): { stages: [string, number][]; top: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sourceOf = (n: ProfileNode): string | null => {
    if (n.callFrame.lineNumber < 0 || !n.callFrame.url.includes('bench-worker')) return null;
    const entry = map.findEntry(n.callFrame.lineNumber, n.callFrame.columnNumber) as { originalSource?: string; originalLine?: number };
    return entry.originalSource ? `${entry.originalSource.replace(/^.*?\.\.\//, '')}:${(entry.originalLine ?? 0) + 1}` : null;
  };
  const memo = new Map<number, { stage: string; self: string }>();
  const classify = (id: number) => {
    const known = memo.get(id);
    if (known) return known;
    const files: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const src = sourceOf(byId.get(at)!);
      if (src) files.push(src);
    }
    const fn = byId.get(id)!.callFrame.functionName;
    const stage =
      STAGES.find((s) => s.files.some((f) => files.some((src) => src.includes(f))))?.name ??
      (['(idle)', '(program)', '(garbage collector)'].includes(fn)
        ? fn
        : files.length
          ? 'other JavaScript'
          : 'runtime (native, no JavaScript caller)');
    const self = `${fn || '(anonymous)'}@${files[0] ?? 'native'}`;
    const out = { stage, self };
    memo.set(id, out);
    return out;
  };
  const stageUs = new Map<string, number>();
  const selfUs = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const { stage, self } = classify(id);
    stageUs.set(stage, (stageUs.get(stage) ?? 0) + dt);
    selfUs.set(self, (selfUs.get(self) ?? 0) + dt);
  });
  const share = (m: Map<string, number>) => [...m].map(([k, v]): [string, number] => [k, v / total]).sort((a, b) => b[1] - a[1]);
  return { stages: share(stageUs), top: share(selfUs).slice(0, 20) };
}

/**
 * A hold's steps, each alone (bench/hold-micro.ts): at the edge for one admitted visitor, and inside
 * a fresh Inventory of SEATS seats. The second of two runs is printed (the first warms the JIT).
 */
async function holdSteps(gw: Awaited<ReturnType<typeof startGateway>>): Promise<void> {
  const event = 'steps-holds';
  await gw.createEvent(event);
  const [cookie] = (await admittedVisitors(gw, event, 1)).map(jarCookie);
  let out: { edge: Record<string, number>; inObject: Record<string, number> } | null = null;
  for (const run of [1, 2]) {
    const fresh = `steps-fresh-${run}`;
    await gw.createEvent(fresh);
    const res = await fetch(`${gw.base}/__bench/micro-hold?n=300&event=${event}&fresh=${fresh}&seats=${SEATS}&perRow=${PER_ROW}`, {
      method: 'POST',
      body: cookie,
    });
    if (!res.ok) throw new Error(`micro-hold: ${res.status} ${await res.text()}`);
    out = (await res.json()) as typeof out;
  }
  for (const [title, steps] of [
    ['a hold at the edge', out!.edge],
    ['a hold inside the Inventory', out!.inObject],
  ] as const) {
    console.log(`\n${title}, each step alone, mean of 300 calls:`);
    for (const [step, us] of Object.entries(steps)) console.log(`${step.padEnd(52)}  ${String(us).padStart(6)} us`);
  }
}

/** `PROFILE_HOLDS_ONLY=1`: only the two profiled hold loads (no step tables, joins or pass-through). */
const HOLDS_ONLY = Boolean(process.env.PROFILE_HOLDS_ONLY);
/** `PROFILE_ADMITTED_ONLY=1`: only the bare forward, pass-through and an admitted page request in a room. */
const ADMITTED_ONLY = Boolean(process.env.PROFILE_ADMITTED_ONLY);

async function main(): Promise<void> {
  if (ADMITTED_ONLY) await admittedSteps();
  if (!HOLDS_ONLY && !ADMITTED_ONLY) await stepTables();
  if (process.env.PROFILE_STEPS_ONLY) return;
  await profiledLoads();
}

/** The step tables: each step alone, whole requests, a hold's steps (no inspector). */
async function stepTables(): Promise<void> {
  // Each step alone, no contention (bench-micro.ts micro()), in a Worker without the inspector: the
  // profiler slows the JavaScript it samples unevenly, so its shares are for direction and these
  // timings are the step costs. The second of two runs is printed (the first warms the JIT).
  const plain = await startGateway();
  await fetch(`${plain.base}/__bench/micro?n=300`);
  const micro = (await (await fetch(`${plain.base}/__bench/micro?n=300`)).json()) as Record<string, number>;
  console.log(`each step alone, mean of 300 calls, one after another:`);
  for (const [step, us] of Object.entries(micro)) console.log(`${step.padEnd(52)}  ${String(us).padStart(6)} us`);
  // Whole requests the same way (bench/request-steps.ts), each path next to its floors.
  await plain.createEvent('steps-join', { queueShards: 1 });
  await plain.createEvent('steps-stub', { queueShards: 1 });
  const stepsUrl = `${plain.base}/__bench/request-steps?n=300&join=steps-join&stub=steps-stub`;
  await fetch(stepsUrl);
  const steps = (await (await fetch(stepsUrl)).json()) as Record<string, number>;
  console.log(`\nwhole requests inside the Worker, mean of 300, one after another (second run):`);
  for (const [step, us] of Object.entries(steps)) console.log(`${step.padEnd(52)}  ${String(us).padStart(6)} us`);
  await holdSteps(plain);
  await plain.mf.dispose();
}

/** CPU profiles of joins, pass-through and holds under load (holds only with PROFILE_HOLDS_ONLY). */
async function profiledLoads(): Promise<void> {
  const inspectorPort = await freePort();
  // Its own build, with a source map, so samples map back to source files.
  buildSync({
    entryPoints: ['bench/bench-worker.ts'],
    outfile: PROFILE_BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    external: ['cloudflare:workers'],
    logLevel: 'warning',
    sourcemap: 'external',
  });
  const map = new SourceMap(JSON.parse(readFileSync(`${PROFILE_BUNDLE}.map`, 'utf8')) as SourceMapPayload);
  const gw = await startGateway({ inspectorPort, scriptPath: PROFILE_BUNDLE });
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { id: string; webSocketDebuggerUrl?: string }[];
  const target = targets.find((t) => t.id.includes('bench'));
  if (!target?.webSocketDebuggerUrl) throw new Error(`no inspector target for the bench worker: ${JSON.stringify(targets)}`);
  const cdp = await devtools(target.webSocketDebuggerUrl);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_US });

  const profiled = async (label: string, run: () => Promise<{ rps: number; cpuUs: number }>) => {
    await cdp.send('Profiler.start');
    const { rps, cpuUs } = await run();
    const { profile } = await cdp.send<{ profile: Profile }>('Profiler.stop');
    const { stages, top } = summarize(profile, map);
    console.log(
      `\n${label}: ${rps.toFixed(0)} req/s, workerd CPU ${cpuUs.toFixed(0)} us per request while profiled (${DURATION_S} s, ${profile.samples.length} samples)`,
    );
    const busy = stages.filter(([s]) => s !== '(idle)').reduce((a, [, v]) => a + v, 0);
    console.log(`${'stage'.padEnd(44)}  of samples  of busy`);
    for (const [s, v] of stages)
      console.log(
        `${s.padEnd(44)}  ${(v * 100).toFixed(1).padStart(9)}%  ${s === '(idle)' ? '' : `${((v / busy) * 100).toFixed(1).padStart(6)}%`}`,
      );
    console.log(`top self time: ${top.map(([f, v]) => `${f} ${(v * 100).toFixed(1)}%`).join(', ')}`);
  };

  if (ADMITTED_ONLY) {
    await profiledAdmitted(gw, profiled);
    cdp.close();
    await gw.mf.dispose();
    return;
  }
  if (!HOLDS_ONLY) await profiledJoins(gw, profiled);

  const holdEvent = 'profile-holds';
  await gw.createEvent(holdEvent);
  const cookies = (await admittedVisitors(gw, holdEvent, 200)).map(jarCookie);
  const ids = (await (await fetch(`${gw.base}/__bench/seat-ids?count=${SEATS}&perRow=${PER_ROW}`)).json()) as string[];
  const random = prng(7);
  let n = 0;
  // The same holds through the real gateway, with the Inventory behind it (`holds end to end`) and
  // with the stub that stores nothing (the STUB_HEADER: the gateway's own share). The tokens and
  // sessions are warmed first, as in a sale where each visitor holds more than once.
  const holds = (stub: boolean) =>
    load(`${gw.base}/_wr/events/${holdEvent}/holds`, DURATION_S, {
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({
            ...req,
            headers: {
              ...req.headers,
              ...(stub ? { [STUB_HEADER]: '1' } : {}),
              cookie: cookies[n % cookies.length]!,
              'content-type': 'application/json',
              'idempotency-key': `p-${n++}`,
            },
            body: JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) }),
          }),
        },
      ],
    });
  for (const cookie of cookies) await fetch(`${gw.base}/_wr/events/${holdEvent}/seats?since=999999999`, { headers: { cookie } });
  await profiled('holds end to end', () => holds(false));
  await profiled('holds, gateway only (stub Inventory)', () => holds(true));
  console.log(`\ndecision log lines: ${gw.logLines().toLocaleString()}`);
  cdp.close();
  await gw.mf.dispose();
}

/** The profiled join and pass-through loads. */
async function profiledJoins(
  gw: Awaited<ReturnType<typeof startGateway>>,
  profiled: (label: string, run: () => Promise<{ rps: number; cpuUs: number }>) => Promise<void>,
): Promise<void> {
  const joinEvent = 'profile-join';
  await gw.createEvent(joinEvent, { queueShards: 1 });
  // Warm the isolate (JIT, key import, cursor) before sampling.
  await load(`${gw.base}/_wr/events/${joinEvent}/join`, 1, { method: 'POST' });
  await profiled('joins, 1 queue shard', () => load(`${gw.base}/_wr/events/${joinEvent}/join`, DURATION_S, { method: 'POST' }));

  const stubEvent = 'profile-join-stub';
  await gw.createEvent(stubEvent, { queueShards: 1 });
  const stubUrl = `${gw.base}/__bench/stub/_wr/events/${stubEvent}/join`;
  await load(stubUrl, 1, { method: 'POST' });
  await profiled('joins, gateway only (stub shard)', () => load(stubUrl, DURATION_S, { method: 'POST' }));
  await fetch(`${gw.base}/site/home`);
  await profiled('pass-through (no room covers the URL)', () => load(`${gw.base}/site/home`, DURATION_S));
}

await main();
