// The WaitingRoom's calls to its event's queue shards (the only I/O of a tick besides storage):
// collect the arrival counts, and seal the lottery pre-queue for the draw.
import { shardName } from '../../contracts/names';
import { lotteryDraw } from '../../contracts/queue/queue-policy';
import type { ShardCounts } from './queue-shard';
import type { Room } from './room-reads';

/** One shard's counts, as `QueueShard.counts` answered them. */
export interface ShardAnswer {
  shard: number;
  counts: ShardCounts;
}

/**
 * Asks every queue shard of the room for its arrivals from the cursor's bucket on (each presale
 * lane's from that lane's cursor bucket in `laneFrom` on). Throws what a
 * shard call throws (the tick then stores nothing and its alarm is retried).
 */
export function fetchShardCounts(
  env: Pick<Env, 'QUEUE_SHARD'>,
  { row, config }: Room,
  laneFrom: Record<string, number>,
): Promise<ShardAnswer[]> {
  return Promise.all(
    Array.from({ length: row.shards }, (_, shard) =>
      env.QUEUE_SHARD.getByName(shardName(config.eventId, shard))
        .counts(row.c_bucket, laneFrom)
        .then((counts) => ({ shard, counts: counts as ShardCounts })),
    ),
  );
}

/**
 * The lottery's order: seals every shard's pre-queue and ranks its entrants by the seeded order
 * (contracts/queue/queue-policy.ts lotteryDraw). Sealing is idempotent, so a retried draw gets the
 * same entrants and the same order.
 */
export async function fetchDrawOrder(env: Pick<Env, 'QUEUE_SHARD'>, { row, config }: Room): Promise<{ id: string; key: string }[]> {
  const lists = await Promise.all(
    Array.from({ length: row.shards }, (_, shard) => env.QUEUE_SHARD.getByName(shardName(config.eventId, shard)).entrants()),
  );
  return lotteryDraw(row.seed, lists.flat());
}
