// Benchmark build of the gateway: the real Worker and objects, plus no-op baselines and an
// in-object hold loop, all in one bundle run by Miniflare (never deployed).
// The routes under /__bench/ are the bench's; every other request goes to the gateway. The
// objects: bench/bench-objects.ts; the derived envs: bench/bench-envs.ts; the timed steps:
// bench/bench-micro.ts.
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';
import gateway from '../src/index';
import { STUB_HEADER } from './bench-routes';
import { shardName } from '../contracts/names';
import { requestSteps } from './request-steps';
import { joinBatchStats } from '../src/lib/shard-joins';
import { edgeHoldSteps } from './hold-micro';
import { runAdmittedStage } from './admitted-micro';
import { countingEnvOf, memoryLimiterEnvOf, siteObjectCallCount, slowEnvOf, stubbedEnvOf, type BenchEnv } from './bench-envs';
import { micro, microProofOfWork } from './bench-micro';

export { AccountLedger, EventDirectory, QueueShard, WaitingRoom } from '../src/index';
export { BenchInventory, Noop, StubInventory, StubShard } from './bench-objects';

export default {
  fetch: benchFetch,
};

async function benchFetch(request: Request, env: BenchEnv, ctx: ExecutionContext): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === '/__bench/noop') return new Response('ok');
  // The origin behind a bare forward, no gateway logic: the pass-through row's second baseline.
  if (url.pathname === '/__bench/forward') return env.ORIGIN.fetch(request);
  if (url.pathname === '/__bench/site-object-calls') return Response.json({ calls: siteObjectCallCount() });
  // Batches and joins this isolate sent per shard binding so far (src/lib/shard-joins.ts): the mean batch size.
  if (url.pathname === '/__bench/join-batches')
    return Response.json({
      real: joinBatchStats(env.QUEUE_SHARD),
      stub: joinBatchStats(env.STUB_SHARD),
      slow: joinBatchStats(slowEnvOf(env).QUEUE_SHARD),
    });
  if (url.pathname.startsWith('/__bench/slow/')) {
    const inner = new Request(new URL(url.pathname.slice('/__bench/slow'.length) + url.search, url), request);
    return gateway.fetch(inner, slowEnvOf(env) as unknown as Env, ctx);
  }
  // Pages of the site no room covers: the gateway passes them through; count the objects it asks for.
  if (url.pathname.startsWith('/site/')) return gateway.fetch(request, countingEnvOf(env) as unknown as Env, ctx);
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
          stubbed: stubbedEnvOf(env),
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
    const stubbed = stubbedEnvOf(env) as unknown as Env;
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
    return gateway.fetch(inner, memoryLimiterEnvOf(env) as unknown as Env, ctx);
  }
  if (url.pathname.startsWith('/__bench/stub/')) {
    // The real gateway with stub objects behind it (no storage): what the gateway itself costs.
    const inner = new Request(new URL(url.pathname.slice('/__bench/stub'.length) + url.search, url), request);
    return gateway.fetch(inner, stubbedEnvOf(env) as unknown as Env, ctx);
  }
  // The same stub objects chosen by a header (bench-routes.ts): no Request copy.
  if (request.headers.has(STUB_HEADER)) return gateway.fetch(request, stubbedEnvOf(env) as unknown as Env, ctx);
  // BenchInventory is an Inventory, so this is the gateway's own Env.
  return gateway.fetch(request, env as unknown as Env, ctx);
}
