// Organizer API: the event list, live numbers, pause, resume, close and the fixed rate; mounts the
// configuration edits, channels and access (keys, the audit record).
import { forgetCursor } from '../lib/cursor-cache';
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { wholeNumber } from '../../contracts/zod';
import { DIRECTORY_NAME } from '../../contracts/names';
import { inventoryFor, refuseUnknownSection, setEventSales } from '../lib/inventory-router';
import { SECTION_PATTERN } from '../../contracts/names';
import { GatewayError } from '../lib/errors';
import { fixedRateResult, modeResult } from '../lib/object-answers';
import { previewResponse } from '../pages/preview';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { MAX_CONFIG_BODY_BYTES, readJsonBody } from '../lib/validate';
import { pageTemplateInput } from '../../contracts/event-input';
import { eventIdParam, type AppEnv } from '../types';
import { organizerAuth, recordChange } from '../middleware/organizer-auth';
import { organizerAccessApi } from './organizer-access';
import { eventEditsApi } from './event-edits';
import { call } from './event-reads';
import { channelAdmin } from './channel-admin';
import { scheduleAdmin } from './schedule-admin';
import { historyAdmin } from './history-admin';
import { reportAdmin } from './report-admin';

/** `/_wr/admin/...`: an organizer key (or ADMIN_TOKEN, or a Cloudflare Access identity) with the route's role. */
export const adminApi = new Hono<AppEnv>();

// Every route below states its role in src/lib/organizer-routes.ts.
adminApi.use('*', organizerAuth());

adminApi.route('/', organizerAccessApi);
adminApi.route('/', eventEditsApi);
// Sales channels and their allocations.
adminApi.route('/', channelAdmin);
// Scheduled changes of an event (schedule-admin.ts), behind the same bearer token.
adminApi.route('/', scheduleAdmin);
adminApi.route('/', historyAdmin);
adminApi.route('/', reportAdmin);

adminApi.get('/events', async (c) => {
  c.header('cache-control', 'no-store');
  const events = await call('directory.list', undefined, async () => c.env.DIRECTORY.getByName(DIRECTORY_NAME).list());
  return c.json({ events });
});

// The waiting page of one phase with sample data (src/pages/preview.ts), for the dashboard's preview.
adminApi.get('/events/:eventId/preview', async (c) => {
  const eventId = eventIdParam(c);
  const cursor = await previewCursor(c.env, eventId);
  return previewResponse(c.var.pages.reader(c.env.ASSETS), cursor, c.req.query('phase'), c.req.query('lang'), Date.now());
});

/** Body of `POST .../preview`: a `page` not saved yet (its template checked as a PUT checks it). */
export const previewBody = z.strictObject({ page: pageTemplateInput() });

// The same with a `page` not saved yet (the console's editor): the look before it goes live. Writes nothing.
adminApi.post('/events/:eventId/preview', async (c) => {
  const eventId = eventIdParam(c);
  const { page } = await readJsonBody(c.req.raw, previewBody, MAX_CONFIG_BODY_BYTES);
  const cursor = await previewCursor(c.env, eventId);
  return previewResponse(c.var.pages.reader(c.env.ASSETS), { ...cursor, page }, c.req.query('phase'), c.req.query('lang'), Date.now());
});

/**
 * The event's cursor, for its name, policy and page.
 * @throws GatewayError EVENT_NOT_FOUND
 */
async function previewCursor(env: AppEnv['Bindings'], eventId: string): Promise<AdmissionCursor> {
  const cursor = await call(
    'waitingRoom.cursor',
    eventId,
    async () => (await env.WAITING_ROOM.getByName(eventId).cursor()) as AdmissionCursor | null,
  );
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  return cursor;
}

export const rateOverride = z.strictObject({ fixedPerMinute: z.nullable(wholeNumber(0, 1_000_000)) });

adminApi.post('/events/:eventId/rate', async (c) => {
  const { fixedPerMinute } = await readJsonBody(c.req.raw, rateOverride);
  const eventId = eventIdParam(c);
  const { previous, changed } = fixedRateResult(
    await call('waitingRoom.setFixedRate', eventId, async () => c.env.WAITING_ROOM.getByName(eventId).setFixedRate(fixedPerMinute)),
    eventId,
  );
  await forgetCursor(eventId);
  // A rate set to what it already was changes nothing, and the audit records changes only.
  if (changed) await recordChange(c, eventId, 'event.rate', [{ field: 'fixedRatePerMinute', from: previous, to: fixedPerMinute }]);
  return c.json({ eventId, fixedPerMinute });
});

adminApi.get('/events/:eventId/audit', async (c) => {
  // Digits only: Number() also reads `1e300`, `0x10` and ` 1`, and past 2^53 ids lose their value.
  const rawAfter = c.req.query('after') ?? '0';
  const rawLimit = c.req.query('limit') ?? '100';
  const after = /^\d{1,15}$/.test(rawAfter) ? Number(rawAfter) : -1;
  const limit = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : 0;
  if (after < 0 || limit < 1 || limit > 1000) {
    throw new GatewayError('INVALID_REQUEST', { detail: 'after must be a whole number >= 0, limit 1-1000' });
  }
  const eventId = eventIdParam(c);
  const section = c.req.query('section');
  if (section !== undefined && !SECTION_PATTERN.test(section))
    throw new GatewayError('INVALID_REQUEST', { detail: 'section must be a section name' });
  // Each object keeps its own audit log: one section's with `section`, else the event's own object's.
  const route = section === undefined ? ({ kind: 'event' } as const) : ({ kind: 'section', section } as const);
  await refuseUnknownSection(c.env, eventId, route, Date.now());
  const entries = await call('inventory.auditLog', eventId, async () => inventoryFor(c.env, eventId, route).auditLog(after, limit));
  // An empty page: tell an event with no entries (yet) from no event at all (it answered 200 []).
  if (entries.length === 0) {
    const stats = await call('inventory.stats', eventId, async () => inventoryFor(c.env, eventId, route).stats());
    if (stats.kind !== 'stats') throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  }
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
    // Inventory.setSales answers a boolean (false: no such event).
    const salesSet =
      action === 'pause' ||
      (await call(`inventory.setSales`, eventId, async () => setEventSales(c.env, eventId, action === 'close' ? 'closed' : 'open')));
    if (!salesSet) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
    const answer = await call(`waitingRoom.${action}`, eventId, async () =>
      action === 'pause' ? room.pause() : action === 'resume' ? room.resume() : room.close(),
    );
    const previous = modeResult(answer, eventId);
    // This isolate and data centre see the change at once; other isolates within CURSOR_MAX_STALE_MS.
    await forgetCursor(eventId);
    // A pause of a paused event changed nothing: no entry.
    if (previous !== MODES[action])
      await recordChange(c, eventId, `event.${action}`, [{ field: 'mode', from: previous, to: MODES[action] }]);
    return c.json({ eventId, mode: MODES[action] });
  });
}
