// Joins at a queue shard, coalesced per isolate: the concurrent joins of this isolate to one shard
// go to it as one `joinMany` call, decided there one at a time in arrival order (issue #16).
import { Coalescer, coalescingOn, type CoalescerStats } from './coalesce';
import type { ShardJoinAnswer, ShardJoinItem } from '../../contracts/queue/shard-join';
import { SHARD_BATCH_MAX } from '../../contracts/queue/shard-join';
import type { BatchOutcome } from '../../contracts/batch';
import { parseJoinCoalescing } from './settings';

/**
 * One coalescer per QueueShard namespace binding, so a batch only ever carries joins meant for the
 * same binding (the bench's and the tests' stub shards have the same names as the real ones).
 * The runtime hands every request of an isolate the same env, so requests share one.
 */
const coalescers = new WeakMap<object, Coalescer<ShardJoinItem, ShardJoinAnswer>>();

/** `JOIN_COALESCING` of `env` resolved (auto: as the runtime allows), once per env object. */
const coalescing = new WeakMap<object, boolean>();
function coalesces(env: { JOIN_COALESCING?: string }): boolean {
  let on = coalescing.get(env);
  if (on === undefined) {
    const setting = parseJoinCoalescing(env.JOIN_COALESCING);
    coalescing.set(env, (on = coalescingOn(setting)));
  }
  return on;
}

/** The part of the QUEUE_SHARD binding a join uses. */
export interface ShardNamespace {
  getByName(name: string): { joinMany(items: ShardJoinItem[]): Promise<BatchOutcome<ShardJoinAnswer>[]> };
}

/**
 * One join at the shard named `shardName` (contracts/names.ts `shardName`), sent at once when
 * this isolate has no join to that shard in flight, else with the others that queued meanwhile
 * (at most SHARD_BATCH_MAX per call; src/lib/coalesce.ts); alone when JOIN_COALESCING is off or
 * the runtime cannot hand answers across requests. The stub is made here, in the calling request:
 * whichever caller sends a batch uses its own.
 * @param env the QUEUE_SHARD binding and JOIN_COALESCING
 * @param waitUntil the request's `ctx.waitUntil`: keeps the request alive until its batch settles
 * @returns the item's answer (a place, or a refusal of a used entry token or proof-of-work id)
 * @throws SettingsError for a malformed JOIN_COALESCING; the shard call's error for every item of the batch (Durable Object error flags kept, so
 *   src/lib/do-call.ts retries the idempotent ones), an item's own Error, or a stalled error (`stalledError`)
 */
export async function joinAtShard(
  env: { QUEUE_SHARD: ShardNamespace; JOIN_COALESCING?: string },
  shardName: string,
  item: ShardJoinItem,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<ShardJoinAnswer> {
  const ns = env.QUEUE_SHARD;
  if (!coalesces(env)) {
    const [outcome] = await ns.getByName(shardName).joinMany([item]);
    if (!outcome?.ok) throw new Error(outcome?.error ?? `queueShard.joinMany answered nothing for one item`);
    return outcome.value;
  }
  let coalescer = coalescers.get(ns);
  if (!coalescer) coalescers.set(ns, (coalescer = new Coalescer({ maxBatch: SHARD_BATCH_MAX })));
  return coalescer.call({ key: shardName, item, send: (items) => ns.getByName(shardName).joinMany(items), waitUntil });
}

/** Batches and joins sent so far through `ns` by this isolate (the bench's mean batch size). */
export function joinBatchStats(ns: ShardNamespace): CoalescerStats {
  return coalescers.get(ns)?.stats() ?? { batches: 0, items: 0 };
}
