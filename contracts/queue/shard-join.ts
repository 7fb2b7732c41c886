// What the edge sends a QueueShard to get a place in line: built in one place for the gateway's
// turn and the tests that drive the objects the same way.
import { placeKey, shardOf, type AdmissionCursor, type Place } from './cursor';

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
}

/**
 * The join for a visitor at the shard their id hashes to: a first join (`replaces` null, the same
 * place again if they have one), or a re-join at the back instead of the spent or lapsed `replaces`.
 */
export function shardJoin(cursor: AdmissionCursor, visitorId: string, replaces: Place | null): ShardJoin {
  return {
    eventId: cursor.eventId,
    shard: shardOf(visitorId, cursor.shards),
    visitorId,
    lottery: cursor.policy === 'random',
    saleStartsAtMs: cursor.saleStartsAtMs,
    again: replaces !== null,
    ...(replaces ? { replaces: placeKey(replaces) } : {}),
  };
}

/** What `QueueShard.enter` answers: the account's place, or a refusal of an entry token seen before. */
export type EntryJoinAnswer = { kind: 'place'; place: Place } | { kind: 'entry_token_used' };
