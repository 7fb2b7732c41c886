// What the edge sends a QueueShard to get a place in line: built in one place for the gateway's
// turn and the tests that drive the objects the same way.
import { laneOf, placeKey, shardOf, type AdmissionCursor, type Place } from './cursor';

/** A join as the edge sends it; the shard keeps no event settings of its own. */
export interface ShardJoin {
  eventId: string;
  /** This shard's index, 0..K-1. */
  shard: number;
  visitorId: string;
  /** Lottery events put visitors who join before the sale start (and before the draw) in the pre-queue. */
  lottery: boolean;
  saleStartsAtMs: number;
  /** The visitor's place lapsed or their admission ended: a new place at the back. */
  again: boolean;
  /**
   * With `again`: the place being replaced (`placeKey`). A new place is handed out only while the
   * visitor still holds that one, so repeating the re-join (or replaying the old ticket) returns
   * the place it already got instead of adding arrivals.
   */
  replaces?: string;
  /**
   * The presale lane a new place goes in line in (one of the event's lanes; absent = the public
   * queue). A visitor who has a place keeps it, whichever lane the join names: an account's first
   * place decides its lane.
   */
  lane?: string;
}

/**
 * The join for a visitor at the shard their id hashes to: a first join (`replaces` null, the same
 * place again if they have one), or a re-join at the back instead of the spent or lapsed `replaces`.
 * A first join goes in line in `entry.lane` (the entry token's lane, null = the public queue); a
 * re-join stays in the replaced place's lane while the event still lists that lane, else it joins
 * the public queue.
 */
export function shardJoin(cursor: AdmissionCursor, visitorId: string, replaces: Place | null, entry: { lane: string | null }): ShardJoin {
  const lane = replaces ? laneOf(replaces) : entry.lane;
  const listed = lane !== null && (cursor.entry?.lanes ?? []).includes(lane);
  return {
    eventId: cursor.eventId,
    shard: shardOf(visitorId, cursor.shards),
    visitorId,
    lottery: cursor.policy === 'random',
    saleStartsAtMs: cursor.saleStartsAtMs,
    again: replaces !== null,
    ...(replaces ? { replaces: placeKey(replaces) } : {}),
    ...(listed ? { lane } : {}),
  };
}

/** What `QueueShard.enter` answers: the account's place, or a refusal of an entry token seen before. */
export type EntryJoinAnswer = { kind: 'place'; place: Place } | { kind: 'entry_token_used' };

/** A used proof-of-work visitor id's refusal, as `QueueShard.joinOnce` answers it (contracts/proof-of-work.ts). */
type UsedId = { kind: 'used' };

/**
 * One join of a batch (`QueueShard.joinMany`), as the edge sends it: a `join` (idempotent: the
 * visitor's same place, or its re-join), an entry token's first join (`enter`, the token's `jti`
 * and expiry in epoch ms, tolerance included), or a proven newcomer's (`once`: the id of a solved
 * proof-of-work challenge, which must be new to the shard).
 */
export type ShardJoinItem =
  | { kind: 'join'; req: ShardJoin }
  | { kind: 'enter'; req: ShardJoin; token: { id: string; expiresAtMs: number } }
  | { kind: 'once'; req: ShardJoin };

/** What one item of a batch got: a place, an entry token seen before (`entry_token_used`), or a proof-of-work id seen before (`used`). */
export type ShardJoinAnswer = { kind: 'place'; place: Place } | { kind: 'entry_token_used' } | UsedId;

/** Most items the shard takes in one `joinMany` call (the edge's coalescer sends at most this many). */
export const SHARD_BATCH_MAX = 64;
