// Shared bench plumbing: the bench Worker under Miniflare, event creation, bounded autocannon loads
// and cookie jars. Used by bench/gateway.ts (the table) and bench/profile.ts (where a request's time goes).
import autocannon from 'autocannon';
import { PAGE_ASSETS_DIR, writePageAssets } from '../scripts/page-assets.ts';
import { Miniflare, convertV4MiniflareOptions, type V4WorkerOptions } from 'miniflare';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { generateDevSecrets, type DevSecrets } from '../scripts/lib/dev-secrets.ts';
import { cpuMeter } from './process-cpu.ts';

/** Concurrent connections of every load but the seat map's. */
export const CONNECTIONS = 50;
/** Seats of every bench event. */
export const SEATS = 50_000;
/** Seats per row of every bench event. */
export const PER_ROW = 100;

/** One autocannon run, reduced to what the table prints. */
export interface Sample {
  /** Mean requests per second over the run. */
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** Answers by HTTP status. */
  codes: Record<string, number>;
  /** Requests that got no answer (connection errors and timeouts). */
  errors: number;
  /** Requests answered in all. */
  total: number;
  /**
   * The workerd processes' CPU time (user + system) over the run divided by the answers, us per
   * request; NaN where /proc cannot be read.
   */
  cpuUs: number;
}

/** A running bench gateway. */
export interface BenchGateway {
  mf: Miniflare;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  base: string;
  secrets: DevSecrets;
  /** Headers of an admin API call. */
  admin: Record<string, string>;
  /** Decision log lines the Worker wrote so far (counted, never printed). */
  logLines: () => number;
  /** Creates (PUT) an open event sized for the bench, with `extra` settings on top. */
  createEvent: (id: string, extra?: Record<string, unknown>) => Promise<void>;
}

/** The median of a non-empty list. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Miniflare (v4-shaped) options of one bench Worker: the bench build of the gateway with its
 * objects, the production join limiter raised so that it counts every join but never refuses the
 * bench's one-IP crowd.
 * @param stubs bind the stub objects (StubInventory, StubShard) of bench-objects.ts; default true
 */
export function benchWorker(name: string, scriptPath: string, secrets: DevSecrets, namespaceId: string, stubs = true): V4WorkerOptions {
  return {
    name,
    modules: true,
    scriptPath,
    compatibilityDate: '2026-11-01',
    bindings: { ...secrets, TOKEN_ISSUER: 'waiting-room-gateway', ORIGIN_URL: '', RELEASE_TICK_MS: '500' },
    durableObjects: {
      WAITING_ROOM: { className: 'WaitingRoom', useSQLite: true },
      INVENTORY: { className: 'BenchInventory', useSQLite: true },
      NOOP: { className: 'Noop', useSQLite: true },
      // Older bench builds (bench:compare) have no stub objects.
      ...(stubs
        ? { STUB_INVENTORY: { className: 'StubInventory', useSQLite: true }, STUB_SHARD: { className: 'StubShard', useSQLite: true } }
        : {}),
      QUEUE_SHARD: { className: 'QueueShard', useSQLite: true },
      DIRECTORY: { className: 'EventDirectory', useSQLite: true },
      // The per-account limit of events with sections (the base build of bench:compare has none).
      ...(stubs ? { ACCOUNT_LEDGER: { className: 'AccountLedger', useSQLite: true } } : {}),
    },
    // The origin is a no-op Worker in the same runtime (ORIGIN_WORKER), so a pass-through costs the
    // hop, not a trip into Node.
    serviceBindings: { ORIGIN: 'origin' },
    ratelimits: { IP_RATE_LIMITER: { namespace_id: namespaceId, simple: { limit: 1_000_000, period: 10 } } },
    assets: BENCH_ASSETS,
  };
}

/**
 * The Worker's static assets as wrangler.toml `[assets]` declares them: the pages' words and scripts
 * (read once per isolate). Call writePageAssets() (scripts/page-assets.ts) first.
 */
export const BENCH_ASSETS = {
  directory: PAGE_ASSETS_DIR,
  binding: 'ASSETS',
  routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true },
};

/** The origin behind the bench gateway: a Worker that answers a fixed page, with no work of its own. */
export const ORIGIN_WORKER: V4WorkerOptions = {
  name: 'origin',
  modules: true,
  script: 'export default { fetch() { return new Response("origin page"); } };',
  compatibilityDate: '2026-11-01',
};

/** A BenchGateway for a bench Worker reachable at `base`. */
export function gatewayAt(mf: Miniflare, url: string, secrets: DevSecrets, logLines: () => number): BenchGateway {
  const base = url.replace(/\/$/, '');
  const admin = { authorization: `Bearer ${secrets.ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const createEvent = async (id: string, extra: Record<string, unknown> = {}) => {
    const res = await fetch(`${base}/_wr/admin/events/${id}`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        releaseRatePerMinute: 1_000_000,
        minReleaseRatePerMinute: 1_000_000,
        maxActiveVisitors: 1_000_000,
        seats: SEATS,
        seatsPerRow: PER_ROW,
        maxSeatsPerAccount: 100,
        admissionTtlSeconds: 3600,
        // A row's own settings (queue shards; sections instead of one block of seats) go on top.
        ...extra,
      }),
    });
    if (!res.ok) throw new Error(`create ${id}: ${res.status} ${await res.text()}`);
  };
  return { mf, base, secrets, admin, logLines, createEvent };
}

/**
 * Bundles bench/bench-worker.ts and starts it under Miniflare (no dev proxy).
 *
 * @param opts.inspectorPort opens the V8 inspector on this port (bench/profile.ts)
 * @param opts.scriptPath an already built bundle to run instead of building bench/bench-worker.ts
 */
export async function startGateway(opts: { inspectorPort?: number; scriptPath?: string } = {}): Promise<BenchGateway> {
  const scriptPath = opts.scriptPath ?? '.build/bench-worker.js';
  if (!opts.scriptPath) bundleWorker('bench/bench-worker.ts', scriptPath);
  await writePageAssets();
  const secrets = generateDevSecrets();
  let logLines = 0;
  // Miniflare 5 takes a new options shape; it converts the familiar (v4) one.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      ...(opts.inspectorPort ? { inspectorPort: opts.inspectorPort } : {}),
      // The Worker writes its decision lines as in production; the bench counts and drops them
      // instead of printing them (printing would measure the terminal).
      handleStructuredLogs: () => void logLines++,
      workers: [benchWorker('bench', scriptPath, secrets, '7102'), ORIGIN_WORKER],
    }),
  );
  return gatewayAt(mf, (await mf.ready).toString(), secrets, () => logLines);
}

/**
 * One bounded load on `url`: CONNECTIONS connections for `durationS` seconds, loopback only, with
 * the workerd processes' CPU per answer over it (bench/process-cpu.ts).
 * @param opts autocannon options on top (method, per-request `requests` setup, connections; `amount`
 *   sends that many requests instead of loading for `durationS`)
 */
export async function load(url: string, durationS: number, opts: Partial<autocannon.Options> = {}): Promise<Sample> {
  const cpu = cpuMeter();
  // autocannon notices that `amount` requests are answered only at its sampling tick (1 s by
  // default), which rounded such a run's length, and its req/s, to whole seconds: tick every 50 ms.
  const sampling = opts.amount ? { sampleInt: 50 } : {};
  const r = await autocannon({ url, connections: CONNECTIONS, duration: durationS, ...sampling, ...opts });
  const used = cpu();
  const codes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) codes[code] = (v as { count: number }).count;
  return {
    // With `amount` (a fixed number of requests) the run ends when they are answered: req/s over its
    // whole length, since autocannon's per-second mean would count the last, partial second as a whole one.
    rps: opts.amount ? r.requests.total / r.duration : r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    codes,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
    cpuUs: used / Math.max(1, r.requests.total),
  };
}

/** Stores the cookies of a response's Set-Cookie lines in `jar`. */
export function keepCookies(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const i = pair!.indexOf('=');
    jar.set(pair!.slice(0, i), pair!.slice(i + 1));
  }
}

/** A jar as a Cookie header. */
export const jarCookie = (jar: Map<string, string>): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * `count` visitors who joined `event` and were admitted (the event releases everyone at once).
 * @returns their cookie jars (queue ticket and admission token)
 */
export async function admittedVisitors(gw: BenchGateway, event: string, count: number): Promise<Map<string, string>[]> {
  const jars = await Promise.all(
    Array.from({ length: count }, async () => {
      const jar = new Map<string, string>();
      keepCookies(await fetch(`${gw.base}/_wr/events/${event}/join`, { method: 'POST' }), jar);
      return jar;
    }),
  );
  for (let tries = 0; ; tries++) {
    await new Promise((res) => setTimeout(res, 700));
    let waiting = 0;
    for (const jar of jars) {
      if (jar.has(`__wr_a_${event}`)) continue;
      keepCookies(await fetch(`${gw.base}/_wr/events/${event}/status`, { headers: { cookie: jarCookie(jar) } }), jar);
      if (!jar.has(`__wr_a_${event}`)) waiting++;
    }
    if (waiting === 0) return jars;
    if (tries > 20) throw new Error(`${waiting} bench visitors never admitted`);
  }
}
