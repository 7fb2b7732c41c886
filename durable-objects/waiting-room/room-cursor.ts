// What the WaitingRoom publishes for the edge (the admission cursor): the room's state and the
// unreleased arrivals per bucket (for positions). Pure. (The pace for estimates: admission-pace.ts.)
import { releasedInBucket, type AdmissionCursor, type FifoPlace, type LaneCursor } from '../../contracts/queue/cursor';
import { cursorEntry } from '../../contracts/entry';
import type { EndedSessions } from '../../contracts/queue/ended-sessions';
import type { RoomConfig } from './room-config';
import { cursorOf, type RoomRow } from './room-store';

/**
 * Unreleased arrivals per bucket from the cursor's bucket on, summed over shards, oldest first,
 * at most `maxBuckets` of them (buckets with none left are omitted).
 * @param rows arrival counts per shard and bucket, from the cursor's bucket on
 */
export function queueListing(
  cursor: FifoPlace,
  rows: readonly { shard: number; bucket: number; count: number }[],
  maxBuckets: number,
): [number, number][] {
  const queue = new Map<number, number>();
  for (const r of [...rows].sort((a, b) => a.bucket - b.bucket)) {
    if (r.bucket < cursor.bucket) continue;
    const unreleased = r.bucket > cursor.bucket ? r.count : r.count - releasedInBucket(cursor, r.bucket, new Map([[r.shard, r.count]]));
    if (unreleased > 0) queue.set(r.bucket, (queue.get(r.bucket) ?? 0) + unreleased);
  }
  return [...queue].slice(0, maxBuckets);
}

/**
 * The admission cursor from the room's row and config: everything a waiting visitor's poll needs,
 * nothing personal. The lottery's seed appears only once drawn.
 * @param read what the room read for it: the queue listing, each presale lane's line, the last
 *   released draw key, the wait pace for estimates (room-reads roomPace: admissions and slots
 *   freed per minute, free slots), the sessions ended before their `exp` (ended-store.ts), and the
 *   time of publication (epoch ms)
 */
export function publishCursor(
  row: RoomRow,
  config: RoomConfig,
  read: {
    queue: [number, number][];
    lanes: LaneCursor[];
    releasedKey: string | null;
    admitPerMinute: number;
    slotsFreedPerMinute: number;
    freeSlots: number;
    endedSessions: EndedSessions;
    nowMs: number;
  },
): AdmissionCursor {
  const drawn = row.drawn === 1;
  return {
    eventId: config.eventId,
    eventName: config.name,
    policy: config.policy,
    saleStartsAtMs: config.saleStartsAtMs,
    page: config.page,
    pageStatus: config.waitingPageStatus,
    commitment: config.policy === 'random' ? row.commitment : null,
    mode: row.mode,
    method: config.method ?? 'queue',
    soldOut: row.sold_out === 1,
    shards: row.shards,
    idleTimeoutMs: config.idleTimeoutMs,
    fifo: cursorOf(row),
    draw:
      config.policy === 'random'
        ? { drawn, size: row.draw_size, released: row.draw_released, seed: drawn ? row.seed : null, releasedKey: read.releasedKey }
        : null,
    queue: read.queue,
    admitPerMinute: read.admitPerMinute,
    slotsFreedPerMinute: read.slotsFreedPerMinute,
    freeSlots: read.freeSlots,
    publishedAtMs: read.nowMs,
    entry: cursorEntry(config.entry),
    proofOfWork: config.proofOfWork,
    lanes: read.lanes,
    endedSessions: read.endedSessions,
  };
}
