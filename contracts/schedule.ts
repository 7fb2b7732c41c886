// Scheduled changes of an event: time-boxed overrides of its release bounds, active-visitor limit,
// admission lifetime, waiting page and queueing method, as the organizer API takes them and the WaitingRoom keeps them.
import * as z from 'zod/mini';
import type { PageTemplate } from './event-config';
import { QUEUE_METHODS, isoDateTime, pageTemplateInput, type QueueMethod } from './event-input';
import { plainText, wholeNumber } from './zod';

/** Scheduled changes an event may have that have not ended yet (ended ones stay for the report). */
export const MAX_OPEN_OVERRIDES = 100;
/** A scheduled change's id: a lower-case slug the organizer picks, so a `PUT` of it can be retried. */
export const OVERRIDE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,47}$/;
/** How far ahead a scheduled change may end, ms (as an event's sale start: 5 years). */
export const MAX_OVERRIDE_AHEAD_MS = 5 * 365 * 24 * 60 * 60 * 1000;

/**
 * What a scheduled change overrides while it is on, in the room's own units (per minute, ms). Each
 * key is one field for the overlap rule: two changes that set the same key never overlap in time.
 */
export interface OverrideSettings {
  /** The organizer's upper bound on new visitors per minute. */
  maxReleaseRatePerMinute?: number;
  /** The organizer's lower bound on new visitors per minute. */
  minReleaseRatePerMinute?: number;
  maxActiveVisitors?: number;
  /** Lifetime of an admission given while the change is on, ms. */
  admissionTtlMs?: number;
  /** The waiting page's look (replaces the event's whole template while on). */
  page?: PageTemplate;
  /** The queueing method (event-config.ts QUEUE_METHODS): `reject` for a maintenance window. */
  method?: QueueMethod;
}

/** The keys of OverrideSettings: the fields a scheduled change can set. */
export type OverrideField = keyof OverrideSettings;

/** Each field's name in the organizer API (the body of a scheduled change, the event's PUT). */
export const OVERRIDE_FIELD_NAMES: Record<OverrideField, string> = {
  maxReleaseRatePerMinute: 'releaseRatePerMinute',
  minReleaseRatePerMinute: 'minReleaseRatePerMinute',
  maxActiveVisitors: 'maxActiveVisitors',
  admissionTtlMs: 'admissionTtlSeconds',
  page: 'page',
  method: 'method',
};

/** A scheduled change as the room keeps it. Times epoch ms; on from `startsAtMs` until just before `endsAtMs`. */
export interface ScheduledOverride {
  id: string;
  startsAtMs: number;
  endsAtMs: number;
  /** Why: shown on the timeline and written to the rate log when it starts and ends. */
  reason: string;
  settings: OverrideSettings;
}

/** Where a scheduled change is, as the room's alarm last applied it. */
export type OverrideState = 'scheduled' | 'active' | 'ended';

/** A scheduled change with its state, as the room lists them. */
export interface StoredOverride extends ScheduledOverride {
  state: OverrideState;
}

/**
 * Body of `PUT /_wr/admin/events/{eventId}/schedule/{overrideId}`: the window (`startsAt` absent =
 * now) and at least one setting, in the event API's own names and units (rates per minute,
 * `admissionTtlSeconds` in seconds).
 */
export const overrideInput = z.lazy(() =>
  z
    .strictObject({
      reason: plainText(1, 200),
      startsAt: z.optional(isoDateTime),
      endsAt: isoDateTime,
      releaseRatePerMinute: z.optional(wholeNumber(1, 1_000_000)),
      minReleaseRatePerMinute: z.optional(wholeNumber(0, 1_000_000)),
      maxActiveVisitors: z.optional(wholeNumber(1, 10_000_000)),
      admissionTtlSeconds: z.optional(wholeNumber(30, 7_200)),
      page: z.optional(pageTemplateInput()),
      method: z.optional(z.enum(QUEUE_METHODS)),
    })
    .check(
      z.refine((o) => !o.startsAt || Date.parse(o.endsAt) > Date.parse(o.startsAt), {
        message: 'endsAt must be after startsAt',
        path: ['endsAt'],
      }),
      z.refine(
        (o) =>
          o.releaseRatePerMinute !== undefined ||
          o.minReleaseRatePerMinute !== undefined ||
          o.maxActiveVisitors !== undefined ||
          o.admissionTtlSeconds !== undefined ||
          o.page !== undefined ||
          o.method !== undefined,
        { message: 'a scheduled change needs at least one setting to change', path: ['releaseRatePerMinute'] },
      ),
      z.refine(
        (o) =>
          o.minReleaseRatePerMinute === undefined ||
          o.releaseRatePerMinute === undefined ||
          o.minReleaseRatePerMinute <= o.releaseRatePerMinute,
        { message: 'minReleaseRatePerMinute must not exceed releaseRatePerMinute', path: ['minReleaseRatePerMinute'] },
      ),
    ),
);

/** A validated scheduled-change body. */
export type OverrideInput = z.infer<typeof overrideInput>;

/**
 * The room's form of a validated body.
 * @param nowMs the time a missing `startsAt` stands for, epoch ms
 */
export function overrideFromInput(id: string, input: OverrideInput, nowMs: number): ScheduledOverride {
  const settings: OverrideSettings = {};
  if (input.releaseRatePerMinute !== undefined) settings.maxReleaseRatePerMinute = input.releaseRatePerMinute;
  if (input.minReleaseRatePerMinute !== undefined) settings.minReleaseRatePerMinute = input.minReleaseRatePerMinute;
  if (input.maxActiveVisitors !== undefined) settings.maxActiveVisitors = input.maxActiveVisitors;
  if (input.admissionTtlSeconds !== undefined) settings.admissionTtlMs = input.admissionTtlSeconds * 1000;
  if (input.page !== undefined) settings.page = input.page;
  if (input.method !== undefined) settings.method = input.method;
  return {
    id,
    startsAtMs: input.startsAt ? Date.parse(input.startsAt) : nowMs,
    endsAtMs: Date.parse(input.endsAt),
    reason: input.reason,
    settings,
  };
}

/** A scheduled change as the organizer API shows it: the body's names and units, with its id and state. */
export function overrideOutput(
  o: StoredOverride,
): Omit<OverrideInput, 'startsAt'> & { id: string; startsAt: string; state: OverrideState } {
  const s = o.settings;
  return {
    id: o.id,
    state: o.state,
    reason: o.reason,
    startsAt: new Date(o.startsAtMs).toISOString(),
    endsAt: new Date(o.endsAtMs).toISOString(),
    ...(s.maxReleaseRatePerMinute !== undefined ? { releaseRatePerMinute: s.maxReleaseRatePerMinute } : {}),
    ...(s.minReleaseRatePerMinute !== undefined ? { minReleaseRatePerMinute: s.minReleaseRatePerMinute } : {}),
    ...(s.maxActiveVisitors !== undefined ? { maxActiveVisitors: s.maxActiveVisitors } : {}),
    ...(s.admissionTtlMs !== undefined ? { admissionTtlSeconds: s.admissionTtlMs / 1000 } : {}),
    ...(s.page !== undefined ? { page: s.page } : {}),
    ...(s.method !== undefined ? { method: s.method } : {}),
  };
}

/** The WaitingRoom's answer to storing a scheduled change. */
export type ScheduleAnswer =
  | { kind: 'ok'; created: boolean; override: StoredOverride }
  /** Overlaps another change of the same field, reuses an id for another change, or too many. */
  | { kind: 'conflict'; detail: string }
  /** In the past, or too far ahead. */
  | { kind: 'invalid'; detail: string }
  | { kind: 'event_not_found' };

/** The WaitingRoom's answer to cancelling a scheduled change. */
export type CancelOverrideAnswer =
  /** `removed`: it had not started and is gone (the audit keeps it); else it ended now. */
  | { kind: 'ok'; override: StoredOverride; removed: boolean }
  | { kind: 'override_not_found' }
  /** Already ended: it stays in the history. */
  | { kind: 'conflict'; detail: string }
  | { kind: 'event_not_found' };
