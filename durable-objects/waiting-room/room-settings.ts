// The organizer's settings of a room, checked and stored: its configuration (created or changed)
// and the fixed release rate. The rules are pure (room-config.ts, schedule-policy.ts); this file
// applies them to the stores. Every function here runs without an await between its reads and its
// writes, so a call is one atomic step of the object.
import type { QueueConfig } from '../../contracts/event-config';
import type { FixedRateAnswer, RoomConfigureAnswer } from '../../contracts/room-answers';
import { initialControllerState } from './release-controller';
import {
  configChangeConflict,
  controllerBounds,
  keepAccountKey,
  lotteryStartConflict,
  parseRoomConfig,
  rateAfterBoundsChange,
} from './room-config';
import { roomWaiting, type Room } from './room-reads';
import type { RoomStore } from './room-store';
import { followLapseClock } from './room-tick';
import { effectiveConfig, scheduledMinimumConflict } from './schedule-policy';
import type { ScheduleStore } from './schedule-store';

/** The stores a room's settings live in. */
export interface SettingsStores {
  store: RoomStore;
  schedule: ScheduleStore;
}

/**
 * Checks `config` against the room as it is and, unless `dryRun`, stores it: a new room starts at
 * the minimum rate with `lottery`'s seed; a changed one gets the new bounds at once (a controller
 * rate clamped into them, a fixed rate lowered to the event's new maximum for good, a scheduled
 * maximum holding it down only while on) and its lapse clock follows a maintenance window's end.
 * Refused, with the reason: a lottery start not in the future, a change the joined room no longer
 * allows (room-config.ts configChangeConflict), a maximum under a scheduled minimum.
 * @param room the room in effect now (its scheduled changes applied), or null for a new event
 * @param lottery a fresh seed and its commitment, used only when the room is created
 * @returns `ok` (with `created`) or `conflict` with a reason
 */
export function configureRoom(
  s: SettingsStores,
  room: Room | null,
  config: QueueConfig,
  lottery: { seed: string; commitment: string },
  nowMs: number,
  dryRun: boolean,
): RoomConfigureAnswer {
  const startConflict = lotteryStartConflict(room?.config ?? null, config, nowMs);
  if (startConflict) return { kind: 'conflict', detail: startConflict };
  let stored = config;
  if (room) {
    const joined = room.row.admitted_total > 0 || room.row.drawn === 1 || roomWaiting(s.store, room) > 0;
    const state = { joined, drawn: room.row.drawn === 1, admitted: room.row.admitted_total > 0, nowMs };
    const conflict =
      configChangeConflict(room.config, config, state) ?? scheduledMinimumConflict(config.maxReleaseRatePerMinute, s.schedule.list());
    if (conflict) return { kind: 'conflict', detail: conflict };
    stored = keepAccountKey(room.config, config, { joined });
  }
  if (dryRun) return { kind: 'ok', created: !room };
  const json = JSON.stringify(stored);
  // Checked before it is stored: a config the room could not read back is a bug here, not later.
  const next = parseRoomConfig(json);
  if (!room) {
    const rate = initialControllerState(controllerBounds(next)).ratePerMinute;
    s.store.createRoom(json, next.shards, lottery.seed, lottery.commitment, rate, nowMs);
    s.store.logRate(nowMs, rate, 'start at the minimum until the origin reports health');
    return { kind: 'ok', created: true };
  }
  s.store.setConfig(json, next.shards);
  const bounds = effectiveConfig(next, s.schedule.list(), nowMs);
  followLapseClock(s.store, { row: room.row, config: bounds }, nowMs);
  let fixedRate = room.row.fixed_rate;
  if (fixedRate !== null && fixedRate > next.maxReleaseRatePerMinute) {
    fixedRate = next.maxReleaseRatePerMinute;
    s.store.setFixedRate(fixedRate);
    s.store.logRate(nowMs, fixedRate, `fixed rate lowered to the event's new maximum of ${fixedRate}/min`);
  }
  const change = rateAfterBoundsChange({ rate: room.row.rate, fixedRate }, bounds);
  if (change.kind === 'clamped') s.store.setRate(change.rate);
  if (change.kind !== 'unchanged') s.store.logRate(nowMs, change.rate, change.reason);
  return { kind: 'ok', created: false };
}

/**
 * The organizer's fixed release rate (new visitors per minute), or null to hand the rate back to
 * the controller; logged with its reason. Bounded by the event's own maximum: a scheduled lower
 * maximum holds it down while on (room-config.ts rateAfterBoundsChange), it does not refuse it.
 * @param stored the room with its stored (organizer's) config
 * @param maxInEffect the maximum rate in effect now, per minute (the scheduled one while on)
 * @returns `ok` with the fixed rate before and whether it changed, or `above_maximum`
 */
export function fixRate(s: SettingsStores, stored: Room, maxInEffect: number, perMinute: number | null, nowMs: number): FixedRateAnswer {
  const max = stored.config.maxReleaseRatePerMinute;
  if (perMinute !== null && perMinute > max) return { kind: 'above_maximum', maxPerMinute: max };
  const previous = stored.row.fixed_rate;
  if (previous === perMinute) return { kind: 'ok', previous, changed: false };
  s.store.setFixedRate(perMinute);
  if (perMinute === null) s.store.logRate(nowMs, stored.row.rate, 'organizer returned control to the controller');
  else if (perMinute > maxInEffect)
    s.store.logRate(nowMs, maxInEffect, `fixed by the organizer at ${perMinute}/min, held to the maximum in effect of ${maxInEffect}/min`);
  else s.store.logRate(nowMs, perMinute, `fixed by the organizer at ${perMinute}/min`);
  return { kind: 'ok', previous, changed: true };
}
