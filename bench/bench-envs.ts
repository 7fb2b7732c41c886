// The envs the bench Worker serves some routes with instead of its own (bench/bench-worker.ts):
// object bindings that count the stubs they hand out, queue shards held back before each batch,
// the stub objects in place of the real ones, and the join limiter counted in the isolate's
// memory. Each is derived once per runtime env and kept, as the gateway expects of an env.
import type { ShardJoinItem } from '../contracts/queue/shard-join';
import type { BenchInventory, Noop, StubInventory, StubShard } from './bench-objects';

/** The bench Worker's env: the gateway's, with the bench's objects and the origin Worker bound. */
export type BenchEnv = Omit<Env, 'INVENTORY'> & {
  ORIGIN: Fetcher;
  NOOP: DurableObjectNamespace<Noop>;
  INVENTORY: DurableObjectNamespace<BenchInventory>;
  STUB_INVENTORY: DurableObjectNamespace<StubInventory>;
  STUB_SHARD: DurableObjectNamespace<StubShard>;
};

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

/** Durable Object stubs the gateway asked for so far while serving `/site/...` (the pass-through row). */
export const siteObjectCallCount = (): number => siteObjectCalls;

/** `env` with every Durable Object namespace counting the stubs it hands out (siteObjectCallCount). */
export const countingEnvOf = (env: BenchEnv): BenchEnv => derivedEnv(countingEnvs, env, countingEnv);

/** `env` with the stub objects (StubInventory, StubShard) in place of the real Inventory and queue shards. */
export const stubbedEnvOf = (env: BenchEnv): BenchEnv => derivedEnv(stubbedEnvs, env, stubbedEnv);

/** `env` with queue shards that hold every `joinMany` back SLOW_SHARD_MS first. */
export const slowEnvOf = (env: BenchEnv): BenchEnv => derivedEnv(slowEnvs, env, slowShardEnv);

/** `env` with the IP join limiter counted in the isolate's memory (MemoryRateLimit). */
export const memoryLimiterEnvOf = (env: BenchEnv): BenchEnv => derivedEnv(memoryLimiterEnvs, env, memoryLimiterEnv);
