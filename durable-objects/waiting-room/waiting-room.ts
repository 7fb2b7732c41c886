// WaitingRoom Durable Object: one per event; its RPC surface over the stores (room-store.ts and
// friends), the tick and alarm (room-runtime.ts) and the room's controls (room-controls.ts),
// around the pure rules (admission-policy, tick-plan, alarm-plan, room-config, health-intake,
// room-cursor, release-controller). It decides nothing itself.
import { DurableObject } from 'cloudflare:workers';
import type { QueueConfig } from '../../contracts/event-config';
import type { AdmissionCursor, Place } from '../../contracts/queue/cursor';
import { seedCommitment } from '../../contracts/queue/queue-policy';
import { EVENT_NOT_FOUND } from '../../contracts/answers';
import type {
  AdmitAnswer,
  EdgeWaitSignal,
  FixedRateAnswer,
  HealthAnswer,
  ModeAnswer,
  PassAnswer,
  RoomConfigureAnswer,
} from '../../contracts/room-answers';
import { releaseTickMs } from '../../contracts/settings';
import { Sql, hasSchema } from '../shared/sql';
import { migrateSchema, SCHEMAS } from '../shared/schemas';
import type { HealthReport } from './health-signals';
import { admitDecision, roomCursor, roomStats, type Room } from './room-reads';
import { RoomStore } from './room-store';
import type { HoldSignals, RoomStats } from './room-types';
import { SIGNAL_WINDOW_MS } from './tick-plan';
import { type CancelOverrideAnswer, type OverrideInput, type ScheduleAnswer, type StoredOverride } from '../../contracts/schedule';
import { methodEndsAtMs } from './schedule-policy';
import { ScheduleStore } from './schedule-store';
import { NOT_IN_ALARM, RoomRuntime } from './room-runtime';
import { RoomControls } from './room-controls';
import { HistoryStore } from './history-store';
import { historyRange, refusalCounts } from './history-policy';
import type { HistoryAnswer, RefusalCounts } from '../../contracts/history';
import type { RoomReport } from '../../contracts/report';
import { roomReport } from './report-read';
import { passNewcomer } from './schedule-tick';

export type { HoldSignals, RoomStats } from './room-types';

export class WaitingRoom extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  private readonly store: RoomStore;
  private readonly schedule: ScheduleStore;
  private readonly history: HistoryStore;
  /** RELEASE_TICK_MS, parsed at construction. */
  private readonly tickMs: number;
  /** The tick, the alarm and the room as in effect (room-runtime.ts). */
  private readonly runtime: RoomRuntime;
  /** The organizer's, the origin's and the Inventory's changes to the room (room-controls.ts). */
  private readonly controls: RoomControls;
  /** Requests served by this instance since it started (the scale benchmark counts them). */
  requests = 0;
  /** `isActive` calls among them: the edge's per-visitor session checks (tests count them). */
  sessionChecks = 0;
  /**
   * Whether this event exists in storage. A room is created by `configure` only: a poll for an
   * event id nobody configured writes nothing, so spraying random ids leaves no stored objects.
   */
  private ready = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Parsed once; a malformed value fails every call to the object, naming the variable.
    this.tickMs = releaseTickMs(env.RELEASE_TICK_MS);
    const sql = new Sql(ctx.storage.sql);
    this.store = new RoomStore(sql);
    this.schedule = new ScheduleStore(sql);
    this.history = new HistoryStore(sql);
    this.runtime = new RoomRuntime({
      ctx,
      env,
      store: this.store,
      schedule: this.schedule,
      history: this.history,
      tickMs: this.tickMs,
      clock: () => this.clock(),
      ready: () => this.ready,
    });
    this.controls = new RoomControls({
      transactionSync: (fn) => ctx.storage.transactionSync(fn),
      store: this.store,
      schedule: this.schedule,
      runtime: this.runtime,
      clock: () => this.clock(),
    });
    void ctx.blockConcurrencyWhile(async () => {
      if (hasSchema(ctx.storage, 'wr')) await this.setUp();
    });
  }

  /** Creates or upgrades the schema (once per instance). */
  private async setUp(): Promise<void> {
    if (this.ready) return;
    migrateSchema(this.ctx.storage, SCHEMAS.waitingRoom);
    this.ready = true;
  }

  /** Creates or updates the event's queue settings (room-controls.ts RoomControls.configure). */
  async configure(config: QueueConfig, dryRun = false): Promise<RoomConfigureAnswer> {
    if (!dryRun) await this.setUp();
    return this.controls.configure(config, dryRun);
  }

  /**
   * A newcomer under the `passthrough` method: admitted at once (counted like any admission) when
   * schedule-policy.ts passDecision lets them pass, else `queue` with the reason (the edge then
   * joins them to the line). The admission's place is the pre-queue marker: no line place is taken,
   * and once it ends a poll sends the visitor to the back of the line (admission-policy `requeue`).
   * @returns `admitted`, `queue`, or `event_not_found`
   */
  async passThrough(visitorId: string): Promise<PassAnswer> {
    this.requests++;
    const room = this.room();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.clock();
    return this.ctx.storage.transactionSync(() => passNewcomer(this.store, this.schedule, room, visitorId, now));
  }

  /** A queue shard saw its first uncounted arrival: make sure the release tick runs. */
  async wake(): Promise<void> {
    this.requests++;
    this.runtime.wakes++;
    await this.runtime.ensureAlarm(this.clock());
  }

  /**
   * The admission cursor the edge answers polls from (cached there for about a second), or null
   * when the event does not exist. Read-only: one cheap read per isolate per second.
   */
  async cursor(): Promise<AdmissionCursor | null> {
    this.requests++;
    const room = this.room();
    if (!room) return null;
    const now = this.clock();
    return {
      ...roomCursor(this.store, room, now, this.tickMs),
      methodEndsAtMs: methodEndsAtMs(this.schedule.list(), now),
      stock: this.runtime.stockWatch.published(room),
    };
  }

  /**
   * Turns a released place into an admission, once: the only per-visitor call of the queue, at
   * most one per released visitor (bounded by the release rate, not by the crowd). Asking again
   * returns the same admission while it has a useful time left (admission-policy.ts decideAdmit).
   *
   * @param visitorId the queue ticket's subject
   * @param place the place the ticket carries
   */
  async admit(visitorId: string, place: Place): Promise<AdmitAnswer> {
    this.requests++;
    const room = this.room();
    if (!room) return { kind: 'event_not_found' };
    const now = this.clock();
    const decision = admitDecision(this.store, room, visitorId, place, now);
    if (decision.kind === 'answer') return decision.answer;
    if (decision.kind === 'wait_for_slot') {
      this.store.askForSlot(visitorId, now);
      return { kind: 'waiting' };
    }
    const { release, admittedAtMs, expiresAtMs } = decision;
    this.ctx.storage.transactionSync(() => this.store.claim(visitorId, decision.placeKey, release, admittedAtMs, expiresAtMs));
    return { kind: 'admitted', admittedAtMs, expiresAtMs };
  }

  /**
   * Whether an admission session is still active: the visitor is admitted, by this very admission
   * (`sessionId` = its admission time), and it has not expired or been left. The edge asks only
   * when the cursor's list of ended sessions names the session or is not complete (credentials.ts).
   */
  async isActive(visitorId: string, sessionId: string): Promise<boolean> {
    this.requests++;
    this.sessionChecks++;
    if (!this.ready) return false;
    const a = this.store.admission(visitorId);
    return a !== null && a.state === 'admitted' && String(a.admitted_at) === sessionId && a.expires_at > this.clock();
  }

  /**
   * Keeps an admission alive while its visitor holds seats (an admission that ended
   * before the visitor's hold sent them to the back of the queue mid-checkout, the seats locked for
   * nobody): the session's end moves out to cover the hold ending at `holdEndsAtMs` and a payment
   * started at its last moment (admission-cover.ts `coverEnd`: bounded, never in). The slot stays
   * taken meanwhile: the buyer is active.
   * @returns the session's end, epoch ms; null when that session is not active, or no event
   */
  async extendAdmission(visitorId: string, sessionId: string, holdEndsAtMs: number): Promise<number | null> {
    this.requests++;
    const room = this.ready ? this.room() : null;
    return room ? this.store.extendAdmission(visitorId, sessionId, holdEndsAtMs, room.config, this.clock()) : null;
  }

  /** Organizer override of the release rate, or null for the controller's (room-controls.ts RoomControls.setFixedRate). */
  async setFixedRate(perMinute: number | null): Promise<FixedRateAnswer> {
    return this.controls.setFixedRate(perMinute);
  }

  /** Hold latency and conflicts one gateway isolate measured; the controller reads the last SIGNAL_WINDOW_MS. */
  async recordHoldSignals(signals: HoldSignals): Promise<void> {
    if (!this.ready) return;
    this.store.signals.recordHolds(this.clock(), signals.holds, signals.conflicts, signals.p99Ms, SIGNAL_WINDOW_MS);
  }

  /** The p99 of admitted requests' waits at the edge one gateway isolate measured (src/lib/edge-wait.ts); the controller reads the worst of the last EDGE_WAIT_WINDOW_MS (tick-plan.ts). */
  async recordEdgeWait(signal: EdgeWaitSignal): Promise<void> {
    if (!this.ready || !Number.isFinite(signal.p99Ms) || signal.p99Ms < 0) return;
    this.store.signals.recordEdgeWait(this.clock(), signal.p99Ms);
  }

  /** Refusals one gateway isolate made on the way into this event's line since its last report, by cause; the next minute's history row counts them. */
  async recordRefusals(counts: RefusalCounts): Promise<void> {
    if (!this.ready) return;
    this.history.recordRefusals(this.clock(), refusalCounts(counts));
  }

  /**
   * Ends a visitor's admission (checked out, or gave up): their active slot frees at once, and the
   * cursor lists the session as ended until its `exp` (ended-store.ts). (A waiting visitor gives up
   * their place at their queue shard.)
   * @returns false when the visitor is not active
   */
  async leave(visitorId: string): Promise<boolean> {
    if (!this.ready) return false;
    const left = this.store.leave(visitorId, this.clock());
    // A freed slot may let a room that sleeps with every slot taken release again.
    if (left) await this.runtime.ensureAlarm(this.clock(), NOT_IN_ALARM, 'capacity');
    return left;
  }

  /** The inventory says nothing is left, or something is again (room-controls.ts RoomControls.setSoldOut). */
  async setSoldOut(soldOut: boolean): Promise<void> {
    await this.controls.setSoldOut(soldOut);
  }

  /** Closes the sale: no more releases, and waiting visitors are told so. */
  async close(): Promise<ModeAnswer> {
    return this.controls.setMode('closed');
  }

  /**
   * The lottery's public record: before the draw the seed's commitment only; after it the seed and
   * the pre-queue entrants in draw order, so anyone can recompute the order (scripts/verify-draw.ts).
   * @returns null when the event does not exist or is not a lottery
   */
  async drawRecord(): Promise<{ commitment: string; drawn: boolean; seed: string | null; entrants: string[] | null } | null> {
    const room = this.room();
    if (!room || room.config.policy !== 'random') return null;
    const drawn = room.row.drawn === 1;
    return {
      commitment: await seedCommitment(room.row.seed),
      drawn,
      seed: drawn ? room.row.seed : null,
      entrants: drawn ? this.store.drawEntrants() : null,
    };
  }

  /** Stops releases; nobody loses a place (room-controls.ts RoomControls.setMode). */
  async pause(): Promise<ModeAnswer> {
    return this.controls.setMode('paused');
  }

  /** Resumes releases after a pause, or reopens a closed sale (room-controls.ts RoomControls.setMode). */
  async resume(): Promise<ModeAnswer> {
    return this.controls.setMode('open');
  }

  /** Stores the origin's latest health report for the next tick (room-controls.ts RoomControls.recordHealth). */
  async recordHealth(report: Omit<HealthReport, 'reportedAtMs'>, signedAtMs: number): Promise<HealthAnswer> {
    return this.controls.recordHealth(report, signedAtMs);
  }

  /** Config, counts, rate and its recent changes, for the organizer; null if the event does not exist. */
  async stats(): Promise<RoomStats | null> {
    const before = this.room();
    if (!before) return null;
    // Fresh counts from the shards (the organizer asks every few seconds, not per visitor).
    await this.runtime.collectArrivals(before);
    const stats = await roomStats(this.store, this.room()!, this.clock(), { tickMs: this.tickMs, objectRequests: this.requests });
    // The stored config (what the organizer edits), not the one a scheduled change overrides now.
    return { ...stats, config: this.storedRoom()!.config, inEffect: stats.config, schedule: [...this.schedule.list()] };
  }

  /** Adds a scheduled change (room-controls.ts RoomControls.scheduleOverride). */
  async scheduleOverride(id: string, input: OverrideInput): Promise<ScheduleAnswer> {
    return this.controls.scheduleOverride(id, input);
  }

  /** Cancels a scheduled change (room-controls.ts RoomControls.cancelOverride). */
  async cancelOverride(id: string): Promise<CancelOverrideAnswer> {
    return this.controls.cancelOverride(id);
  }

  /**
   * The per-minute history over `[fromMs, toMs)` in steps that keep it within HISTORY_MAX_POINTS
   * (history-policy.ts historyRange).
   * @returns the points with their step (ms), `invalid` for a range before the 30 days kept (or
   *   inverted), or null when the event does not exist
   */
  async historyBetween(fromMs: number, toMs: number): Promise<HistoryAnswer> {
    if (!this.room()) return null;
    const range = historyRange(fromMs, toMs, this.clock());
    if (range.kind === 'invalid') return range;
    return { kind: 'ok', stepMs: range.stepMs, points: this.history.range(range.fromMs, range.toMs, range.stepMs) };
  }

  /** The report after the sale (report-read.ts roomReport); null when the event does not exist. */
  async report(): Promise<RoomReport | null> {
    const room = this.storedRoom();
    return room && roomReport({ store: this.store, history: this.history, schedule: this.schedule }, room, this.clock());
  }

  /** The event's scheduled changes, in start order; null when the event does not exist. */
  async overrides(): Promise<StoredOverride[] | null> {
    return this.room() ? [...this.schedule.list()] : null;
  }

  /** The release tick (room-runtime.ts RoomRuntime.tick). */
  override async alarm(): Promise<void> {
    await this.runtime.tick();
  }

  /** The room as in effect at `atMs` (room-runtime.ts), or null when the event does not exist. */
  private room(atMs = this.clock()): Room | null {
    return this.runtime.room(atMs);
  }

  /** The room with its stored config, no scheduled change applied; null when the event does not exist. */
  private storedRoom(): Room | null {
    return this.runtime.storedRoom();
  }
}
