// The WaitingRoom's SQL: every read and write of its tables (schema.ts), named by what it means,
// so the object class holds no query and the rules (tick-plan, admission-policy) hold no storage.
import { coverEnd, type CoverRules } from './admission-cover';
import type { FifoPlace } from '../../contracts/queue/cursor';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import type { Sql } from '../shared/sql';
import { SLOT_ASK_KEPT_MS, SLOT_ASKS_KEPT, type ReleaseRef } from './admission-policy';
import { type QueueCounts } from './tick-plan';
import { CLAIM_LAGS_KEPT, type ReleaseClaims } from './unclaimed-places';
import { EndedStore, type EndedAdmission } from './ended-store';
import { LaneStore } from './lane-store';
import { MAX_HOLD_COVER_MS, cursorOf, type AdmissionRow, type RoomRow } from './room-rows';
import { SignalStore } from './signal-store';
import { PositionStore } from './position-store';

/** The WaitingRoom's queries over the synchronous SQLite API (no await inside any of them). */
export class RoomStore {
  /** The presale lanes' rows (lane-store.ts). */
  readonly lanes: LaneStore;
  /** Sessions ended before their `exp`, published in the cursor (ended-store.ts). */
  readonly ended: EndedStore;
  /** The gateway's hold signals and the dashboard's samples (signal-store.ts). */
  readonly signals: SignalStore;
  /** The seal and the draw's marks, published in the cursor (position-store.ts). */
  readonly positions: PositionStore;

  /**
   * The latest claim lags (release to claim), ms, at most CLAIM_LAGS_KEPT: what tick-plan
   * unclaimedPlaces learns when visitors who show claim. Kept in memory: a restart starts from the
   * default spread until MIN_CLAIM_LAGS claims come.
   */
  private readonly lags: number[] = [];

  /**
   * Visitors whose released place waits for a slot (admission-policy `wait_for_slot`): visitor id
   * to their first and last ask (epoch ms), in the order they first asked. Kept in memory: after a
   * restart the next asks rebuild it (a visitor asks every MIN_POLL_MS), but a place past its idle
   * timeout then lapses.
   */
  private readonly asks = new Map<string, { firstMs: number; lastMs: number }>();

  constructor(private readonly sql: Sql) {
    this.lanes = new LaneStore(sql);
    this.ended = new EndedStore(sql);
    this.signals = new SignalStore(sql);
    this.positions = new PositionStore(sql);
  }

  /** Notes that `visitorId` asked for a slot at `nowMs` (at most SLOT_ASKS_KEPT visitors: the oldest ask goes). */
  askForSlot(visitorId: string, nowMs: number): void {
    this.asks.set(visitorId, { firstMs: this.asks.get(visitorId)?.firstMs ?? nowMs, lastMs: nowMs });
    if (this.asks.size > SLOT_ASKS_KEPT) this.asks.delete(this.asks.keys().next().value!);
  }

  /** The visitors who asked for a slot within SLOT_ASK_KEPT_MS of `nowMs`, first asker first. */
  slotAsks(nowMs: number): ReadonlyMap<string, { firstMs: number; lastMs: number }> {
    for (const [id, ask] of this.asks) if (nowMs - ask.lastMs > SLOT_ASK_KEPT_MS) this.asks.delete(id);
    return this.asks;
  }

  /** The latest claim lags, ms (see `lags`). */
  claimLagsMs(): readonly number[] {
    return this.lags;
  }

  room(): RoomRow | null {
    return this.sql.one<RoomRow>`SELECT * FROM wr_room WHERE id = 1`;
  }

  /** Creates the room's row with the organizer's config, a secret seed and its public commitment. */
  createRoom(config: string, shards: number, seed: string, commitment: string, ratePerMinute: number, nowMs: number): void {
    this.sql
      .run`INSERT INTO wr_room (id, config, mode, seed, commitment, drawn, rate, last_report_at, carry, last_tick_at, next_seq, next_rank, admitted_total, shards)
      VALUES (1, ${config}, 'open', ${seed}, ${commitment}, 0, ${ratePerMinute}, 0, 0, ${nowMs}, 1, 1, 0, ${shards})`;
  }

  setConfig(config: string, shards: number): void {
    this.sql.run`UPDATE wr_room SET config = ${config}, shards = ${shards}`;
  }

  /** The organizer fixes the rate (takes effect at once), or hands control back (null). */
  setFixedRate(perMinute: number | null): void {
    if (perMinute === null) this.sql.run`UPDATE wr_room SET fixed_rate = NULL`;
    else this.sql.run`UPDATE wr_room SET fixed_rate = ${perMinute}, rate = ${perMinute}, admit_rate = ${perMinute}`;
  }

  setRate(perMinute: number): void {
    this.sql.run`UPDATE wr_room SET rate = ${perMinute}`;
  }

  logRate(nowMs: number, rate: number, reason: string): void {
    this.sql.run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${nowMs}, ${rate}, ${reason})`;
  }

  /** The last `n` rate changes, newest first. */
  rateLog(n: number): { at: number; rate: number; reason: string }[] {
    return this.sql.all<{ at: number; rate: number; reason: string }>`SELECT at, rate, reason FROM wr_rate_log ORDER BY id DESC LIMIT ${n}`;
  }

  /** A mode change restarts the budget clock, so a long pause earns no burst on resume. */
  setMode(mode: RoomMode, nowMs: number): void {
    this.sql.run`UPDATE wr_room SET mode = ${mode}, carry = 0, last_tick_at = ${nowMs}`;
  }

  setSoldOut(soldOut: boolean): void {
    this.sql.run`UPDATE wr_room SET sold_out = ${soldOut ? 1 : 0}`;
  }

  setHealth(json: string): void {
    this.sql.run`UPDATE wr_room SET health = ${json}`;
  }

  admission(visitorId: string): AdmissionRow | null {
    return this.sql.one<AdmissionRow>`SELECT * FROM wr_admissions WHERE visitor_id = ${visitorId}`;
  }

  /**
   * Stores a new admission from `release` and counts the claim: pending (unclaimed) places shrink.
   * A session of the visitor it replaces that had time left is listed as ended. Call inside a transaction.
   */
  claim(visitorId: string, placeKey: string, release: ReleaseRef, admittedAtMs: number, expiresAtMs: number): void {
    const prior = this.admission(visitorId);
    if (prior?.state === 'admitted') this.ended.list(prior, admittedAtMs);
    this.sql.run`INSERT OR REPLACE INTO wr_admissions (visitor_id, place, released_at, admitted_at, expires_at, state)
      VALUES (${visitorId}, ${placeKey}, ${release.atMs}, ${admittedAtMs}, ${expiresAtMs}, 'admitted')`;
    this.sql.run`UPDATE wr_releases SET claimed = claimed + 1 WHERE id = ${release.id}`;
    // The claim lag is when the visitor showed: their first ask, if they had to wait for a slot.
    const showedAtMs = this.asks.get(visitorId)?.firstMs ?? admittedAtMs;
    this.asks.delete(visitorId);
    if (release.id > 0) this.lags.push(Math.max(0, showedAtMs - release.atMs));
    if (this.lags.length > CLAIM_LAGS_KEPT) this.lags.shift();
  }

  /**
   * Moves the end of a visitor's active admission session out to what a hold ending at
   * `holdEndsAtMs` covers (`coverEnd`: its deadline plus the payment grace, at most one hold TTL
   * and grace past the session's own end; and at most MAX_HOLD_COVER_MS after `nowMs`), never in.
   * @param sessionId the session (its admission time in epoch ms, as a string)
   * @returns the session's end, epoch ms; null when that session is not active at `nowMs`
   */
  extendAdmission(visitorId: string, sessionId: string, holdEndsAtMs: number, rules: CoverRules, nowMs: number): number | null {
    const until = Math.min(coverEnd(rules, Number(sessionId), holdEndsAtMs), nowMs + MAX_HOLD_COVER_MS);
    const rows = this.sql.all<{ expires_at: number }>`
      UPDATE wr_admissions SET expires_at = MAX(expires_at, ${until})
      WHERE visitor_id = ${visitorId} AND state = 'admitted' AND admitted_at = ${Number(sessionId)} AND expires_at > ${nowMs}
      RETURNING expires_at`;
    return rows[0]?.expires_at ?? null;
  }

  /** Ends a visitor's admission and lists it as ended until its `exp`; false when they had none active. */
  leave(visitorId: string, nowMs: number): boolean {
    const ended = this.sql.all<EndedAdmission>`
      UPDATE wr_admissions SET state = 'left' WHERE visitor_id = ${visitorId} AND state = 'admitted'
      RETURNING visitor_id, admitted_at, expires_at`;
    for (const a of ended) this.ended.list(a, nowMs);
    return ended.length > 0;
  }

  /** Ends admissions past their `exp`, and forgets listed ends past theirs (the token's `exp` ends them now). */
  endExpiredAdmissions(nowMs: number): void {
    this.sql.run`UPDATE wr_admissions SET state = 'left' WHERE state = 'admitted' AND expires_at <= ${nowMs}`;
    this.ended.prune(nowMs);
  }

  activeCount(nowMs: number): number {
    return this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_admissions WHERE state = 'admitted' AND expires_at > ${nowMs}`?.n ?? 0;
  }

  /**
   * Admissions claimed after `sinceMs` (the wait estimate's departures, admission-pace
   * measuredDepartures). A place is claimable only within `idleTimeoutMs` of its release, so the
   * released_at index bounds the scan. A visitor who claimed twice since counts once (their row is
   * replaced).
   */
  claimsSince(sinceMs: number, idleTimeoutMs: number): number {
    return (
      this.sql.one<{ n: number }>`
        SELECT COUNT(*) AS n FROM wr_admissions WHERE released_at >= ${sinceMs - idleTimeoutMs} AND admitted_at > ${sinceMs}`?.n ?? 0
    );
  }

  /** Released places not claimed yet but still claimable (released within the idle timeout). */
  pendingCount(nowMs: number, idleTimeoutMs: number): number {
    return (
      this.sql.one<{ n: number | null }>`SELECT SUM(count - claimed) AS n FROM wr_releases WHERE at >= ${nowMs - idleTimeoutMs}`?.n ?? 0
    );
  }

  /** Releases within `windowMs` (the claim window) with places unclaimed: what unclaimed-places unclaimedPlaces counts. */
  unclaimedReleases(nowMs: number, windowMs: number): ReleaseClaims[] {
    return this.sql
      .all<ReleaseClaims>`SELECT at AS atMs, count, claimed FROM wr_releases WHERE at >= ${nowMs - windowMs} AND claimed < count`;
  }

  /** The earliest still-claimable release with places unclaimed, and the earliest active admission's end (epoch ms). */
  nextEnds(nowMs: number, idleTimeoutMs: number): { firstPendingAtMs: number | null; firstAdmissionEndMs: number | null } {
    const lapse = this.sql.one<{ at: number | null }>`
      SELECT MIN(at) AS at FROM wr_releases WHERE at >= ${nowMs - idleTimeoutMs} AND claimed < count`;
    const end = this.sql.one<{ at: number | null }>`
      SELECT MIN(expires_at) AS at FROM wr_admissions WHERE state = 'admitted' AND expires_at > ${nowMs}`;
    return { firstPendingAtMs: lapse?.at ?? null, firstAdmissionEndMs: end?.at ?? null };
  }

  drawRank(visitorId: string): number | null {
    return this.sql.one<{ rank: number }>`SELECT rank FROM wr_draw WHERE visitor_id = ${visitorId}`?.rank ?? null;
  }

  /** The release that released draw rank `rank` (the first whose draw count reached it). */
  releaseOfRank(rank: number): ReleaseRef | null {
    return this.sql.one<ReleaseRef>`SELECT id, at AS atMs FROM wr_releases WHERE draw_after >= ${rank} ORDER BY id LIMIT 1`;
  }

  /** The release that released FIFO place `p` (the first whose cursor, of its lane or the public queue, moved past it). */
  releaseOfPlace(p: FifoPlace): ReleaseRef | null {
    if (p.lane !== undefined) return this.lanes.releaseOfPlace(p.lane, p);
    return this.sql.one<ReleaseRef>`
      SELECT id, at AS atMs FROM wr_releases WHERE (c_bucket, c_idx, c_shard) > (${p.bucket}, ${p.idx}, ${p.shard}) ORDER BY id LIMIT 1`;
  }

  /** The draw key of rank `rank` (the last released one is published in the cursor). */
  drawKey(rank: number): string | null {
    return this.sql.one<{ key: string }>`SELECT key FROM wr_draw WHERE rank = ${rank}`?.key ?? null;
  }

  /** The draw's entrants in rank order. */
  drawEntrants(): string[] {
    return this.sql.all<{ visitor_id: string }>`SELECT visitor_id FROM wr_draw ORDER BY rank`.map((r) => r.visitor_id);
  }

  /** Publishes the draw's order (once: a second call finds it drawn and writes nothing). Call inside a transaction. */
  storeDraw(order: readonly { id: string; key: string }[]): void {
    if (this.room()!.drawn === 1) return;
    order.forEach(({ id, key }, i) => {
      // The published result, kept even if the visitor later leaves and rejoins.
      this.sql.run`INSERT INTO wr_draw (rank, visitor_id, key) VALUES (${i + 1}, ${id}, ${key})`;
    });
    this.sql.run`UPDATE wr_room SET drawn = 1, draw_size = ${order.length}`;
  }

  /** Stores one shard's counts: its seal and pre-queue, and its arrivals per bucket. */
  storeShardCounts(shard: number, sealedBefore: number, preQueue: number, buckets: readonly [number, number][]): void {
    this.sql.run`INSERT OR REPLACE INTO wr_shards (shard, sealed_before, pre_queue) VALUES (${shard}, ${sealedBefore}, ${preQueue})`;
    for (const [bucket, count] of buckets) {
      this.sql.run`INSERT OR REPLACE INTO wr_arrivals (shard, bucket, count) VALUES (${shard}, ${bucket}, ${count})`;
    }
  }

  /** Arrival rows from `fromBucket` on, oldest bucket first. */
  arrivals(fromBucket: number): { shard: number; bucket: number; count: number }[] {
    return this.sql.all<{ shard: number; bucket: number; count: number }>`
      SELECT shard, bucket, count FROM wr_arrivals WHERE bucket >= ${fromBucket} ORDER BY bucket`;
  }

  /** The cursor, the counted arrivals from its bucket on, and the first bucket some shard may still add to. */
  queueCounts(room: RoomRow): QueueCounts {
    const counts = new Map<number, Map<number, number>>();
    for (const r of this.arrivals(room.c_bucket)) {
      if (!counts.has(r.shard)) counts.set(r.shard, new Map());
      counts.get(r.shard)!.set(r.bucket, r.count);
    }
    const s = this.sql.one<{ n: number; min: number | null }>`
      SELECT COUNT(*) AS n, MIN(sealed_before) AS min FROM wr_shards WHERE shard < ${room.shards}`;
    // Every earlier bucket is final only once every shard has reported.
    const sealedBefore = s && s.n === room.shards && s.min !== null ? s.min : 0;
    return { cursor: cursorOf(room), counts, sealedBefore };
  }

  /** Pre-queue entrants the shards reported (lottery, before the draw). */
  preQueue(): number {
    return this.sql.one<{ n: number | null }>`SELECT SUM(pre_queue) AS n FROM wr_shards`?.n ?? 0;
  }

  /**
   * Records a tick's release: draw ranks and the cursor move, one release record when anyone was
   * released (lane places included), and forgets counted buckets the cursor has passed. Call
   * inside a transaction.
   * @returns the release record's id, or null when nobody was released
   */
  applyRelease(nowMs: number, fromDraw: number, released: number, drawAfter: number, c: FifoPlace, cursorMoved: boolean): number | null {
    let id: number | null = null;
    if (released > 0) {
      this.sql
        .run`UPDATE wr_room SET draw_released = draw_released + ${fromDraw}, c_bucket = ${c.bucket}, c_idx = ${c.idx}, c_shard = ${c.shard}`;
      id = this.sql.one<{ id: number }>`INSERT INTO wr_releases (at, count, draw_after, c_bucket, c_idx, c_shard)
        VALUES (${nowMs}, ${released}, ${drawAfter}, ${c.bucket}, ${c.idx}, ${c.shard}) RETURNING id`!.id;
    } else if (cursorMoved) {
      // Only empty buckets passed: park the cursor without a release record.
      this.sql.run`UPDATE wr_room SET c_bucket = ${c.bucket}, c_idx = ${c.idx}, c_shard = ${c.shard}`;
    }
    this.sql.run`DELETE FROM wr_arrivals WHERE bucket < ${c.bucket}`;
    return id;
  }

  /** Stores the controller's state after a tick, the carry, and the tick's admissions. */
  endTick(
    nowMs: number,
    s: {
      rate: number;
      admitRate: number;
      activeLimit: number;
      slowStart: boolean;
      cssRounds: number;
      overloadLimit: number;
      lastCutAtMs: number;
      lastReportAtMs: number;
      carry: number;
      admitted: number;
    },
  ): void {
    this.sql.run`UPDATE wr_room SET rate = ${s.rate}, admit_rate = ${s.admitRate}, active_limit = ${s.activeLimit},
      slow_start = ${s.slowStart ? 1 : 0}, css_rounds = ${s.cssRounds}, overload_limit = ${s.overloadLimit}, last_cut_at = ${s.lastCutAtMs}, last_report_at = ${s.lastReportAtMs},
      carry = ${s.carry}, last_tick_at = ${nowMs}, admitted_total = admitted_total + ${s.admitted}`;
  }

  /** Marks the start of a maintenance window, epoch ms: the lapse clock of released places stops. */
  stopLapseClock(nowMs: number): void {
    this.sql.run`UPDATE wr_room SET reject_since = ${nowMs} WHERE reject_since IS NULL`;
  }

  /**
   * Ends the maintenance window that began at `sinceMs`: the releases still kept when it began
   * (`keepMs`) move later by its length, so a visitor released just before it has the rest of
   * the idle timeout to claim after it, as if the window had not passed.
   */
  resumeLapseClock(sinceMs: number, nowMs: number, keepMs: number): void {
    const shift = Math.max(0, nowMs - sinceMs);
    this.sql.run`UPDATE wr_releases SET at = at + ${shift} WHERE at >= ${sinceMs - keepMs}`;
    this.sql.run`UPDATE wr_room SET reject_since = NULL`;
  }

  /**
   * Forgets release records older than `keepMs`, remembering the cursor as of the newest one
   * dropped: a place before it was released too long ago to claim.
   */
  pruneReleases(room: RoomRow, nowMs: number, keepMs: number): void {
    const last = this.sql.one<{ id: number; draw_after: number; c_bucket: number; c_idx: number; c_shard: number }>`
      SELECT id, draw_after, c_bucket, c_idx, c_shard FROM wr_releases WHERE at < ${nowMs - keepMs} ORDER BY id DESC LIMIT 1`;
    if (!last) return;
    this.sql.run`UPDATE wr_room SET lapsed_draw = ${Math.max(room.lapsed_draw, last.draw_after)},
      lapsed_bucket = ${last.c_bucket}, lapsed_idx = ${last.c_idx}, lapsed_shard = ${last.c_shard}`;
    this.lanes.prune(last.id);
    this.sql.run`DELETE FROM wr_releases WHERE id <= ${last.id}`;
  }
}
