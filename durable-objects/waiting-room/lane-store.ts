// The WaitingRoom's SQL for presale lanes (schema.ts migration 6): each lane's cursor, lapse mark
// and release count, its arrivals per shard and bucket, and which release passed which lane place.
// The public queue's rows stay in room-store.ts.
import type { FifoPlace } from '../../contracts/queue/cursor';
import type { Sql } from '../shared/sql';
import type { ReleaseRef } from './admission-policy';
import type { QueueCounts } from './tick-plan';

/** One lane's stored line: its cursor (first place not released), lapse mark and released total. */
export interface LaneLine {
  cursor: FifoPlace;
  /** Places of the lane before this were released too long ago to claim (their records are pruned). */
  lapsed: FifoPlace;
  /** Visitors of the lane released so far. */
  released: number;
}

const START: LaneLine = { cursor: { bucket: 0, idx: 0, shard: 0 }, lapsed: { bucket: 0, idx: 0, shard: 0 }, released: 0 };

/** Lane queries over the synchronous SQLite API (no await inside any of them). */
export class LaneStore {
  /**
   * Each line's rounding credit between ticks (lane-split.ts `LaneSplit.credit`), by lane id, the
   * public queue under `''`. In memory only: it is under 2 visitors per line, so a restart that
   * loses it costs at most that, and no schema row is worth it.
   */
  credit = new Map<string, number>();

  constructor(private readonly sql: Sql) {}

  /** The stored line of each lane that has one (a lane nobody was released from yet has none: START). */
  lines(): Map<string, LaneLine> {
    const rows = this.sql.all<{
      lane: string;
      c_bucket: number;
      c_idx: number;
      c_shard: number;
      lapsed_bucket: number;
      lapsed_idx: number;
      lapsed_shard: number;
      released: number;
    }>`SELECT * FROM wr_lanes`;
    return new Map(
      rows.map((r) => [
        r.lane,
        {
          cursor: { bucket: r.c_bucket, idx: r.c_idx, shard: r.c_shard },
          lapsed: { bucket: r.lapsed_bucket, idx: r.lapsed_idx, shard: r.lapsed_shard },
          released: r.released,
        },
      ]),
    );
  }

  /** The line of `lane` (START when it has none stored). */
  line(lane: string): LaneLine {
    return this.lines().get(lane) ?? START;
  }

  /** Stores one shard's arrivals per lane and bucket. */
  storeArrivals(shard: number, lanes: Readonly<Record<string, readonly [number, number][]>>): void {
    for (const [lane, buckets] of Object.entries(lanes)) {
      for (const [bucket, count] of buckets) {
        this.sql.run`INSERT OR REPLACE INTO wr_lane_arrivals (lane, shard, bucket, count) VALUES (${lane}, ${shard}, ${bucket}, ${count})`;
      }
    }
  }

  /** The lane's arrival rows from `fromBucket` on, oldest bucket first. */
  arrivals(lane: string, fromBucket: number): { shard: number; bucket: number; count: number }[] {
    return this.sql.all<{ shard: number; bucket: number; count: number }>`
      SELECT shard, bucket, count FROM wr_lane_arrivals WHERE lane = ${lane} AND bucket >= ${fromBucket} ORDER BY bucket`;
  }

  /**
   * The lane's queue counts (tick-plan QueueCounts): its cursor, its arrivals from the cursor's
   * bucket on, and the public queue's seal (`sealedBefore`: a shard seals every lane at once).
   */
  queueCounts(lane: string, sealedBefore: number): QueueCounts {
    const { cursor } = this.line(lane);
    const counts = new Map<number, Map<number, number>>();
    for (const r of this.arrivals(lane, cursor.bucket)) {
      if (!counts.has(r.shard)) counts.set(r.shard, new Map());
      counts.get(r.shard)!.set(r.bucket, r.count);
    }
    return { cursor, counts, sealedBefore };
  }

  /**
   * Records a lane's part of a tick's release: its cursor and released total, and, when anyone of
   * it was released, which release record (`releaseId`) passed its places. Forgets the lane's
   * counted buckets its cursor has passed. Call inside the tick's transaction.
   */
  applyRelease(lane: string, releaseId: number | null, released: number, c: FifoPlace): void {
    this.sql
      .run`INSERT INTO wr_lanes (lane, c_bucket, c_idx, c_shard, released) VALUES (${lane}, ${c.bucket}, ${c.idx}, ${c.shard}, ${released})
      ON CONFLICT (lane) DO UPDATE SET c_bucket = ${c.bucket}, c_idx = ${c.idx}, c_shard = ${c.shard}, released = released + ${released}`;
    if (releaseId !== null && released > 0) {
      this.sql
        .run`INSERT INTO wr_lane_releases (id, lane, c_bucket, c_idx, c_shard) VALUES (${releaseId}, ${lane}, ${c.bucket}, ${c.idx}, ${c.shard})`;
    }
    this.sql.run`DELETE FROM wr_lane_arrivals WHERE lane = ${lane} AND bucket < ${c.bucket}`;
  }

  /** The release that released lane place `p` (the first whose lane cursor moved past it). */
  releaseOfPlace(lane: string, p: FifoPlace): ReleaseRef | null {
    return this.sql.one<ReleaseRef>`
      SELECT r.id AS id, r.at AS atMs FROM wr_lane_releases l JOIN wr_releases r ON r.id = l.id
      WHERE l.lane = ${lane} AND (l.c_bucket, l.c_idx, l.c_shard) > (${p.bucket}, ${p.idx}, ${p.shard}) ORDER BY l.id LIMIT 1`;
  }

  /**
   * Forgets the lane parts of release records up to `lastId` (those room-store pruneReleases
   * drops), remembering each lane's cursor as of its newest one dropped: a place before it was
   * released too long ago to claim.
   */
  prune(lastId: number): void {
    const newest = this.sql.all<{ lane: string; c_bucket: number; c_idx: number; c_shard: number }>`
      SELECT l.lane AS lane, l.c_bucket AS c_bucket, l.c_idx AS c_idx, l.c_shard AS c_shard FROM wr_lane_releases l
      WHERE l.id = (SELECT MAX(id) FROM wr_lane_releases m WHERE m.lane = l.lane AND m.id <= ${lastId})`;
    for (const n of newest) {
      this.sql
        .run`UPDATE wr_lanes SET lapsed_bucket = ${n.c_bucket}, lapsed_idx = ${n.c_idx}, lapsed_shard = ${n.c_shard} WHERE lane = ${n.lane}`;
    }
    this.sql.run`DELETE FROM wr_lane_releases WHERE id <= ${lastId}`;
  }
}
