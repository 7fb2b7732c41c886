// WaitingRoom Durable Object: one per event; storage, alarm and RPC around the pure queue policy.
import { DurableObject } from 'cloudflare:workers';
import { DEFAULT_HOLD_TARGET_P99_MS, type PageTemplate, type QueueConfig } from '../../src/lib/event-config';
import { Sql, migrate } from '../shared/sql';
import {
  estimateWaitSeconds,
  lotteryOrder,
  onSale,
  pollAfterMs,
  seedCommitment,
  seenWriteEveryMs,
  waitingState,
  type QueueState,
  type RoomMode,
} from './queue-policy';
import {
  initialControllerState,
  nextReleaseRate,
  releaseBudget,
  type ControllerBounds,
  type GatewaySignals,
  type HealthReport,
} from './release-controller';
import { WAITING_ROOM_MIGRATIONS } from './schema';

/** Default interval of the release tick while anyone waits or is active, ms (env RELEASE_TICK_MS). */
export const DEFAULT_TICK_MS = 1_000;
/** The dashboard's samples: one every SAMPLE_EVERY_MS, kept for SAMPLE_KEEP_MS. */
export const SAMPLE_EVERY_MS = 5_000;
export const SAMPLE_KEEP_MS = 30 * 60_000;
/** The conflict rate counts only with at least this many distinct accounts holding in the window. */
export const MIN_CONFLICT_ACCOUNTS = 10;
/** Gateway signals (hold latency, conflicts) count over this trailing window, ms. */
export const SIGNAL_WINDOW_MS = 30_000;
/** An admitted visitor who has not reached the sale this long after admission is a no-show, ms. */
export const NO_SHOW_AFTER_MS = 60_000;
/** No-shows count among visitors admitted in this trailing window, ms (and only with 10 or more). */
export const NO_SHOW_WINDOW_MS = 5 * 60_000;

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
  admit_rate: number;
  last_sample_at: number;
}

interface VisitorRow {
  visitor_id: string;
  seq: number;
  rank: number | null;
  state: 'waiting' | 'admitted' | 'left' | 'dropped';
  joined_at: number;
  last_seen_at: number;
  admitted_at: number | null;
  expires_at: number | null;
  arrived_at: number | null;
}

/** A visitor's place and the event's state, as `join` and `status` return it. */
export interface QueueStatus {
  kind: 'status';
  state: QueueState;
  /** The organizer's name for the event. */
  eventName: string;
  /** The organizer's look of the waiting page, and its HTTP status. */
  page: PageTemplate;
  pageStatus: 200 | 202 | 429;
  /** Lottery events: SHA-256 of the secret draw seed, published before the draw. */
  commitment: string | null;
  policy: QueueConfig['policy'];
  /** 1-based place in line; null before the lottery draw or once admitted. */
  position: number | null;
  /** Visitors ahead; null when the position is unknown. */
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  pollAfterMs: number;
  saleStartsAtMs: number;
  /** Present when `state` is `admitted`: the admission window, epoch ms. */
  admission?: { admittedAtMs: number; expiresAtMs: number };
}

/** `join` / `status` outcome: a status, or the event / visitor is unknown. */
export type QueueAnswer = QueueStatus | { kind: 'event_not_found' } | { kind: 'unknown_visitor' };

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

/** `configure` outcome. */
export type ConfigureAnswer = { kind: 'ok'; created: boolean } | { kind: 'conflict'; detail: string };

/** Live numbers for the organizer. */
export interface RoomStats {
  config: QueueConfig;
  mode: RoomMode;
  waiting: number;
  active: number;
  admittedTotal: number;
  dropped: number;
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
  private drawing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, 'wr', WAITING_ROOM_MIGRATIONS));
  }

  /**
   * Creates or updates the event's queue settings. The policy cannot change once anyone joined.
   * @param dryRun check only, write nothing
   * @returns `ok` (with `created`) or `conflict` with a reason
   */
  async configure(config: QueueConfig, dryRun = false): Promise<ConfigureAnswer> {
    // The seed and its public commitment are made before reading state, so no await splits the
    // check from the write below.
    const seed = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const commitment = await seedCommitment(seed);
    const room = this.room();
    if (room) {
      const old = JSON.parse(room.config) as QueueConfig;
      const joined = room.next_seq > 1;
      if (joined && old.policy !== config.policy)
        return { kind: 'conflict', detail: 'the queue policy cannot change once visitors have joined' };
      if (joined && old.policy === 'random' && old.saleStartsAtMs !== config.saleStartsAtMs && room.drawn) {
        return { kind: 'conflict', detail: 'the sale start cannot move after the lottery draw' };
      }
    }
    if (dryRun) return { kind: 'ok', created: !room };
    const now = this.clock();
    if (room) {
      this.sql.run`UPDATE wr_room SET config = ${JSON.stringify(config)}`;
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
        .run`INSERT INTO wr_room (id, config, mode, seed, commitment, drawn, rate, last_report_at, carry, last_tick_at, next_seq, next_rank, admitted_total)
        VALUES (1, ${JSON.stringify(config)}, 'open', ${seed}, ${commitment}, 0, ${rate}, 0, 0, ${now}, 1, 1, 0)`;
      this.sql
        .run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${rate}, 'start at the minimum until the origin reports health')`;
    }
    await this.ensureAlarm(now);
    return { kind: 'ok', created: !room };
  }

  /**
   * Puts a visitor in line, once: joining again returns the same place. A visitor who dropped out
   * (stopped polling) or whose admission ended joins again at the back.
   * @param visitorId the queue ticket's subject
   */
  async join(visitorId: string): Promise<QueueAnswer> {
    const room = this.room();
    if (!room) return { kind: 'event_not_found' };
    const config = JSON.parse(room.config) as QueueConfig;
    const now = this.clock();
    const existing = this.visitor(visitorId);
    const admissionOver = existing?.state === 'admitted' && existing.expires_at! <= now;
    if (!existing || existing.state === 'dropped' || existing.state === 'left' || admissionOver) {
      // FIFO ranks by arrival; the lottery ranks pre-queue entrants at the draw and later ones by arrival.
      const rank = config.policy === 'fifo' ? room.next_seq : room.drawn ? room.next_rank : null;
      this.ctx.storage.transactionSync(() => {
        this.sql.run`INSERT INTO wr_visitors (visitor_id, seq, rank, state, joined_at, last_seen_at)
          VALUES (${visitorId}, ${room.next_seq}, ${rank}, 'waiting', ${now}, ${now})
          ON CONFLICT (visitor_id) DO UPDATE SET seq = excluded.seq, rank = excluded.rank, state = 'waiting',
            joined_at = excluded.joined_at, last_seen_at = excluded.last_seen_at, admitted_at = NULL, expires_at = NULL`;
        this.sql.run`UPDATE wr_room SET next_seq = next_seq + 1, next_rank = next_rank + ${rank === null ? 0 : 1}`;
      });
      await this.ensureAlarm(now);
    }
    return this.describe(visitorId, now);
  }

  /**
   * A visitor's current place. Polling keeps a waiting visitor in line (see idle timeout).
   * @returns `unknown_visitor` if they never joined, dropped out or their admission ended
   */
  async status(visitorId: string): Promise<QueueAnswer> {
    return this.describe(visitorId, this.clock());
  }

  /**
   * Whether an admission session is still active: the visitor is admitted, by this very admission
   * (`sessionId` = its admission time), and it has not expired or been left.
   */
  async isActive(visitorId: string, sessionId: string): Promise<boolean> {
    const v = this.visitor(visitorId);
    const active = v !== null && v.state === 'admitted' && String(v.admitted_at) === sessionId && v.expires_at! > this.clock();
    // The first admitted request is the visitor's arrival: whoever never arrives is a no-show.
    if (active && v.arrived_at === null) this.sql.run`UPDATE wr_visitors SET arrived_at = ${this.clock()} WHERE visitor_id = ${visitorId}`;
    return active;
  }

  /**
   * Organizer override of the release rate: a fixed number of new visitors per minute, or null to
   * hand control back to the controller. Takes effect at the next tick, with a logged reason.
   * @returns false when the event does not exist
   */
  async setFixedRate(perMinute: number | null): Promise<'ok' | 'event_not_found' | 'above_maximum'> {
    const room = this.room();
    if (!room) return 'event_not_found';
    const config = JSON.parse(room.config) as QueueConfig;
    if (perMinute !== null && perMinute > config.maxReleaseRatePerMinute) return 'above_maximum';
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
    return 'ok';
  }

  /** Hold latency and conflicts one gateway isolate measured; the controller reads the last 30 s. */
  async recordHoldSignals(signals: HoldSignals): Promise<void> {
    const now = this.clock();
    this.sql
      .run`INSERT INTO wr_gateway (at, holds, conflicts, hold_p99_ms) VALUES (${now}, ${signals.holds}, ${signals.conflicts}, ${signals.p99Ms})`;
    this.sql.run`DELETE FROM wr_gateway WHERE at < ${now - SIGNAL_WINDOW_MS}`;
  }

  /**
   * Ends a visitor's session (checked out, or gave up): an admitted visitor frees their active
   * slot at once, a waiting one gives up their place.
   * @returns false when the visitor is not in line or active
   */
  async leave(visitorId: string): Promise<boolean> {
    const left = this.sql
      .all`UPDATE wr_visitors SET state = 'left' WHERE visitor_id = ${visitorId} AND state IN ('waiting', 'admitted') RETURNING visitor_id`;
    return left.length > 0;
  }

  /**
   * The inventory says nothing is left (or, after releases, that something is again). While sold
   * out nobody is released and waiting visitors see `sold_out` on their next poll.
   */
  async setSoldOut(soldOut: boolean): Promise<void> {
    this.sql.run`UPDATE wr_room SET sold_out = ${soldOut ? 1 : 0}`;
  }

  /** Closes the sale: no more releases, and waiting visitors are told so. */
  async close(): Promise<boolean> {
    return this.setMode('closed');
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
  async pause(): Promise<boolean> {
    return this.setMode('paused');
  }

  /** Resumes releases after a pause (or reopens a closed sale). */
  async resume(): Promise<boolean> {
    return this.setMode('open');
  }

  /**
   * Stores the origin's latest health report; the next tick acts on it. Reports must arrive in
   * signing order: one signed before the last accepted report is refused, so a replayed report
   * can never stand in for a newer one (nor, being timed by its signature, look fresh).
   *
   * @param signedAtMs the report's signed timestamp, epoch ms
   * @returns `ok`, `event_not_found`, or `out_of_order`
   */
  async recordHealth(report: Omit<HealthReport, 'reportedAtMs'>, signedAtMs: number): Promise<'ok' | 'event_not_found' | 'out_of_order'> {
    const room = this.room();
    if (!room) return 'event_not_found';
    const now = this.clock();
    const last = room.health ? (JSON.parse(room.health) as HealthReport).reportedAtMs : 0;
    const reportedAtMs = Math.min(signedAtMs, now);
    if (reportedAtMs < last) return 'out_of_order';
    this.sql.run`UPDATE wr_room SET health = ${JSON.stringify({ ...report, reportedAtMs })}`;
    await this.ensureAlarm(now);
    return 'ok';
  }

  /** Config, counts, rate and its recent changes, for the organizer; null if the event does not exist. */
  async stats(): Promise<RoomStats | null> {
    const room = this.room();
    if (!room) return null;
    const config = JSON.parse(room.config) as QueueConfig;
    const now = this.clock();
    const count = (state: string) => this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = ${state}`?.n ?? 0;
    const active =
      this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = 'admitted' AND expires_at > ${now}`?.n ?? 0;
    return {
      config,
      mode: room.mode,
      waiting: count('waiting'),
      active,
      admittedTotal: room.admitted_total,
      dropped: count('dropped'),
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
   * The release tick: draws the lottery at sale start, ends expired admissions, drops idle
   * visitors, moves the release rate, admits the next visitors by rank, and re-arms. Idempotent:
   * a duplicate or late run admits only what the elapsed time earned (capped, see releaseBudget).
   */
  override async alarm(): Promise<void> {
    let room = this.room();
    if (!room) return;
    const config = JSON.parse(room.config) as QueueConfig;
    let now = this.clock();
    if (config.policy === 'random' && !room.drawn && onSale(config, now)) {
      await this.draw(config, room.seed);
      room = this.room()!;
      now = this.clock();
    }
    const r = room;
    this.ctx.storage.transactionSync(() => {
      this.sql.run`UPDATE wr_visitors SET state = 'left' WHERE state = 'admitted' AND expires_at <= ${now}`;
      this.sql.run`UPDATE wr_visitors SET state = 'dropped' WHERE state = 'waiting' AND last_seen_at < ${now - config.idleTimeoutMs}`;

      const report = r.health ? (JSON.parse(r.health) as HealthReport) : null;
      const gateway = this.gatewaySignals(now);
      const activeNow = this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = 'admitted'`?.n ?? 0;
      const b = bounds(config, r.fixed_rate);
      const decision = nextReleaseRate(
        {
          ratePerMinute: r.rate,
          activeLimit: r.active_limit ?? b.maxActive,
          slowStart: r.slow_start === 1,
          lastReportAtMs: r.last_report_at,
        },
        { origin: report, gateway, active: activeNow },
        b,
        now,
      );
      const rate = decision.state.ratePerMinute;
      const limit = decision.state.activeLimit;
      if (decision.reason) this.sql.run`INSERT INTO wr_rate_log (at, rate, reason) VALUES (${now}, ${rate}, ${decision.reason})`;

      let carry = 0;
      let admitted = 0;
      if (r.mode === 'open' && r.sold_out === 0 && onSale(config, now)) {
        const active = this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = 'admitted'`?.n ?? 0;
        const eligible =
          this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = 'waiting' AND rank IS NOT NULL`?.n ?? 0;
        const budget = releaseBudget(
          decision.admitPerMinute,
          r.carry,
          now - r.last_tick_at,
          Math.min(config.maxActiveVisitors, limit) - active,
          eligible,
        );
        carry = budget.carry;
        admitted = budget.admit;
        if (admitted > 0) {
          this.sql.run`UPDATE wr_visitors SET state = 'admitted', admitted_at = ${now}, expires_at = ${now + config.admissionTtlMs}
            WHERE visitor_id IN (SELECT visitor_id FROM wr_visitors WHERE state = 'waiting' AND rank IS NOT NULL ORDER BY rank LIMIT ${admitted})`;
        }
      }
      this.sql.run`UPDATE wr_room SET rate = ${rate}, admit_rate = ${decision.admitPerMinute}, active_limit = ${limit},
        slow_start = ${decision.state.slowStart ? 1 : 0}, last_report_at = ${decision.state.lastReportAtMs},
        carry = ${carry}, last_tick_at = ${now}, admitted_total = admitted_total + ${admitted}`;
      if (now - r.last_sample_at >= SAMPLE_EVERY_MS) this.sample(now, rate, decision.admitPerMinute, limit, report, gateway);
    });
    await this.ensureAlarm(now, true);
  }

  /** Hold p99 (the worst isolate's) and conflict rate over SIGNAL_WINDOW_MS, and the no-show rate. */
  private gatewaySignals(now: number): GatewaySignals {
    const g = this.sql.one<{ holds: number | null; conflicts: number | null; p99: number | null }>`
      SELECT SUM(holds) AS holds, SUM(conflicts) AS conflicts, MAX(hold_p99_ms) AS p99 FROM wr_gateway WHERE at >= ${now - SIGNAL_WINDOW_MS}`;
    const a = this.sql.one<{ admitted: number; missing: number | null }>`
      SELECT COUNT(*) AS admitted, SUM(arrived_at IS NULL) AS missing FROM wr_visitors
      WHERE admitted_at BETWEEN ${now - NO_SHOW_WINDOW_MS} AND ${now - NO_SHOW_AFTER_MS}`;
    const holds = g?.holds ?? 0;
    return {
      holdP99Ms: holds > 0 ? g!.p99 : null,
      // Too few distinct accounts say nothing about the crowd.
      conflictRate: holds >= MIN_CONFLICT_ACCOUNTS ? (g!.conflicts ?? 0) / holds : null,
      noShowRate: a && a.admitted >= 10 ? (a.missing ?? 0) / a.admitted : null,
    };
  }

  /** Records one dashboard sample and forgets samples older than SAMPLE_KEEP_MS. */
  private sample(now: number, rate: number, admitRate: number, limit: number, report: HealthReport | null, gateway: GatewaySignals): void {
    const count = (where: string) => this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = ${where}`?.n ?? 0;
    const total = this.sql.one<{ n: number }>`SELECT admitted_total AS n FROM wr_room WHERE id = 1`?.n ?? 0;
    this.sql
      .run`INSERT OR REPLACE INTO wr_samples VALUES (${now}, ${rate}, ${admitRate}, ${limit}, ${report?.p99LatencyMs ?? null}, ${report?.errorRate ?? null},
      ${count('waiting')}, ${count('admitted')}, ${total}, ${gateway.holdP99Ms}, ${gateway.conflictRate}, ${gateway.noShowRate})`;
    this.sql.run`DELETE FROM wr_samples WHERE at < ${now - SAMPLE_KEEP_MS}`;
    this.sql.run`UPDATE wr_room SET last_sample_at = ${now}`;
  }

  /** Ranks the pre-queue by the seeded draw, then later arrivals by arrival order. */
  private async draw(config: QueueConfig, seed: string): Promise<void> {
    if (this.drawing) return;
    this.drawing = true;
    try {
      const entrants = this.sql.all<{
        visitor_id: string;
      }>`SELECT visitor_id FROM wr_visitors WHERE rank IS NULL AND joined_at < ${config.saleStartsAtMs} ORDER BY seq`.map(
        (r) => r.visitor_id,
      );
      const order = await lotteryOrder(seed, entrants);
      // Joins may have arrived during the hashing above: they rank after the draw, by arrival.
      this.ctx.storage.transactionSync(() => {
        order.forEach((id, i) => {
          this.sql.run`UPDATE wr_visitors SET rank = ${i + 1} WHERE visitor_id = ${id}`;
          // The published result, kept even if the visitor later drops out and rejoins.
          this.sql.run`INSERT INTO wr_draw (rank, visitor_id) VALUES (${i + 1}, ${id})`;
        });
        let next = order.length + 1;
        for (const { visitor_id } of this.sql.all<{
          visitor_id: string;
        }>`SELECT visitor_id FROM wr_visitors WHERE rank IS NULL ORDER BY seq`) {
          this.sql.run`UPDATE wr_visitors SET rank = ${next++} WHERE visitor_id = ${visitor_id}`;
        }
        this.sql.run`UPDATE wr_room SET drawn = 1, next_rank = ${next}`;
      });
    } finally {
      this.drawing = false;
    }
  }

  private describe(visitorId: string, now: number): QueueAnswer {
    const room = this.room();
    if (!room) return { kind: 'event_not_found' };
    const config = JSON.parse(room.config) as QueueConfig;
    const v = this.visitor(visitorId);
    if (!v || v.state === 'dropped' || v.state === 'left') return { kind: 'unknown_visitor' };
    const base = {
      kind: 'status' as const,
      eventName: config.name,
      policy: config.policy,
      saleStartsAtMs: config.saleStartsAtMs,
      page: config.page ?? {},
      pageStatus: config.waitingPageStatus ?? 200,
      commitment: config.policy === 'random' ? room.commitment : null,
    };
    if (v.state === 'admitted') {
      if (v.expires_at! <= now) return { kind: 'unknown_visitor' };
      return {
        ...base,
        state: 'admitted',
        position: null,
        ahead: null,
        estimatedWaitSeconds: 0,
        pollAfterMs: 0,
        admission: { admittedAtMs: v.admitted_at!, expiresAtMs: v.expires_at! },
      };
    }
    if (now - v.last_seen_at >= seenWriteEveryMs(config.idleTimeoutMs)) {
      this.sql.run`UPDATE wr_visitors SET last_seen_at = ${now} WHERE visitor_id = ${visitorId}`;
    }
    const state = waitingState(config, room.mode, now, room.sold_out === 1);
    if (v.rank === null) {
      return {
        ...base,
        state,
        position: null,
        ahead: null,
        estimatedWaitSeconds: null,
        pollAfterMs: pollAfterMs(null, config.idleTimeoutMs),
      };
    }
    const ahead = this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state = 'waiting' AND rank < ${v.rank}`?.n ?? 0;
    const untilStart = onSale(config, now) ? 0 : Math.ceil((config.saleStartsAtMs - now) / 1000);
    const wait = state === 'waiting' || state === 'not_open' ? estimateWaitSeconds(ahead + 1, this.recentAdmissionRate(room, now)) : null;
    return {
      ...base,
      state,
      position: ahead + 1,
      ahead,
      estimatedWaitSeconds: wait === null ? null : wait + untilStart,
      pollAfterMs: pollAfterMs(wait, config.idleTimeoutMs),
    };
  }

  /**
   * Admissions per minute actually achieved over about the last minute (from the samples), or the
   * release rate when there is no history yet: the honest basis for a wait estimate.
   */
  private recentAdmissionRate(room: RoomRow, now: number): number {
    const then = this.sql.one<{ at: number; admitted_total: number }>`
      SELECT at, admitted_total FROM wr_samples WHERE at <= ${now - 30_000} ORDER BY at DESC LIMIT 1`;
    if (!then || now - then.at > 5 * 60_000) return room.rate;
    const measured = ((room.admitted_total - then.admitted_total) * 60_000) / (now - then.at);
    return measured > 0 ? measured : room.rate;
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
    return this.sql.one<RoomRow>`SELECT * FROM wr_room WHERE id = 1`;
  }

  private visitor(visitorId: string): VisitorRow | null {
    return this.sql.one<VisitorRow>`SELECT * FROM wr_visitors WHERE visitor_id = ${visitorId}`;
  }

  /**
   * Keeps one alarm armed while there is work: every RELEASE_TICK_MS while anyone waits or is active,
   * else at the sale start. `fromAlarm` re-arms after a tick (the runtime clears the fired alarm).
   */
  private async ensureAlarm(now: number, fromAlarm = false): Promise<void> {
    if (!fromAlarm && (await this.ctx.storage.getAlarm()) !== null) return;
    const room = this.room();
    if (!room) return;
    const config = JSON.parse(room.config) as QueueConfig;
    const busy = this.sql.one<{ n: number }>`SELECT COUNT(*) AS n FROM wr_visitors WHERE state IN ('waiting', 'admitted')`?.n ?? 0;
    if (busy > 0 || (room.health !== null && room.rate > config.minReleaseRatePerMinute)) {
      await this.ctx.storage.setAlarm(now + (Number(this.env.RELEASE_TICK_MS) || DEFAULT_TICK_MS));
    } else if (!onSale(config, now)) {
      await this.ctx.storage.setAlarm(config.saleStartsAtMs);
    } else if (fromAlarm) {
      await this.ctx.storage.deleteAlarm();
    }
  }
}

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
