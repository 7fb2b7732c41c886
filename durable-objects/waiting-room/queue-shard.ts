// QueueShard Durable Object: K per event (name `<eventId>/<k>`). Hands out places in line to the
// visitors whose id hashes to it and counts arrivals per bucket for the event's WaitingRoom, so no
// single object sees every join (DESIGN.md section 7). A thin adapter over its store (shard-store.ts)
// and the join rule (shard-policy.ts).
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
import { ShardStore } from './shard-store';

/** Arrivals the room has not seen yet: every bucket before `sealedBefore` is final. */
export interface ShardCounts {
  sealedBefore: number;
  /** Lottery pre-queue entrants waiting for the draw (0 once sealed). */
  preQueue: number;
  buckets: [number, number][];
  /** Arrivals per presale lane and bucket, from the lane's `fromBucket` on: lane -> [bucket, count][] (lanes with none omitted). */
  lanes: Record<string, [number, number][]>;
}

export class QueueShard extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  /** Requests served by this instance since it started (the scale benchmark counts them). */
  requests = 0;
  private readonly store: ShardStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ShardStore(new Sql(ctx.storage.sql), (fn) => ctx.storage.transactionSync(fn));
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
    if (item.kind === 'enter' && !this.store.takeEntryToken(item.token.id, item.token.expiresAtMs, now))
      return { kind: 'entry_token_used' };
    return { kind: 'place', place: this.place(item.req, now) };
  }

  /** A join's place: the newcomer's, else the visitor's current one kept, or a new one (`decideJoin`). */
  private place(req: ShardJoin, now: number): Place {
    // Most joins are of visitors new to this shard: one conditional insert, no read before it.
    const fresh = req.again ? null : this.placeNewcomer(req, now);
    if (fresh) return fresh;
    const current = this.store.currentPlace(req.visitorId, req.shard);
    const state = this.store.state();
    const decision = decideJoin(req, current, { sealed: state.sealed === 1, minBucket: state.min_bucket }, now);
    if (decision.kind === 'keep') return decision.place;
    if (decision.pre) {
      this.store.putInPreQueue(req.visitorId, arrivalBucket(now, state.min_bucket));
      return { pre: true };
    }
    return this.store.putInBucket(req.visitorId, { bucket: decision.bucket, shard: req.shard, lane: req.lane });
  }

  /**
   * The place of a visitor this shard has never seen (no row, not even a left one), written with
   * no read before it (shard-store.ts `newcomerInBucket`). Null when the visitor has a row: then
   * the caller decides from it (the same place, a re-join, or a refusal for `joinOnce`).
   */
  private placeNewcomer(req: ShardJoin, now: number): Place | null {
    const state = this.store.state();
    const decision = decideJoin(req, null, { sealed: state.sealed === 1, minBucket: state.min_bucket }, now);
    if (decision.kind === 'keep') return null;
    if (decision.pre) return this.store.newcomerInPreQueue(req.visitorId, arrivalBucket(now, state.min_bucket)) ? { pre: true } : null;
    return this.store.newcomerInBucket(req.visitorId, { bucket: decision.bucket, shard: req.shard, lane: req.lane });
  }

  /**
   * Wakes the event's WaitingRoom once per count cycle (until the next `counts`). A wake that fails
   * is tried again by the next join: the place is already stored, so the join still succeeds.
   */
  private async announce(eventId: string): Promise<void> {
    if (this.store.state().announced === 1) return;
    try {
      await this.env.WAITING_ROOM.getByName(eventId).wake();
      this.store.setState({ announced: 1 });
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
    const sealedBefore = arrivalBucket(this.clock(), this.store.state().min_bucket);
    this.store.setState({ min_bucket: sealedBefore, announced: 0 });
    const { buckets, lanes } = this.store.arrivals(fromBucket, laneFrom);
    const preQueue = this.store.state().sealed === 1 ? 0 : this.store.preQueueSize();
    return { sealedBefore, buckets, preQueue, lanes };
  }

  /**
   * Seals the lottery pre-queue (later joins get FIFO places) and returns its entrants who have
   * not left. Idempotent: a retried draw gets the same list.
   */
  async entrants(): Promise<string[]> {
    this.store.setState({ sealed: 1 });
    return this.store.preQueueEntrants();
  }

  /** A visitor gives up their place (a pre-queue entrant leaves the draw). */
  async leave(visitorId: string): Promise<boolean> {
    return this.store.leave(visitorId, this.clock());
  }
}
