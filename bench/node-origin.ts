// Bench row: an admitted visitor's page request through the gateway in front of the Node example
// origin (ORIGIN_URL), against the same request sent to the Node origin directly: the gateway's
// overhead on a real HTTP origin. Runs on its own (`node bench/node-origin.ts`) or from gateway.ts.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { BENCH_ASSETS } from './harness.ts';
import { cpuMeter, cpuUs } from './process-cpu.ts';
import { writePageAssets } from '../scripts/page-assets.ts';
import { generateDevSecrets } from '../scripts/lib/dev-secrets.ts';
import { freePort, nodeBinary, ROOT } from '../scripts/lib/dev-server.ts';

/** One load run: requests per second, latency percentiles in ms, non-2xx answers and errors. */
export interface NodeOriginSample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Answers by HTTP status, e.g. { "200": 9000, "503": 12 }. */
  statuses: Record<string, number>;
  /** CPU time per answer, us: the gateway's workerd processes (through the gateway), or the origin process (direct). */
  cpuUs: number;
}

const EVENT = 'bench-node';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function load(
  url: string,
  headers: Record<string, string>,
  connections: number,
  durationS: number,
  cpu: () => () => number,
): Promise<NodeOriginSample> {
  const meter = cpu();
  const r = await autocannon({ url, connections, duration: durationS, headers });
  const used = meter();
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, v?.count ?? 0]));
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statuses,
    cpuUs: used / Math.max(1, r.requests.total),
  };
}

/**
 * Runs `reps` pairs of load runs (gateway, then direct) of `durationS` seconds each with
 * `connections` connections, and returns both sample sets. The Node origin runs in its own process
 * (`example-origin/server.ts`) so that it does not share this process's event loop with the load
 * generator; the gateway runs under Miniflare (the built Worker, as in gateway.ts).
 * @throws Error when the visitor is not admitted or a run answers anything but 200
 */
export async function benchNodeOrigin(opts: { reps: number; durationS: number; connections: number }) {
  bundleWorker('bench/bench-worker.ts', '.build/bench-worker.js');
  await writePageAssets();
  const secrets = generateDevSecrets();
  const originPort = await freePort();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      handleStructuredLogs: () => {},
      workers: [
        {
          name: 'bench',
          modules: true,
          scriptPath: '.build/bench-worker.js',
          compatibilityDate: '2026-11-01',
          bindings: {
            ...secrets,
            TOKEN_ISSUER: 'waiting-room-gateway',
            ORIGIN_URL: `http://127.0.0.1:${originPort}`,
            RELEASE_TICK_MS: '500',
          },
          durableObjects: {
            WAITING_ROOM: { className: 'WaitingRoom', useSQLite: true },
            INVENTORY: { className: 'BenchInventory', useSQLite: true },
            NOOP: { className: 'Noop', useSQLite: true },
            QUEUE_SHARD: { className: 'QueueShard', useSQLite: true },
            DIRECTORY: { className: 'EventDirectory', useSQLite: true },
          },
          serviceBindings: { ORIGIN: async () => new Response('unused: ORIGIN_URL is set') },
          ratelimits: { IP_RATE_LIMITER: { namespace_id: '7102', simple: { limit: 1_000_000, period: 10 } } },
          assets: BENCH_ASSETS,
        },
      ],
    }),
  );
  const base = (await mf.ready).toString().replace(/\/$/, '');
  const origin = spawn(nodeBinary(), [join(ROOT, 'example-origin', 'server.ts')], {
    env: { ...process.env, PORT: String(originPort), GATEWAY_URL: base, ORIGIN_HMAC_SECRET: secrets.ORIGIN_HMAC_SECRET, EVENT_ID: EVENT },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const admin = { authorization: `Bearer ${secrets.ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/_wr/admin/events/${EVENT}`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        releaseRatePerMinute: 1_000_000,
        minReleaseRatePerMinute: 1_000_000,
        maxActiveVisitors: 1_000,
        seats: 10,
        admissionTtlSeconds: 3600,
      }),
    });
    if (!created.ok) throw new Error(`create ${EVENT}: ${created.status} ${await created.text()}`);
    // One admitted visitor: its cookies for the gateway, its admission token for the direct runs.
    const jar = new Map<string, string>();
    const keep = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const i = pair!.indexOf('=');
        jar.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
    };
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    keep(await fetch(`${base}/_wr/events/${EVENT}/join`, { method: 'POST' }));
    let token = '';
    for (let i = 0; i < 40 && !token; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const res = await fetch(`${base}/_wr/events/${EVENT}/status`, { headers: { cookie: cookie(), accept: 'application/json' } });
      keep(res);
      token = ((await res.json()) as { admissionToken?: string }).admissionToken ?? '';
    }
    if (!token) throw new Error('the bench visitor was never admitted');
    for (let i = 0; i < 40; i++) {
      const up = await fetch(`http://127.0.0.1:${originPort}/`).catch(() => null);
      if (up?.ok) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const page = `/events/${EVENT}/`;
    // The origin process's own CPU, for the direct rows (no workerd on that path).
    const originCpu = () => {
      const start = cpuUs([origin.pid!]);
      return () => cpuUs([origin.pid!]) - start;
    };
    const gateway: NodeOriginSample[] = [];
    const direct: NodeOriginSample[] = [];
    for (let rep = 0; rep < opts.reps; rep++) {
      gateway.push(await load(base + page, { cookie: cookie() }, opts.connections, opts.durationS, cpuMeter));
      direct.push(
        await load(`http://127.0.0.1:${originPort}${page}`, { 'x-admission-token': token }, opts.connections, opts.durationS, originCpu),
      );
    }
    for (const [side, runs] of [
      ['through the gateway', gateway],
      ['direct', direct],
    ] as const)
      for (const s of runs)
        if (s.non2xx > 0 || s.errors > 0)
          throw new Error(`a run ${side} had ${s.non2xx} non-2xx answers (${JSON.stringify(s.statuses)}) and ${s.errors} errors`);
    return { gateway, direct };
  } finally {
    origin.kill('SIGTERM');
    await mf.dispose();
  }
}

/** The two rows, in the bench table's format (gateway-report.ts) (median of the runs; ratio of the gateway path to direct). */
export function nodeOriginRows(r: { gateway: NodeOriginSample[]; direct: NodeOriginSample[] }): string[] {
  const cells = (name: string, s: NodeOriginSample[], ratio: string, note: string) =>
    [
      name.padEnd(42),
      median(s.map((x) => x.rps))
        .toFixed(0)
        .padStart(8),
      median(s.map((x) => x.p50))
        .toFixed(1)
        .padStart(8),
      median(s.map((x) => x.p99))
        .toFixed(1)
        .padStart(8),
      ratio.padStart(7),
      median(s.map((x) => x.cpuUs))
        .toFixed(0)
        .padStart(8),
      '      -',
      note,
    ].join('  ');
  const ratio = (median(r.gateway.map((x) => x.rps)) / median(r.direct.map((x) => x.rps))).toFixed(2);
  return [
    cells(
      'Node origin page, direct (token header)',
      r.direct,
      '1.00',
      'baseline N: example-origin verifies the token per request (CPU: the origin process)',
    ),
    cells(
      'Node origin page through the gateway',
      r.gateway,
      ratio,
      'ratio vs N: the gateway overhead on an admitted page request (CPU: workerd)',
    ),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reps = Number(process.env.BENCH_REPS) || 3;
  const durationS = Number(process.env.BENCH_SECONDS) || 4;
  const result = await benchNodeOrigin({ reps, durationS, connections: 50 });
  console.log(`\n${`scenario (median of ${reps})`.padEnd(43)}     req/s   p50 ms   p99 ms    ratio    cpu us     +us`);
  for (const line of nodeOriginRows(result)) console.log(line);
}
