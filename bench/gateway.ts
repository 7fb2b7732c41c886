// `npm run bench`: the gateway under a flash crowd on this machine, next to no-op baselines measured
// in the same run, under Miniflare (the built Worker, no dev proxy): joins, polls of waiting
// visitors (and the object calls they cost), seat holds with hot-spot contention on 50,000 seats,
// the seat map for 1,000 concurrent readers.
//
// To add a row: add a Scenario to SCENARIOS (what to load, once per repetition) and a Row to ROWS
// (how to print it: its baseline, its target). Scenarios run in list order in every repetition,
// so each one's baselines are measured minutes apart at most.
import {
  PER_ROW,
  SEATS,
  admittedVisitors,
  jarCookie,
  keepCookies,
  load,
  median,
  startGateway,
  type BenchGateway,
  type Sample,
} from './harness.ts';
import { STUB_HEADER } from './bench-routes.ts';
import { pickSeatIndexes, prng } from './hotspot.ts';
import { solvedProofs } from './proofs.ts';
import { createHmac } from 'node:crypto';
import { CHANNEL_KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signingInputV2 } from '../origin-sdk/src/protocol.ts';
import { benchNodeOrigin, nodeOriginRows } from './node-origin.ts';
import { measureStartup, startupLine } from '../scripts/startup.ts';
import { signEntryToken } from '../origin-sdk/src/entry.ts';
import { cpuMeter } from './process-cpu.ts';
import { loadavg } from 'node:os';

const REPS = Number(process.env.BENCH_REPS) || 3;
/** A difference with its sign, whole units: `+12`, `-9`. */
const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(0)}`;
/** The machine's 1, 5 and 15 minute load averages (os.loadavg), for judging how noisy a run was. */
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** Scenario ids to run (comma-separated), for a short bounded run of a few rows; unset = all. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const DURATION_S = Number(process.env.BENCH_SECONDS) || 4;
const VISITORS = 200;
/** Most solved challenges one proof-of-work join load gets (one request each). */
const POW_MAX_PROOFS = 20_000;
const IN_OBJECT_HOLDS = 3_000;
/** Holds per `holdMany` call in the in-object batch row (about the bench's measured mean batch). */
const IN_OBJECT_BATCH = 8;
/** Venue sections of the sectioned-hold row: the same 50,000 seats as SECTIONS Inventory objects. */
const SECTIONS = 4;
const SECTION_NAMES = Array.from({ length: SECTIONS }, (_, i) => `S${i + 1}`);
/** The bench events' seat ids, row-major (asked from the bench Worker: Node does not load object code). */
let ids: string[] = [];
/** Seat ids of each section of the sectioned events, by section count (SEATS / count seats each, PER_ROW to a row). */
const sectionIds = new Map<number, string[][]>();

/** What one repetition's scenarios share: the gateway, the repetition, and figures beyond req/s. */
interface Rep {
  gw: BenchGateway;
  rep: number;
  /** Extra figures by name (e.g. object calls per poll), one per repetition; medians are printed. */
  extra: (name: string, value: number) => void;
  /** Free-form facts per repetition (answer codes), printed under the table. */
  fact: (name: string, text: string) => void;
}

/** One measured load per repetition. */
interface Scenario {
  id: string;
  run: (r: Rep) => Promise<Sample>;
}

/** One printed line: the scenario's median req/s and latencies, as a ratio of `vs` (a scenario id). */
interface Row {
  id: string;
  name: string;
  vs?: string;
  /** The ratio vs `vs` this row should reach; printed with met / missed. */
  target?: number;
  /** More to print, from the medians (ratios to other rows, extra figures). */
  note?: (m: Medians) => string;
}

interface Medians {
  rps: (id: string) => number;
  /** Median workerd CPU per answer, us. */
  cpu: (id: string) => number;
  extra: (name: string) => number;
}

const noopRoute = (r: Rep) => load(`${r.gw.base}/__bench/noop`, DURATION_S);

/** Hot-spot hold bodies (1-6 adjacent seats, 80 % of them among the best 5 %), deterministic per seed. */
function holdBodies(seed: number): () => string {
  const random = prng(seed);
  return () => JSON.stringify({ seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => ids[k]!) });
}

/**
 * The same hot-spot holds on an event of `sections` sections: row r of the 50,000-seat plan is row
 * r / sections of section r % sections, so the best rows (and the contention) spread evenly.
 */
function sectionHoldBodies(seed: number, sections: number): () => string {
  const random = prng(seed);
  return () =>
    JSON.stringify({
      seatIds: pickSeatIndexes(random, SEATS, PER_ROW).map((k) => {
        const row = Math.floor(k / PER_ROW);
        return sectionIds.get(sections)![row % sections]![Math.floor(row / sections) * PER_ROW + (k % PER_ROW)]!;
      }),
    });
}

/**
 * Holds end to end on an event whose seats are `sections` venue sections (one Inventory object
 * each, the account ledger in front): the `holds` row's visitors, seeds and mix. Checks after every
 * repetition that no seat is oversold and the summed consistency counters are 0.
 */
const sectionedHolds = (sections: number) => async (r: Rep) => {
  const event = `bench-sec${sections}-${r.rep}`;
  const perSection = SEATS / sections;
  await r.gw.createEvent(event, {
    seats: 0,
    sections: SECTION_NAMES.slice(0, sections).map((section) => ({ section, seats: perSection, seatsPerRow: PER_ROW, priceMinor: 5000 })),
  });
  const cookies = (await admittedVisitors(r.gw, event, VISITORS)).map(jarCookie);
  const body = sectionHoldBodies(1000 + r.rep, sections);
  let n = 0;
  const s = await load(`${r.gw.base}/_wr/events/${event}/holds`, DURATION_S, {
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          headers: {
            ...req.headers,
            cookie: cookies[n % VISITORS]!,
            'content-type': 'application/json',
            'idempotency-key': `k-${r.rep}-${n++}`,
          },
          body: body(),
        }),
      },
    ],
  });
  const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
    inventory: { consistency: Record<string, number>; seats: Record<string, number>; sections: { count: number; missing: number } };
  };
  const inv = stats.inventory;
  const taken = inv.seats['held']! + inv.seats['paymentPending']! + inv.seats['needsReconciliation']! + inv.seats['sold']!;
  if (Object.values(inv.consistency).some((v) => v !== 0) || inv.sections.missing !== 0 || inv.sections.count !== sections || taken > SEATS)
    throw new Error(`inconsistent sectioned inventory: ${JSON.stringify(inv)}`);
  const other = Object.entries(s.codes).filter(([c]) => c !== '201' && c !== '409');
  r.fact(
    `${sections}-section hold answers`,
    `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${other.map(([c, v]) => `${v} x ${c}`).join(', ') || 'no other'}; ${taken} seats taken, consistency 0`,
  );
  return s;
};

/**
 * Joins: every request a new visitor (no cookie). `stub`: through the same gateway code with a
 * queue shard that stores nothing (bench-worker.ts StubShard), so only the gateway's share is left.
 * `noLimiter`: without CF-Connecting-IP, so the IP join limiter is not called (its share of a join).
 * `memLimiter`: the IP join limiter counted in the isolate's memory (bench-worker.ts MemoryRateLimit,
 * as Miniflare 4 emulated the binding) instead of Miniflare 5's Durable Object write per call.
 */
const joins =
  (shards: number, opts: { stub?: boolean; noLimiter?: boolean; memLimiter?: boolean; lone?: boolean } = {}) =>
  async (r: Rep) => {
    const id = `${opts.stub ? 'joins-stub' : `joins${shards}`}${opts.noLimiter ? '-nolimit' : ''}${opts.memLimiter ? '-memlimit' : ''}${opts.lone ? '-lone' : ''}`;
    const event = `bench-${id}-${r.rep}`;
    await r.gw.createEvent(event, { queueShards: shards });
    const prefix = `${opts.noLimiter ? '/__bench/noip' : ''}${opts.memLimiter ? '/__bench/memlimit' : ''}${opts.stub ? '/__bench/stub' : ''}`;
    const before = await joinBatches(r, opts.stub === true);
    const s = await load(`${r.gw.base}${prefix}/_wr/events/${event}/join`, DURATION_S, {
      method: 'POST',
      ...(opts.lone ? { connections: 1 } : {}),
    });
    const after = await joinBatches(r, opts.stub === true);
    // Joins per shard call this isolate made (src/lib/shard-joins.ts): 1.0 = no coalescing.
    r.extra(`batch-${id}`, (after.items - before.items) / Math.max(1, after.batches - before.batches));
    joinRps.set(id, s.rps);
    return s;
  };

/** The shard calls and joins the bench isolate has sent so far (the real shards' binding, or the stub's). */
async function joinBatches(r: Rep, stub: boolean): Promise<{ batches: number; items: number }> {
  const all = (await (await fetch(`${r.gw.base}/__bench/join-batches`)).json()) as Record<
    'real' | 'stub',
    { batches: number; items: number }
  >;
  return stub ? all.stub : all.real;
}

/** The mean batch of a joins row, for its note. */
const batchNote = (m: Medians, id: string) => `mean batch ${m.extra(`batch-${id}`).toFixed(1)} joins per shard call`;

/** Joins per second each join scenario reached in the current repetition (sizes the proof pools). */
const joinRps = new Map<string, number>();

/**
 * Joins that each carry a distinct solved challenge (8 bits: the verify cost does not depend on
 * the difficulty), solved beforehand by altcha-lib's own solver, one request per proof: as many
 * proofs as 1.5x the plain joins row managed in this repetition's DURATION_S (so the load lasts
 * about as long). `stub`: the gateway-only path, whose shard stores nothing.
 */
const powJoins = (stub: boolean) => async (r: Rep) => {
  const event = `bench-join-pow${stub ? '-stub' : ''}-${r.rep}`;
  if (stub) {
    // The same steps alone inside the Worker (no network, no contention): bench-worker.ts microProofOfWork.
    const us = (await (await fetch(`${r.gw.base}/__bench/micro-pow?n=200`)).json()) as { secrets: number; verify: number; issue: number };
    r.extra('powSecretsUs', us.secrets);
    r.extra('powVerifyUs', us.verify);
    r.extra('powIssueUs', us.issue);
  }
  await r.gw.createEvent(event, { proofOfWork: { difficultyBits: 8 } });
  const plain = joinRps.get(stub ? 'joins-stub' : 'joins1') ?? 100;
  const proofs = await solvedProofs(r.gw.base, event, Math.min(POW_MAX_PROOFS, Math.max(200, Math.ceil(plain * DURATION_S * 1.5))));
  let next = 0;
  const s = await load(`${r.gw.base}${stub ? '/__bench/stub' : ''}/_wr/events/${event}/join`, DURATION_S, {
    method: 'POST',
    amount: proofs.length,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-wr-proof-of-work': proofs[next++ % proofs.length]! } }) }],
  });
  r.fact(`proof-of-work join answers${stub ? ' (gateway only)' : ''}`, JSON.stringify(s.codes));
  return s;
};

/** Busy time per request, us, if the run kept one thread busy: 1e6 / req/s. */
const usPer = (rps: number) => 1e6 / rps;

/** Cookies of waiting visitors on a paused sale, per repetition (the poll rows share them). */
const waitingCookies = new Map<number, string[]>();

/** Calls the event's WaitingRoom has served so far (its own count; the stats call is not counted). */
async function roomRequests(r: Rep, event: string): Promise<number> {
  const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
    queue: { objectRequests: number };
  };
  return stats.queue.objectRequests;
}

/** The `holdMany` calls event `event`'s Inventory served so far and the holds they carried (bench-worker.ts). */
async function holdBatches(r: Rep, event: string): Promise<{ calls: number; holds: number }> {
  return (await (await fetch(`${r.gw.base}/__bench/hold-batches?event=${event}`)).json()) as { calls: number; holds: number };
}

/**
 * Status polls of `cookies`' visitors (round robin) for DURATION_S, with every WaitingRoom call
 * they caused per poll recorded as `extra` (the room's own request count, stats not counted) and
 * the answers' status codes as `fact`.
 */
async function pollLoad(r: Rep, event: string, cookies: string[], extra: string, fact: string): Promise<Sample> {
  const before = await roomRequests(r, event);
  let p = 0;
  const s = await load(`${r.gw.base}/_wr/events/${event}/status`, DURATION_S, {
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[p++ % cookies.length]! } }) }],
  });
  r.extra(extra, ((await roomRequests(r, event)) - before) / s.total);
  r.fact(fact, JSON.stringify(s.codes));
  return s;
}

const SCENARIOS: Scenario[] = [
  { id: 'noop', run: noopRoute },
  // The origin behind a bare forward (no gateway code): what the hop itself costs.
  { id: 'forward', run: (r) => load(`${r.gw.base}/__bench/forward`, DURATION_S) },
  {
    // Pass-through: a page no room covers (the bench events' rooms cover /events/<id>/* only). The
    // isolate's room table is warmed first; then every object stub the gateway asks for is counted.
    id: 'pass-through',
    run: async (r) => {
      const calls = async () => ((await (await fetch(`${r.gw.base}/__bench/site-object-calls`)).json()) as { calls: number }).calls;
      await fetch(`${r.gw.base}/site/home`);
      const before = await calls();
      const s = await load(`${r.gw.base}/site/home`, DURATION_S);
      r.extra('callsPerPassThrough', ((await calls()) - before) / s.total);
      r.fact('pass-through answers', JSON.stringify(s.codes));
      return s;
    },
  },
  {
    // An admitted buyer's page request in a room (the bench rooms cover /events/<id>/*): valid
    // queue ticket and admission token cookies, the origin Worker behind the gateway. Every
    // WaitingRoom call it causes is counted (the cursor is warmed first).
    id: 'admitted-page',
    run: async (r) => {
      const event = `bench-admitted-${r.rep}`;
      await r.gw.createEvent(event);
      const cookies = (await admittedVisitors(r.gw, event, VISITORS)).map(jarCookie);
      const page = `${r.gw.base}/events/${event}/tickets`;
      await fetch(page, { headers: { cookie: cookies[0]! } });
      const before = await roomRequests(r, event);
      let a = 0;
      const s = await load(page, DURATION_S, {
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[a++ % VISITORS]! } }) }],
      });
      r.extra('callsPerAdmittedPage', ((await roomRequests(r, event)) - before) / s.total);
      r.fact('admitted page answers', JSON.stringify(s.codes));
      return s;
    },
  },
  { id: 'noop-do', run: (r) => load(`${r.gw.base}/__bench/noop-do`, DURATION_S) },
  { id: 'write-do', run: (r) => load(`${r.gw.base}/__bench/write-do`, DURATION_S) },
  // One request at a time (1 connection): what a lone join waits, next to a lone one-write RPC.
  { id: 'write-do-lone', run: (r) => load(`${r.gw.base}/__bench/write-do`, DURATION_S, { connections: 1 }) },
  { id: 'joins1-lone', run: joins(1, { lone: true }) },
  { id: 'joins1', run: joins(1) },
  { id: 'joins4', run: joins(4) },
  { id: 'joins1-nolimit', run: joins(1, { noLimiter: true }) },
  { id: 'joins1-memlimit', run: joins(1, { memLimiter: true }) },
  { id: 'joins-stub', run: joins(1, { stub: true }) },
  { id: 'joins-stub-nolimit', run: joins(1, { stub: true, noLimiter: true }) },
  { id: 'joins-pow', run: powJoins(false) },
  { id: 'joins-pow-stub', run: powJoins(true) },
  {
    // Fresh challenges (no cookie, nothing stored): what handing one out costs.
    id: 'challenges',
    run: async (r) => {
      const event = `bench-challenge-${r.rep}`;
      await r.gw.createEvent(event, { proofOfWork: { difficultyBits: 16 } });
      return load(`${r.gw.base}/_wr/events/${event}/challenge`, DURATION_S);
    },
  },
  {
    // Polls: waiting visitors with valid tickets on a paused sale (nobody is released), answered
    // at the edge; the WaitingRoom counts every call it gets.
    id: 'polls',
    run: async (r) => {
      const event = `bench-poll-${r.rep}`;
      await r.gw.createEvent(event);
      await fetch(`${r.gw.base}/_wr/admin/events/${event}/pause`, { method: 'POST', headers: r.gw.admin });
      const cookies = await Promise.all(
        Array.from({ length: VISITORS }, async () => {
          const jar = new Map<string, string>();
          keepCookies(await fetch(`${r.gw.base}/_wr/events/${event}/join`, { method: 'POST' }), jar);
          return jarCookie(jar);
        }),
      );
      waitingCookies.set(r.rep, cookies);
      return pollLoad(r, event, cookies, 'callsPerPoll', 'poll answers');
    },
  },
  {
    // Polls of presale-lane visitors: accounts joined with entry tokens naming a lane (their own
    // line and cursor), on a paused sale; answered at the edge from the lane's part of the cursor.
    id: 'lane-polls',
    run: async (r) => {
      const event = `bench-lane-poll-${r.rep}`;
      await r.gw.createEvent(event, {
        entry: { require: 'account', signInUrl: '/login', lanes: [{ lane: 'presale', releaseSharePercent: 50 }] },
      });
      await fetch(`${r.gw.base}/_wr/admin/events/${event}/pause`, { method: 'POST', headers: r.gw.admin });
      const cookies = await Promise.all(
        Array.from({ length: VISITORS }, async (_, i) => {
          const token = await signEntryToken(
            { account: `member-${i}@bench.example`, eventId: event, lane: 'presale', ttlS: 120 },
            r.gw.secrets.ORIGIN_HMAC_SECRET,
          );
          const jar = new Map<string, string>();
          keepCookies(await fetch(`${r.gw.base}/_wr/events/${event}/join`, { method: 'POST', headers: { 'x-entry-token': token } }), jar);
          return jarCookie(jar);
        }),
      );
      return pollLoad(r, event, cookies, 'callsPerLanePoll', 'lane poll answers');
    },
  },
  {
    // An organizer request with a named key: the key is hashed and checked on every request
    // (confirmed by the EventDirectory once per isolate per KEY_CACHE_MS), on the lightest route.
    id: 'organizer-key',
    run: async (r) => {
      const created = await fetch(`${r.gw.base}/_wr/admin/keys`, {
        method: 'POST',
        headers: { ...r.gw.admin, 'content-type': 'application/json' },
        body: JSON.stringify({ label: `bench ${r.rep}`, role: 'viewer' }),
      });
      const { key } = (await created.json()) as { key: string };
      const s = await load(`${r.gw.base}/_wr/admin/me`, DURATION_S, { headers: { authorization: `Bearer ${key}` } });
      r.fact('organizer key answers', JSON.stringify(s.codes));
      return s;
    },
  },
  {
    // The same request shape as a poll (a ticket cookie per request) on the no-op route: the
    // client's and the platform's share of a poll.
    id: 'noop-shaped',
    run: async (r) => {
      const cookies = waitingCookies.get(r.rep)!;
      let q = 0;
      return load(`${r.gw.base}/__bench/noop`, DURATION_S, {
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[q++ % VISITORS]! } }) }],
      });
    },
  },
  {
    // In-object: one request runs IN_OBJECT_HOLDS holds back to back inside a fresh Inventory.
    id: 'in-object',
    run: async (r) => {
      const event = `bench-in-${r.rep}`;
      await r.gw.createEvent(event);
      const cpu = cpuMeter();
      const t0 = performance.now();
      const res = await fetch(
        `${r.gw.base}/__bench/in-object?event=${event}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=${r.rep + 1}`,
      );
      const { granted } = (await res.json()) as { granted: number };
      r.fact('in-object holds granted', `${granted} of ${IN_OBJECT_HOLDS}`);
      const rps = IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000);
      return { rps, p50: NaN, p99: NaN, codes: {}, errors: 0, total: IN_OBJECT_HOLDS, cpuUs: cpu() / IN_OBJECT_HOLDS };
    },
  },
  {
    // The same holds inside a fresh Inventory, IN_OBJECT_BATCH at a time through `holdMany` (as
    // the edge coalesces them): what a batch saves inside the object (one sweep, commit, alarm check).
    id: 'in-object-batch',
    run: async (r) => {
      const event = `bench-inb-${r.rep}`;
      await r.gw.createEvent(event);
      const cpu = cpuMeter();
      const t0 = performance.now();
      const query = `event=${event}&n=${IN_OBJECT_HOLDS}&seats=${SEATS}&perRow=${PER_ROW}&seed=${r.rep + 1}&batch=${IN_OBJECT_BATCH}`;
      const { granted } = (await (await fetch(`${r.gw.base}/__bench/in-object?${query}`)).json()) as { granted: number };
      r.fact('in-object holds granted in batches', `${granted} of ${IN_OBJECT_HOLDS}`);
      const rps = IN_OBJECT_HOLDS / ((performance.now() - t0) / 1000);
      return { rps, p50: NaN, p99: NaN, codes: {}, errors: 0, total: IN_OBJECT_HOLDS, cpuUs: cpu() / IN_OBJECT_HOLDS };
    },
  },
  {
    // The Inventory RPC alone (on the in-object row's event), without the gateway's routing,
    // credentials and validation.
    id: 'hold-direct',
    run: (r) => {
      const body = holdBodies(2000 + r.rep);
      return load(`${r.gw.base}/__bench/hold-direct?event=bench-in-${r.rep}`, DURATION_S, {
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: body() }) }],
      });
    },
  },
  {
    // End to end: admitted visitors (real tickets and admission tokens) hold seats through the
    // gateway, then 1,000 concurrent readers follow the seat map; the inventory must stay consistent.
    id: 'holds',
    run: async (r) => {
      const event = `bench-e2e-${r.rep}`;
      await r.gw.createEvent(event);
      const cookies = (await admittedVisitors(r.gw, event, VISITORS)).map(jarCookie);
      const body = holdBodies(1000 + r.rep);
      let n = 0;
      const roomBefore = await roomRequests(r, event);
      const batchesBefore = await holdBatches(r, event);
      const s = await load(`${r.gw.base}/_wr/events/${event}/holds`, DURATION_S, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: {
                ...req.headers,
                cookie: cookies[n % VISITORS]!,
                'content-type': 'application/json',
                'idempotency-key': `k-${r.rep}-${n++}`,
              },
              body: body(),
            }),
          },
        ],
      });
      // The session check's cost: WaitingRoom calls per hold (0 when the edge needs none).
      r.extra('roomCallsPerHold', ((await roomRequests(r, event)) - roomBefore) / s.total);
      // Hold coalescing (src/lib/hold-batch.ts): holds per Inventory call over the load.
      const batchesAfter = await holdBatches(r, event);
      r.extra('holdsPerBatch', (batchesAfter.holds - batchesBefore.holds) / Math.max(1, batchesAfter.calls - batchesBefore.calls));
      const other = Object.entries(s.codes).filter(([c]) => c !== '201' && c !== '409');
      r.fact(
        'end-to-end hold answers',
        `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${other.map(([c, v]) => `${v} x ${c}`).join(', ') || 'no other'}`,
      );
      seatMapCookies.set(r.rep, { event, cookies });
      return s;
    },
  },
  {
    // The same holds by the same visitors through the same gateway code, with an Inventory that
    // stores nothing behind it (bench-worker.ts StubInventory): the gateway's own share.
    id: 'holds-stub',
    run: (r) => {
      const { event, cookies } = seatMapCookies.get(r.rep)!;
      const body = holdBodies(3000 + r.rep);
      let n = 0;
      return load(`${r.gw.base}/_wr/events/${event}/holds`, DURATION_S, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: {
                ...req.headers,
                // The stub objects by header, not by `/__bench/stub/` (whose Request copy re-streams the body).
                [STUB_HEADER]: '1',
                cookie: cookies[n % VISITORS]!,
                'content-type': 'application/json',
                'idempotency-key': `s-${r.rep}-${n++}`,
              },
              body: body(),
            }),
          },
        ],
      });
    },
  },
  {
    // A sales channel's holds: the box office holds the same hot-spot seats for its
    // customers, signed with its own key, straight to the Inventory (no queue, no admission token).
    // Every seat is allocated to it (50 allocations of 1,000 seats), so the allocation gate runs on
    // every hold. Requests are signed before the load (autocannon's setup is synchronous); a
    // signature stays valid for the 300 s window, longer than a repetition.
    id: 'channel-holds',
    run: async (r) => {
      const event = `bench-channel-${r.rep}`;
      await r.gw.createEvent(event);
      const res = await fetch(`${r.gw.base}/_wr/admin/events/${event}/channels/box-office`, {
        method: 'PUT',
        headers: r.gw.admin,
        body: JSON.stringify({ name: 'Box office' }),
      });
      const { keyId, secret } = (await res.json()) as { keyId: string; secret: string };
      const releaseAt = new Date(Date.now() + 3_600_000).toISOString();
      for (let a = 0; a * 1000 < ids.length; a++) {
        const put = await fetch(`${r.gw.base}/_wr/admin/events/${event}/allocations/box-${a}`, {
          method: 'PUT',
          headers: r.gw.admin,
          body: JSON.stringify({ channelId: 'box-office', seatIds: ids.slice(a * 1000, (a + 1) * 1000), releaseAt }),
        });
        if (put.status !== 201) throw new Error(`allocation ${a}: ${put.status} ${await put.text()}`);
      }
      const path = `/_wr/channel/events/${event}/holds`;
      const ts = String(Math.floor(Date.now() / 1000));
      const body = holdBodies(1000 + r.rep);
      // Signed v2 (the Idempotency-Key is covered, docs/reference/api.md): each request's key is signed with it.
      const signed = Array.from({ length: 40_000 }, (_, n) => {
        const text = JSON.stringify({ account: `walk-in-${n % 5000}`, ...(JSON.parse(body()) as object) });
        const key = `c-${r.rep}-${n}`;
        const mac = createHmac('sha256', secret)
          .update(signingInputV2('POST', path, ts, key, text))
          .digest('hex');
        return {
          text,
          headers: { [CHANNEL_KEY_HEADER]: keyId, [TIMESTAMP_HEADER]: ts, [SIGNATURE_HEADER]: `v2=${mac}`, 'idempotency-key': key },
        };
      });
      let n = 0;
      const s = await load(`${r.gw.base}${path}`, DURATION_S, {
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const one = signed[n++ % signed.length]!;
              return {
                ...req,
                headers: { ...req.headers, ...one.headers, 'content-type': 'application/json' },
                body: one.text,
              };
            },
          },
        ],
      });
      const other = Object.entries(s.codes).filter(([c]) => c !== '201' && c !== '409');
      r.fact(
        'channel hold answers',
        `${s.codes['201'] ?? 0} held / ${s.codes['409'] ?? 0} refused / ${other.map(([c, v]) => `${v} x ${c}`).join(', ') || 'no other'}`,
      );
      return s;
    },
  },
  {
    // The seat map for 1,000 concurrent readers (admitted visitors' cookies, round robin), as a
    // sale page reads it: one snapshot, then deltas since its version. Then the consistency check.
    id: 'seat-map',
    run: async (r) => {
      const { event, cookies } = seatMapCookies.get(r.rep)!;
      const snapshot = await (await fetch(`${r.gw.base}/_wr/events/${event}/seats`, { headers: { cookie: cookies[0]! } })).text();
      const version = (JSON.parse(snapshot) as { version: number }).version;
      if (r.rep === 0) r.fact('seat map snapshot', `${(snapshot.length / 1024).toFixed(0)} KiB for ${SEATS.toLocaleString()} seats`);
      let m = 0;
      const s = await load(`${r.gw.base}/_wr/events/${event}/seats?since=${version}`, DURATION_S, {
        connections: 1000,
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: cookies[m++ % VISITORS]! } }) }],
      });
      r.fact('seat map answers', `${JSON.stringify(s.codes)}, ${s.errors} errors`);
      const stats = (await (await fetch(`${r.gw.base}/_wr/admin/events/${event}`, { headers: r.gw.admin })).json()) as {
        inventory: { consistency: Record<string, number> };
      };
      if (Object.values(stats.inventory.consistency).some((v) => v !== 0))
        throw new Error(`inconsistent inventory: ${JSON.stringify(stats.inventory.consistency)}`);
      return s;
    },
  },
];
// Holds over sections: 1 section (the ledger's cost alone) and SECTIONS sections (the split).
SCENARIOS.push({ id: 'holds-sec1', run: sectionedHolds(1) }, { id: 'holds-secN', run: sectionedHolds(SECTIONS) });
const seatMapCookies = new Map<number, { event: string; cookies: string[] }>();

const ROWS: Row[] = [
  { id: 'noop', name: 'no-op Worker route', note: () => 'baseline A' },
  { id: 'noop-shaped', name: 'no-op Worker route, poll-shaped requests', vs: 'noop', note: () => "baseline A' (ratio vs A)" },
  { id: 'noop-do', name: 'no-op Durable Object RPC', vs: 'noop', note: () => 'baseline B (ratio vs A)' },
  { id: 'forward', name: 'no-op forward to the origin Worker', vs: 'noop', note: () => "baseline F (ratio vs A): the hop's own cost" },
  {
    id: 'pass-through',
    name: 'pass-through (no room covers the URL)',
    // Against the bare forward F (pass-through >= 0.90 of F): the hop is the origin's,
    // what is left is the gateway's share.
    vs: 'forward',
    target: 0.9,
    note: (m) =>
      `ratio vs F; vs A: ${(m.rps('pass-through') / m.rps('noop')).toFixed(2)}; object calls per request ${m
        .extra('callsPerPassThrough')
        .toFixed(5)} (target 0)`,
  },
  {
    id: 'admitted-page',
    name: 'admitted page request in a room',
    vs: 'forward',
    target: 0.9,
    note: (m) =>
      `ratio vs F; CPU ${signed(m.cpu('admitted-page') - m.cpu('forward'))} us over F (target <= +50); WaitingRoom calls per request ${m
        .extra('callsPerAdmittedPage')
        .toFixed(4)}`,
  },
  { id: 'write-do', name: 'Durable Object RPC with one SQLite upsert', vs: 'noop-do', note: () => 'baseline C (ratio vs B)' },
  {
    id: 'write-do-lone',
    name: 'C, one request at a time',
    vs: 'write-do',
    note: () => "baseline C1 (ratio vs C): a lone write's round trip",
  },
  {
    id: 'joins1-lone',
    name: 'joins, one at a time (1 connection)',
    vs: 'write-do-lone',
    // Coalescing must cost a lone join nothing: it is sent at once (src/lib/coalesce.ts).
    note: (m) => `ratio vs C1 (a lone join vs a lone write; p50 is its latency); ${batchNote(m, 'joins1-lone')}`,
  },
  {
    id: 'joins1',
    name: 'joins, 1 queue shard (new visitor each)',
    vs: 'noop',
    target: 0.5,
    note: (m) => `ratio vs A; vs C: ${(m.rps('joins1') / m.rps('write-do')).toFixed(2)}; ${batchNote(m, 'joins1')}`,
  },
  { id: 'joins4', name: 'joins, 4 queue shards', vs: 'noop', note: (m) => `ratio vs A; ${batchNote(m, 'joins4')}` },
  {
    id: 'joins1-nolimit',
    name: 'joins, 1 queue shard, no IP limiter call',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs C: ${(m.rps('joins1-nolimit') / m.rps('write-do')).toFixed(2)}; the limiter's share: ${(usPer(m.rps('joins1')) - usPer(m.rps('joins1-nolimit'))).toFixed(0)} us per join; ${batchNote(m, 'joins1-nolimit')}`,
  },
  {
    id: 'joins1-memlimit',
    name: 'joins, 1 queue shard, IP limiter in memory',
    vs: 'noop',
    target: 0.5,
    note: (m) =>
      `ratio vs A; vs C: ${(m.rps('joins1-memlimit') / m.rps('write-do')).toFixed(2)}; the limiter counted as Miniflare 4 and Cloudflare's per-machine counters do, not as Miniflare 5's object write (${(usPer(m.rps('joins1')) - usPer(m.rps('joins1-memlimit'))).toFixed(0)} us per join); ${batchNote(m, 'joins1-memlimit')}`,
  },
  {
    id: 'joins-stub',
    name: 'joins, gateway only (shard stores nothing)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; us per join: gateway ${(usPer(m.rps('joins-stub')) - usPer(m.rps('noop-do'))).toFixed(0)} over a no-op RPC, shard write ${(
        usPer(m.rps('joins1')) - usPer(m.rps('joins-stub'))
      ).toFixed(0)}; ${batchNote(m, 'joins-stub')}`,
  },
  {
    id: 'joins-stub-nolimit',
    name: 'joins, gateway only, no IP limiter call',
    vs: 'joins-stub',
    note: (m) =>
      `ratio vs the gateway-only joins row; the limiter's share: ${(usPer(m.rps('joins-stub')) - usPer(m.rps('joins-stub-nolimit'))).toFixed(0)} us per join`,
  },
  {
    id: 'joins-pow',
    name: 'joins with a proof of work (verified)',
    vs: 'joins1',
    note: (m) => `ratio vs the joins row (1 shard); +${(usPer(m.rps('joins-pow')) - usPer(m.rps('joins1'))).toFixed(0)} us per join`,
  },
  {
    id: 'joins-pow-stub',
    name: 'joins with a proof of work, gateway only',
    vs: 'joins-stub',
    note: (m) => {
      const verify = usPer(m.rps('joins-pow-stub')) - usPer(m.rps('joins-stub'));
      const alone = m.extra('powSecretsUs') + m.extra('powVerifyUs');
      return `ratio vs the gateway-only joins row; +${verify.toFixed(0)} us per join = ${((verify / usPer(m.rps('joins1'))) * 100).toFixed(0)} % of a join; timed alone in the Worker: secrets ${m.extra('powSecretsUs')} + verify ${m.extra('powVerifyUs')} us = ${((alone / usPer(m.rps('joins1'))) * 100).toFixed(1)} % of a join`;
    },
  },
  {
    id: 'challenges',
    name: 'challenges handed out (GET .../challenge)',
    vs: 'noop',
    note: () => 'ratio vs A; no object call, nothing stored',
  },
  {
    id: 'polls',
    name: 'polls of waiting visitors (status)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs A' (target >= 0.70): ${(m.rps('polls') / m.rps('noop-shaped')).toFixed(2)}; object calls per poll ${m
        .extra('callsPerPoll')
        .toFixed(4)} (target < 0.01)`,
  },
  {
    id: 'lane-polls',
    name: 'polls of presale-lane visitors (status)',
    vs: 'noop',
    note: (m) =>
      `ratio vs A; vs the polls row: ${(m.rps('lane-polls') / m.rps('polls')).toFixed(2)}; object calls per poll ${m
        .extra('callsPerLanePoll')
        .toFixed(4)} (target < 0.01)`,
  },
  {
    id: 'organizer-key',
    name: 'organizer request with a named key (GET /_wr/admin/me)',
    vs: 'noop',
    note: () => 'ratio vs A; SHA-256 of the key per request, the directory asked once per isolate per 10 s',
  },
  {
    id: 'hold-direct',
    name: 'holds, Worker -> Inventory RPC only',
    vs: 'write-do',
    note: (m) => `ratio vs C; vs B: ${(m.rps('hold-direct') / m.rps('noop-do')).toFixed(2)}`,
  },
  {
    id: 'holds',
    name: 'holds end to end (gateway -> Inventory)',
    vs: 'write-do',
    target: 0.8,
    note: (m) =>
      `ratio vs C; vs B: ${(m.rps('holds') / m.rps('noop-do')).toFixed(2)}; vs the RPC alone: ${(m.rps('holds') / m.rps('hold-direct')).toFixed(2)}; WaitingRoom calls per hold ${m
        .extra('roomCallsPerHold')
        .toFixed(3)}; mean batch ${m.extra('holdsPerBatch').toFixed(1)} holds per Inventory call`,
  },
  {
    id: 'channel-holds',
    name: 'channel holds end to end (signed, allocated)',
    vs: 'write-do',
    note: (m) => `ratio vs C; vs the online hold row: ${(m.rps('channel-holds') / m.rps('holds')).toFixed(2)}`,
  },
  {
    id: 'holds-stub',
    name: 'holds, gateway only (Inventory stores nothing)',
    vs: 'noop-do',
    note: (m) => {
      const gateway = usPer(m.rps('holds-stub')) - usPer(m.rps('noop-do'));
      const inventory = usPer(m.rps('hold-direct'));
      return `ratio vs B; gateway share ${gateway.toFixed(0)} us per hold = ${((gateway / inventory) * 100).toFixed(0)} % of the Inventory round trip (target <= 20 %)`;
    },
  },
  {
    id: 'seat-map',
    name: 'seat map deltas, 1,000 concurrent readers',
    vs: 'noop',
    note: () => 'ratio vs A (edge-cached snapshot and deltas)',
  },
  { id: 'in-object', name: 'holds inside the object (no network)', vs: 'noop-do', note: () => 'ratio vs B' },
  {
    id: 'in-object-batch',
    name: `holds inside the object, ${IN_OBJECT_BATCH} per holdMany`,
    vs: 'in-object',
    note: (m) => `ratio vs one hold per call; vs B: ${(m.rps('in-object-batch') / m.rps('noop-do')).toFixed(2)}`,
  },
  {
    id: 'holds-sec1',
    name: 'holds end to end, 1 section + account ledger',
    vs: 'holds',
    note: (m) =>
      `ratio vs 1 Inventory without sections (the ledger's reserve per hold); vs C: ${(m.rps('holds-sec1') / m.rps('write-do')).toFixed(2)}`,
  },
  {
    id: 'holds-secN',
    name: `holds end to end, ${SECTIONS} section Inventories`,
    vs: 'holds',
    note: (m) =>
      `ratio vs 1 Inventory; vs 1 section: ${(m.rps('holds-secN') / m.rps('holds-sec1')).toFixed(2)}; ${(m.rps('holds-secN') / SECTIONS).toFixed(0)} holds/s per section object, 0 oversold`,
  },
];

async function main(): Promise<void> {
  const gw = await startGateway();
  ids = (await (await fetch(`${gw.base}/__bench/seat-ids?count=${SEATS}&perRow=${PER_ROW}`)).json()) as string[];
  for (const count of [1, SECTIONS]) {
    const names = SECTION_NAMES.slice(0, count);
    const url = (section: string) => `${gw.base}/__bench/seat-ids?count=${SEATS / count}&perRow=${PER_ROW}&section=${section}`;
    sectionIds.set(count, await Promise.all(names.map(async (section) => (await (await fetch(url(section))).json()) as string[])));
  }
  console.log(
    `Miniflare at ${gw.base}; ${REPS} repetitions of ${DURATION_S} s, 50 connections; ${SEATS.toLocaleString()} seats, 80% of holds on the best 5%\n`,
  );
  const loadAtStart = loadAverage();
  // Warm the isolate (JIT, key import) so that baseline A is not measured cold.
  await load(`${gw.base}/__bench/noop`, 1);
  const samples = new Map<string, Sample[]>();
  const extras = new Map<string, number[]>();
  const facts = new Map<string, string[]>();
  for (let rep = 0; rep < REPS; rep++) {
    const r: Rep = {
      gw,
      rep,
      extra: (name, value) => extras.set(name, [...(extras.get(name) ?? []), value]),
      fact: (name, text) => facts.set(name, [...(facts.get(name) ?? []), text]),
    };
    for (const s of SCENARIOS) if (!ONLY || ONLY.has(s.id)) samples.set(s.id, [...(samples.get(s.id) ?? []), await s.run(r)]);
  }
  const logLines = gw.logLines();
  await gw.mf.dispose();
  const m: Medians = {
    rps: (id) => (samples.has(id) ? median(samples.get(id)!.map((s) => s.rps)) : NaN),
    cpu: (id) => (samples.has(id) ? median(samples.get(id)!.map((s) => s.cpuUs)) : NaN),
    extra: (name) => median(extras.get(name) ?? [NaN]),
  };
  const cell = (v: number, digits: number) => (Number.isNaN(v) ? '-' : v.toFixed(digits)).padStart(8);
  // cpu us: the workerd processes' user + system CPU over the row's window per answer; +us: the
  // row's CPU per answer minus its baseline's (`vs`), the gateway's own share on top of it.
  console.log(`${`scenario (median of ${REPS})`.padEnd(42)}     req/s    p50 ms    p99 ms    ratio    cpu us     +us`);
  for (const row of ROWS) {
    const s = samples.get(row.id);
    if (!s) continue;
    const ratio = row.vs ? m.rps(row.id) / m.rps(row.vs) : 1;
    const verdict = row.target === undefined ? '' : ` (target >= ${row.target.toFixed(2)}: ${ratio >= row.target ? 'met' : 'missed'})`;
    console.log(
      [
        row.name.padEnd(42),
        cell(m.rps(row.id), 0),
        cell(median(s.map((x) => x.p50)), 1),
        cell(median(s.map((x) => x.p99)), 1),
        ratio.toFixed(2).padStart(7),
        cell(m.cpu(row.id), 0),
        row.vs ? `${(m.cpu(row.id) - m.cpu(row.vs) >= 0 ? '+' : '') + (m.cpu(row.id) - m.cpu(row.vs)).toFixed(0)}`.padStart(7) : '      -',
        `${row.note?.(m) ?? ''}${verdict}`,
      ].join('  '),
    );
  }
  // The spread: each row's range over the repetitions, and its ratio and CPU over its baseline taken
  // pair by pair within a repetition (the baseline ran minutes earlier or later in the same one).
  if (REPS > 1) {
    console.log(`\nspread over the ${REPS} repetitions (min-max); load average at start ${loadAtStart}, at end ${loadAverage()}:`);
    const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
    for (const row of ROWS) {
      const s = samples.get(row.id);
      if (!s) continue;
      const base = row.vs ? samples.get(row.vs) : undefined;
      const pairs = base
        ? `; ratio ${range(
            s.map((x, k) => x.rps / base[k]!.rps),
            2,
          )}, +us ${range(s.map((x, k) => x.cpuUs - base[k]!.cpuUs))}`
        : '';
      console.log(`${row.name.padEnd(42)}  req/s ${range(s.map((x) => x.rps))}, cpu us ${range(s.map((x) => x.cpuUs))}${pairs}`);
    }
  }
  // The gateway in front of the Node example origin (its own Miniflare, with ORIGIN_URL set), after
  // the table above is printed, so that a failure here never loses it.
  if (!ONLY)
    try {
      const nodeOrigin = await benchNodeOrigin({ reps: REPS, durationS: DURATION_S, connections: 50 });
      for (const line of nodeOriginRows(nodeOrigin)) console.log(line);
    } catch (err) {
      console.log(`${'Node origin page rows'.padEnd(42)}  failed: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  // Start-up of a cold isolate: the gateway bundle next to a no-op Worker, both under
  // `wrangler check startup` now, after the load is over (BENCH_ONLY=startup for this line alone).
  if (!ONLY || ONLY.has('startup'))
    try {
      for (const r of measureStartup(REPS)) console.log(startupLine(r));
    } catch (err) {
      console.log(`start-up failed: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  console.log('');
  for (const [name, texts] of facts) console.log(`${name} per repetition: ${texts.join('; ')}`);
  console.log(`decision log lines written by the Worker during the run: ${logLines.toLocaleString()}`);
  if (samples.has('seat-map'))
    console.log('inventory consistency after every repetition: 0 seats with two orders, 0 sold seats without their order, 0 tier errors');
}

await main();
