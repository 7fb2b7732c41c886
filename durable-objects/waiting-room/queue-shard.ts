// QueueShard Durable Object: K per event (name `<eventId>/<k>`). Hands out places in line to the
// visitors whose id hashes to it and counts arrivals per bucket for the event's WaitingRoom, so no
// single object sees every join (DESIGN.md section 7).
import { DurableObject } from 'cloudflare:workers';
import { Sql } from '../shared/sql';
import { migrateSchema, SCHEMAS } from '../shared/schemas';
import { logDecision } from '../../contracts/log';
import type { Place } from '../../contracts/queue/cursor';
import {
  SHARD_BATCH_MAX,
  type EntryJoinAnswer,
  type ShardJoin,
  type ShardJoinAnswer,
  type ShardJoinItem,
} from '../../contracts/queue/shard-join';
import type { BatchOutcome } from '../../contracts/batch';
import type { FirstJoinAnswer } from '../../contracts/proof-of-work';
import { arrivalBucket, decideJoin } from './shard-policy';

/** Arrivals the room has not seen yet: every bucket before `sealedBefore` is final. */
export interface ShardCounts {
  sealedBefore: number;
  /** Lottery pre-queue entrants waiting for the draw (0 once sealed). */
  preQueue: number;
  buckets: [number, number][];
  /** Arrivals per presale lane and bucket, from the lane's `fromBucket` on: lane -> [bucket, count][] (lanes with none omitted). */
  lanes: Record<string, [number, number][]>;
}

/** The shard's one state row (qs_state): the pre-queue seal, the first open bucket, whether the room was woken this count cycle. */
interface ShardState {
  sealed: number;
  min_bucket: number;
  announced: number;
}

export class QueueShard extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  /** Requests served by this instance since it started (the scale benchmark counts them). */
  requests = 0;
  private readonly sql: Sql;
  private stateRow: ShardState | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => migrateSchema(ctx.storage, SCHEMAS.queueShard));
  }

  /**
   * A place in line, once per visitor: joining again returns the same place unless `again` asks
   * for a new one at the back. Wakes the event's WaitingRoom on the first arrival it has not
   * counted yet, so the release tick runs while anyone waits.
   */
  async join(req: ShardJoin): Promise<Place> {
    return ((await this.one({ kind: 'join', req })) as { place: Place }).place;
  }

  /**
   * `join` for an account that brings an entry token (src/lib/entry-token.ts): each token gets a
   * place once. A token seen before (a replay, or a copy in another browser) gets
   * `entry_token_used` and changes nothing; a new one is remembered until it expires (plus the
   * tokens' clock tolerance) in the same turn that hands out the place. The account's visitor id
   * is the same on every device, so a new token of the same account gets its same place.
   * @param token the token's `jti` and expiry (epoch ms, tolerance included)
   */
  async enter(req: ShardJoin, token: { id: string; expiresAtMs: number }): Promise<EntryJoinAnswer> {
    return (await this.one({ kind: 'enter', req, token })) as EntryJoinAnswer;
  }

  /**
   * A place for a visitor id that must be new here: the id a solved proof-of-work challenge names
   * (contracts/proof-of-work.ts). `used` when the id has ever had a place in this shard (a row is
   * kept after a leave), so each solution yields one place, whichever isolate submits it; the
   * check and the join's write run with no await between them. Not idempotent: the edge never
   * retries it (a lost answer costs the visitor a new challenge, never a second place).
   */
  async joinOnce(req: ShardJoin): Promise<FirstJoinAnswer<Place>> {
    const answer = await this.one({ kind: 'once', req });
    return answer.kind === 'place' ? { kind: 'joined', place: answer.place } : { kind: 'used' };
  }

  /** One join alone: decided, then the room woken if it got a place. */
  private async one(item: ShardJoinItem): Promise<ShardJoinAnswer> {
    this.requests++;
    const answer = this.decide(item, this.clock());
    if (answer.kind === 'place') await this.announce(item.req.eventId);
    return answer;
  }

  /**
   * Many joins in one call (the edge coalesces the concurrent joins of an isolate to this shard:
   * src/lib/shard-joins.ts), decided one at a time in the order given, each exactly as `join`,
   * `enter` or `joinOnce` decides it alone, so a batch gives the same places as the same calls one
   * after another: one place per visitor, a repeated visitor or token in one batch answered as its
   * repeat would be. All are written with no await between them, so the batch costs the shard one
   * storage commit (Durable Objects coalesce the writes of one turn: Cloudflare docs, "Storage
   * API", automatic write coalescing) and one WaitingRoom wake at most. Each item runs in its own
   * transaction: an item that throws (a bug) is rolled back and answered `{ ok: false }`, and the
   * others stand.
   * @param items 1..SHARD_BATCH_MAX joins, all of this shard's event
   * @returns one outcome per item, in order
   * @throws RangeError for an empty or oversized batch (nothing is written)
   */
  async joinMany(items: ShardJoinItem[]): Promise<BatchOutcome<ShardJoinAnswer>[]> {
    this.requests++;
    if (!Array.isArray(items) || items.length < 1 || items.length > SHARD_BATCH_MAX)
      throw new RangeError(`joinMany takes 1..${SHARD_BATCH_MAX} joins`);
    const now = this.clock();
    const out = items.map((item): BatchOutcome<ShardJoinAnswer> => {
      try {
        return { ok: true, value: this.ctx.storage.transactionSync(() => this.decide(item, now)) };
      } catch (err) {
        const error = err instanceof Error ? err.message : 'unknown';
        logDecision('fault', { eventId: item?.req?.eventId ?? null, call: 'queueShard.joinMany', error });
        return { ok: false, error };
      }
    });
    if (out.some((o) => o.ok && o.value.kind === 'place')) await this.announce(items[0]!.req.eventId);
    return out;
  }

  /** One join's decision and writes, with no await (the callers announce the arrival after). */
  private decide(item: ShardJoinItem, now: number): ShardJoinAnswer {
    if (item.kind === 'once') {
      const place = item.req.again ? null : this.placeNewcomer(item.req, now);
      return place ? { kind: 'place', place } : { kind: 'used' };
    }
    if (item.kind === 'enter') {
      this.sql.run`DELETE FROM qs_entry_tokens WHERE expires_at < ${now}`;
      if (this.sql.one`SELECT 1 AS used FROM qs_entry_tokens WHERE token_id = ${item.token.id}`) return { kind: 'entry_token_used' };
      this.sql.run`INSERT INTO qs_entry_tokens (token_id, expires_at) VALUES (${item.token.id}, ${item.token.expiresAtMs})`;
    }
    return { kind: 'place', place: this.place(item.req, now) };
  }

  private place(req: ShardJoin, now: number): Place {
    // Most joins are of visitors new to this shard: one conditional insert, no read before it.
    const fresh = req.again ? null : this.placeNewcomer(req, now);
    if (fresh) return fresh;
    const existing = this.sql.one<{ pre: number; bucket: number; idx: number; lane: string | null; left_at: number | null }>`
      SELECT pre, bucket, idx, lane, left_at FROM qs_visitors WHERE visitor_id = ${req.visitorId}`;
    const current = existing && existing.left_at === null ? placeOf(existing, req.shard) : null;
    const state = this.state();
    const decision = decideJoin(req, current, { sealed: state.sealed === 1, minBucket: state.min_bucket }, now);
    if (decision.kind === 'keep') return decision.place;
    if (decision.pre) {
      this.sql
        .run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${req.visitorId}, 1, ${arrivalBucket(now, state.min_bucket)}, 0)`;
      return { pre: true };
    }
    const { bucket } = decision;
    const lane = req.lane;
    return this.ctx.storage.transactionSync((): Place => {
      if (lane !== undefined) {
        const idx =
          this.sql.one<{ count: number }>`
          INSERT INTO qs_lane_buckets (lane, bucket, count) VALUES (${lane}, ${bucket}, 1)
          ON CONFLICT (lane, bucket) DO UPDATE SET count = count + 1 RETURNING count`!.count - 1;
        this.sql
          .run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx, lane) VALUES (${req.visitorId}, 0, ${bucket}, ${idx}, ${lane})`;
        return { bucket, idx, shard: req.shard, lane };
      }
      const idx =
        this.sql.one<{ count: number }>`
        INSERT INTO qs_buckets (bucket, count) VALUES (${bucket}, 1)
        ON CONFLICT (bucket) DO UPDATE SET count = count + 1 RETURNING count`!.count - 1;
      this.sql.run`INSERT OR REPLACE INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${req.visitorId}, 0, ${bucket}, ${idx})`;
      return { bucket, idx, shard: req.shard };
    });
  }

  /**
   * The place of a visitor this shard has never seen (no row, not even a left one), written with
   * no read before it: the visitor row goes in only if there is none (`ON CONFLICT DO NOTHING`),
   * with its index in the bucket (of its lane, or of the public queue) taken from that bucket's
   * count inside the same statement, and the count goes up only when the row went in; both in one
   * transaction. Null when the visitor has a row: then the caller decides from it (the same
   * place, a re-join, or a refusal for `joinOnce`).
   */
  private placeNewcomer(req: ShardJoin, now: number): Place | null {
    const state = this.state();
    const decision = decideJoin(req, null, { sealed: state.sealed === 1, minBucket: state.min_bucket }, now);
    if (decision.kind === 'keep') return null;
    if (decision.pre) {
      const row = this.sql.one<{ pre: number }>`
        INSERT INTO qs_visitors (visitor_id, pre, bucket, idx) VALUES (${req.visitorId}, 1, ${arrivalBucket(now, state.min_bucket)}, 0)
        ON CONFLICT (visitor_id) DO NOTHING RETURNING pre`;
      return row ? { pre: true } : null;
    }
    const { bucket } = decision;
    const lane = req.lane;
    return this.ctx.storage.transactionSync((): Place | null => {
      if (lane !== undefined) {
        const row = this.sql.one<{ idx: number }>`
          INSERT INTO qs_visitors (visitor_id, pre, bucket, idx, lane)
          VALUES (${req.visitorId}, 0, ${bucket}, COALESCE((SELECT count FROM qs_lane_buckets WHERE lane = ${lane} AND bucket = ${bucket}), 0), ${lane})
          ON CONFLICT (visitor_id) DO NOTHING RETURNING idx`;
        if (!row) return null;
        this.sql.run`
          INSERT INTO qs_lane_buckets (lane, bucket, count) VALUES (${lane}, ${bucket}, 1)
          ON CONFLICT (lane, bucket) DO UPDATE SET count = count + 1`;
        return { bucket, idx: row.idx, shard: req.shard, lane };
      }
      const row = this.sql.one<{ idx: number }>`
        INSERT INTO qs_visitors (visitor_id, pre, bucket, idx)
        VALUES (${req.visitorId}, 0, ${bucket}, COALESCE((SELECT count FROM qs_buckets WHERE bucket = ${bucket}), 0))
        ON CONFLICT (visitor_id) DO NOTHING RETURNING idx`;
      if (!row) return null;
      this.sql.run`INSERT INTO qs_buckets (bucket, count) VALUES (${bucket}, 1) ON CONFLICT (bucket) DO UPDATE SET count = count + 1`;
      return { bucket, idx: row.idx, shard: req.shard };
    });
  }

  /**
   * Wakes the event's WaitingRoom once per count cycle (until the next `counts`). A wake that fails
   * is tried again by the next join: the place is already stored, so the join still succeeds.
   */
  private async announce(eventId: string): Promise<void> {
    if (this.state().announced === 1) return;
    try {
      await this.env.WAITING_ROOM.getByName(eventId).wake();
      this.setState({ announced: 1 });
    } catch (err) {
      logDecision('fault', { eventId, call: 'waitingRoom.wake', error: err instanceof Error ? err.message : 'unknown' });
    }
  }

  /**
   * Arrivals per bucket from `fromBucket` on (the public queue), and per presale lane from that
   * lane's cursor bucket in `laneFrom` on (0 for a lane not named). Buckets before the returned
   * `sealedBefore` are final, in every lane: any later join lands at or after it.
   * @param laneFrom the room's cursor bucket of each lane it has released from (absent: none)
   */
  async counts(fromBucket: number, laneFrom: Record<string, number> = {}): Promise<ShardCounts> {
    this.requests++;
    const sealedBefore = arrivalBucket(this.clock(), this.state().min_bucket);
    this.setState({ min_bucket: sealedBefore, announced: 0 });
    // The room never asks for buckets before its cursor again.
    this.sql.run`DELETE FROM qs_buckets WHERE bucket < ${fromBucket}`;
    const buckets = this.sql.all<{ bucket: number; count: number }>`SELECT bucket, count FROM qs_buckets ORDER BY bucket`.map(
      (r): [number, number] => [r.bucket, r.count],
    );
    // The room never asks for a lane's buckets before that lane's cursor again.
    for (const [lane, from] of Object.entries(laneFrom))
      this.sql.run`DELETE FROM qs_lane_buckets WHERE lane = ${lane} AND bucket < ${from}`;
    const lanes: Record<string, [number, number][]> = {};
    for (const r of this.sql.all<{ lane: string; bucket: number; count: number }>`
      SELECT lane, bucket, count FROM qs_lane_buckets ORDER BY lane, bucket`) {
      (lanes[r.lane] ??= []).push([r.bucket, r.count]);
    }
    const preQueue =
      this.state().sealed === 1
        ? 0
        : (this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM qs_visitors WHERE pre = 1 AND left_at IS NULL`?.n ?? 0);
    return { sealedBefore, buckets, preQueue, lanes };
  }

  /**
   * Seals the lottery pre-queue (later joins get FIFO places) and returns its entrants who have
   * not left. Idempotent: a retried draw gets the same list.
   */
  async entrants(): Promise<string[]> {
    this.setState({ sealed: 1 });
    return this.sql.all<{
      visitor_id: string;
    }>`SELECT visitor_id FROM qs_visitors WHERE pre = 1 AND left_at IS NULL ORDER BY visitor_id`.map((r) => r.visitor_id);
  }

  /** A visitor gives up their place (a pre-queue entrant leaves the draw). */
  async leave(visitorId: string): Promise<boolean> {
    return (
      this.sql
        .all`UPDATE qs_visitors SET left_at = ${this.clock()} WHERE visitor_id = ${visitorId} AND left_at IS NULL RETURNING visitor_id`
        .length > 0
    );
  }

  /**
   * The shard's state row, read once per instance and kept in memory: only this object writes it,
   * each write goes through `setState` (SQL first, then the copy), and an instance that is reset
   * starts with a fresh read, so the copy never differs from the row.
   */
  private state(): ShardState {
    this.stateRow ??= this.sql.one<ShardState>`SELECT sealed, min_bucket, announced FROM qs_state`!;
    return this.stateRow;
  }

  private setState(patch: Partial<ShardState>): void {
    const next = { ...this.state(), ...patch };
    this.sql.run`UPDATE qs_state SET sealed = ${next.sealed}, min_bucket = ${next.min_bucket}, announced = ${next.announced}`;
    this.stateRow = next;
  }
}

function placeOf(row: { pre: number; bucket: number; idx: number; lane: string | null }, shard: number): Place {
  if (row.pre === 1) return { pre: true };
  return row.lane === null ? { bucket: row.bucket, idx: row.idx, shard } : { bucket: row.bucket, idx: row.idx, shard, lane: row.lane };
}
