// WaitingRoom Durable Object: one per event; storage, alarm and RPC around the pure queue policy.
import { DurableObject } from 'cloudflare:workers';
import { DEFAULT_HOLD_TARGET_P99_MS, type QueueConfig } from '../../contracts/event-config';
import { logDecision } from '../../contracts/log';
import { Sql, hasSchema, migrate } from '../shared/sql';
import { CURSOR_QUEUE_BUCKETS, releasedInBucket, type AdmissionCursor, type FifoPlace, type Place } from '../../contracts/queue/cursor';
import { lotteryDraw, onSale, seedCommitment, type RoomMode } from '../../contracts/queue/queue-policy';
import { shardName } from '../../contracts/names';
import { DONE, EVENT_NOT_FOUND } from '../../contracts/answers';
import { releaseTickMs } from '../../contracts/settings';
import type { AdmitAnswer, FixedRateAnswer, HealthAnswer, ModeAnswer, RoomConfigureAnswer } from '../../contracts/room-answers';
import type { ShardCounts } from './queue-shard';
import {
  claimWindowMs,
  measuredAdmissionRate,
  pendingLimit,
  whatBinds,
  type AdmissionSample,
  type BindingConstraint,
} from './admission-pace';
import {
  initialControllerState,
  nextReleaseRate,
  originDownReason,
  type ControllerBounds,
  type GatewaySignals,
  type HealthReport,
} from './release-controller';
import { WAITING_ROOM_MIGRATIONS } from './schema';
import { decideAdmit, type ReleaseRef } from './admission-policy';
import { alarmChange, planAlarm, type AlarmCause } from './alarm-plan';
import {
  SIGNAL_WINDOW_MS,
  expectedArrivals,
  freeSlots,
  gatewaySignals,
  noShowWindow,
  planRelease,
  releaseKeepMs,
  waitingCount,
  type QueueCounts,
} from './tick-plan';

/** The dashboard's samples: one every SAMPLE_EVERY_MS, kept for SAMPLE_KEEP_MS. */
export const SAMPLE_EVERY_MS = 5_000;
export const SAMPLE_KEEP_MS = 30 * 60_000;
interface RoomRow {
  config: string;
  mode: RoomMode;
  seed: string;
  drawn: number;
  rate: number;
  last_report_at: number;
  carry: number;
  last_tick_at: number;
  next_seq: number;
  next_rank: number;
  admitted_total: number;
  health: string | null;
  fixed_rate: number | null;
  sold_out: number;
  commitment: string | null;
  active_limit: number | null;
  slow_start: number;
  overload_limit: number;
  admit_rate: number;
  last_sample_at: number;
  shards: number;
  c_bucket: number;
  c_idx: number;
  c_shard: number;
  draw_size: number;
  draw_released: number;
  lapsed_bucket: number;
  lapsed_idx: number;
  lapsed_shard: number;
  lapsed_draw: number;
}

interface AdmissionRow {
  visitor_id: string;
  place: string;
  released_at: number;
  admitted_at: number;
  expires_at: number;
  state: 'admitted' | 'left';
}

/** One dashboard sample. Rates per minute, latencies ms, shares 0..1. */
export interface Sample {
  at: number;
  rate: number;
  admitRate: number;
  activeLimit: number;
  originP99Ms: number | null;
  originErrorRate: number | null;
  waiting: number;
  active: number;
  admittedTotal: number;
  holdP99Ms: number | null;
  conflictRate: number | null;
  noShowRate: number | null;
}

/** Hold outcomes one gateway isolate saw over its last window. */
export interface HoldSignals {
  holds: number;
  conflicts: number;
  /** p99 of those holds' round trips, ms. */
  p99Ms: number;
}

/** What binds admissions now. Rates per minute, counts in visitors. */
export interface Binding {
  binds: BindingConstraint;
  detail: string;
  releaseRatePerMinute: number;
  admitPerMinute: number;
  /** The controller's active limit (never above the organizer's max). */
  activeLimit: number;
  /** The organizer's max active visitors. */
  maxActiveVisitors: number;
  active: number;
  /** Unclaimed places inside the claim window, the share of them expected to arrive, and their bound. */
  unclaimed: number;
  expectedArrivals: number;
  unclaimedLimit: number;
  paused: boolean;
  /** Why the origin counts as silent or failing, or null while its reports are fresh. */
  originSilent: string | null;
}

/** Live numbers for the organizer. */
export interface RoomStats {
  config: QueueConfig;
  mode: RoomMode;
  waiting: number;
  active: number;
  admittedTotal: number;
  /** Released visitors who have not claimed their admission yet (within the idle timeout). */
  pending: number;
  /** What limits admissions right now, and the numbers behind it (the dashboard's "what binds"). */
  binding: Binding;
  /** Queue shards K. */
  shards: number;
  /** Requests this object instance has served since it started (for the scale benchmark). */
  objectRequests: number;
  releaseRatePerMinute: number;
  /** Admissions per minute after no-show compensation. */
  admitPerMinute: number;
  /** The controller's limit on active visitors (never above the organizer's max). */
  activeLimit: number;
  /** The organizer's fixed rate, or null when the controller decides. */
  fixedRatePerMinute: number | null;
  lastHealth: HealthReport | null;
  gateway: GatewaySignals;
  rateLog: { at: number; rate: number; reason: string }[];
  /** One sample every 5 s over the last 30 minutes, oldest first. */
  samples: Sample[];
  lottery: { commitment: string; drawn: boolean; seed: string | null } | null;
}

export class WaitingRoom extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  private readonly sql: Sql;
  /** RELEASE_TICK_MS, parsed at construction. */
  private readonly tickMs: number;
  private drawing = false;
  /** Requests served by this instance since it started (the scale benchmark counts them). */
  requests = 0;
  /** Wake-ups received by this instance: a tick that saw one arrive while it ran keeps ticking. */
  private wakes = 0;

  /**
   * Whether this event exists in storage. A room is created by `configure` only: a poll for an
   * event id nobody configured writes nothing, so spraying random ids leaves no stored objects.
   */
  private ready = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Parsed once; a malformed value fails every call to the object, naming the variable.
    this.tickMs = releaseTickMs(env.RELEASE_TICK_MS);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      if (hasSchema(ctx.storage, 'wr')) this.setUp();
    });
  }

  /** Creates or upgrades the schema (once per instance). */
  private setUp(): void {
    if (this.ready) return;
    migrate(this.ctx.storage, 'wr', WAITING_ROOM_MIGRATIONS);
    this.ready = true;
  }

  /**
   * Creates or updates the event's queue settings. The policy cannot change once anyone joined.
   * @param dryRun check only, write nothing
   * @returns `ok` (with `created`) or `conflict` with a reason
   */
  async configure(config: QueueConfig, dryRun = false): Promise<RoomConfigureAnswer> {
    if (!dryRun) this.setUp();
    // The seed and its public commitment are made before reading state, so no await splits the
    // check from the write below.
    const seed = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const commitment = await seedCommitment(seed);
    // Fresh arrival counts first: "anyone joined" must include the last second's joins.
    const before = this.room();
    if (before) await this.collectArrivals(before);
    const room = this.room();
    if (room) {
      const old = JSON.parse(room.config) as QueueConfig;
      const joined = room.admitted_total > 0 || room.drawn === 1 || this.waitingCount(room) > 0;
      if (joined && old.policy !== config.policy)
        return { kind: 'conflict', detail: 'the queue policy cannot change once visitors have joined' };
      if ((old.shards ?? 1) !== (config.shards ?? 1) && joined) {
        return { kind: 'conflict', detail: 'the number of queue shards cannot change once visitors have joined' };
      }
      if (joined && old.policy === 'random' && old.saleStartsAtMs !== config.saleStartsAtMs && room.drawn) {
        return { kind: 'conflict', detail: 'the sale start cannot move after the lottery draw' };
      }
    }
    if (dryRun) return { kind: 'ok', created: !room };
    const now = this.clock();
    if (room) {
      this.sql.run`UPDATE wr_room SET config = ${JSON.stringify(config)}, shards = ${config.shards ?? 1}`;
      // New bounds apply at once (a fixed rate stays as the organizer set it).
      const clamped = Math.min(config.maxReleaseRatePerMinute, Math.max(config.minReleaseRatePerMinute, room.rate));
      if (room.fixed_rate !== null && room.fixed_rate > config.maxReleaseRatePerMinute) {
        const max = config.maxReleaseRatePerMinute;
        this.sql.run`UPDATE wr_room SET fixed_rate = ${max}, rate = ${max}, admit_rate = ${max}`;
        this.sql
          .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${max}, ${`fixed rate lowered to the new maximum of ${max}/min`})`;
      } else if (room.fixed_rate === null && clamped !== room.rate) {
        this.sql.run`UPDATE wr_room SET rate = ${clamped}`;
        this.sql
          .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${clamped}, ${`organizer bounds changed: ${config.minReleaseRatePerMinute}-${config.maxReleaseRatePerMinute}/min`})`;
      }
    } else {
      const rate = initialControllerState(bounds(config)).ratePerMinute;
      this.sql
        .run`INSERT INTO wr_room (id, config, mode, seed, commitment, drawn, rate, last_report_at, carry, last_tick_at, next_seq, next_rank, admitted_total, shards)
        VALUES (1, ${JSON.stringify(config)}, 'open', ${seed}, ${commitment}, 0, ${rate}, 0, 0, ${now}, 1, 1, 0, ${config.shards ?? 1})`;
      this.sql
        .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${rate}, 'start at the minimum until the origin reports health')`;
    }
    await this.ensureAlarm(now);
    return { kind: 'ok', created: !room };
  }

  /** A queue shard saw its first uncounted arrival: make sure the release tick runs. */
  async wake(): Promise<void> {
    this.requests++;
    this.wakes++;
    await this.ensureAlarm(this.clock());
  }

  /**
   * The admission cursor the edge answers polls from (cached there for about a second), or null
   * when the event does not exist. Read-only: one cheap read per isolate per second.
   */
  async cursor(): Promise<AdmissionCursor | null> {
    this.requests++;
    const room = this.room();
    if (!room) return null;
    const config = JSON.parse(room.config) as QueueConfig;
    const now = this.clock();
    const fifo = cursorOf(room);
    const queue = new Map<number, number>();
    for (const r of this.sql.all<{ shard: number; bucket: number; count: number }>`
      SELECT shard, bucket, count FROM wr_arrivals WHERE bucket >= ${fifo.bucket} ORDER BY bucket`) {
      const unreleased = r.bucket > fifo.bucket ? r.count : r.count - releasedInBucket(fifo, r.bucket, new Map([[r.shard, r.count]]));
      if (unreleased > 0) queue.set(r.bucket, (queue.get(r.bucket) ?? 0) + unreleased);
    }
    const drawn = room.drawn === 1;
    return {
      eventId: config.eventId,
      eventName: config.name,
      policy: config.policy,
      saleStartsAtMs: config.saleStartsAtMs,
      page: config.page ?? {},
      pageStatus: config.waitingPageStatus ?? 200,
      commitment: config.policy === 'random' ? room.commitment : null,
      mode: room.mode,
      soldOut: room.sold_out === 1,
      shards: room.shards,
      idleTimeoutMs: config.idleTimeoutMs,
      fifo,
      draw:
        config.policy === 'random'
          ? {
              drawn,
              size: room.draw_size,
              released: room.draw_released,
              seed: drawn ? room.seed : null,
              releasedKey:
                room.draw_released > 0
                  ? (this.sql.one<{ key: string }>`SELECT key FROM wr_draw WHERE rank = ${room.draw_released}`?.key ?? null)
                  : null,
            }
          : null,
      queue: [...queue].slice(0, CURSOR_QUEUE_BUCKETS),
      admitPerMinute: this.recentAdmissionRate(
        room,
        now,
        [...queue.values()].reduce((a, n) => a + n, room.draw_size - room.draw_released),
      ),
      publishedAtMs: now,
    };
  }

  /**
   * Turns a released place into an admission, once: the only per-visitor call of the queue, at
   * most one per released visitor (bounded by the release rate, not by the crowd). Asking again
   * returns the same admission while it lasts.
   *
   * @param visitorId the queue ticket's subject
   * @param place the place the ticket carries
   */
  async admit(visitorId: string, place: Place): Promise<AdmitAnswer> {
    this.requests++;
    const room = this.room();
    if (!room) return { kind: 'event_not_found' };
    const config = JSON.parse(room.config) as QueueConfig;
    const now = this.clock();
    const row = this.sql.one<AdmissionRow>`SELECT * FROM wr_admissions WHERE visitor_id = ${visitorId}`;
    const decision = decideAdmit(
      visitorId,
      place,
      {
        policy: config.policy,
        idleTimeoutMs: config.idleTimeoutMs,
        admissionTtlMs: config.admissionTtlMs,
        shards: room.shards,
        drawn: room.drawn === 1,
        drawReleased: room.draw_released,
        lapsedDraw: room.lapsed_draw,
        cursor: cursorOf(room),
        lapsed: { bucket: room.lapsed_bucket, idx: room.lapsed_idx, shard: room.lapsed_shard },
      },
      row && { place: row.place, state: row.state, admittedAtMs: row.admitted_at, expiresAtMs: row.expires_at },
      {
        drawRank: () => this.sql.one<{ rank: number }>`SELECT rank FROM wr_draw WHERE visitor_id = ${visitorId}`?.rank ?? null,
        releaseOfRank: (rank) =>
          this.sql.one<ReleaseRef>`SELECT id, at AS atMs FROM wr_releases WHERE draw_after >= ${rank} ORDER BY id LIMIT 1`,
        releaseOfPlace: (p) =>
          this.sql.one<ReleaseRef>`
            SELECT id, at AS atMs FROM wr_releases WHERE (c_bucket, c_idx, c_shard) > (${p.bucket}, ${p.idx}, ${p.shard})
            ORDER BY id LIMIT 1`,
      },
      now,
    );
    if (decision.kind === 'answer') return decision.answer;
    const { release, admittedAtMs, expiresAtMs } = decision;
    this.ctx.storage.transactionSync(() => {
      this.sql.run`INSERT OR REPLACE INTO wr_admissions (visitor_id, place, released_at, admitted_at, expires_at, state)
        VALUES (${visitorId}, ${decision.placeKey}, ${release.atMs}, ${admittedAtMs}, ${expiresAtMs}, 'admitted')`;
      // The release it came from is claimed once more: pending (unclaimed) places shrink.
      this.sql.run`UPDATE wr_releases SET claimed = claimed + 1 WHERE id = ${release.id}`;
    });
    return { kind: 'admitted', admittedAtMs, expiresAtMs };
  }

  /**
   * Whether an admission session is still active: the visitor is admitted, by this very admission
   * (`sessionId` = its admission time), and it has not expired or been left.
   */
  async isActive(visitorId: string, sessionId: string): Promise<boolean> {
    this.requests++;
    if (!this.ready) return false;
    const a = this.sql.one<AdmissionRow>`SELECT * FROM wr_admissions WHERE visitor_id = ${visitorId}`;
    return a !== null && a.state === 'admitted' && String(a.admitted_at) === sessionId && a.expires_at > this.clock();
  }

  /**
   * Organizer override of the release rate: a fixed number of new visitors per minute, or null to
   * hand control back to the controller. Takes effect at the next tick, with a logged reason.
   * @returns `ok`, `event_not_found`, or `above_maximum` (over the event's releaseRatePerMinute)
   */
  async setFixedRate(perMinute: number | null): Promise<FixedRateAnswer> {
    const room = this.room();
    if (!room) return EVENT_NOT_FOUND;
    const config = JSON.parse(room.config) as QueueConfig;
    if (perMinute !== null && perMinute > config.maxReleaseRatePerMinute) return { kind: 'above_maximum' };
    const now = this.clock();
    if (perMinute === null) {
      this.sql.run`UPDATE wr_room SET fixed_rate = NULL`;
      this.sql
        .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${room.rate}, 'organizer returned control to the controller')`;
    } else {
      // Takes effect at once, not at the next report.
      this.sql.run`UPDATE wr_room SET fixed_rate = ${perMinute}, rate = ${perMinute}, admit_rate = ${perMinute}`;
      this.sql
        .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${perMinute}, ${`fixed by the organizer at ${perMinute}/min`})`;
    }
    await this.ensureAlarm(now);
    return DONE;
  }

  /** Hold latency and conflicts one gateway isolate measured; the controller reads the last 30 s. */
  async recordHoldSignals(signals: HoldSignals): Promise<void> {
    if (!this.ready) return;
    const now = this.clock();
    this.sql
      .run`INSERT INTO wr_gateway (at, holds, conflicts, hold_p99_ms) VALUES (${now}, ${signals.holds}, ${signals.conflicts}, ${signals.p99Ms})`;
    this.sql.run`DELETE FROM wr_gateway WHERE at < ${now - SIGNAL_WINDOW_MS}`;
  }

  /**
   * Ends a visitor's admission (checked out, or gave up): their active slot frees at once. (A
   * waiting visitor gives up their place at their queue shard.)
   * @returns false when the visitor is not active
   */
  async leave(visitorId: string): Promise<boolean> {
    if (!this.ready) return false;
    const left = this.sql
      .all`UPDATE wr_admissions SET state = 'left' WHERE visitor_id = ${visitorId} AND state = 'admitted' RETURNING visitor_id`;
    // A freed slot may let a room that sleeps with every slot taken release again.
    if (left.length > 0) await this.ensureAlarm(this.clock(), NOT_IN_ALARM, 'capacity');
    return left.length > 0;
  }

  /**
   * The inventory says nothing is left (or, after releases, that something is again). While sold
   * out nobody is released and waiting visitors see `sold_out` on their next poll.
   */
  async setSoldOut(soldOut: boolean): Promise<void> {
    if (!this.ready) return;
    const was = this.room()?.sold_out === 1;
    this.sql.run`UPDATE wr_room SET sold_out = ${soldOut ? 1 : 0}`;
    // Seats back on sale: a room that slept while sold out releases again.
    if (was && !soldOut) await this.ensureAlarm(this.clock());
  }

  /** Closes the sale: no more releases, and waiting visitors are told so. */
  async close(): Promise<ModeAnswer> {
    return this.setMode('closed') ? DONE : EVENT_NOT_FOUND;
  }

  /**
   * The lottery's public record: before the draw the seed's commitment only; after it the seed and
   * the pre-queue entrants in draw order, so anyone can recompute the order (scripts/verify-draw.ts).
   * @returns null when the event does not exist or is not a lottery
   */
  async drawRecord(): Promise<{ commitment: string; drawn: boolean; seed: string | null; entrants: string[] | null } | null> {
    const room = this.room();
    if (!room) return null;
    const config = JSON.parse(room.config) as QueueConfig;
    if (config.policy !== 'random') return null;
    const drawn = room.drawn === 1;
    return {
      commitment: await seedCommitment(room.seed),
      drawn,
      seed: drawn ? room.seed : null,
      entrants: drawn ? this.sql.all<{ visitor_id: string }>`SELECT visitor_id FROM wr_draw ORDER BY rank`.map((r) => r.visitor_id) : null,
    };
  }

  /** Stops releases; nobody loses a place. */
  async pause(): Promise<ModeAnswer> {
    return this.setMode('paused') ? DONE : EVENT_NOT_FOUND;
  }

  /** Resumes releases after a pause (or reopens a closed sale); the room, asleep while paused, ticks again. */
  async resume(): Promise<ModeAnswer> {
    if (!this.setMode('open')) return EVENT_NOT_FOUND;
    await this.ensureAlarm(this.clock());
    return DONE;
  }

  /**
   * Stores the origin's latest health report; the next tick acts on it. A report counts as of its
   * signed time clamped to this object's clock (the signature check bounds how far ahead it may
   * be), and reports must arrive in that order: one timed before the last accepted report is
   * refused, so a replayed report can never stand in for a newer one (nor look fresh), while a
   * report signed a little ahead never locks out the correctly timed ones after it (#14.6).
   *
   * @param signedAtMs the report's signed timestamp, epoch ms
   * @returns `ok`, `event_not_found`, or `out_of_order`
   */
  async recordHealth(report: Omit<HealthReport, 'reportedAtMs'>, signedAtMs: number): Promise<HealthAnswer> {
    const room = this.room();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.clock();
    const last = room.health ? (JSON.parse(room.health) as HealthReport) : null;
    const reportedAtMs = Math.min(signedAtMs, now);
    if (last && reportedAtMs < last.reportedAtMs) return { kind: 'out_of_order' };
    this.sql.run`UPDATE wr_room SET health = ${JSON.stringify({ ...report, reportedAtMs, signedAtMs })}`;
    await this.ensureAlarm(now, NOT_IN_ALARM, 'capacity');
    return DONE;
  }

  /** Config, counts, rate and its recent changes, for the organizer; null if the event does not exist. */
  async stats(): Promise<RoomStats | null> {
    let room = this.room();
    if (!room) return null;
    // Fresh counts from the shards (the organizer asks every few seconds, not per visitor).
    await this.collectArrivals(room);
    room = this.room()!;
    const config = JSON.parse(room.config) as QueueConfig;
    const now = this.clock();
    return {
      config,
      mode: room.mode,
      waiting: this.waitingCount(room),
      active: this.activeCount(now),
      admittedTotal: room.admitted_total,
      pending: this.pendingCount(now, config.idleTimeoutMs),
      binding: this.binding(room, config, now),
      shards: room.shards,
      objectRequests: this.requests,
      releaseRatePerMinute: room.rate,
      admitPerMinute: room.admit_rate,
      activeLimit: Math.min(room.active_limit ?? config.maxActiveVisitors, config.maxActiveVisitors),
      fixedRatePerMinute: room.fixed_rate,
      lastHealth: room.health ? (JSON.parse(room.health) as HealthReport) : null,
      gateway: this.gatewaySignals(now),
      samples: this.sql.all<{
        at: number;
        rate: number;
        admit_rate: number;
        active_limit: number;
        origin_p99_ms: number | null;
        origin_error_rate: number | null;
        waiting: number;
        active: number;
        admitted_total: number;
        hold_p99_ms: number | null;
        conflict_rate: number | null;
        no_show_rate: number | null;
      }>`SELECT * FROM wr_samples WHERE at > ${now - SAMPLE_KEEP_MS} ORDER BY at`.map((r) => ({
        at: r.at,
        rate: r.rate,
        admitRate: r.admit_rate,
        activeLimit: r.active_limit,
        originP99Ms: r.origin_p99_ms,
        originErrorRate: r.origin_error_rate,
        waiting: r.waiting,
        active: r.active,
        admittedTotal: r.admitted_total,
        holdP99Ms: r.hold_p99_ms,
        conflictRate: r.conflict_rate,
        noShowRate: r.no_show_rate,
      })),
      rateLog: this.sql.all<{
        at: number;
        rate: number;
        reason: string;
      }>`SELECT at, rate, reason FROM wr_rate_log ORDER BY id DESC LIMIT 20`,
      lottery:
        config.policy === 'random'
          ? { commitment: await seedCommitment(room.seed), drawn: room.drawn === 1, seed: room.drawn === 1 ? room.seed : null }
          : null,
    };
  }

  /**
   * The release tick: draws the lottery at sale start, collects arrival counts from the queue
   * shards, ends expired admissions, moves the release rate, advances the admission cursor by the
   * release budget (draw ranks first, then FIFO places), and re-arms. Idempotent: a duplicate or
   * late run releases only what the elapsed time earned (capped, see releaseBudget).
   */
  override async alarm(): Promise<void> {
    let room = this.room();
    if (!room) return;
    // A shard may wake this room while the tick awaits the counts; those arrivals are not in this
    // tick's counts, so the tick must not go to sleep on them.
    const wakesBefore = this.wakes;
    const config = JSON.parse(room.config) as QueueConfig;
    if (config.policy === 'random' && !room.drawn && onSale(config, this.clock())) await this.draw(room);
    await this.collectArrivals(this.room()!);
    room = this.room()!;
    const now = this.clock();
    const r = room;
    this.ctx.storage.transactionSync(() => {
      this.sql.run`UPDATE wr_admissions SET state = 'left' WHERE state = 'admitted' AND expires_at <= ${now}`;
      this.pruneReleases(r, now, releaseKeepMs(config.idleTimeoutMs));

      const report = r.health ? (JSON.parse(r.health) as HealthReport) : null;
      const gateway = this.gatewaySignals(now);
      const active = this.activeCount(now);
      // Unclaimed places count for the claim window only: after it they lapse from the budget.
      const window = claimWindowMs(config.idleTimeoutMs);
      const pending = this.pendingCount(now, window);
      const b = bounds(config, r.fixed_rate);
      const decision = nextReleaseRate(
        {
          ratePerMinute: r.rate,
          activeLimit: r.active_limit ?? b.maxActive,
          slowStart: r.slow_start === 1,
          lastReportAtMs: r.last_report_at,
          overloadLimit: r.overload_limit,
        },
        { origin: report, gateway, active, pending },
        b,
        now,
      );
      const rate = decision.state.ratePerMinute;
      const limit = decision.state.activeLimit;
      if (decision.reason) {
        this.sql.run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${rate}, ${decision.reason})`;
        logDecision('rate_changed', { eventId: config.eventId, ratePerMinute: rate, activeLimit: limit, reason: decision.reason });
      }

      const plan = planRelease({
        nowMs: now,
        mode: r.mode,
        soldOut: r.sold_out === 1,
        saleStartsAtMs: config.saleStartsAtMs,
        admitPerMinute: decision.admitPerMinute,
        carry: r.carry,
        lastTickAtMs: r.last_tick_at,
        // Unclaimed places count apart: the share expected to arrive against the active limit, all
        // of them against their own bound (tick-plan freeSlots).
        occupancy: {
          maxActiveVisitors: config.maxActiveVisitors,
          activeLimit: limit,
          active,
          pending,
          noShowRate: gateway.noShowRate,
          pendingLimit: pendingLimit(decision.admitPerMinute, window),
        },
        draw: { size: r.draw_size, released: r.draw_released },
        queue: this.queueCounts(r),
      });
      let admitted = 0;
      if (plan.kind === 'release') {
        admitted = plan.fromDraw + plan.fromQueue;
        const c = plan.cursor;
        if (admitted > 0) {
          this.sql
            .run`UPDATE wr_room SET draw_released = draw_released + ${plan.fromDraw}, c_bucket = ${c.bucket}, c_idx = ${c.idx}, c_shard = ${c.shard}`;
          this.sql.run`INSERT INTO wr_releases (at, count, draw_after, c_bucket, c_idx, c_shard)
            VALUES (${now}, ${admitted}, ${r.draw_released + plan.fromDraw}, ${c.bucket}, ${c.idx}, ${c.shard})`;
        } else if (plan.cursorMoved) {
          // Only empty buckets passed: park the cursor without a release record.
          this.sql.run`UPDATE wr_room SET c_bucket = ${c.bucket}, c_idx = ${c.idx}, c_shard = ${c.shard}`;
        }
        this.sql.run`DELETE FROM wr_arrivals WHERE bucket < ${c.bucket}`;
        if (admitted > 0) logDecision('released', { eventId: config.eventId, count: admitted, eligible: plan.eligible, slots: plan.admit });
      }
      const carry = plan.carry;
      this.sql.run`UPDATE wr_room SET rate = ${rate}, admit_rate = ${decision.admitPerMinute}, active_limit = ${limit},
        slow_start = ${decision.state.slowStart ? 1 : 0}, overload_limit = ${decision.state.overloadLimit}, last_report_at = ${decision.state.lastReportAtMs},
        carry = ${carry}, last_tick_at = ${now}, admitted_total = admitted_total + ${admitted}`;
      if (now - r.last_sample_at >= SAMPLE_EVERY_MS) this.sample(now, rate, decision.admitPerMinute, limit, report, gateway);
    });
    await this.ensureAlarm(now, { inAlarm: true, wokenMeanwhile: this.wakes !== wakesBefore });
  }

  /** Asks every queue shard for its arrivals from the cursor's bucket on and stores them. */
  private async collectArrivals(room: RoomRow): Promise<void> {
    const config = JSON.parse(room.config) as QueueConfig;
    const answers = await Promise.all(
      Array.from({ length: room.shards }, (_, shard) =>
        this.env.QUEUE_SHARD.getByName(shardName(config.eventId, shard))
          .counts(room.c_bucket)
          .then((counts) => ({ shard, counts: counts as ShardCounts })),
      ),
    );
    this.ctx.storage.transactionSync(() => {
      for (const { shard, counts } of answers) {
        this.sql
          .run`INSERT OR REPLACE INTO wr_shards (shard, sealed_before, pre_queue) VALUES (${shard}, ${counts.sealedBefore}, ${counts.preQueue})`;
        for (const [bucket, count] of counts.buckets) {
          this.sql.run`INSERT OR REPLACE INTO wr_arrivals (shard, bucket, count) VALUES (${shard}, ${bucket}, ${count})`;
        }
      }
    });
  }

  /** Arrival counts per shard and bucket, from `fromBucket` on. */
  private arrivalCounts(fromBucket: number): Map<number, Map<number, number>> {
    const counts = new Map<number, Map<number, number>>();
    for (const r of this.sql.all<{ shard: number; bucket: number; count: number }>`
      SELECT shard, bucket, count FROM wr_arrivals WHERE bucket >= ${fromBucket}`) {
      if (!counts.has(r.shard)) counts.set(r.shard, new Map());
      counts.get(r.shard)!.set(r.bucket, r.count);
    }
    return counts;
  }

  /** The first bucket some shard may still add arrivals to (every earlier bucket is final). */
  private sealedBefore(shards: number): number {
    const s = this.sql.one<{
      n: number;
      min: number | null;
    }>`SELECT COUNT(*) AS n, MIN(sealed_before) AS min FROM wr_shards WHERE shard < ${shards}`;
    return s && s.n === shards && s.min !== null ? s.min : 0;
  }

  /** The cursor, the counted arrivals from its bucket on, and the first bucket not final. */
  private queueCounts(room: RoomRow): QueueCounts {
    return { cursor: cursorOf(room), counts: this.arrivalCounts(room.c_bucket), sealedBefore: this.sealedBefore(room.shards) };
  }

  /** Visitors in line (tick-plan waitingCount). */
  private waitingCount(room: RoomRow): number {
    const drawn = room.drawn === 1;
    const preQueue = drawn ? 0 : (this.sql.one<{ n: number | null }>`SELECT SUM(pre_queue) AS n FROM wr_shards`?.n ?? 0);
    return waitingCount(this.queueCounts(room), { drawn, preQueue, draw: { size: room.draw_size, released: room.draw_released } });
  }

  private activeCount(now: number): number {
    return this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_admissions WHERE state = 'admitted' AND expires_at > ${now}`?.n ?? 0;
  }

  /**
   * Released places not claimed yet, released within `windowMs`: the idle timeout (still
   * claimable) or the claim window (counted in the budget).
   */
  private pendingCount(now: number, windowMs: number): number {
    return this.sql.one<{ n: number | null }>`SELECT SUM(count - claimed) AS n FROM wr_releases WHERE at >= ${now - windowMs}`?.n ?? 0;
  }

  /**
   * Forgets release records older than `keepMs`, remembering the cursor as of the newest one
   * dropped: a place before it was released too long ago to claim.
   */
  private pruneReleases(room: RoomRow, now: number, keepMs: number): void {
    const last = this.sql.one<{ id: number; draw_after: number; c_bucket: number; c_idx: number; c_shard: number }>`
      SELECT id, draw_after, c_bucket, c_idx, c_shard FROM wr_releases WHERE at < ${now - keepMs} ORDER BY id DESC LIMIT 1`;
    if (!last) return;
    this.sql.run`UPDATE wr_room SET lapsed_draw = ${Math.max(room.lapsed_draw, last.draw_after)},
      lapsed_bucket = ${last.c_bucket}, lapsed_idx = ${last.c_idx}, lapsed_shard = ${last.c_shard}`;
    this.sql.run`DELETE FROM wr_releases WHERE id <= ${last.id}`;
  }

  /** Hold p99 (the worst isolate's) and conflict rate over SIGNAL_WINDOW_MS, and the no-show rate (tick-plan gatewaySignals). */
  private gatewaySignals(now: number): GatewaySignals {
    const g = this.sql.one<{ holds: number | null; conflicts: number | null; p99: number | null }>`
      SELECT SUM(holds) AS holds, SUM(conflicts) AS conflicts, MAX(hold_p99_ms) AS p99 FROM wr_gateway WHERE at >= ${now - SIGNAL_WINDOW_MS}`;
    const w = noShowWindow(now);
    const r = this.sql.one<{ released: number | null; claimed: number | null }>`
      SELECT SUM(count) AS released, SUM(claimed) AS claimed FROM wr_releases WHERE at BETWEEN ${w.fromMs} AND ${w.toMs}`;
    return gatewaySignals({
      holds: g?.holds ?? 0,
      conflicts: g?.conflicts ?? 0,
      worstHoldP99Ms: g?.p99 ?? null,
      released: r?.released ?? 0,
      claimed: r?.claimed ?? 0,
    });
  }

  /** What binds admissions now (whatBinds over the room's current numbers). */
  private binding(room: RoomRow, config: QueueConfig, now: number): Binding {
    const window = claimWindowMs(config.idleTimeoutMs);
    const active = this.activeCount(now);
    const unclaimed = this.pendingCount(now, window);
    const noShow = this.gatewaySignals(now).noShowRate;
    const expected = expectedArrivals({ pending: unclaimed, noShowRate: noShow });
    const unclaimedLimit = pendingLimit(room.admit_rate, window);
    const activeLimit = Math.min(room.active_limit ?? config.maxActiveVisitors, config.maxActiveVisitors);
    const originSilent = originDownReason(room.health ? (JSON.parse(room.health) as HealthReport) : null, now);
    const input = {
      mode: room.mode,
      soldOut: room.sold_out === 1,
      onSale: onSale(config, now),
      waiting: this.waitingCount(room),
      active,
      pending: unclaimed,
      expectedArrivals: expected,
      pendingLimit: unclaimedLimit,
      activeLimit,
      maxActive: config.maxActiveVisitors,
      releaseRatePerMinute: room.rate,
      admitPerMinute: room.admit_rate,
      fixedPerMinute: room.fixed_rate,
      originDown: originSilent,
    };
    return {
      ...whatBinds(input),
      releaseRatePerMinute: room.rate,
      admitPerMinute: room.admit_rate,
      activeLimit,
      maxActiveVisitors: config.maxActiveVisitors,
      active,
      unclaimed,
      expectedArrivals: expected,
      unclaimedLimit,
      paused: room.mode === 'paused',
      originSilent,
    };
  }

  /** Records one dashboard sample and forgets samples older than SAMPLE_KEEP_MS. */
  private sample(now: number, rate: number, admitRate: number, limit: number, report: HealthReport | null, gateway: GatewaySignals): void {
    const room = this.room()!;
    const total = this.sql.one<{ n: number }>`SELECT admitted_total AS n FROM wr_room WHERE id = 1`?.n ?? 0;
    this.sql
      .run`INSERT OR REPLACE INTO wr_samples VALUES (${now}, ${rate}, ${admitRate}, ${limit}, ${report?.p99LatencyMs ?? null}, ${report?.errorRate ?? null},
      ${this.waitingCount(room)}, ${this.activeCount(now)}, ${total}, ${gateway.holdP99Ms}, ${gateway.conflictRate}, ${gateway.noShowRate})`;
    this.sql.run`DELETE FROM wr_samples WHERE at < ${now - SAMPLE_KEEP_MS}`;
    this.sql.run`UPDATE wr_room SET last_sample_at = ${now}`;
  }

  /**
   * The lottery draw at sale start: seals every shard's pre-queue, ranks its entrants by the
   * seeded order and publishes the result. A retried draw gets the same entrants (sealing is
   * idempotent) and so the same order.
   */
  private async draw(room: RoomRow): Promise<void> {
    if (this.drawing) return;
    this.drawing = true;
    try {
      const config = JSON.parse(room.config) as QueueConfig;
      const lists = await Promise.all(
        Array.from({ length: room.shards }, (_, shard) => this.env.QUEUE_SHARD.getByName(shardName(config.eventId, shard)).entrants()),
      );
      const order = await lotteryDraw(room.seed, lists.flat());
      this.ctx.storage.transactionSync(() => {
        if (this.room()!.drawn === 1) return;
        order.forEach(({ id, key }, i) => {
          // The published result, kept even if the visitor later leaves and rejoins.
          this.sql.run`INSERT INTO wr_draw (rank, visitor_id, key) VALUES (${i + 1}, ${id}, ${key})`;
        });
        this.sql.run`UPDATE wr_room SET drawn = 1, draw_size = ${order.length}`;
      });
      logDecision('lottery_drawn', { eventId: config.eventId, entrants: order.length, shards: room.shards });
    } finally {
      this.drawing = false;
    }
  }

  /**
   * Admissions per minute actually achieved while visitors waited, over about the last minute
   * (from the samples; see measuredAdmissionRate), or the admission rate in force without enough
   * such time: the honest basis for a wait estimate.
   * @param waitingNow visitors waiting now (the current state closes the last interval)
   */
  private recentAdmissionRate(room: RoomRow, now: number, waitingNow: number): number {
    const config = JSON.parse(room.config) as QueueConfig;
    const samples = this.sql.all<AdmissionSample>`
      SELECT at, admitted_total AS admittedTotal, waiting FROM wr_samples WHERE at >= ${now - 65_000} ORDER BY at`;
    samples.push({ at: now, admittedTotal: room.admitted_total, waiting: waitingNow });
    // Only time on sale counts: before the sale start (or a lottery draw) nobody could be admitted.
    return measuredAdmissionRate(samples, now, config.saleStartsAtMs, room.admit_rate || room.rate);
  }

  private setMode(mode: RoomMode): boolean {
    const room = this.room();
    if (!room) return false;
    if (room.mode === mode) return true;
    // Restart the budget clock so a long pause does not earn a burst on resume.
    this.sql.run`UPDATE wr_room SET mode = ${mode}, carry = 0, last_tick_at = ${this.clock()}`;
    return true;
  }

  private room(): RoomRow | null {
    if (!this.ready) return null;
    return this.sql.one<RoomRow>`SELECT * FROM wr_room WHERE id = 1`;
  }

  /**
   * Arms the alarm by the room's alarm plan (alarm-plan.ts): every RELEASE_TICK_MS while releases
   * can happen, once after any event (so new arrivals get counted), else only when something can
   * change by itself (the sale start, a slot freeing) or not at all until the next event.
   * @param tick `inAlarm`: called at the end of a tick (the fired alarm is gone); `wokenMeanwhile`:
   *   a wake arrived while that tick ran, so its arrivals are not counted yet
   * @param cause outside a tick: `event` (default) or `capacity` (see AlarmCause)
   */
  private async ensureAlarm(
    now: number,
    tick: { inAlarm: boolean; wokenMeanwhile: boolean } = NOT_IN_ALARM,
    cause: Exclude<AlarmCause, 'tick'> = 'event',
  ): Promise<void> {
    const room = this.room();
    if (!room) return;
    const config = JSON.parse(room.config) as QueueConfig;
    const active = this.activeCount(now);
    const window = claimWindowMs(config.idleTimeoutMs);
    const pending = this.pendingCount(now, window);
    const plan = planAlarm({
      nowMs: now,
      tickMs: this.tickMs,
      cause: tick.inAlarm && !tick.wokenMeanwhile ? 'tick' : cause,
      mode: room.mode,
      soldOut: room.sold_out === 1,
      saleStartsAtMs: config.saleStartsAtMs,
      drawPending: config.policy === 'random' && room.drawn !== 1,
      waiting: this.waitingCount(room),
      freeSlots: freeSlots({
        maxActiveVisitors: config.maxActiveVisitors,
        activeLimit: room.active_limit ?? config.maxActiveVisitors,
        active,
        pending,
        noShowRate: this.gatewaySignals(now).noShowRate,
        pendingLimit: pendingLimit(room.admit_rate, window),
      }),
      nextSlotFreesAtMs: this.nextSlotFreesAt(now, window),
    });
    const change = alarmChange(plan, tick, await this.ctx.storage.getAlarm());
    if (change.kind === 'set') await this.ctx.storage.setAlarm(change.atMs);
    else if (change.kind === 'delete') await this.ctx.storage.deleteAlarm();
  }

  /**
   * When the next slot frees by itself, epoch ms: an unclaimed place lapses from the budget 1 ms
   * after its claim window (pendingCount counts it through `at + window`), an admission ends at
   * `expires_at`.
   */
  private nextSlotFreesAt(now: number, claimWindow: number): number | null {
    const lapse = this.sql.one<{ at: number | null }>`
      SELECT MIN(at) AS at FROM wr_releases WHERE at >= ${now - claimWindow} AND claimed < count`?.at;
    const end = this.sql.one<{ at: number | null }>`
      SELECT MIN(expires_at) AS at FROM wr_admissions WHERE state = 'admitted' AND expires_at > ${now}`?.at;
    const times = [lapse == null ? null : lapse + claimWindow + 1, end ?? null].filter((t): t is number => t !== null);
    return times.length > 0 ? Math.min(...times) : null;
  }
}

const NOT_IN_ALARM = { inAlarm: false, wokenMeanwhile: false } as const;

function bounds(config: QueueConfig, fixedRate: number | null = null): ControllerBounds {
  return {
    minPerMinute: config.minReleaseRatePerMinute,
    maxPerMinute: config.maxReleaseRatePerMinute,
    targetP99Ms: config.targetP99Ms,
    maxErrorRate: config.maxErrorRate,
    // Configs stored before these settings existed get the defaults.
    holdTargetP99Ms: config.holdTargetP99Ms ?? DEFAULT_HOLD_TARGET_P99_MS,
    onOriginDown: config.onOriginDown ?? 'minimum',
    fixedPerMinute: fixedRate,
    maxActive: config.maxActiveVisitors,
  };
}

/** The room's admission cursor: the first FIFO place not released yet. */
function cursorOf(room: RoomRow): FifoPlace {
  return { bucket: room.c_bucket, idx: room.c_idx, shard: room.c_shard };
}
