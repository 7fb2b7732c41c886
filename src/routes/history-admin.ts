// Organizer API for an event's per-minute history (kept 30 days by its WaitingRoom): any range in
// it, in steps that keep the answer within 1,440 points.
import { Hono } from 'hono';
import type { HistoryAnswer } from '../../contracts/history';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { eventIdParam, type AppEnv } from '../types';
import * as z from 'zod/mini';
import { isoInstant } from '../../contracts/zod';

/** `/_wr/admin/events/{eventId}/history`, mounted behind the organizer API's bearer token. */
export const historyAdmin = new Hono<AppEnv>();

/** The query's times, each optional. */
const RANGE = z.object({ from: z.optional(isoInstant()), to: z.optional(isoInstant()) });

/** Default range when `from` is absent: the last 24 hours, ms. */
const DEFAULT_RANGE_MS = 24 * 60 * 60_000;

historyAdmin.get('/events/:eventId/history', async (c) => {
  const eventId = eventIdParam(c);
  // The same instants as every other client-sent time: ISO 8601 with a zone, 2000 to 5 years ahead.
  const range = RANGE.safeParse({ from: c.req.query('from'), to: c.req.query('to') });
  if (!range.success) {
    const issue = range.error.issues[0]!;
    throw new GatewayError('INVALID_REQUEST', {
      detail: `${issue.path.join('.')}: ${issue.message} (ISO 8601 with a zone, e.g. 2027-03-01T10:00:00Z)`,
    });
  }
  const { from, to } = range.data;
  const toMs = to === undefined ? Date.now() : Date.parse(to);
  const fromMs = from === undefined ? toMs - DEFAULT_RANGE_MS : Date.parse(from);
  const answer = await callDurableObject(
    async () => (await c.env.WAITING_ROOM.getByName(eventId).historyBetween(fromMs, toMs)) as HistoryAnswer,
    { idempotent: true, name: 'waitingRoom.historyBetween', eventId },
  );
  if (!answer) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  if (answer.kind === 'invalid') throw new GatewayError('INVALID_REQUEST', { detail: answer.detail });
  c.header('cache-control', 'no-store');
  return c.json({
    eventId,
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    stepSeconds: answer.stepMs / 1000,
    points: answer.points.map(({ atMs, ...p }) => ({ at: new Date(atMs).toISOString(), ...p })),
  });
});
