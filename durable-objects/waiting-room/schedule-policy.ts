// Scheduled changes as pure rules: the config in effect at an instant, the next instant it changes
// (for the room's alarm), which changes start or end at a tick, and whether a new change may be
// added. Times are epoch ms, taken as inputs.
import type { QueueConfig } from '../../contracts/event-config';
import type { QueueMethod } from '../../contracts/event-input';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import type { AlarmPlan } from './alarm-plan';
import {
  MAX_OPEN_OVERRIDES,
  MAX_OVERRIDE_AHEAD_MS,
  OVERRIDE_FIELD_NAMES,
  type OverrideField,
  type OverrideSettings,
  type ScheduledOverride,
  type StoredOverride,
} from '../../contracts/schedule';

/** Whether `o` is on at `nowMs`: from its start, up to (not including) its end. */
export function isOn(o: Pick<ScheduledOverride, 'startsAtMs' | 'endsAtMs'>, nowMs: number): boolean {
  return o.startsAtMs <= nowMs && nowMs < o.endsAtMs;
}

/**
 * The config in effect at `nowMs`: `config` with the settings of every change on at that instant
 * (no two of them set the same field: overrideProblem refuses overlaps). The lower rate bound is
 * kept at or under the upper one, whichever of them a change moved (a maximum lowered for an hour
 * below the event's minimum lowers the minimum with it). Returns `config` itself when nothing is on.
 */
export function effectiveConfig<C extends QueueConfig>(config: C, overrides: readonly ScheduledOverride[], nowMs: number): C {
  const on = overrides.filter((o) => isOn(o, nowMs));
  if (on.length === 0) return config;
  const merged: OverrideSettings = Object.assign({}, ...on.map((o) => o.settings));
  const next: C = { ...config, ...merged };
  next.minReleaseRatePerMinute = Math.min(next.minReleaseRatePerMinute, next.maxReleaseRatePerMinute);
  // Passthrough never rate-limits: visitors still in line when it starts are released in order at
  // the maximum (the controller's active limit still guards the origin).
  if (next.method === 'passthrough') next.minReleaseRatePerMinute = next.maxReleaseRatePerMinute;
  return next;
}

/** The next instant after `nowMs` at which a change starts or ends, epoch ms; null when none is ahead. */
export function nextBoundaryMs(overrides: readonly ScheduledOverride[], nowMs: number): number | null {
  let next: number | null = null;
  for (const o of overrides) {
    for (const t of [o.startsAtMs, o.endsAtMs]) if (t > nowMs && (next === null || t < next)) next = t;
  }
  return next;
}

/** An alarm plan, or a sleep until the next scheduled change starts or ends. */
export type ScheduledAlarmPlan = AlarmPlan | { kind: 'sleep'; atMs: number; reason: 'schedule' };

/**
 * The alarm plan (alarm-plan.ts planAlarm) made to wake the room at the next scheduled boundary
 * too, so a change starts and ends on time whether or not anyone is in the room: a plan due later
 * than the boundary (or never) becomes a sleep until it.
 * @param boundaryMs nextBoundaryMs, or null when no change is ahead
 */
export function wakeAtBoundary(plan: AlarmPlan, boundaryMs: number | null): ScheduledAlarmPlan {
  if (boundaryMs === null || (plan.atMs !== null && plan.atMs <= boundaryMs)) return plan;
  return { kind: 'sleep', atMs: boundaryMs, reason: 'schedule' };
}

/**
 * The state each stored change should have at `nowMs`, for those whose stored state is behind:
 * `started` (was scheduled, is on now) and `ended` (its end has passed; `wasOn` false when the
 * alarm came after its whole window, so it never applied).
 */
export function scheduleTransitions(
  overrides: readonly StoredOverride[],
  nowMs: number,
): { started: StoredOverride[]; ended: { override: StoredOverride; wasOn: boolean }[] } {
  const started: StoredOverride[] = [];
  const ended: { override: StoredOverride; wasOn: boolean }[] = [];
  for (const o of overrides) {
    if (o.state === 'ended') continue;
    if (nowMs >= o.endsAtMs) ended.push({ override: o, wasOn: o.state === 'active' });
    else if (o.state === 'scheduled' && nowMs >= o.startsAtMs) started.push(o);
  }
  return { started, ended };
}

/** The fields a change sets. */
export function fieldsOf(o: ScheduledOverride): OverrideField[] {
  return (Object.keys(o.settings) as OverrideField[]).filter((k) => o.settings[k] !== undefined);
}

/** Whether two windows share an instant (each is half-open: [start, end)). */
function overlaps(a: ScheduledOverride, b: ScheduledOverride): boolean {
  return a.startsAtMs < b.endsAtMs && b.startsAtMs < a.endsAtMs;
}

/** Whether two changes are the same request (so storing it again is a no-op). */
function sameOverride(a: ScheduledOverride, b: ScheduledOverride): boolean {
  return (
    a.id === b.id &&
    a.startsAtMs === b.startsAtMs &&
    a.endsAtMs === b.endsAtMs &&
    a.reason === b.reason &&
    JSON.stringify(a.settings) === JSON.stringify(b.settings)
  );
}

/**
 * Why `candidate` may not be added to `stored`, or null when it may. `invalid`: it starts before
 * `nowMs` (a change is never back-dated; leave `startsAt` out to start it now), ends more than
 * MAX_OVERRIDE_AHEAD_MS ahead, or ends before it starts. `conflict`: its id names another change
 * (one already stored with the same content is no problem: the caller answers it as stored), it
 * shares an instant with a change that sets one of its fields, or the event has MAX_OPEN_OVERRIDES
 * changes not ended yet.
 * @param startToleranceMs how far before `nowMs` a start still counts as now (the request's own transit)
 */
export function overrideProblem(
  stored: readonly StoredOverride[],
  candidate: ScheduledOverride,
  nowMs: number,
  startToleranceMs = 0,
): { kind: 'invalid' | 'conflict'; detail: string } | null {
  const same = stored.find((o) => o.id === candidate.id);
  if (same) {
    return sameOverride(same, candidate)
      ? null
      : {
          kind: 'conflict',
          detail: `the scheduled change "${candidate.id}" exists with other settings; pick another id or cancel it first`,
        };
  }
  if (candidate.endsAtMs <= candidate.startsAtMs)
    return { kind: 'invalid', detail: candidate.endsAtMs <= nowMs ? 'endsAt is in the past' : 'endsAt must be after startsAt' };
  if (candidate.startsAtMs < nowMs - startToleranceMs)
    return { kind: 'invalid', detail: 'startsAt is in the past; leave it out to start the change now' };
  if (candidate.endsAtMs > nowMs + MAX_OVERRIDE_AHEAD_MS) return { kind: 'invalid', detail: 'endsAt must be within 5 years' };
  if (stored.filter((o) => o.state !== 'ended').length >= MAX_OPEN_OVERRIDES)
    return { kind: 'conflict', detail: `an event has at most ${MAX_OPEN_OVERRIDES} scheduled changes that have not ended` };
  const fields = new Set(fieldsOf(candidate));
  for (const o of stored) {
    if (o.state === 'ended' || !overlaps(o, candidate)) continue;
    const shared = fieldsOf(o).find((f) => fields.has(f));
    if (shared)
      return {
        kind: 'conflict',
        detail: `overlaps the scheduled change "${o.id}" (${o.reason}), which also sets ${OVERRIDE_FIELD_NAMES[shared]}`,
      };
  }
  return null;
}

/**
 * Why the event's new maximum rate would contradict a scheduled change not ended yet, or null: a
 * change's minimum above the maximum in effect during it (its own, else the event's) would release
 * at the maximum whatever the origin says. The organizer changes or cancels that change first.
 */
export function scheduledMinimumConflict(maxPerMinute: number, overrides: readonly StoredOverride[]): string | null {
  for (const o of overrides) {
    if (o.state === 'ended') continue;
    const min = o.settings.minReleaseRatePerMinute;
    const max = o.settings.maxReleaseRatePerMinute ?? maxPerMinute;
    if (min !== undefined && min > max)
      return `the scheduled change "${o.id}" sets a minimum of ${min}/min, above the maximum of ${max}/min it would then have: change or cancel it first`;
  }
  return null;
}

/** The settings of a change in a few words, for the rate log ("max 1200/min, max active 5000"). */
export function describeSettings(s: OverrideSettings): string {
  const parts: string[] = [];
  if (s.maxReleaseRatePerMinute !== undefined) parts.push(`max ${s.maxReleaseRatePerMinute}/min`);
  if (s.minReleaseRatePerMinute !== undefined) parts.push(`min ${s.minReleaseRatePerMinute}/min`);
  if (s.maxActiveVisitors !== undefined) parts.push(`max active ${s.maxActiveVisitors}`);
  if (s.admissionTtlMs !== undefined) parts.push(`admission ${s.admissionTtlMs / 1000} s`);
  if (s.page !== undefined) parts.push('page');
  if (s.method !== undefined) parts.push(`method ${s.method}`);
  return parts.join(', ');
}

/**
 * The room's mode as releases see it: `reject` stops releases like a pause (visitors in line keep
 * their places behind the maintenance page; none is released into it to lapse unseen).
 */
export function effectiveMode(mode: RoomMode, method: QueueMethod | undefined): RoomMode {
  return method === 'reject' && mode === 'open' ? 'paused' : mode;
}

/**
 * Whether a newcomer passes straight through now, or why not: the method is `passthrough`, the
 * sale is open and on, nothing is sold out, nobody waits in line (newcomers never overtake them:
 * they join the back until the line is empty) and an active slot is free under the organizer's
 * maximum (when the room is full, newcomers queue: it switches to queueing by itself).
 */
export function passDecision(r: {
  method: QueueMethod | undefined;
  mode: RoomMode;
  soldOut: boolean;
  onSale: boolean;
  waiting: number;
  active: number;
  maxActiveVisitors: number;
}): { kind: 'pass' } | { kind: 'queue'; reason: 'not_passthrough' | 'not_open' | 'people_waiting' | 'full' } {
  if (r.method !== 'passthrough') return { kind: 'queue', reason: 'not_passthrough' };
  if (r.mode !== 'open' || r.soldOut || !r.onSale) return { kind: 'queue', reason: 'not_open' };
  if (r.waiting > 0) return { kind: 'queue', reason: 'people_waiting' };
  if (r.active >= r.maxActiveVisitors) return { kind: 'queue', reason: 'full' };
  return { kind: 'pass' };
}

/**
 * When the method in effect at `nowMs` next changes, epoch ms: the end of the change that sets it,
 * or null when it is the event's own (the maintenance page's Retry-After counts to this).
 */
export function methodEndsAtMs(overrides: readonly ScheduledOverride[], nowMs: number): number | null {
  return overrides.find((o) => isOn(o, nowMs) && o.settings.method !== undefined)?.endsAtMs ?? null;
}
