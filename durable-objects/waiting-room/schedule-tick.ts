// Scheduled changes in the room's storage: added and cancelled by the organizer, applied at the
// room's alarm (marked started or ended, each written to the rate log with its reason, the release
// rate brought inside the bounds now in effect). The rules are pure (schedule-policy.ts,
// room-config.ts rateAfterBoundsChange); this file only moves their inputs and outputs between the
// stores. Every function here runs inside the caller's `transactionSync`.
import { logDecision } from '../../contracts/log';
import { rateAfterBoundsChange } from './room-config';
import { followLapseClock } from './room-tick';
import { HISTORY_KEEP_MS } from './history-policy';
import type { RoomStore } from './room-store';
import { roomWaiting, type Room } from './room-reads';
import { overrideFromInput, type CancelOverrideAnswer, type OverrideInput, type ScheduleAnswer } from '../../contracts/schedule';
import { describeSettings, effectiveConfig, overrideProblem, passDecision, scheduleTransitions } from './schedule-policy';
import type { PassAnswer } from '../../contracts/room-answers';
import { placeKey } from '../../contracts/queue/cursor';
import { onSale } from '../../contracts/queue/queue-policy';
import { admissionEndsAtMs } from '../../contracts/queue/lifetimes';

import type { ScheduleStore } from './schedule-store';

/**
 * Applies the changes that started or ended by `nowMs`. Call inside `transactionSync`, before the
 * release tick (so the tick runs under the bounds now in effect).
 * @param room the room with its stored config (not the effective one)
 * @param cancelledId the change an organizer ended just now, if any: its log line says so, so the
 *   rate log tells an early end from one at the planned time
 * @returns whether any change started or ended
 */
export function applySchedule(store: RoomStore, schedule: ScheduleStore, room: Room, nowMs: number, cancelledId?: string): boolean {
  const { started, ended } = scheduleTransitions(schedule.list(), nowMs);
  if (started.length === 0 && ended.length === 0) return false;
  for (const o of started) schedule.setState(o.id, 'active');
  for (const e of ended) schedule.setState(e.override.id, 'ended');
  // Ended changes are kept as long as the history they explain (HISTORY_KEEP_MS), then forgotten.
  if (ended.length > 0) schedule.pruneEnded(nowMs - HISTORY_KEEP_MS);
  const config = effectiveConfig(room.config, schedule.list(), nowMs);
  followLapseClock(store, { row: room.row, config }, nowMs);
  const change = rateAfterBoundsChange({ rate: room.row.rate, fixedRate: room.row.fixed_rate }, config);
  if (change.kind === 'clamped') store.setRate(change.rate);
  const rate = change.kind === 'unchanged' ? room.row.rate : change.rate;
  for (const e of ended) {
    const { id, reason, settings } = e.override;
    const what = id === cancelledId ? 'ended early (cancelled)' : e.wasOn ? 'ended' : 'ended before the room applied it';
    store.logRate(nowMs, rate, `scheduled change "${id}" ${what}: ${reason} (${describeSettings(settings)})`);
  }
  for (const o of started) store.logRate(nowMs, rate, `scheduled change "${o.id}" started: ${o.reason} (${describeSettings(o.settings)})`);
  if (change.kind !== 'unchanged') store.logRate(nowMs, change.rate, `by the schedule, ${change.reason}`);
  logDecision('schedule_applied', {
    eventId: room.config.eventId,
    started: started.map((o) => o.id).join(' '),
    ended: ended.map((e) => e.override.id).join(' '),
  });
  return true;
}

/**
 * Adds a scheduled change, checked against the room's clock and the changes stored
 * (schedule-policy.ts overrideProblem). One that starts now is applied at once; a later one by the
 * alarm at its start (the caller re-arms it). The same change again is answered as stored.
 * @param change the id and the validated body; no `startsAt` = `nowMs`
 * @param room the room with its stored config
 */
export function addOverride(
  store: RoomStore,
  schedule: ScheduleStore,
  room: Room,
  change: { id: string; input: OverrideInput },
  nowMs: number,
): ScheduleAnswer {
  const candidate = overrideFromInput(change.id, change.input, nowMs);
  if (candidate.settings.method === 'passthrough' && room.config.policy !== 'fifo')
    return { kind: 'invalid', detail: 'passthrough lets newcomers straight in, so it needs a FIFO event (a lottery draws its pre-queue)' };
  const { minReleaseRatePerMinute: min, maxReleaseRatePerMinute: max = room.config.maxReleaseRatePerMinute } = candidate.settings;
  // A minimum above the maximum would release at the maximum whatever the origin says.
  if (min !== undefined && min > max)
    return { kind: 'invalid', detail: `minReleaseRatePerMinute ${min} is above the release rate in effect (${max}/min)` };
  const problem = overrideProblem(schedule.list(), candidate, nowMs);
  if (problem) return problem;
  const existing = schedule.list().find((o) => o.id === change.id);
  if (existing) return { kind: 'ok', created: false, override: existing };
  schedule.add(candidate, nowMs);
  applySchedule(store, schedule, room, nowMs);
  return { kind: 'ok', created: true, override: schedule.list().find((o) => o.id === change.id)! };
}

/**
 * Cancels a scheduled change: one not started yet is removed; one on now ends at `nowMs`, applied
 * (logged) at once. One already ended is a conflict: it stays in the history.
 */
export function cancelOverride(store: RoomStore, schedule: ScheduleStore, room: Room, id: string, nowMs: number): CancelOverrideAnswer {
  const o = schedule.list().find((x) => x.id === id);
  if (!o) return { kind: 'override_not_found' };
  if (o.state === 'ended' || o.endsAtMs <= nowMs)
    return { kind: 'conflict', detail: `the scheduled change "${id}" has ended; it stays in the history` };
  if (o.state === 'scheduled' && o.startsAtMs > nowMs) {
    schedule.remove(id);
    return { kind: 'ok', override: o, removed: true };
  }
  schedule.endEarly(id, nowMs);
  applySchedule(store, schedule, room, nowMs, id);
  return { kind: 'ok', override: schedule.list().find((x) => x.id === id)!, removed: false };
}

/**
 * A newcomer under the `passthrough` method: admitted at `nowMs` (an ordinary admission from the
 * pre-queue marker place, counted in the admitted total) when schedule-policy.ts passDecision lets
 * them pass, else `queue` with the reason.
 * @param room the room with the config in effect (its mode too)
 */
export function passNewcomer(store: RoomStore, schedule: ScheduleStore, room: Room, visitorId: string, nowMs: number): PassAnswer {
  const decision = passDecision({
    method: room.config.method,
    mode: room.row.mode,
    soldOut: room.row.sold_out === 1,
    onSale: onSale(room.config, nowMs),
    waiting: roomWaiting(store, room),
    active: store.activeCount(nowMs),
    maxActiveVisitors: room.config.maxActiveVisitors,
  });
  if (decision.kind === 'queue') return decision;
  const expiresAtMs = admissionEndsAtMs(nowMs, room.config.admissionTtlMs);
  store.claim(visitorId, placeKey({ pre: true }), { id: 0, atMs: nowMs }, nowMs, expiresAtMs);
  schedule.countPassThrough();
  return { kind: 'admitted', admittedAtMs: nowMs, expiresAtMs };
}
