// Joins at a queue shard, coalesced per isolate: the concurrent joins of this isolate to one shard
// go to it as one `joinMany` call, decided there one at a time in arrival order.
import { coalescedCalls, coalescedStats, type CoalescerStats } from './coalesce';
import type { ShardJoinAnswer, ShardJoinItem } from '../../contracts/queue/shard-join';
import { SHARD_BATCH_MAX } from '../../contracts/queue/shard-join';
import type { BatchOutcome } from '../../contracts/batch';
import { parseJoinCoalescing } from './settings';

/**
 * Joins' coalescers, one per QueueShard namespace binding (the bench's and the tests' stub shards
 * have the same names as the real ones), and JOIN_COALESCING resolved once per env object.
 */
const joins = coalescedCalls<{ JOIN_COALESCING?: string }, ShardJoinItem, ShardJoinAnswer>(
  SHARD_BATCH_MAX,
  (env) => parseJoinCoalescing(env.JOIN_COALESCING),
  'queueShard.joinMany answered nothing for one item',
);

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
  return joins.call(env, ns, { key: shardName, item, send: (items) => ns.getByName(shardName).joinMany(items), waitUntil });
}

/** Batches and joins sent so far through `ns` by this isolate (the bench's mean batch size). */
export function joinBatchStats(ns: ShardNamespace): CoalescerStats {
  return coalescedStats(joins, ns);
}
