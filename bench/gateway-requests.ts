// The gateway bench's scenarios up to the holds (bench/gateway.ts runs them in this order, before
// bench/gateway-holds.ts's): the no-op and forward baselines, pass-through and admitted pages, the
// Durable Object floors, joins (sharded, gateway only, without or with an in-memory IP limiter,
// with a proof of work), challenges, polls and organizer keys.
import { admittedVisitors, jarCookie, keepCookies, load, type Sample } from './harness.ts';
import { signEntryToken } from '../origin-sdk/src/entry.ts';
import { DURATION_S, VISITORS, roomRequests, type Rep, type Scenario } from './gateway-context.ts';
import { solvedProofs } from './proofs.ts';

/** Most solved challenges one proof-of-work join load gets (one request each). */
const POW_MAX_PROOFS = 20_000;

const noopRoute = (r: Rep) => load(`${r.gw.base}/__bench/noop`, DURATION_S);

/**
 * Joins: every request a new visitor (no cookie). `stub`: through the same gateway code with a
 * queue shard that stores nothing (bench-objects.ts StubShard), so only the gateway's share is left.
 * `noLimiter`: without CF-Connecting-IP, so the IP join limiter is not called (its share of a join).
 * `memLimiter`: the IP join limiter counted in the isolate's memory (bench-envs.ts MemoryRateLimit,
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
    // The same steps alone inside the Worker (no network, no contention): bench-micro.ts microProofOfWork.
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

/** Cookies of waiting visitors on a paused sale, per repetition (the poll rows share them). */
const waitingCookies = new Map<number, string[]>();
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

/** The scenarios from the no-op route to the poll-shaped no-op, in the order every repetition runs them. */
export const REQUEST_SCENARIOS: Scenario[] = [
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
];
