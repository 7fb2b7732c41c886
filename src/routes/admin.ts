// Organizer API: create/update an event, read its live numbers, pause and resume.
import { forgetCursor } from '../lib/cursor-cache';
import type { Context } from 'hono';
import { Hono } from '../lib/hono';
import * as z from 'zod/mini';
import { wholeNumber } from '../../contracts/zod';
import { bearerAuth } from 'hono/bearer-auth';
import { DIRECTORY_NAME } from '../../contracts/names';
import { eventConfigInput, joinConfig, type EventConfigInput } from '../../contracts/event-config';
import { signInUrlProblem } from '../../contracts/entry';
import { accountSecrets, currentAccountKeyId } from '../lib/entry-token';
import { configureEvent } from '../lib/event-setup';
import { callDurableObject, type DoCallOptions } from '../lib/do-call';
import { eventStats, inventoryFor, refuseUnknownSection, setEventSales } from '../lib/inventory-router';
import { SECTION_PATTERN } from '../../contracts/names';
import { GatewayError } from '../lib/errors';
import { fixedRateResult, modeResult } from '../lib/object-answers';
import { gatewaySettings } from '../lib/settings';
import { claimRoom, roomClaim } from '../lib/room-claims';
import { defaultCache } from '../lib/room-table';
import { secretsEqual } from '../../contracts/hmac';
import { previewResponse } from '../pages/preview';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { readJsonBody } from '../lib/validate';
import { eventIdParam, newEventIdParam, type AppEnv } from '../types';
import { channelAdmin } from './channel-admin';

/** Every organizer call is idempotent (same request, same state), so each may be retried. */
function call<T>(name: string, eventId: string | undefined, run: () => Promise<T>): Promise<T> {
  const opts: DoCallOptions = { idempotent: true, name, ...(eventId ? { eventId } : {}) };
  return callDurableObject(run, opts);
}

/** `/_wr/admin/events/...`, behind `Authorization: Bearer <ADMIN_TOKEN>`. */
export const adminApi = new Hono<AppEnv>();

adminApi.use(
  '*',
  bearerAuth({
    // An unset ADMIN_TOKEN locks the API; the compare takes the same time wherever the tokens differ.
    verifyToken: async (token, c: Context<AppEnv>) => {
      const { adminToken } = gatewaySettings(c.env);
      return adminToken !== '' && (await secretsEqual(token, adminToken));
    },
    noAuthenticationHeader: { message: { code: 'UNAUTHORIZED' } },
    invalidToken: { message: { code: 'UNAUTHORIZED' } },
    invalidAuthenticationHeader: { message: { code: 'UNAUTHORIZED' } },
  }),
);

// Sales channels and their allocations, behind the same bearer token.
adminApi.route('/', channelAdmin);

adminApi.put('/events/:eventId', async (c) => {
  const eventId = newEventIdParam(c);
  const input = await readJsonBody(c.req.raw, eventConfigInput);
  const claim = roomClaim(eventId, input);
  const accountKey = await entryAccountKey(c, input.entry, claim.room.patterns);
  const room = c.env.WAITING_ROOM.getByName(eventId);
  const inventory = inventoryFor(c.env, eventId, { kind: 'event' });
  const directory = c.env.DIRECTORY.getByName(DIRECTORY_NAME);
  const { created, config } = await configureEvent(
    {
      room: {
        configure: (config, dryRun) =>
          call('waitingRoom.configure', eventId, async () =>
            room.configure(
              config.entry && accountKey ? { ...config, entry: { ...config.entry, accountKeyId: accountKey } } : config,
              dryRun,
            ),
          ),
      },
      inventory: {
        beginChange: (request) => call('inventory.beginChange', eventId, async () => inventory.beginChange(request)),
        finishChange: (id) => call('inventory.finishChange', eventId, async () => inventory.finishChange(id)),
        abortChange: (id) => call('inventory.abortChange', eventId, async () => inventory.abortChange(id)),
      },
      section: (section) => {
        const part = inventoryFor(c.env, eventId, { kind: 'section', section });
        return {
          beginChange: (request) => call('inventory.beginChange', eventId, async () => part.beginChange(request)),
          finishChange: (id) => call('inventory.finishChange', eventId, async () => part.finishChange(id)),
          abortChange: (id) => call('inventory.abortChange', eventId, async () => part.abortChange(id)),
        };
      },
      directory: { register: (id, name) => call('directory.register', eventId, async () => directory.register(id, name)) },
      // The room's URL patterns, claimed while the change holds the event.
      routes: { claim: () => claimRoom(c.env, claim) },
    },
    eventId,
    input,
  );
  await forgetCursor(eventId);
  // This isolate and data centre route by the new table at once; other isolates within 5 s.
  await c.var.rooms.forget(defaultCache());
  return c.json({ eventId, created, config: { ...config, patterns: claim.room.patterns, bypass: claim.room.bypass } }, created ? 201 : 200);
});

/**
 * An entry requirement's checks before anything is written: the sign-in URL on the room's own
 * site (contracts/entry.ts signInUrlProblem), and the id of the account hash secret to pin.
 * @returns the key id to pin, or null for an open event
 * @throws GatewayError SIGN_IN_URL_INVALID (400) naming the problem; Error naming ACCOUNT_HASH_SECRET when it is unset
 */
async function entryAccountKey(c: Context<AppEnv>, entry: EventConfigInput['entry'], patterns: readonly string[]): Promise<string | null> {
  if (!entry) return null;
  const problem = signInUrlProblem(entry.signInUrl, patterns);
  if (problem) throw new GatewayError('SIGN_IN_URL_INVALID', { detail: `entry.signInUrl ${JSON.stringify(entry.signInUrl)}: ${problem}` });
  return currentAccountKeyId(accountSecrets(c.env));
}

adminApi.get('/events', async (c) => {
  c.header('cache-control', 'no-store');
  const events = await call('directory.list', undefined, async () => c.env.DIRECTORY.getByName(DIRECTORY_NAME).list());
  return c.json({ events });
});

adminApi.get('/events/:eventId', async (c) => {
  const eventId = eventIdParam(c);
  const [room, seats, urls] = await Promise.all([
    call('waitingRoom.stats', eventId, async () => c.env.WAITING_ROOM.getByName(eventId).stats()),
    call('inventory.stats', eventId, async () => eventStats(c.env, eventId)),
    call('directory.room', eventId, async () => c.env.DIRECTORY.getByName(DIRECTORY_NAME).room(eventId)),
  ]);
  if (seats.kind === 'stats' && seats.stats.pendingChange && !room) {
    throw new GatewayError('EVENT_NOT_FOUND', {
      detail: 'the creation of this event did not finish; send the PUT again to complete or replace it',
    });
  }
  // WaitingRoom.stats() still answers null for an unknown event (room-core moves it to EventNotFound).
  if (!room || seats.kind !== 'stats') throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  c.header('cache-control', 'no-store');
  const { config: queueConfig, ...queue } = room;
  const { config: inventoryConfig, ...inventory } = seats.stats;
  // The room's URLs as routed now (none: the event is not routed at all).
  const routing = { patterns: urls?.patterns ?? [], bypass: urls?.bypass ?? { pathPrefixes: [], extensions: [], methods: [] } };
  return c.json({ eventId, config: { ...joinConfig(queueConfig, inventoryConfig), ...routing }, queue, inventory });
});

// The waiting page of one phase with sample data (src/pages/preview.ts), for the dashboard's preview.
adminApi.get('/events/:eventId/preview', async (c) => {
  const eventId = eventIdParam(c);
  const cursor = await call(
    'waitingRoom.cursor',
    eventId,
    async () => (await c.env.WAITING_ROOM.getByName(eventId).cursor()) as AdmissionCursor | null,
  );
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  return previewResponse(c.var.pages.reader(c.env.ASSETS), cursor, c.req.query('phase'), c.req.query('lang'), Date.now());
});

const rateOverride = z.strictObject({ fixedPerMinute: z.nullable(wholeNumber(0, 1_000_000)) });

adminApi.post('/events/:eventId/rate', async (c) => {
  const { fixedPerMinute } = await readJsonBody(c.req.raw, rateOverride);
  const eventId = eventIdParam(c);
  fixedRateResult(
    await call('waitingRoom.setFixedRate', eventId, async () => c.env.WAITING_ROOM.getByName(eventId).setFixedRate(fixedPerMinute)),
    eventId,
  );
  await forgetCursor(eventId);
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
    modeResult(answer, eventId);
    // This isolate and data centre see the change at once; other isolates within CURSOR_MAX_STALE_MS.
    await forgetCursor(eventId);
    return c.json({ eventId, mode: MODES[action] });
  });
}
