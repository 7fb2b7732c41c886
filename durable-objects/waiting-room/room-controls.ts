// The controls of a running room: the organizer's configuration, fixed rate, mode (pause, resume,
// close) and scheduled changes, the origin's health reports and the Inventory's sell-out. Each
// checks and writes with no await between (room-settings.ts, schedule-tick.ts, health-intake.ts),
// then wakes the alarm when the change can make the room release again. The WaitingRoom's RPC
// methods of the same names call into it.
import type { QueueConfig } from '../../contracts/event-config';
import { seedCommitment, type RoomMode } from '../../contracts/queue/queue-policy';
import { DONE, EVENT_NOT_FOUND } from '../../contracts/answers';
import type { FixedRateAnswer, HealthAnswer, ModeAnswer, RoomConfigureAnswer } from '../../contracts/room-answers';
import type { CancelOverrideAnswer, OverrideInput, ScheduleAnswer } from '../../contracts/schedule';
import { acceptHealthReport, parseStoredHealth } from './health-intake';
import type { HealthReport } from './health-signals';
import type { RoomStore } from './room-store';
import { NOT_IN_ALARM, type RoomRuntime } from './room-runtime';
import { configureRoom, fixRate, type SettingsStores } from './room-settings';
import type { ScheduleStore } from './schedule-store';
import { addOverride, cancelOverride } from './schedule-tick';

/** What the controls use of their object. */
export interface ControlParts {
  /** `ctx.storage.transactionSync`: runs `fn` as one transaction (a throw rolls it back). */
  transactionSync: <T>(fn: () => T) => T;
  store: RoomStore;
  schedule: ScheduleStore;
  /** The room as in effect, the shards' counts and the alarm (room-runtime.ts). */
  runtime: RoomRuntime;
  /** The object's clock, epoch ms (tests replace it). */
  clock: () => number;
}

/** One WaitingRoom's controls (see the file's opening comment). */
export class RoomControls {
  private readonly stores: SettingsStores;

  constructor(private readonly p: ControlParts) {
    this.stores = { store: p.store, schedule: p.schedule };
  }

  /**
   * Creates or updates the event's queue settings. Once visitors joined, the policy and the shard
   * count are fixed, after a lottery draw its sale start, and a sale under way cannot move its start
   * into the future (room-config.ts configChangeConflict). The caller sets up the schema first
   * unless `dryRun`.
   * @param dryRun check only, write nothing
   * @returns `ok` (with `created`) or `conflict` with a reason
   */
  async configure(config: QueueConfig, dryRun: boolean): Promise<RoomConfigureAnswer> {
    const { runtime } = this.p;
    // The seed and its public commitment are made before reading state, so no await splits the
    // check from the write below.
    const seed = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const commitment = await seedCommitment(seed);
    // Fresh arrival counts first: "anyone joined" must include the last second's joins.
    const before = runtime.room();
    if (before) await runtime.collectArrivals(before);
    const now = this.p.clock();
    const answer = configureRoom(this.stores, runtime.room(now), config, { seed, commitment }, now, dryRun);
    if (!dryRun && answer.kind === 'ok') await runtime.ensureAlarm(now);
    return answer;
  }

  /**
   * Organizer override of the release rate: a fixed number of new visitors per minute, or null to
   * hand control back to the controller. Takes effect at once, with a logged reason.
   * @returns `ok`, `event_not_found`, or `above_maximum` (over the organizer's own maximum)
   */
  async setFixedRate(perMinute: number | null): Promise<FixedRateAnswer> {
    const { runtime } = this.p;
    const stored = runtime.storedRoom();
    if (!stored) return EVENT_NOT_FOUND;
    const now = this.p.clock();
    const answer = fixRate(this.stores, stored, runtime.room(now)!.config.maxReleaseRatePerMinute, perMinute, now);
    if (answer.kind === 'ok' && answer.changed) await runtime.ensureAlarm(now);
    return answer;
  }

  /**
   * Sets the organizer's mode: `paused` stops releases (nobody loses a place; the room sleeps after
   * its next tick, alarm-plan.ts), `closed` also tells waiting visitors the sale is over, `open`
   * resumes releases (the room, asleep while paused, ticks again).
   * @returns `ok` with the mode before, or `event_not_found`
   */
  async setMode(mode: RoomMode): Promise<ModeAnswer> {
    // The stored mode: a maintenance window's stop (effectiveMode) is not the organizer's pause.
    const room = this.p.runtime.storedRoom();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.p.clock();
    if (room.row.mode !== mode) this.p.store.setMode(mode, now);
    if (mode === 'open') await this.p.runtime.ensureAlarm(now);
    return { kind: 'ok', previous: room.row.mode };
  }

  /**
   * The inventory says nothing is left (or, after releases, that something is again). While sold
   * out nobody is released and waiting visitors see `sold_out` on their next poll.
   */
  async setSoldOut(soldOut: boolean): Promise<void> {
    const room = this.p.runtime.room();
    if (!room) return;
    this.p.store.setSoldOut(soldOut);
    // Seats back on sale: a room that slept while sold out releases again.
    if (room.row.sold_out === 1 && !soldOut) await this.p.runtime.ensureAlarm(this.p.clock());
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
    const room = this.p.runtime.room();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.p.clock();
    const accepted = acceptHealthReport(parseStoredHealth(room.row.health), report, signedAtMs, now);
    if (accepted.kind === 'out_of_order') return { kind: 'out_of_order' };
    if (accepted.kind === 'duplicate') return DONE;
    this.p.store.setHealth(JSON.stringify(accepted.health));
    await this.p.runtime.ensureAlarm(now, NOT_IN_ALARM, 'capacity');
    return DONE;
  }

  /**
   * Adds a scheduled change (contracts/schedule.ts), checked against the room's clock and the
   * changes stored (schedule-policy.ts overrideProblem); the alarm applies and ends it at its times.
   * The same change again is answered as stored.
   * @param input the validated body; no `startsAt` = now by the room's clock
   * @returns `ok` (`created` false for a repeat), `invalid` or `conflict` with a reason, `event_not_found`
   */
  async scheduleOverride(id: string, input: OverrideInput): Promise<ScheduleAnswer> {
    const room = this.p.runtime.storedRoom();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.p.clock();
    const answer = this.p.transactionSync(() => addOverride(this.p.store, this.p.schedule, room, { id, input }, now));
    if (answer.kind === 'ok' && answer.created) await this.p.runtime.ensureAlarm(now);
    return answer;
  }

  /**
   * Cancels a scheduled change (schedule-tick.ts cancelOverride): one not started yet is removed;
   * one on now ends at once, logged like its end. One already ended stays, for the history.
   */
  async cancelOverride(id: string): Promise<CancelOverrideAnswer> {
    const room = this.p.runtime.storedRoom();
    if (!room) return EVENT_NOT_FOUND;
    const now = this.p.clock();
    const answer = this.p.transactionSync(() => cancelOverride(this.p.store, this.p.schedule, room, id, now));
    if (answer.kind === 'ok') await this.p.runtime.ensureAlarm(now);
    return answer;
  }
}
