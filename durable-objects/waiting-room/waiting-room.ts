// WaitingRoom Durable Object: one per event; storage (room-store.ts), RPC and alarm orchestration
// around the pure rules (admission-policy, tick-plan, alarm-plan, room-config, health-intake,
// room-cursor, release-controller). It decides nothing itself.
import { DurableObject } from 'cloudflare:workers';
import type { QueueConfig } from '../../contracts/event-config';
import { logDecision } from '../../contracts/log';
import type { AdmissionCursor, Place } from '../../contracts/queue/cursor';
import { onSale, seedCommitment, type RoomMode } from '../../contracts/queue/queue-policy';
import { DONE, EVENT_NOT_FOUND } from '../../contracts/answers';
import type { AdmitAnswer, FixedRateAnswer, HealthAnswer, ModeAnswer, PassAnswer, RoomConfigureAnswer } from '../../contracts/room-answers';
import { releaseTickMs } from '../../contracts/settings';
import { Sql, hasSchema } from '../shared/sql';
import { migrateFromAssets } from '../shared/schema-assets';
import { SCHEMAS } from '../shared/schemas';
import { alarmChange, planAlarm, type AlarmCause } from './alarm-plan';
import { acceptHealthReport, parseStoredHealth } from './health-intake';
import type { HealthReport } from './health-signals';
import { initialControllerState } from './release-controller';
import {
  configChangeConflict,
  controllerBounds,
  keepAccountKey,
  lotteryStartConflict,
  parseRoomConfig,
  rateAfterBoundsChange,
} from './room-config';
import { admitDecision, alarmFacts, roomCursor, roomStats, roomWaiting, type Room } from './room-reads';
import { RoomStore } from './room-store';
import { StockWatch } from './stock-watch';
import { followLapseClock, runTick } from './room-tick';
import { fetchDrawOrder, fetchShardCounts } from './shard-calls';
import type { HoldSignals, RoomStats } from './room-types';
import { SIGNAL_WINDOW_MS } from './tick-plan';
import { type CancelOverrideAnswer, type OverrideInput, type ScheduleAnswer, type StoredOverride } from '../../contracts/schedule';
import {
  effectiveConfig,
  effectiveMode,
  methodEndsAtMs,
  nextBoundaryMs,
  scheduledMinimumConflict,
  wakeAtBoundary,
} from './schedule-policy';
import { ScheduleStore } from './schedule-store';
import { HistoryStore } from './history-store';
import { recordHistory } from './history-tick';
import { historyRange, refusalCounts } from './history-policy';
import type { HistoryAnswer, RefusalCounts } from '../../contracts/history';
import type { RoomReport } from '../../contracts/report';
import { roomReport } from './report-read';
import { addOverride, applySchedule, cancelOverride, passNewcomer } from './schedule-tick';

export type { HoldSignals, RoomStats } from './room-types';

const NOT_IN_ALARM = { inAlarm: false, wokenMeanwhile: false } as const;

export class WaitingRoom extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  private readonly store: RoomStore;
  private readonly schedule: ScheduleStore;
  private readonly history: HistoryStore;
  /** RELEASE_TICK_MS, parsed at construction. */
  private readonly tickMs: number;
  private drawing = false;
  private readonly stockWatch = new StockWatch();
  /** Requests served by this instance since it started (the scale benchmark counts them). */
  requests = 0;
  /** `isActive` calls among them: the edge's per-visitor session checks (tests count them). */
  sessionChecks = 0;
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
    const sql = new Sql(ctx.storage.sql);
    this.store = new RoomStore(sql);
    this.schedule = new ScheduleStore(sql);
    this.history = new HistoryStore(sql);
    void ctx.blockConcurrencyWhile(async () => {
      if (hasSchema(ctx.storage, 'wr')) await this.setUp();
    });
  }

  /** Creates or upgrades the schema (once per instance). */
  private async setUp(): Promise<void> {
    if (this.ready) return;
    await migrateFromAssets(this.ctx.storage, this.env.ASSETS, SCHEMAS.waitingRoom);
    this.ready = true;
  }

  /**
   * Creates or updates the event's queue settings. Once visitors joined, the policy and the shard
   * count are fixed, after a lottery draw its sale start, and a sale under way cannot move its start
   * into the future (room-config.ts configChangeConflict).
   * @param dryRun check only, write nothing
   * @returns `ok` (with `created`) or `conflict` with a reason
   */
  async configure(config: QueueConfig, dryRun = false): Promise<RoomConfigureAnswer> {
    if (!dryRun) await this.setUp();
    // The seed and its public commitment are made before reading state, so no await splits the
    // check from the write below.
    const seed = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const commitment = await seedCommitment(seed);
    // Fresh arrival counts first: "anyone joined" must include the last second's joins.
    const before = this.room();
    if (before) await this.collectArrivals(before);
    const room = this.room();
    const lottery = lotteryStartConflict(room?.config ?? null, config, this.clock());
    if (lottery) return { kind: 'conflict', detail: lottery };
    let stored = config;
    if (room) {
      const joined = room.row.admitted_total > 0 || room.row.drawn === 1 || roomWaiting(this.store, room) > 0;
      const admitted = room.row.admitted_total > 0;
      const conflict = configChangeConflict(room.config, config, { joined, drawn: room.row.drawn === 1, admitted, nowMs: this.clock() });
      if (conflict) return { kind: 'conflict', detail: conflict };
      stored = keepAccountKey(room.config, config, { joined });
    }
    if (room) {
      const scheduled = scheduledMinimumConflict(config.maxReleaseRatePerMinute, this.schedule.list());
      if (scheduled) return { kind: 'conflict', detail: scheduled };
    }
    if (dryRun) return { kind: 'ok', created: !room };
    const now = this.clock();
    const json = JSON.stringify(stored);
    // Checked before it is stored: a config the room could not read back is a bug here, not later.
    const next = parseRoomConfig(json);
    if (room) {
      this.store.setConfig(json, next.shards);
      // New bounds apply at once (a fixed rate stays as the organizer set it, unless above the new maximum).
      const bounds = effectiveConfig(next, this.schedule.list(), now);
      followLapseClock(this.store, { row: room.row, config: bounds }, now);
      // The event's own maximum bounds the fixed rate for good (a scheduled one only while on).
      let fixedRate = room.row.fixed_rate;
      if (fixedRate !== null && fixedRate > next.maxReleaseRatePerMinute) {
        fixedRate = next.maxReleaseRatePerMinute;
        this.store.setFixedRate(fixedRate);
        this.store.logRate(now, fixedRate, `fixed rate lowered to the event's new maximum of ${fixedRate}/min`);
      }
      const change = rateAfterBoundsChange({ rate: room.row.rate, fixedRate }, bounds);
      if (change.kind === 'clamped') this.store.setRate(change.rate);
      if (change.kind !== 'unchanged') this.store.logRate(now, change.rate, change.reason);
    } else {
      const rate = initialControllerState(controllerBounds(next)).ratePerMinute;
      this.store.createRoom(json, next.shards, seed, commitment, rate, now);
      this.store.logRate(now, rate, 'start at the minimum until the origin reports health');
    }
    await this.ensureAlarm(now);
    return { kind: 'ok', created: !room };
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
    const now = this.clock();
    return {
      ...roomCursor(this.store, room, now, this.tickMs),
      methodEndsAtMs: methodEndsAtMs(this.schedule.list(), now),
      stock: this.stockWatch.published(room),
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

  /**
   * Organizer override of the release rate: a fixed number of new visitors per minute, or null to
   * hand control back to the controller. Takes effect at once, with a logged reason.
   * @returns `ok`, `event_not_found`, or `above_maximum` (over the organizer's own maximum)
   */
  async setFixedRate(perMinute: number | null): Promise<FixedRateAnswer> {
    // Bounded by the event's own maximum: a scheduled lower maximum holds it down while on
    // (room-config.ts rateAfterBoundsChange), it does not refuse it.
    const stored = this.storedRoom();
    if (!stored) return EVENT_NOT_FOUND;
    const max = stored.config.maxReleaseRatePerMinute;
    if (perMinute !== null && perMinute > max) return { kind: 'above_maximum', maxPerMinute: max };
    const previous = stored.row.fixed_rate;
    if (previous === perMinute) return { kind: 'ok', previous, changed: false };
    const now = this.clock();
    this.store.setFixedRate(perMinute);
    const inEffect = this.room(now)!.config.maxReleaseRatePerMinute;
    if (perMinute === null) this.store.logRate(now, stored.row.rate, 'organizer returned control to the controller');
    else if (perMinute > inEffect)
      this.store.logRate(now, inEffect, `fixed by the organizer at ${perMinute}/min, held to the maximum in effect of ${inEffect}/min`);
    else this.store.logRate(now, perMinute, `fixed by the organizer at ${perMinute}/min`);
    await this.ensureAlarm(now);
    return { kind: 'ok', previous, changed: true };
  }

  /** Hold latency and conflicts one gateway isolate measured; the controller reads the last SIGNAL_WINDOW_MS. */
  async recordHoldSignals(signals: HoldSignals): Promise<void> {
    if (!this.ready) return;
    this.store.signals.recordHolds(this.clock(), signals.holds, signals.conflicts, signals.p99Ms, SIGNAL_WINDOW_MS);
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
    if (left) await this.ensureAlarm(this.clock(), NOT_IN_ALARM, 'capacity');
    return left;
  }

  /**
   * The inventory says nothing is left (or, after releases, that something is again). While sold
   * out nobody is released and waiting visitors see `sold_out` on their next poll.
   */
  async setSoldOut(soldOut: boolean): Promise<void> {
    const room = this.room();
    if (!room) return;
    this.store.setSoldOut(soldOut);
    // Seats back on sale: a room that slept while sold out releases again.
    if (room.row.sold_out === 1 && !soldOut) await this.ensureAlarm(this.clock());
  }

  /** Closes the sale: no more releases, and waiting visitors are told so. */
  async close(): Promise<ModeAnswer> {
    const previous = this.setMode('closed');
    return previous ? { kind: 'ok', previous } : EVENT_NOT_FOUND;
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

  /** Stops releases; nobody loses a place. The room sleeps after its next tick (alarm-plan.ts). */
  async pause(): Promise<ModeAnswer> {
    const previous = this.setMode('paused');
    return previous ? { kind: 'ok', previous } : EVENT_NOT_FOUND;
  }

  /** Resumes releases after a pause (or reopens a closed sale); the room, asleep while paused, ticks again. */
  async resume(): Promise<ModeAnswer> {
    const previous = this.setMode('open');
    if (!previous) return EVENT_NOT_FOUND;
    await this.ensureAlarm(this.clock());
    return { kind: 'ok', previous };
  }

  /**
   * Stores the origin's latest health report; the next tick acts on it. Reports count as of their
   * signed time clamped to this clock and must arrive in that order (health-intake.ts
   * acceptHealthReport): a replayed report never stands in for a newer one, one sent again is
   * acknowledged and changes nothing, and one signed a little ahead never locks out the correctly
   * timed ones after it.
   *
   * @param signedAtMs the report's signed timestamp, epoch ms
   * @returns `ok`, `event_not_found`, or `out_of_order`
   */
  async recordHealth(report: Omit<HealthReport, 'reportedAtMs'>, signedAtMs: number): Promise<HealthAnswer> {
    const room = this.room();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.clock();
    const accepted = acceptHealthReport(parseStoredHealth(room.row.health), report, signedAtMs, now);
    if (accepted.kind === 'out_of_order') return { kind: 'out_of_order' };
    if (accepted.kind === 'duplicate') return DONE;
    this.store.setHealth(JSON.stringify(accepted.health));
    await this.ensureAlarm(now, NOT_IN_ALARM, 'capacity');
    return DONE;
  }

  /** Config, counts, rate and its recent changes, for the organizer; null if the event does not exist. */
  async stats(): Promise<RoomStats | null> {
    const before = this.room();
    if (!before) return null;
    // Fresh counts from the shards (the organizer asks every few seconds, not per visitor).
    await this.collectArrivals(before);
    const stats = await roomStats(this.store, this.room()!, this.clock(), { tickMs: this.tickMs, objectRequests: this.requests });
    // The stored config (what the organizer edits), not the one a scheduled change overrides now.
    return { ...stats, config: this.storedRoom()!.config, inEffect: stats.config, schedule: [...this.schedule.list()] };
  }

  /**
   * Adds a scheduled change (contracts/schedule.ts), checked against the room's clock and the
   * changes stored (schedule-policy.ts overrideProblem); the alarm applies and ends it at its times.
   * The same change again is answered as stored.
   * @param input the validated body; no `startsAt` = now by the room's clock
   * @returns `ok` (`created` false for a repeat), `invalid` or `conflict` with a reason, `event_not_found`
   */
  async scheduleOverride(id: string, input: OverrideInput): Promise<ScheduleAnswer> {
    const room = this.storedRoom();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync(() => addOverride(this.store, this.schedule, room, { id, input }, now));
    if (answer.kind === 'ok' && answer.created) await this.ensureAlarm(now);
    return answer;
  }

  /**
   * Cancels a scheduled change (schedule-tick.ts cancelOverride): one not started yet is removed;
   * one on now ends at once, logged like its end. One already ended stays, for the history.
   */
  async cancelOverride(id: string): Promise<CancelOverrideAnswer> {
    const room = this.storedRoom();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync(() => cancelOverride(this.store, this.schedule, room, id, now));
    if (answer.kind === 'ok') await this.ensureAlarm(now);
    return answer;
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

  /**
   * The release tick: draws the lottery at sale start, collects arrival counts from the queue
   * shards, ends expired admissions, moves the release rate (release-controller.ts), releases what
   * the tick's plan allows (tick-plan.ts planRelease: draw ranks first, then FIFO places), and
   * re-arms by the alarm plan. Idempotent: a duplicate or late run releases only what the elapsed
   * time earned (capped, see releaseBudget).
   */
  override async alarm(): Promise<void> {
    const first = this.room();
    if (!first) return;
    // A shard may wake this room while the tick awaits the counts; those arrivals are not in this
    // tick's counts, so the tick must not go to sleep on them.
    const wakesBefore = this.wakes;
    const { config } = first;
    if (config.policy === 'random' && first.row.drawn !== 1 && onSale(config, this.clock())) await this.draw(first);
    await Promise.all([this.collectArrivals(this.room()!), this.stockWatch.refresh(this.env, first, this.clock())]);
    const now = this.clock();
    this.ctx.storage.transactionSync(() => {
      applySchedule(this.store, this.schedule, this.storedRoom()!, now);
      runTick(this.store, this.room(now)!, now);
      recordHistory(this.store, this.history, this.room(now)!, now, this.tickMs);
    });
    await this.ensureAlarm(now, { inAlarm: true, wokenMeanwhile: this.wakes !== wakesBefore });
  }

  /** Asks every queue shard for its arrivals from the cursor's bucket on and stores them. */
  private async collectArrivals(room: Room): Promise<void> {
    const laneFrom = Object.fromEntries([...this.store.lanes.lines()].map(([lane, line]) => [lane, line.cursor.bucket]));
    const answers = await fetchShardCounts(this.env, room, laneFrom);
    this.ctx.storage.transactionSync(() => {
      for (const { shard, counts } of answers) {
        this.store.storeShardCounts(shard, counts.sealedBefore, counts.preQueue, counts.buckets);
        // A shard of an older deploy answers without lanes.
        this.store.lanes.storeArrivals(shard, counts.lanes ?? {});
      }
    });
  }

  /** The lottery draw at sale start (shard-calls.ts fetchDrawOrder), published once. */
  private async draw(room: Room): Promise<void> {
    if (this.drawing) return;
    this.drawing = true;
    try {
      const order = await fetchDrawOrder(this.env, room);
      this.ctx.storage.transactionSync(() => this.store.storeDraw(order));
      logDecision('lottery_drawn', { eventId: room.config.eventId, entrants: order.length, shards: room.row.shards });
    } finally {
      this.drawing = false;
    }
  }

  /** Sets the organizer's mode; returns the one before, or null when the event does not exist. */
  private setMode(mode: RoomMode): RoomMode | null {
    // The stored mode: a maintenance window's stop (effectiveMode) is not the organizer's pause.
    const room = this.storedRoom();
    if (!room) return null;
    if (room.row.mode !== mode) this.store.setMode(mode, this.clock());
    return room.row.mode;
  }

  /**
   * The room's row and its checked config as in effect at `atMs` (the scheduled changes on then
   * applied, schedule-policy.ts effectiveConfig), or null when the event does not exist.
   */
  private room(atMs = this.clock()): Room | null {
    const room = this.storedRoom();
    if (!room) return null;
    const config = effectiveConfig(room.config, this.schedule.list(), atMs);
    return { row: { ...room.row, mode: effectiveMode(room.row.mode, config.method) }, config };
  }

  /** The room's row and its stored config, no scheduled change applied; null when the event does not exist. */
  private storedRoom(): Room | null {
    if (!this.ready) return null;
    const row = this.store.room();
    return row && { row, config: parseRoomConfig(row.config) };
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
    const plan = wakeAtBoundary(
      planAlarm(alarmFacts(this.store, room, now, this.tickMs, tick.inAlarm && !tick.wokenMeanwhile ? 'tick' : cause)),
      nextBoundaryMs(this.schedule.list(), now),
    );
    const change = alarmChange(plan, tick, await this.ctx.storage.getAlarm());
    if (change.kind === 'set') await this.ctx.storage.setAlarm(change.atMs);
    else if (change.kind === 'delete') await this.ctx.storage.deleteAlarm();
  }
}
