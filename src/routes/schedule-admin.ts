// Organizer API for scheduled changes: time-boxed overrides of an event's release bounds, active
// limit, admission lifetime and waiting page, kept and applied by the event's WaitingRoom.
import { recordChange } from '../middleware/organizer-auth';
import { Hono, type Context } from 'hono';
import {
  OVERRIDE_ID_PATTERN,
  overrideInput,
  overrideOutput,
  type CancelOverrideAnswer,
  type ScheduleAnswer,
  type StoredOverride,
} from '../../contracts/schedule';
import { callDurableObject } from '../lib/do-call';
import { forgetCursor } from '../lib/cursor-cache';
import { GatewayError, assertNever } from '../lib/errors';
import { requireEvent } from '../lib/object-answers';
import { MAX_CONFIG_BODY_BYTES, readJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/** `/_wr/admin/events/{eventId}/schedule...`, mounted behind the organizer API's bearer token. */
export const scheduleAdmin = new Hono<AppEnv>();

function overrideId(c: Context<AppEnv>): string {
  const id = c.req.param('overrideId');
  if (!id || !OVERRIDE_ID_PATTERN.test(id))
    throw new GatewayError('INVALID_REQUEST', { detail: 'overrideId must be a lower-case slug of 1-48 letters, digits and dashes' });
  return id;
}

/** The room's answer to a new scheduled change. @throws GatewayError EVENT_NOT_FOUND, SCHEDULE_CONFLICT, SCHEDULE_INVALID */
function scheduled(answer: ScheduleAnswer, eventId: string): { created: boolean; override: StoredOverride } {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'ok':
      return found;
    case 'conflict':
      throw new GatewayError('SCHEDULE_CONFLICT', { detail: found.detail });
    case 'invalid':
      throw new GatewayError('SCHEDULE_INVALID', { detail: found.detail });
    default:
      return assertNever(found);
  }
}

/** The room's answer to a cancel. @throws GatewayError EVENT_NOT_FOUND, SCHEDULE_NOT_FOUND, SCHEDULE_CONFLICT */
function cancelled(answer: CancelOverrideAnswer, eventId: string, id: string): { override: StoredOverride; removed: boolean } {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'ok':
      return { override: found.override, removed: found.removed };
    case 'override_not_found':
      throw new GatewayError('SCHEDULE_NOT_FOUND', { detail: `no scheduled change "${id}" for event "${eventId}"` });
    case 'conflict':
      throw new GatewayError('SCHEDULE_CONFLICT', { detail: found.detail });
    default:
      return assertNever(found);
  }
}

scheduleAdmin.get('/events/:eventId/schedule', async (c) => {
  const eventId = eventIdParam(c);
  const list = await callDurableObject(async () => (await c.env.WAITING_ROOM.getByName(eventId).overrides()) as StoredOverride[] | null, {
    idempotent: true,
    name: 'waitingRoom.overrides',
    eventId,
  });
  if (!list) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  c.header('cache-control', 'no-store');
  return c.json({ eventId, schedule: list.map(overrideOutput) });
});

scheduleAdmin.put('/events/:eventId/schedule/:overrideId', async (c) => {
  const eventId = eventIdParam(c);
  const id = overrideId(c);
  const input = await readJsonBody(c.req.raw, overrideInput, MAX_CONFIG_BODY_BYTES);
  // Not retried by the gateway: without `startsAt` the change starts at the room's now, so a second
  // try of a request that landed would be another change (and answers 409).
  const answer = await callDurableObject(
    async () => (await c.env.WAITING_ROOM.getByName(eventId).scheduleOverride(id, input)) as ScheduleAnswer,
    {
      idempotent: false,
      name: 'waitingRoom.scheduleOverride',
      eventId,
    },
  );
  const { created, override } = scheduled(answer, eventId);
  // The same PUT again answers the stored change and changes nothing: only a new one is recorded.
  if (created) await recordChange(c, eventId, 'schedule.create', [{ field: `schedule.${id}`, to: overrideOutput(override) }]);
  // A change on now may alter the waiting page: this data centre sees it at once.
  await forgetCursor(eventId);
  return c.json({ eventId, override: overrideOutput(override) }, created ? 201 : 200);
});

scheduleAdmin.delete('/events/:eventId/schedule/:overrideId', async (c) => {
  const eventId = eventIdParam(c);
  const id = overrideId(c);
  const answer = await callDurableObject(
    async () => (await c.env.WAITING_ROOM.getByName(eventId).cancelOverride(id)) as CancelOverrideAnswer,
    {
      idempotent: false,
      name: 'waitingRoom.cancelOverride',
      eventId,
    },
  );
  const { override, removed } = cancelled(answer, eventId, id);
  await recordChange(c, eventId, 'schedule.cancel', [{ field: `schedule.${id}`, from: overrideOutput(override) }]);
  await forgetCursor(eventId);
  return c.json({ eventId, removed, override: overrideOutput(override) });
});
