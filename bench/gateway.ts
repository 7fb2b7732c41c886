// `npm run bench`: the gateway under a flash crowd on this machine, next to no-op baselines measured
// in the same run, under Miniflare (the built Worker, no dev proxy): joins, polls of waiting
// visitors (and the object calls they cost), seat holds with hot-spot contention on 50,000 seats,
// the seat map for 1,000 concurrent readers.
import autocannon from 'autocannon';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy.ts';
import { bundleWorker } from '../scripts/lib/bundle.ts';
import { generateDevSecrets } from '../scripts/lib/dev-secrets.ts';
import { pickSeatIndexes, prng } from './hotspot.ts';
import { benchNodeOrigin, nodeOriginRows } from './node-origin.ts';

const REPS = Number(process.env.BENCH_REPS) || 3;
const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;
const CONNECTIONS = 50;
const SEATS = 50_000;
const PER_ROW = 100;
const VISITORS = 200;
const IN_OBJECT_HOLDS = 3_000;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  codes: Record<string, number>;
  errors: number;
}

let logLines = 0;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function load(url: string, opts: Partial<autocannon.Options> = {}): Promise<Sample> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...opts });
  const codes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) codes[code] = (v as { count: number }).count;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, codes, errors: r.errors + r.timeouts };
}

function cookieHeader(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const i = pair!.indexOf('=');
    jar.set(pair!.slice(0, i), pair!.slice(i + 1));
  }
}

async function main(): Promise<void> {
  bundleWorker('bench/bench-worker.ts', '.build/bench-worker.js');
  const secrets = generateDevSecrets();
  // Miniflare 5 takes a new options shape; it converts the familiar (v4) one.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      port: 0,
      // The Worker writes one JSON decision line per hold, as in production; the bench counts and
      // drops them instead of printing them (printing would measure the terminal).
      handleStructuredLogs: () => void logLines++,
      workers: [
        {
          name: 'bench',
          modules: true,
          scriptPath: '.build/bench-worker.js',
          compatibilityDate: '2026-11-01',
          bindings: { ...secrets, TOKEN_ISSUER: 'waiting-room-gateway', ORIGIN_URL: '', RELEASE_TICK_MS: '500' },
          durableObjects: {
            WAITING_ROOM: { className: 'WaitingRoom', useSQLite: true },
            INVENTORY: { className: 'BenchInventory', useSQLite: true },
            NOOP: { className: 'Noop', useSQLite: true },
            QUEUE_SHARD: { className: 'QueueShard', useSQLite: true },
            DIRECTORY: { className: 'EventDirectory', useSQLite: true },
          },
          serviceBindings: { ORIGIN: async () => new Response('origin') },
          // The production join limiter, raised so that it counts every join but never refuses the
          // bench's (one IP) crowd: it measures the path, not the limit.
          ratelimits: {
            IP_RATE_LIMITER: { namespace_id: '7102', simple: { limit: 1_000_000, period: 10 } },
          },
        },
      ],
    }),
  );
  const base = (await mf.ready).toString().replace(/\/$/, '');
  const admin = { authorization: `Bearer ${secrets.ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const createEvent = async (id: string, extra: Record<string, unknown> = {}) => {
    const res = await fetch(`${base}/_wr/admin/events/${id}`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        ...extra,
        releaseRatePerMinute: 1_000_000,
        minReleaseRatePerMinute: 1_000_000,
        maxActiveVisitors: 1_000_000,
        seats: SEATS,
        seatsPerRow: PER_ROW,
        maxSeatsPerAccount: 100,
        admissionTtlSeconds: 3600,
      }),
    });
    if (!res.ok) throw new Error(`create ${id}: ${res.status} ${await res.text()}`);
  };

  console.log(
    `Miniflare at ${base}; ${REPS} repetitions of ${DURATION_S} s, ${CONNECTIONS} connections; ${SEATS.toLocaleString()} seats, 80% of holds on the best 5%\n`,
  );
  const noop: Sample[] = [];
  const noopDo: Sample[] = [];
  const writeDo: Sample[] = [];
  const e2e: Sample[] = [];
  const direct: Sample[] = [];
  const inObject: number[] = [];
  const joins1: Sample[] = [];
  const joins4: Sample[] = [];
  const polls: Sample[] = [];
  const noopShaped: Sample[] = [];
  const callsPerPoll: number[] = [];
  const seatMap: Sample[] = [];
  const ids = seatIdsFor(SEATS, PER_ROW);

  const jarCookie = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const roomRequests = async (event: string) =>
    ((await (await fetch(`${base}/_wr/admin/events/${event}`, { headers: admin })).json()) as { queue: { objectRequests: number } }).queue
      .objectRequests;

  for (let rep = 0; rep < REPS; rep++) {
    noop.push(await load(`${base}/__bench/noop`));
    noopDo.push(await load(`${base}/__bench/noop-do`));
    writeDo.push(await load(`${base}/__bench/write-do`));

    // Joins: every request a new visitor (no cookie), with one queue shard and with four.
    for (const [shards, out] of [
      [1, joins1],
      [4, joins4],
    ] as const) {
      const event = `bench-join${shards}-${rep}`;
      await createEvent(event, { queueShards: shards });
      out.push(await load(`${base}/_wr/events/${event}/join`, { method: 'POST' }));
    }

    // Polls: waiting visitors with valid tickets on a paused sale (nobody is released), answered
    // at the edge; the WaitingRoom counts every call it gets.
    const pollEvent = `bench-poll-${rep}`;
    await createEvent(pollEvent);
    await fetch(`${base}/_wr/admin/events/${pollEvent}/pause`, { method: 'POST', headers: admin });
    const waiting = await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        const jar = new Map<string, string>();
        cookieHeader(await fetch(`${base}/_wr/events/${pollEvent}/join`, { method: 'POST' }), jar);
        return jarCookie(jar);
      }),
    );
    const before = await roomRequests(pollEvent);
    let p = 0;
    const pollRun = await autocannon({
      url: `${base}/_wr/events/${pollEvent}/status`,
      connections: CONNECTIONS,
      duration: DURATION_S,
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: waiting[p++ % VISITORS]! } }) }],
    });
    // Every WaitingRoom call the polls caused (stats are not counted).
    callsPerPoll.push(((await roomRequests(pollEvent)) - before) / pollRun.requests.total);
    const pollCodes: Record<string, number> = {};
    for (const [code, v] of Object.entries(pollRun.statusCodeStats ?? {})) pollCodes[code] = (v as { count: number }).count;
    polls.push({
      rps: pollRun.requests.average,
      p50: pollRun.latency.p50,
      p99: pollRun.latency.p99,
      codes: pollCodes,
      errors: pollRun.errors + pollRun.timeouts,
    });
    // The same request shape (a ticket cookie per request) on the no-op route: the client's and
    // the platform's share of a poll.
    let q = 0;
    noopShaped.push(
      await load(`${base}/__bench/noop`, {
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: waiting[q++ % VISITORS]! } }) }],
      }),
    );

    // In-object: one request runs IN_OBJECT_HOLDS holds back to back inside a fresh Inventory.
    const inEvent = `bench-in-${rep}`;
    await createEvent(inEvent);
    const t0 = performance.now();
    const r = await fetch(
      `${base}/__bench/in-object?event=${inEvent}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=${rep + 1}`,
    );
    const inResult = (await r.json()) as { granted: number };
    inObject.push(IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000));
    if (rep === 0) console.log(`in-object run: ${inResult.granted} of ${IN_OBJECT_HOLDS} holds granted`);

    // End to end: admitted visitors (real tickets and admission tokens) hold seats through the gateway.
    const event = `bench-e2e-${rep}`;
    await createEvent(event);
    const jars = await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        const jar = new Map<string, string>();
        cookieHeader(await fetch(`${base}/_wr/events/${event}/join`, { method: 'POST' }), jar);
        return jar;
      }),
    );
    for (let tries = 0; ; tries++) {
      await new Promise((res) => setTimeout(res, 700));
      let waiting = 0;
      for (const jar of jars) {
        if (jar.has(`__wr_a_${event}`)) continue;
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        cookieHeader(await fetch(`${base}/_wr/events/${event}/status`, { headers: { cookie } }), jar);
        if (!jar.has(`__wr_a_${event}`)) waiting++;
      }
      if (waiting === 0) break;
      if (tries > 20) throw new Error(`${waiting} bench visitors never admitted`);
    }
    const directRandom = prng(2000 + rep);
    direct.push(
      await load(`${base}/__bench/hold-direct?event=bench-in-${rep}`, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ seatIds: pickSeatIndexes(directRandom, SEATS, PER_ROW).map((k) => ids[k]!) }),
            }),
          },
        ],
      }),
    );
    const cookies = jars.map((jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const random = prng(1000 + rep);
    let n = 0;
    e2e.push(
      await load(`${base}/_wr/events/${event}/holds`, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: {
                ...req.headers,
                cookie: cookies[n % VISITORS]!,
                'content-type': 'application/json',
                'idempotency-key': `k-${rep}-${n++}`,
              },
              body: JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) }),
            }),
          },
        ],
      }),
    );
    // The seat map for 1,000 concurrent readers (admitted visitors' cookies, round robin), as a
    // sale page reads it: one snapshot, then deltas since its version.
    const snapshot = await (await fetch(`${base}/_wr/events/${event}/seats`, { headers: { cookie: cookies[0]! } })).text();
    const version = (JSON.parse(snapshot) as { version: number }).version;
    if (rep === 0) console.log(`seat map snapshot: ${(snapshot.length / 1024).toFixed(0)} KiB for ${SEATS.toLocaleString()} seats`);
    let m = 0;
    seatMap.push(
      await load(`${base}/_wr/events/${event}/seats?since=${version}`, {
        connections: 1000,
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[m++ % VISITORS]! } }) }],
      }),
    );
    const stats = (await (await fetch(`${base}/_wr/admin/events/${event}`, { headers: admin })).json()) as {
      inventory: { consistency: Record<string, number> };
    };
    if (Object.values(stats.inventory.consistency).some((v) => v !== 0))
      throw new Error(`inconsistent inventory: ${JSON.stringify(stats.inventory.consistency)}`);
  }
  await mf.dispose();
  // The gateway in front of the Node example origin (its own Miniflare, with ORIGIN_URL set).
  const nodeOrigin = await benchNodeOrigin({ reps: REPS, durationS: DURATION_S, connections: CONNECTIONS });

  const row = (name: string, samples: Sample[], baseline: Sample[] | null, note = '') => {
    const rps = median(samples.map((s) => s.rps));
    const ratio = baseline ? (rps / median(baseline.map((s) => s.rps))).toFixed(2) : '1.00';
    const cells = [
      name.padEnd(42),
      rps.toFixed(0).padStart(8),
      median(samples.map((s) => s.p50))
        .toFixed(1)
        .padStart(8),
      median(samples.map((s) => s.p99))
        .toFixed(1)
        .padStart(8),
      ratio.padStart(7),
      note,
    ];
    console.log(cells.join('  '));
  };
  console.log(`\n${'scenario (median of ' + REPS + ')'.padEnd(0)}`.padEnd(43) + '     req/s   p50 ms   p99 ms    ratio');
  row('no-op Worker route', noop, null, 'baseline A');
  row('no-op Worker route, poll-shaped requests', noopShaped, noop, "baseline A' (ratio vs A)");
  row('no-op Durable Object RPC', noopDo, noop, 'baseline B (ratio vs A)');
  const codes = e2e.map(
    (s) =>
      `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${
        Object.entries(s.codes)
          .filter(([c]) => c !== '201' && c !== '409')
          .map(([c, v]) => `${v} x ${c}`)
          .join(', ') || 'no other'
      }`,
  );
  row('Durable Object RPC with one SQLite upsert', writeDo, noopDo, 'baseline C (ratio vs B)');
  row('joins, 1 queue shard (new visitor each)', joins1, noop, 'ratio vs A');
  row('joins, 4 queue shards', joins4, noop, 'ratio vs A');
  row(
    'polls of waiting visitors (status)',
    polls,
    noop,
    `ratio vs A; vs A' (target >= 0.70): ${(median(polls.map((x) => x.rps)) / median(noopShaped.map((x) => x.rps))).toFixed(2)}; object calls per poll ${median(callsPerPoll).toFixed(4)} (target < 0.01)`,
  );
  row(
    'holds, Worker -> Inventory RPC only',
    direct,
    noopDo,
    `ratio vs B; vs C: ${(median(direct.map((x) => x.rps)) / median(writeDo.map((x) => x.rps))).toFixed(2)}`,
  );
  row(
    'holds end to end (gateway -> Inventory)',
    e2e,
    noopDo,
    `ratio vs B (target >= 0.70); vs C: ${(median(e2e.map((x) => x.rps)) / median(writeDo.map((x) => x.rps))).toFixed(2)}`,
  );
  row('seat map deltas, 1,000 concurrent readers', seatMap, noop, 'ratio vs A (edge-cached snapshot and deltas)');
  for (const line of nodeOriginRows(nodeOrigin)) console.log(line);
  const inMedian = median(inObject);
  console.log(
    `${'holds inside the object (no network)'.padEnd(42)}  ${inMedian.toFixed(0).padStart(8)}  ${'-'.padStart(8)}  ${'-'.padStart(8)}  ${(inMedian / median(noopDo.map((s) => s.rps))).toFixed(2).padStart(7)}  ratio vs B`,
  );
  console.log(`\nend-to-end answers per repetition: ${codes.join('; ')}`);
  console.log(`decision log lines written by the Worker during the run: ${logLines.toLocaleString()}`);
  console.log(`poll answers per repetition: ${polls.map((s) => JSON.stringify(s.codes)).join('; ')}`);
  console.log(`seat map answers per repetition: ${seatMap.map((s) => `${JSON.stringify(s.codes)}, ${s.errors} errors`).join('; ')}`);
  console.log('inventory consistency after every repetition: 0 seats with two orders, 0 sold seats without their order, 0 tier errors');
}

await main();
