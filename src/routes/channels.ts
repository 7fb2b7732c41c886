// Sales-channel API: a box office or partner holds and confirms seats of its allocations
// directly (no queue) and follows the inventory's change feed, each call signed with the channel's own key.
import { holdAnswerOfEvent, inventoryFor, refuseUnknownSection } from '../lib/inventory-router';
import type { InventoryRoute } from '../../contracts/inventory-names';
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import { visibleId, wholeNumber } from '../../contracts/zod';
import type {
  ChannelHoldAction,
  ChannelHoldAnswer,
  ChannelHoldChangeAnswer,
  ChannelListAnswer,
  FeedAnswer,
} from '../../contracts/channel-answers';
import type { HoldView } from '../../contracts/inventory-answers';
import { channelSignature } from '../middleware/channel-signature';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { channelChangeResult, channelHoldResult, feedResult, requireChannel } from '../lib/channel-results';
import { holdBody, holdChangeResult, holdResult } from '../lib/object-answers';
import { logDecision } from '../../contracts/log';
import { recordDecision } from '../lib/decision-tally';
import { parseJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';
import { holdRequest, IDEMPOTENCY_KEY } from './holds';

/** Body of a channel's hold: the visitor hold body plus the channel's own customer account (visible ASCII, as the origin's accounts: it reaches the audit log). */
export const channelHold = z.pipe(
  z.looseObject({ account: visibleId(1, 128) }),
  z.transform((body, ctx) => {
    const { account, ...rest } = body;
    const parsed = holdRequest.safeParse(rest);
    if (parsed.success) return { account, request: parsed.data };
    for (const issue of parsed.error.issues) ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: body });
    return z.NEVER;
  }),
);
export const confirmBody = z.strictObject({ orderId: visibleId(1, 128), amountMinor: wholeNumber(0, Number.MAX_SAFE_INTEGER) });
export const emptyBody = z.strictObject({});
/** Feed cursors are entry ids: whole numbers (at most 15 digits). */
const CURSOR = /^\d{1,15}$/;
/** Entries per feed page unless `limit` says otherwise (1-1000). */
const DEFAULT_FEED_LIMIT = 500;

/**
 * The Inventory object serving `route` (src/lib/inventory-router.ts). Allocations and the change
 * feed live in the event's own object: with venue sections they cover its tiers only (section
 * objects keep their own feed and allocations, not reachable through this API yet).
 */
function inventory(c: Context<AppEnv>, route: InventoryRoute) {
  return inventoryFor(c.env, eventIdParam(c), route);
}

/** `/_wr/channel/events/...`, every route signed by a channel key. */
export const channelApi = new Hono<AppEnv>();

channelApi.use('/events/:eventId/*', channelSignature());

channelApi.post('/events/:eventId/holds', async (c) => {
  const eventId = eventIdParam(c);
  const key = c.req.header('idempotency-key');
  if (!key) throw new GatewayError('IDEMPOTENCY_KEY_REQUIRED');
  if (!IDEMPOTENCY_KEY.test(key))
    throw new GatewayError('INVALID_REQUEST', { detail: 'Idempotency-Key must be 1-128 visible ASCII characters' });
  const { account, request } = parseJsonBody(c.var.rawBody, channelHold);
  const route =
    'tier' in request ? ({ kind: 'tier', tier: request.tier } as const) : ({ kind: 'seats', seatIds: request.seatIds } as const);
  await refuseUnknownSection(c.env, eventId, route, Date.now());
  const started = Date.now();
  // Idempotent by its key: a retry after a transient failure returns the first result.
  const answer = await callDurableObject<ChannelHoldAnswer>(
    async () => inventory(c, route).channelHold(c.var.channel, account, request, key),
    {
      idempotent: true,
      name: 'inventory.channelHold',
      eventId,
    },
  );
  const ms = Date.now() - started;
  // Counted per isolate, a summary line per event and code every few seconds (decision-tally.ts),
  // as online holds: a line per hold was the channel row's one log cost. The Inventory's audit log
  // keeps every hold with its channel (`channel:<id>`).
  let result: { hold: HoldView; replayed: boolean };
  try {
    result = holdResult(channelHoldResult(await holdAnswerOfEvent(c.env, eventId, request, answer)), eventId);
  } catch (err) {
    if (err instanceof GatewayError) recordDecision(eventId, 'channel.hold.refused', { code: err.code, ms });
    throw err;
  }
  const { hold, replayed } = result;
  recordDecision(eventId, replayed ? 'channel.hold.replayed' : 'channel.hold.granted', { ms });
  if (replayed) c.header('idempotent-replayed', 'true');
  return c.json(holdBody(hold), 201);
});

/** One action on one of the channel's holds; each is idempotent (confirm by order id, release twice is a no-op). */
async function act(c: Context<AppEnv>, action: ChannelHoldAction) {
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId')!;
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  const answer = await callDurableObject<ChannelHoldChangeAnswer>(
    async () => inventory(c, { kind: 'hold', holdId }).channelAct(c.var.channel, holdId, action),
    {
      idempotent: true,
      name: `inventory.channel.${action.kind}`,
      eventId,
    },
  );
  const hold = holdChangeResult(channelChangeResult(answer, eventId));
  if (action.kind !== 'get')
    logDecision(`channel.${action.kind}`, { eventId, actor: `channel:${c.var.channel.channelId}`, holdId, status: hold.status });
  return c.json(holdBody(hold));
}

channelApi.get('/events/:eventId/holds/:holdId', (c) => act(c, { kind: 'get' }));
channelApi.post('/events/:eventId/holds/:holdId/confirm', (c) => act(c, { kind: 'confirm', ...parseJsonBody(c.var.rawBody, confirmBody) }));
channelApi.post('/events/:eventId/holds/:holdId/release', (c) => {
  parseJsonBody(c.var.rawBody || '{}', emptyBody);
  return act(c, { kind: 'release' });
});

/** Reads the feed (a page after `after`, or the snapshot). */
async function readFeed(c: Context<AppEnv>, after: number | 'snapshot', limit: number) {
  const eventId = eventIdParam(c);
  const answer = await callDurableObject<FeedAnswer>(async () => inventory(c, { kind: 'event' }).readFeed(c.var.channel, after, limit), {
    idempotent: true,
    name: 'inventory.readFeed',
    eventId,
  });
  c.header('cache-control', 'no-store');
  return c.json(feedResult(answer, eventId));
}

channelApi.get('/events/:eventId/feed', async (c) => {
  const after = c.req.query('after');
  const limit = c.req.query('limit') ?? String(DEFAULT_FEED_LIMIT);
  if (after === undefined || !CURSOR.test(after))
    throw new GatewayError('CURSOR_INVALID', {
      detail: 'after must be a feed cursor (a whole number from a snapshot or a page); start with GET .../feed/snapshot',
    });
  if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000)
    throw new GatewayError('INVALID_REQUEST', { detail: 'limit must be 1-1000' });
  return readFeed(c, Number(after), Number(limit));
});

channelApi.get('/events/:eventId/feed/snapshot', (c) => readFeed(c, 'snapshot', 0));

channelApi.get('/events/:eventId/allocations', async (c) => {
  const eventId = eventIdParam(c);
  const answer = await callDurableObject<ChannelListAnswer>(async () => inventory(c, { kind: 'event' }).channelList(c.var.channel), {
    idempotent: true,
    name: 'inventory.channelList',
    eventId,
  });
  c.header('cache-control', 'no-store');
  return c.json({ allocations: requireChannel(answer).allocations });
});
