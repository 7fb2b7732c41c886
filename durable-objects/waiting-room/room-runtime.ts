// The WaitingRoom's tick and alarm: reading the room as in effect, collecting the shards' arrival
// counts, the lottery draw at sale start, the release tick's one transaction, and arming the next
// alarm by the alarm plan. The WaitingRoom's RPC methods call into it; the rules are pure
// (alarm-plan.ts, room-tick.ts, schedule-policy.ts).
import { logDecision } from '../../contracts/log';
import { onSale } from '../../contracts/queue/queue-policy';
import { alarmChange, planAlarm, type AlarmCause } from './alarm-plan';
import type { HistoryStore } from './history-store';
import { recordHistory } from './history-tick';
import { parseRoomConfig } from './room-config';
import { alarmFacts, type Room } from './room-reads';
import type { RoomStore } from './room-store';
import { runTick } from './room-tick';
import { effectiveConfig, effectiveMode, nextBoundaryMs, wakeAtBoundary } from './schedule-policy';
import type { ScheduleStore } from './schedule-store';
import { applySchedule } from './schedule-tick';
import { fetchDrawOrder, fetchShardCounts } from './shard-calls';
import { StockWatch } from './stock-watch';

/** How a call to `ensureAlarm` relates to the tick: outside one, or at its end. */
export interface TickContext {
  /** Called at the end of a tick (the fired alarm is gone). */
  inAlarm: boolean;
  /** A wake arrived while that tick ran, so its arrivals are not counted yet. */
  wokenMeanwhile: boolean;
}

/** Outside a tick. */
export const NOT_IN_ALARM: TickContext = { inAlarm: false, wokenMeanwhile: false };

/** What the runtime reads of its object: storage, bindings, stores and its clock. */
export interface RuntimeParts {
  ctx: DurableObjectState;
  env: Env;
  store: RoomStore;
  schedule: ScheduleStore;
  history: HistoryStore;
  /** RELEASE_TICK_MS, ms. */
  tickMs: number;
  /** The object's clock, epoch ms (tests replace it). */
  clock: () => number;
  /** Whether the event exists in storage (its schema is set up). */
  ready: () => boolean;
}

/** One WaitingRoom's tick and alarm (see the file's opening comment). */
export class RoomRuntime {
  /** The stock the waiting page shows, refreshed by the tick. */
  readonly stockWatch = new StockWatch();
  /** Wake-ups received: a tick that saw one arrive while it ran keeps ticking. */
  wakes = 0;
  private drawing = false;

  constructor(private readonly p: RuntimeParts) {}

  /**
   * The room's row and its checked config as in effect at `atMs` (the scheduled changes on then
   * applied, schedule-policy.ts effectiveConfig), or null when the event does not exist.
   */
  room(atMs = this.p.clock()): Room | null {
    const room = this.storedRoom();
    if (!room) return null;
    const config = effectiveConfig(room.config, this.p.schedule.list(), atMs);
    return { row: { ...room.row, mode: effectiveMode(room.row.mode, config.method) }, config };
  }

  /** The room's row and its stored config, no scheduled change applied; null when the event does not exist. */
  storedRoom(): Room | null {
    if (!this.p.ready()) return null;
    const row = this.p.store.room();
    return row && { row, config: parseRoomConfig(row.config) };
  }

  /**
   * The release tick: draws the lottery at sale start, collects arrival counts from the queue
   * shards, applies the schedule, runs the tick's one transaction (room-tick.ts runTick) and the
   * minute's history, and re-arms by the alarm plan. Idempotent: a duplicate or late run releases
   * only what the elapsed time earned (capped, see releaseBudget).
   */
  async tick(): Promise<void> {
    const first = this.room();
    if (!first) return;
    // A shard may wake this room while the tick awaits the counts; those arrivals are not in this
    // tick's counts, so the tick must not go to sleep on them.
    const wakesBefore = this.wakes;
    const { config } = first;
    if (config.policy === 'random' && first.row.drawn !== 1 && onSale(config, this.p.clock())) await this.draw(first);
    await Promise.all([this.collectArrivals(this.room()!), this.stockWatch.refresh(this.p.env, first, this.p.clock())]);
    const now = this.p.clock();
    const { store, schedule, history } = this.p;
    this.p.ctx.storage.transactionSync(() => {
      applySchedule(store, schedule, this.storedRoom()!, now);
      runTick(store, this.room(now)!, now);
      recordHistory(store, history, this.room(now)!, now, this.p.tickMs);
    });
    await this.ensureAlarm(now, { inAlarm: true, wokenMeanwhile: this.wakes !== wakesBefore });
  }

  /** Asks every queue shard for its arrivals from the cursor's bucket on and stores them. */
  async collectArrivals(room: Room): Promise<void> {
    const { store } = this.p;
    const laneFrom = Object.fromEntries([...store.lanes.lines()].map(([lane, line]) => [lane, line.cursor.bucket]));
    const answers = await fetchShardCounts(this.p.env, room, laneFrom);
    this.p.ctx.storage.transactionSync(() => {
      for (const { shard, counts } of answers) {
        store.storeShardCounts(shard, counts.sealedBefore, counts.preQueue, counts.buckets);
        // A shard of an older deploy answers without lanes.
        store.lanes.storeArrivals(shard, counts.lanes ?? {});
      }
    });
  }

  /**
   * Arms the alarm by the room's alarm plan (alarm-plan.ts): every RELEASE_TICK_MS while releases
   * can happen, once after any event (so new arrivals get counted), else only when something can
   * change by itself (the sale start, a slot freeing, a scheduled change's boundary) or not at all
   * until the next event.
   * @param cause outside a tick: `event` (default) or `capacity` (see AlarmCause)
   */
  async ensureAlarm(now: number, tick: TickContext = NOT_IN_ALARM, cause: Exclude<AlarmCause, 'tick'> = 'event'): Promise<void> {
    const room = this.room();
    if (!room) return;
    const plan = wakeAtBoundary(
      planAlarm(alarmFacts(this.p.store, room, now, this.p.tickMs, tick.inAlarm && !tick.wokenMeanwhile ? 'tick' : cause)),
      nextBoundaryMs(this.p.schedule.list(), now),
    );
    const storage = this.p.ctx.storage;
    const change = alarmChange(plan, tick, await storage.getAlarm());
    if (change.kind === 'set') await storage.setAlarm(change.atMs);
    else if (change.kind === 'delete') await storage.deleteAlarm();
  }

  /** The lottery draw at sale start (shard-calls.ts fetchDrawOrder), published once. */
  private async draw(room: Room): Promise<void> {
    if (this.drawing) return;
    this.drawing = true;
    try {
      const order = await fetchDrawOrder(this.p.env, room);
      this.p.ctx.storage.transactionSync(() => this.p.store.storeDraw(order));
      logDecision('lottery_drawn', { eventId: room.config.eventId, entrants: order.length, shards: room.row.shards });
    } finally {
      this.drawing = false;
    }
  }
}
