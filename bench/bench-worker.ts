// Benchmark build of the gateway: the real Worker and objects, plus no-op baselines and an
// in-object hold loop, all in one bundle run by Miniflare (never deployed).
import { DurableObject } from 'cloudflare:workers';
import { Inventory } from '../durable-objects/inventory/inventory';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';
import gateway from '../src/index';
import { STUB_HEADER } from './bench-routes';
import { pickSeatIndexes, prng } from './hotspot';
import { logDecision } from '../contracts/log';
import { recordDecision } from '../src/lib/decision-tally';
import { signAdmission, signQueueTicket, tokenSettings, verifyToken, type TokenSettings } from '../src/lib/token';
import { shardName } from '../contracts/names';
import type { HoldAnswer, HoldBatchItem, HoldRequest } from '../contracts/inventory-answers';
import { BUCKET_MS, type Place } from '../contracts/queue/cursor';
import type { ShardJoin, ShardJoinAnswer, ShardJoinItem } from '../contracts/queue/shard-join';
import type { BatchOutcome } from '../contracts/batch';
import { challengeKeyRing, issueChallenge, verifyProof } from '../src/lib/proof-of-work';
import { solvePow } from '../src/pages/pow-solver';
import { requestSteps } from './request-steps';
import { joinBatchStats } from '../src/lib/shard-joins';
import { edgeHoldSteps, inObjectHoldSteps, type StepTimes } from './hold-micro';
import { runAdmittedStage } from './admitted-micro';
import { PlanStore } from '../durable-objects/inventory/plan-store';
import { Sql } from '../durable-objects/shared/sql';

export { AccountLedger, EventDirectory, QueueShard, WaitingRoom } from '../src/index';

/** The Inventory with one extra method that runs many holds inside the object. */
export class BenchInventory extends Inventory {
  /**
   * Runs `n` hot-spot holds of 1-6 seats back to back inside the object, one `hold` each (`batch`
   * 1) or `batch` at a time through `holdMany`, as the edge coalesces them; returns how they ended.
   */
  async benchHolds(n: number, seatCount: number, perRow: number, seed: number, batch = 1): Promise<{ granted: number; refused: number }> {
    const random = prng(seed);
    const ids = seatIdsFor(seatCount, perRow);
    let granted = 0;
    for (let i = 0; i < n; i += batch) {
      const items = Array.from({ length: Math.min(batch, n - i) }, (_, j) => ({
        account: `acct-${(i + j) % 5000}`,
        request: { seatIds: pickSeatIndexes(random, seatCount, perRow).map((k) => ids[k]!) },
        idempotencyKey: `k-${seed}-${i + j}`,
      }));
      const answers =
        batch === 1
          ? [await this.hold(items[0]!.account, items[0]!.request, items[0]!.idempotencyKey)]
          : (await this.holdMany(items)).map((o) => (o.ok ? o.value : null));
      granted += answers.filter((a) => a?.kind === 'held').length;
    }
    return { granted, refused: n - granted };
  }

  /** `holdMany` calls this instance served and the holds they carried (the holds row's mean batch size). */
  async batchCounts(): Promise<{ calls: number; holds: number }> {
    return { ...this.holdBatches };
  }

  /** The in-object steps of a hold, each timed alone (hold-micro.ts); call on a fresh configured event. */
  async microHold(n: number, seatCount: number, perRow: number): Promise<StepTimes> {
    // The object's after-write (after-write.ts AfterWrite.run), as every committed write runs it.
    const self = this as unknown as { followUps: { run: (env: Env) => Promise<void> } };
    return inObjectHoldSteps(n, seatCount, perRow, {
      store: this.store,
      plans: new PlanStore(new Sql(this.ctx.storage.sql)),
      transactionSync: (fn) => this.ctx.storage.transactionSync(fn),
      sql: this.ctx.storage.sql,
      hold: (account, seatIds, key) => this.hold(account, { seatIds }, key),
      afterWrite: () => self.followUps.run(this.env),
    });
  }
}

/** The platform's floors: a Durable Object RPC that does nothing, and one that makes one durable write. */
export class Noop extends DurableObject {
  async ping(): Promise<number> {
    return 1;
  }

  /** One SQLite upsert: what any durable answer costs (the response waits for the write to commit). */
  async write(key: string): Promise<number> {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    this.ctx.storage.sql.exec('INSERT INTO t (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1', key);
    return 1;
  }
}

/**
 * An Inventory that grants every hold without storing anything: the gateway's own share of a
 * hold is the end-to-end path with this object behind it, against the no-op RPC.
 */
export class StubInventory extends DurableObject {
  private n = 0;

  async hold(account: string, request: HoldRequest, _key: string): Promise<HoldAnswer> {
    const seatIds = 'seatIds' in request ? request.seatIds : [];
    const hold = { holdId: `h-${this.n++}`, account, status: 'HELD' as const, seatIds, tier: null, quantity: seatIds.length };
    return {
      kind: 'held',
      replayed: false,
      hold: { ...hold, priceMinor: 0, currency: 'EUR', expiresAtMs: Date.now() + 600_000, orderId: null },
    };
  }

  /** The coalesced form the edge sends (`Inventory.holdMany`): every item granted. */
  async holdMany(items: HoldBatchItem[]): Promise<BatchOutcome<HoldAnswer>[]> {
    return Promise.all(items.map(async (i) => ({ ok: true as const, value: await this.hold(i.account, i.request, i.idempotencyKey) })));
  }
}

/** A queue shard that hands out places without storing them: the gateway's own share of a join. */
export class StubShard extends DurableObject {
  private n = 0;

  async join(req: ShardJoin): Promise<Place> {
    return { bucket: Math.floor(Date.now() / BUCKET_MS), idx: this.n++, shard: req.shard };
  }

  /** `QueueShard.joinOnce` without its check: every proof-of-work join gets a place. */
  async joinOnce(req: ShardJoin): Promise<{ kind: 'joined'; place: Place }> {
    return { kind: 'joined', place: await this.join(req) };
  }

  /** `QueueShard.joinMany` without storage: every item gets a place (no single-use checks). */
  async joinMany(items: ShardJoinItem[]): Promise<BatchOutcome<ShardJoinAnswer>[]> {
    const bucket = Math.floor(Date.now() / BUCKET_MS);
    return items.map(({ req }) => ({ ok: true, value: { kind: 'place', place: { bucket, idx: this.n++, shard: req.shard } } }));
  }
}

/** Durable Object stubs the gateway asked for while serving `/site/...` (the pass-through row). */
let siteObjectCalls = 0;
const OBJECT_BINDINGS = ['WAITING_ROOM', 'QUEUE_SHARD', 'INVENTORY', 'DIRECTORY'] as const;

/** The env with every Durable Object namespace counting the stubs it hands out (each is one object call or more). */
function countingEnv(env: BenchEnv): BenchEnv {
  const counted = { ...env } as Record<string, unknown>;
  for (const name of OBJECT_BINDINGS) {
    const ns = env[name] as DurableObjectNamespace;
    counted[name] = {
      getByName: (id: string) => (siteObjectCalls++, ns.getByName(id)),
      get: (id: DurableObjectId) => (siteObjectCalls++, ns.get(id)),
      idFromName: (n: string) => ns.idFromName(n),
    };
  }
  return counted as unknown as BenchEnv;
}

/** How long the `/__bench/slow/` shard holds each batch back, ms: long enough to disconnect a client mid-batch. */
const SLOW_SHARD_MS = 400;

/**
 * The real queue shards behind a binding that holds every `joinMany` back SLOW_SHARD_MS first:
 * a batch stays in flight while test/e2e/join-coalescing.e2e.test.ts drops the client that sent it.
 */
function slowShardEnv(env: BenchEnv): BenchEnv {
  const shards = {
    getByName: (name: string) => {
      const stub = env.QUEUE_SHARD.getByName(name);
      return {
        joinMany: async (items: ShardJoinItem[]) => {
          await scheduler.wait(SLOW_SHARD_MS);
          return stub.joinMany(items);
        },
      };
    },
  };
  return { ...env, QUEUE_SHARD: shards } as unknown as BenchEnv;
}

/** The stub objects in place of the real ones. */
function stubbedEnv(env: BenchEnv): BenchEnv {
  return { ...env, INVENTORY: env.STUB_INVENTORY, QUEUE_SHARD: env.STUB_SHARD } as unknown as BenchEnv;
}

/** The bench's join limit (bench/harness.ts benchWorker `ratelimits`): counts every join, refuses none. */
const BENCH_JOIN_LIMIT = { limit: 1_000_000, periodS: 10 };

/**
 * The Workers rate limiting binding counted in this isolate's memory: a fixed window per key, as
 * Miniflare 4 emulated it (in-memory buckets in the binding itself) and as Cloudflare describes the
 * binding (counters kept per Cloudflare location, on the machine the Worker runs on). Miniflare 5
 * sends every `limit()` to a Durable Object that writes a SQLite row (its ratelimit-object worker),
 * a round trip and a write per join on the bench's one workerd thread; this is the same limit
 * without that emulation cost, for the row that says what a join costs with a local counter.
 */
class MemoryRateLimit implements RateLimit {
  private window = 0;
  private readonly counts = new Map<string, number>();
  async limit({ key }: RateLimitOptions): Promise<RateLimitOutcome> {
    const window = Math.floor(Date.now() / (BENCH_JOIN_LIMIT.periodS * 1000));
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = this.counts.get(key) ?? 0;
    if (n >= BENCH_JOIN_LIMIT.limit) return { success: false };
    this.counts.set(key, n + 1);
    return { success: true };
  }
}

/** The gateway's env with the join limiter counted in memory (MemoryRateLimit). */
function memoryLimiterEnv(env: BenchEnv): BenchEnv {
  return { ...env, IP_RATE_LIMITER: new MemoryRateLimit() } as unknown as BenchEnv;
}

// One derived env per runtime env, as the runtime hands one env to every request of an isolate:
// the gateway parses its settings once per env object (src/lib/settings.ts), so a new copy per
// request would add that parse to every request of the rows that use one.
const countingEnvs = new WeakMap<object, BenchEnv>();
const stubbedEnvs = new WeakMap<object, BenchEnv>();
const slowEnvs = new WeakMap<object, BenchEnv>();
const memoryLimiterEnvs = new WeakMap<object, BenchEnv>();

function derivedEnv(memo: WeakMap<object, BenchEnv>, env: BenchEnv, derive: (env: BenchEnv) => BenchEnv): BenchEnv {
  let out = memo.get(env);
  if (!out) memo.set(env, (out = derive(env)));
  return out;
}

type BenchEnv = Omit<Env, 'INVENTORY'> & {
  ORIGIN: Fetcher;
  NOOP: DurableObjectNamespace<Noop>;
  INVENTORY: DurableObjectNamespace<BenchInventory>;
  STUB_INVENTORY: DurableObjectNamespace<StubInventory>;
  STUB_SHARD: DurableObjectNamespace<StubShard>;
};

export default {
  fetch: benchFetch,
};

async function benchFetch(request: Request, env: BenchEnv, ctx: ExecutionContext): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === '/__bench/noop') return new Response('ok');
  // The origin behind a bare forward, no gateway logic: the pass-through row's second baseline.
  if (url.pathname === '/__bench/forward') return env.ORIGIN.fetch(request);
  if (url.pathname === '/__bench/site-object-calls') return Response.json({ calls: siteObjectCalls });
  // Batches and joins this isolate sent per shard binding so far (src/lib/shard-joins.ts): the mean batch size.
  if (url.pathname === '/__bench/join-batches')
    return Response.json({
      real: joinBatchStats(env.QUEUE_SHARD),
      stub: joinBatchStats(env.STUB_SHARD),
      slow: joinBatchStats(derivedEnv(slowEnvs, env, slowShardEnv).QUEUE_SHARD),
    });
  if (url.pathname.startsWith('/__bench/slow/')) {
    const inner = new Request(new URL(url.pathname.slice('/__bench/slow'.length) + url.search, url), request);
    return gateway.fetch(inner, derivedEnv(slowEnvs, env, slowShardEnv) as unknown as Env, ctx);
  }
  // Pages of the site no room covers: the gateway passes them through; count the objects it asks for.
  if (url.pathname.startsWith('/site/')) return gateway.fetch(request, derivedEnv(countingEnvs, env, countingEnv) as unknown as Env, ctx);
  if (url.pathname === '/__bench/noop-do') return new Response(String(await env.NOOP.getByName('noop').ping()));
  if (url.pathname === '/__bench/write-do')
    return new Response(String(await env.NOOP.getByName('noop').write(String(Math.floor(Math.random() * 50_000)))));
  if (url.pathname === '/__bench/hold-direct') {
    // The inventory RPC alone, without the gateway's routing, auth and validation.
    const body = (await request.json()) as { seatIds: string[] };
    const r = await env.INVENTORY.getByName(url.searchParams.get('event') ?? '').hold(`a-${Math.random()}`, body, crypto.randomUUID());
    return Response.json(r, { status: r.kind === 'held' ? 201 : 409 });
  }
  if (url.pathname === '/__bench/in-object') {
    const q = (k: string) => Number(url.searchParams.get(k));
    const stub = env.INVENTORY.getByName(url.searchParams.get('event') ?? '');
    return Response.json(await stub.benchHolds(q('n'), q('seats'), q('perRow'), q('seed'), q('batch') || 1));
  }
  if (url.pathname === '/__bench/hold-batches')
    return Response.json(await env.INVENTORY.getByName(url.searchParams.get('event') ?? '').batchCounts());
  if (url.pathname === '/__bench/seat-ids')
    return Response.json(
      seatIdsFor(
        Number(url.searchParams.get('count')),
        Number(url.searchParams.get('perRow')),
        url.searchParams.get('section') ?? undefined,
      ),
    );
  if (url.pathname === '/__bench/micro') return Response.json(await micro(env, Number(url.searchParams.get('n')) || 200));
  if (url.pathname === '/__bench/request-steps') {
    const q = (k: string) => url.searchParams.get(k) ?? '';
    return Response.json(
      await requestSteps(
        {
          gateway: async (req, e, c) => gateway.fetch(req, e as Env, c),
          env,
          origin: env.ORIGIN,
          noop: env.NOOP.getByName('noop'),
          stubbed: derivedEnv(stubbedEnvs, env, stubbedEnv),
          shard: (eventId) => env.QUEUE_SHARD.getByName(shardName(eventId, 0)),
          ctx,
          joinEvent: q('join'),
          stubEvent: q('stub'),
          admittedEvent: q('admitted'),
          admittedCookie: q('cookie'),
          only: q('only'),
        },
        Number(q('n')) || 200,
      ),
    );
  }
  if (url.pathname === '/__bench/micro-hold') {
    // The hold's steps alone: at the edge (an admitted visitor's cookie in the body), then inside a fresh Inventory.
    const q = (k: string) => url.searchParams.get(k) ?? '';
    const n = Number(q('n')) || 200;
    const cookie = await request.text();
    const stubbed = derivedEnv(stubbedEnvs, env, stubbedEnv) as unknown as Env;
    const noop = env.NOOP.getByName('noop');
    const edge = await edgeHoldSteps(
      n,
      { eventId: q('event'), cookie, seatIds: seatIdsFor(Number(q('seats')), Number(q('perRow'))) },
      {
        gateway: async (req) => gateway.fetch(req, stubbed, ctx),
        ping: () => noop.ping(),
        stubHold: (seatIds) => env.STUB_INVENTORY.getByName(q('event')).hold('v-1', { seatIds }, 'k'),
        env: env as unknown as Env,
      },
    );
    const inObject = await env.INVENTORY.getByName(q('fresh')).microHold(n, Number(q('seats')), Number(q('perRow')));
    return Response.json({ edge, inObject });
  }
  if (url.pathname === '/__bench/admitted-stage') {
    // One stage of an admitted page request, n times (admitted-micro.ts); the visitor's cookie in the body.
    const q = (k: string) => url.searchParams.get(k) ?? '';
    const input = { env: env as unknown as Env & { ORIGIN: Fetcher }, ctx, eventId: q('event'), cookie: await request.text() };
    await runAdmittedStage(Number(q('stage')), Number(q('n')) || 200, {
      ...input,
      gateway: async (req) => gateway.fetch(req, input.env, ctx),
    });
    return new Response('ok');
  }
  if (url.pathname === '/__bench/micro-pow') return Response.json(await microProofOfWork(env, Number(url.searchParams.get('n')) || 200));
  if (url.pathname.startsWith('/__bench/noip/')) {
    // The same request without CF-Connecting-IP: the join limiter is not called (its share of a join).
    const inner = new Request(new URL(url.pathname.slice('/__bench/noip'.length) + url.search, url), request);
    inner.headers.delete('cf-connecting-ip');
    return benchFetch(inner, env, ctx);
  }
  if (url.pathname.startsWith('/__bench/memlimit/')) {
    // The same request with the join limiter counted in memory (MemoryRateLimit).
    const inner = new Request(new URL(url.pathname.slice('/__bench/memlimit'.length) + url.search, url), request);
    return gateway.fetch(inner, derivedEnv(memoryLimiterEnvs, env, memoryLimiterEnv) as unknown as Env, ctx);
  }
  if (url.pathname.startsWith('/__bench/stub/')) {
    // The real gateway with stub objects behind it (no storage): what the gateway itself costs.
    const inner = new Request(new URL(url.pathname.slice('/__bench/stub'.length) + url.search, url), request);
    return gateway.fetch(inner, derivedEnv(stubbedEnvs, env, stubbedEnv) as unknown as Env, ctx);
  }
  // The same stub objects chosen by a header (bench-routes.ts): no Request copy.
  if (request.headers.has(STUB_HEADER)) return gateway.fetch(request, derivedEnv(stubbedEnvs, env, stubbedEnv) as unknown as Env, ctx);
  // BenchInventory is an Inventory, so this is the gateway's own Env.
  return gateway.fetch(request, env as unknown as Env, ctx);
}

/**
 * Each step of a join timed alone, one after another in this request (no contention): mean
 * microseconds per call over `n` calls. Workers' timers advance only at I/O, so each step is
 * timed over its whole loop, which ends with an I/O wait.
 */
async function micro(env: BenchEnv, n: number): Promise<Record<string, number>> {
  const settings = tokenSettings(env as unknown as Env);
  const place = { bucket: 29_000_000, idx: 123, shard: 0 };
  const out: Record<string, number> = {};
  const tick = () => scheduler.wait(0);
  const time = async (name: string, step: (i: number) => Promise<unknown> | unknown) => {
    await tick();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    await tick();
    out[name] = Math.round(((performance.now() - t0) * 1000) / n);
  };
  const es256: TokenSettings = { ...settings, ticketSecret: '' };
  const admission = { eventId: 'micro', expiresAtMs: Date.now() + 600_000, sessionId: '1' };
  await signQueueTicket(settings, 'micro', 'warm', place, Date.now());
  await signQueueTicket(es256, 'micro', 'warm', place, Date.now());
  await time('empty loop + tick', () => undefined);
  await time('crypto.randomUUID', () => crypto.randomUUID());
  await time('ticket sign, ES256 (jose; before)', (i) => signQueueTicket(es256, 'micro', `v-${i}`, place, Date.now()));
  await time('ticket sign, HS256 (ticket-mac.ts; now)', (i) => signQueueTicket(settings, 'micro', `v-${i}`, place, Date.now()));
  const signAll = async (s: TokenSettings, tag: string) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(await signQueueTicket(s, 'micro', `${tag}-${i}`, place, Date.now()));
    return out;
  };
  const esTickets = await signAll(es256, 'e');
  const hsTickets = await signAll(settings, 'h');
  await time('ticket verify, ES256 (jose, uncached; before)', (i) => verifyToken(es256, 'ticket', esTickets[i]!, 'micro', Date.now()));
  await time('ticket verify, HS256 (uncached; now)', (i) => verifyToken(settings, 'ticket', hsTickets[i]!, 'micro', Date.now()));
  await time('token verify (cached, either kind)', (i) => verifyToken(settings, 'ticket', hsTickets[i]!, 'micro', Date.now()));
  await time('admission sign, ES256 (jose)', (i) => signAdmission(settings, { ...admission, visitorId: `a-${i}` }, Date.now()));
  const hmacKey = await crypto.subtle.importKey(
    'raw',
    crypto.getRandomValues(new Uint8Array(32)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const body = new TextEncoder().encode(hsTickets[0]!.split('.').slice(0, 2).join('.'));
  await time('raw HMAC-SHA256 over the same claims', () => crypto.subtle.sign('HMAC', hmacKey, body));
  await time('decision log line (before: one per join and hold)', () =>
    logDecision('joined', { eventId: 'micro', shard: 0, preQueue: false }),
  );
  await time('decision tally (now)', () => recordDecision('micro', 'joined'));
  await time('rate limiter call (before: awaited on every join)', (i) => env.IP_RATE_LIMITER.limit({ key: `join:micro:${i % 50}` }));
  const noop = env.NOOP.getByName('noop');
  await time('no-op Durable Object RPC', () => noop.ping());
  await time('Durable Object RPC with one SQLite upsert', (i) => noop.write(`m-${i}`));
  const shard = env.QUEUE_SHARD.getByName(shardName('micro', 0));
  await time('QueueShard.join RPC (write, no event)', (i) =>
    shard.join({ eventId: 'micro', shard: 0, visitorId: `x-${i}-${Math.random()}`, lottery: false, saleStartsAtMs: 0, again: false }),
  );
  // A coalesced batch of B new visitors: the round trip and the commit are shared, the per-join
  // decision and writes are not (per join = the call's time / B).
  for (const b of [1, 8, 64]) {
    const calls = Math.max(1, Math.round(n / b));
    const batch = (k: number): ShardJoinItem[] =>
      Array.from({ length: b }, (_, j) => ({
        kind: 'join',
        req: { eventId: 'micro', shard: 0, visitorId: `b${b}-${k}-${j}-${Math.random()}`, lottery: false, saleStartsAtMs: 0, again: false },
      }));
    await tick();
    const t0 = performance.now();
    for (let k = 0; k < calls; k++) await shard.joinMany(batch(k));
    await tick();
    out[`QueueShard.joinMany RPC, batch of ${b}, per join`] = Math.round(((performance.now() - t0) * 1000) / (calls * b));
  }
  return out;
}

/**
 * The proof-of-work steps of a join alone, microseconds per call over `n` calls (timed as `micro`
 * does): deriving the challenge secrets (each request does it), verifying one solved 8-bit
 * challenge (the same one `n` times: single use is the shard's, not the verifier's), issuing one.
 */
async function microProofOfWork(env: BenchEnv, n: number): Promise<{ secrets: number; verify: number; issue: number }> {
  const secretsEnv = env as unknown as Env;
  const ring = await challengeKeyRing(secretsEnv);
  const proofOfWork = { difficultyBits: 8 };
  const request = (i: number) => ({ eventId: 'micro', proofOfWork, visitorId: crypto.randomUUID(), nowMs: Date.now(), randomUint32: i });
  const challenge = await issueChallenge(ring, request(7));
  const proof = btoa(JSON.stringify({ challenge, solution: await solvePow(challenge.parameters, 256, () => {}) }));
  const check = { eventId: 'micro', proofOfWork, nowMs: Date.now() };
  const time = async (step: (i: number) => Promise<unknown>) => {
    await scheduler.wait(0);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    await scheduler.wait(0);
    return Math.round(((performance.now() - t0) * 1000) / n);
  };
  return {
    secrets: await time(() => challengeKeyRing(secretsEnv)),
    verify: await time(() => verifyProof(ring, proof, check)),
    issue: await time((i) => issueChallenge(ring, request(i))),
  };
}
