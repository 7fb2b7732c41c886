// Organizer API: create/update an event, read its live numbers, pause and resume.
import { forgetCursor } from '../lib/cursor-cache';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { bearerAuth } from 'hono/bearer-auth';
import { DIRECTORY_NAME } from '../../contracts/names';
import { eventConfigInput, joinConfig } from '../../contracts/event-config';
import { configureEvent } from '../lib/event-setup';
import { GatewayError } from '../lib/errors';
import { secretsEqual } from '../../contracts/hmac';
import { previewResponse } from '../pages/preview';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { readJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/** `/_wr/admin/events/...`, behind `Authorization: Bearer <ADMIN_TOKEN>`. */
export const adminApi = new Hono<AppEnv>();

adminApi.use(
  '*',
  bearerAuth({
    // An unset ADMIN_TOKEN locks the API; the compare takes the same time wherever the tokens differ.
    verifyToken: async (token, c: Context<AppEnv>) => Boolean(c.env.ADMIN_TOKEN) && (await secretsEqual(token, c.env.ADMIN_TOKEN)),
    noAuthenticationHeader: { message: { code: 'UNAUTHORIZED' } },
    invalidToken: { message: { code: 'UNAUTHORIZED' } },
    invalidAuthenticationHeader: { message: { code: 'UNAUTHORIZED' } },
  }),
);

adminApi.put('/events/:eventId', async (c) => {
  const eventId = eventIdParam(c);
  const input = await readJsonBody(c.req.raw, eventConfigInput);
  const { created, config } = await configureEvent(
    {
      room: c.env.WAITING_ROOM.getByName(eventId),
      inventory: c.env.INVENTORY.getByName(eventId),
      directory: c.env.DIRECTORY.getByName(DIRECTORY_NAME),
    },
    eventId,
    input,
  );
  await forgetCursor(eventId);
  return c.json({ eventId, created, config }, created ? 201 : 200);
});

adminApi.get('/events', async (c) => {
  c.header('cache-control', 'no-store');
  return c.json({ events: await c.env.DIRECTORY.getByName(DIRECTORY_NAME).list() });
});

adminApi.get('/events/:eventId', async (c) => {
  const eventId = eventIdParam(c);
  const [room, seats] = await Promise.all([c.env.WAITING_ROOM.getByName(eventId).stats(), c.env.INVENTORY.getByName(eventId).stats()]);
  if (seats.kind === 'stats' && seats.stats.pendingChange && !room) {
    throw new GatewayError('EVENT_NOT_FOUND', 'the creation of this event did not finish; send the PUT again to complete or replace it');
  }
  if (!room || seats.kind !== 'stats') throw new GatewayError('EVENT_NOT_FOUND');
  c.header('cache-control', 'no-store');
  const { config: queueConfig, ...queue } = room;
  const { config: inventoryConfig, ...inventory } = seats.stats;
  return c.json({ eventId, config: joinConfig(queueConfig, inventoryConfig), queue, inventory });
});

// The waiting page of one phase with sample data (src/pages/preview.ts), for the dashboard's preview.
adminApi.get('/events/:eventId/preview', async (c) => {
  const cursor = (await c.env.WAITING_ROOM.getByName(eventIdParam(c)).cursor()) as AdmissionCursor | null;
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND');
  return previewResponse(cursor, c.req.query('phase'), c.req.query('lang'), Date.now());
});

const rateOverride = z.object({ fixedPerMinute: z.number().int().min(0).max(1_000_000).nullable() }).strict();

adminApi.post('/events/:eventId/rate', async (c) => {
  const { fixedPerMinute } = await readJsonBody(c.req.raw, rateOverride);
  const result = await c.env.WAITING_ROOM.getByName(eventIdParam(c)).setFixedRate(fixedPerMinute);
  if (result === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND');
  if (result === 'above_maximum')
    throw new GatewayError('INVALID_REQUEST', "fixedPerMinute must not exceed the event's releaseRatePerMinute");
  await forgetCursor(eventIdParam(c));
  return c.json({ eventId: eventIdParam(c), fixedPerMinute });
});

adminApi.get('/events/:eventId/audit', async (c) => {
  const after = Number(c.req.query('after') ?? 0);
  const limit = Number(c.req.query('limit') ?? 100);
  if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new GatewayError('INVALID_REQUEST', 'after must be a whole number >= 0, limit 1-1000');
  }
  const entries = await c.env.INVENTORY.getByName(eventIdParam(c)).auditLog(after, limit);
  const last = entries.at(-1);
  return c.json({ entries, next: entries.length === limit && last ? last.id : null });
});

const MODES = { pause: 'paused', resume: 'open', close: 'closed' } as const;
for (const action of ['pause', 'resume', 'close'] as const) {
  adminApi.post(`/events/:eventId/${action}`, async (c) => {
    const eventId = eventIdParam(c);
    const room = c.env.WAITING_ROOM.getByName(eventId);
    // Close stops new holds first (the Inventory decides holds, never the queue), then releases;
    // resume opens both again. Each call is idempotent, so after a crash between the two objects
    // the same request again completes it. Pause only stops releases: admitted visitors still buy.
    if (action !== 'pause' && !(await c.env.INVENTORY.getByName(eventId).setSalesClosed(action === 'close'))) {
      throw new GatewayError('EVENT_NOT_FOUND');
    }
    const ok = action === 'pause' ? await room.pause() : action === 'resume' ? await room.resume() : await room.close();
    if (!ok) throw new GatewayError('EVENT_NOT_FOUND');
    // This isolate and data centre see the change at once; other isolates within CURSOR_MAX_STALE_MS.
    await forgetCursor(eventId);
    return c.json({ eventId, mode: MODES[action] });
  });
}
