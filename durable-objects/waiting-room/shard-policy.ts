// A queue shard's rules, pure: whether a join keeps the visitor's place or gets a new one, which
// kind (lottery pre-queue or FIFO), and the arrival bucket a new place and a count seal fall in.
import { BUCKET_MS, placeKey, type Place } from '../../contracts/queue/cursor';
import type { ShardJoin } from '../../contracts/queue/shard-join';

/**
 * What a join does: `keep` the visitor's current place, or hand out a `new` one (`pre`: into the
 * lottery pre-queue; else a FIFO place in `bucket`). A visitor keeps their place unless the join
 * asks for a new one (`again`) instead of exactly that place: a re-join naming a place the visitor
 * no longer holds (a replay of an older ticket, or a repeated re-join) keeps the place they have.
 */
export type JoinDecision = { kind: 'keep'; place: Place } | { kind: 'new'; pre: true } | { kind: 'new'; pre: false; bucket: number };

/**
 * The join rule.
 * @param current the visitor's place on this shard, null when they have none (or left)
 * @param shard the pre-queue seal and the first bucket a new arrival may land in
 */
export function decideJoin(
  req: ShardJoin,
  current: Place | null,
  shard: { sealed: boolean; minBucket: number },
  nowMs: number,
): JoinDecision {
  if (current && (!req.again || (req.replaces !== undefined && placeKey(current) !== req.replaces)))
    return { kind: 'keep', place: current };
  // Lottery events put visitors who join before the sale start (and before the draw seals the shard)
  // in the pre-queue. The draw is the public queue's: a presale lane's visitors line up first come,
  // first served in their lane (docs/decisions/0015-presale-lanes.md, lanes and the draw).
  if (req.lottery && req.lane === undefined && !shard.sealed && nowMs < req.saleStartsAtMs) return { kind: 'new', pre: true };
  return { kind: 'new', pre: false, bucket: arrivalBucket(nowMs, shard.minBucket) };
}

/**
 * The bucket an arrival at `nowMs` counts in: its second (epoch ms / BUCKET_MS), but never one
 * before `minBucket`, the first bucket not yet reported final to the room (so a clock that steps
 * back never adds to a sealed bucket). Also the seal a count reports: every earlier bucket is final.
 */
export function arrivalBucket(nowMs: number, minBucket: number): number {
  return Math.max(Math.floor(nowMs / BUCKET_MS), minBucket);
}
