// The QueueShard's SQL: every read and write of its tables (queue-shard-schema.ts), named by what it
// means, so the object class holds no query and the join rule (shard-policy.ts) holds no storage.
import type { Place } from '../../contracts/queue/cursor';
import type { Sql } from '../shared/sql';

/** The shard's one state row (qs_state): the pre-queue seal, the first open bucket, whether the room was woken this count cycle. */
export interface ShardState {
  sealed: number;
  min_bucket: number;
  announced: number;
}

/** A place in a bucket's line: the public queue's, or a presale lane's (`lane` set). */
export interface BucketPlace {
  bucket: number;
  shard: number;
  lane: string | undefined;
}

/** The QueueShard's queries over the synchronous SQLite API (no await inside any of them). */
export class ShardStore {
  private stateRow: ShardState | null = null;

  /**
   * @param transactionSync `ctx.storage.transactionSync`: the writes of one place run as one
   *   transaction (a throw rolls them back)
   */
  constructor(
    private readonly sql: Sql,
    private readonly transactionSync: <T>(fn: () => T) => T,
  ) {}

  /**
   * The shard's state row, read once per instance and kept in memory: only this object writes it,
   * each write goes through `setState` (SQL first, then the copy), and an instance that is reset
   * starts with a fresh read, so the copy never differs from the row.
   */
  state(): ShardState {
    this.stateRow ??= this.sql.one<ShardState>`SELECT sealed, min_bucket, announced FROM qs_state`!;
    return this.stateRow;
  }

  /** Writes the fields of `patch` to the state row, then to the kept copy. */
  setState(patch: Partial<ShardState>): void {
    const next = { ...this.state(), ...patch };
    this.sql.run`UPDATE qs_state SET sealed = ${next.sealed}, min_bucket = ${next.min_bucket}, announced = ${next.announced}`;
    this.stateRow = next;
  }

  /**
   * Remembers entry token `id` until `expiresAtMs` (epoch ms), unless it was seen before; tokens
   * expired at `nowMs` are forgotten first.
   * @returns false when the token was seen before (nothing written but the forgetting)
   */
  takeEntryToken(id: string, expiresAtMs: number, nowMs: number): boolean {
    this.sql.run`DELETE FROM qs_entry_tokens WHERE expires_at < ${nowMs}`;
    if (this.sql.one`SELECT 1 AS used FROM qs_entry_tokens WHERE token_id = ${id}`) return false;
    this.sql.run`INSERT INTO qs_entry_tokens (token_id, expires_at) VALUES (${id}, ${expiresAtMs})`;
    return true;
  }

  /** The place of a visitor still in line here; null when the visitor has no row or left. */
  currentPlace(visitorId: string, shard: number): Place | null {
    const row = this.sql.one<{ pre: number; bucket: number; idx: number; lane: string | null; left_at: number | null }>`
      SELECT pre, bucket, idx, lane, left_at FROM qs_visitors WHERE visitor_id = ${visitorId}`;
    if (!row || row.left_at !== null) return null;
    if (row.pre === 1) return { pre: true };
    return row.lane === null ? { bucket: row.bucket, idx: row.idx, shard } : { bucket: row.bucket, idx: row.idx, shard, lane: row.lane };
  }

  /** Puts the visitor in the lottery pre-queue (`bucket`: their arrival's), replacing any row they had. */
  putInPreQueue(visitorId: string, bucket: number): void {
    this.sql.run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${visitorId}, 1, ${bucket}, 0)`;
  }

  /**
   * Gives the visitor the next index in the bucket's line (of the lane, or of the public queue),
   * replacing any row they had: the bucket's count and the visitor row in one transaction.
   */
  putInBucket(visitorId: string, at: BucketPlace): Place {
    const { bucket, shard, lane } = at;
    return this.transactionSync((): Place => {
      if (lane !== undefined) {
        const idx =
          this.sql.one<{ count: number }>`
          INSERT INTO qs_lane_buckets (lane, bucket, count) VALUES (${lane}, ${bucket}, 1)
          ON CONFLICT (lane, bucket) DO UPDATE SET count = count + 1 RETURNING count`!.count - 1;
        this.sql
          .run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx, lane) VALUES (${visitorId}, 0, ${bucket}, ${idx}, ${lane})`;
        return { bucket, idx, shard, lane };
      }
      const idx =
        this.sql.one<{ count: number }>`
        INSERT INTO qs_buckets (bucket, count) VALUES (${bucket}, 1)
        ON CONFLICT (bucket) DO UPDATE SET count = count + 1 RETURNING count`!.count - 1;
      this.sql.run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${visitorId}, 0, ${bucket}, ${idx})`;
      return { bucket, idx, shard };
    });
  }

  /** `putInPreQueue` for a visitor with no row (`ON CONFLICT DO NOTHING`); false when they have one. */
  newcomerInPreQueue(visitorId: string, bucket: number): boolean {
    return (
      this.sql.one<{ pre: number }>`
        INSERT INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${visitorId}, 1, ${bucket}, 0)
        ON CONFLICT (visitor_id) DO NOTHING RETURNING pre` !== null
    );
  }

  /**
   * `putInBucket` for a visitor with no row, with no read before it: the visitor row goes in only
   * if there is none (`ON CONFLICT DO NOTHING`), its index taken from the bucket's count inside the
   * same statement, and the count goes up only when the row went in; both in one transaction.
   * @returns the place, or null when the visitor has a row (nothing written)
   */
  newcomerInBucket(visitorId: string, at: BucketPlace): Place | null {
    const { bucket, shard, lane } = at;
    return this.transactionSync((): Place | null => {
      if (lane !== undefined) {
        const row = this.sql.one<{ idx: number }>`
          INSERT INTO qs_visitors (visitor_id, pre, bucket, idx, lane)
          VALUES (${visitorId}, 0, ${bucket}, COALESCE((SELECT count FROM qs_lane_buckets WHERE lane = ${lane} AND bucket = ${bucket}), 0), ${lane})
          ON CONFLICT (visitor_id) DO NOTHING RETURNING idx`;
        if (!row) return null;
        this.sql.run`
          INSERT INTO qs_lane_buckets (lane, bucket, count) VALUES (${lane}, ${bucket}, 1)
          ON CONFLICT (lane, bucket) DO UPDATE SET count = count + 1`;
        return { bucket, idx: row.idx, shard, lane };
      }
      const row = this.sql.one<{ idx: number }>`
        INSERT INTO qs_visitors (visitor_id, pre, bucket, idx)
        VALUES (${visitorId}, 0, ${bucket}, COALESCE((SELECT count FROM qs_buckets WHERE bucket = ${bucket}), 0))
        ON CONFLICT (visitor_id) DO NOTHING RETURNING idx`;
      if (!row) return null;
      this.sql.run`INSERT INTO qs_buckets (bucket, count) VALUES (${bucket}, 1) ON CONFLICT (bucket) DO UPDATE SET count = count + 1`;
      return { bucket, idx: row.idx, shard };
    });
  }

  /**
   * Arrivals per bucket from `fromBucket` on (the public queue), and per presale lane from that
   * lane's bucket in `laneFrom` on; the buckets before those are deleted (the room never asks for
   * them again).
   */
  arrivals(
    fromBucket: number,
    laneFrom: Record<string, number>,
  ): { buckets: [number, number][]; lanes: Record<string, [number, number][]> } {
    this.sql.run`DELETE FROM qs_buckets WHERE bucket < ${fromBucket}`;
    const buckets = this.sql.all<{ bucket: number; count: number }>`SELECT bucket, count FROM qs_buckets ORDER BY bucket`.map(
      (r): [number, number] => [r.bucket, r.count],
    );
    for (const [lane, from] of Object.entries(laneFrom))
      this.sql.run`DELETE FROM qs_lane_buckets WHERE lane = ${lane} AND bucket < ${from}`;
    const lanes: Record<string, [number, number][]> = {};
    for (const r of this.sql.all<{ lane: string; bucket: number; count: number }>`
      SELECT lane, bucket, count FROM qs_lane_buckets ORDER BY lane, bucket`) {
      (lanes[r.lane] ??= []).push([r.bucket, r.count]);
    }
    return { buckets, lanes };
  }

  /** Lottery pre-queue entrants who have not left. */
  preQueueSize(): number {
    return this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM qs_visitors WHERE pre = 1 AND left_at IS NULL`?.n ?? 0;
  }

  /** The pre-queue entrants who have not left, by visitor id. */
  preQueueEntrants(): string[] {
    return this.sql.all<{
      visitor_id: string;
    }>`SELECT visitor_id FROM qs_visitors WHERE pre = 1 AND left_at IS NULL ORDER BY visitor_id`.map((r) => r.visitor_id);
  }

  /**
   * Marks the visitor as left at `nowMs` (the row stays: a `joinOnce` of the same id is refused).
   * @returns false when the visitor had no place here, or left before
   */
  leave(visitorId: string, nowMs: number): boolean {
    return (
      this.sql.all`UPDATE qs_visitors SET left_at = ${nowMs} WHERE visitor_id = ${visitorId} AND left_at IS NULL RETURNING visitor_id`
        .length > 0
    );
  }
}
