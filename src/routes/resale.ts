// Returns, the waitlist and resale at the edge: the origin's signed routes (return an order's seats,
// the waitlist and its counts, an account's join, an offer's acceptance, the resale feed) and the
// visitor's waitlist join with the queue ticket. Resale runs in the event's own Inventory (events
// with sections have none). The rules: durable-objects/inventory/resale-policy.ts.
import { Hono } from 'hono';
import * as z from 'zod/mini';
import { visibleId, wholeNumber } from '../../contracts/zod';
import type {
  AcceptAnswer,
  JoinAnswer,
  ResaleReadAnswer,
  ResaleRefused,
  ReturnAnswer,
  ReturnView,
  WaitlistEntryView,
} from '../../contracts/resale-answers';
import { logDecision } from '../../contracts/log';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { inventoryFor } from '../lib/inventory-router';
import { holdBody } from '../lib/object-answers';
import { parseJsonBody, readBodyText, readJsonBody } from '../lib/validate';
import { setCookie } from 'hono/cookie';
import { cookieOptions, isSecure, waitlistCookie } from '../lib/cookies';
import { waitlistCookieValue } from '../lib/waitlist-status';
import { cookieMaxAgeS, numericDate } from '../../contracts/queue/lifetimes';
import { TICKET_TTL_S } from '../lib/token';
import { readTicket } from '../middleware/credentials';
import { eventIdParam, type AppEnv } from '../types';

const seatId = z.string().check(z.minLength(1), z.maxLength(24));
/** Body of a return: the seats (1-6; absent = every seat not yet returned) and the return's idempotency key. */
export const returnRequest = z.strictObject({
  seatIds: z.optional(z.array(seatId).check(z.minLength(1), z.maxLength(6))),
  idempotencyKey: visibleId(1, 128),
});
/** Body of the origin's waitlist join: the account and the seats it wants (1-6). */
export const originJoinRequest = z.strictObject({ account: visibleId(1, 128), quantity: wholeNumber(1, 6) });
/** Body of a visitor's waitlist join: the seats wanted (1-6). */
export const visitorJoinRequest = z.strictObject({ quantity: wholeNumber(1, 6) });
/** Body of an acceptance: the account the offer was made to. */
export const acceptRequest = z.strictObject({ account: visibleId(1, 128) });
/** Query of the waitlist and the feed: after an entry id, 1-500 per page (default 100). */
const pageQuery = z.object({
  after: z._default(z.pipe(z.coerce.number(), wholeNumber(0, Number.MAX_SAFE_INTEGER)), 0),
  limit: z._default(z.pipe(z.coerce.number(), wholeNumber(1, 500)), 100),
});

/** A refusal as its problem (status from ERROR_TABLE), changing nothing. */
function refusal(answer: ResaleRefused): never {
  throw new GatewayError(answer.code, { detail: answer.detail });
}

const returnBody = (r: ReturnView) => ({ ...r, createdAtMs: undefined, createdAt: new Date(r.createdAtMs).toISOString() });
const entryBody = (e: WaitlistEntryView) => ({ ...e, joinedAtMs: undefined, joinedAt: new Date(e.joinedAtMs).toISOString() });

function joinResult(answer: JoinAnswer) {
  if (answer.kind === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND');
  if (answer.kind === 'refused') refusal(answer);
  return { entry: entryBody(answer.entry), replayed: answer.replayed };
}

/** The event's own Inventory, where the resale runs. */
const eventInventory = (env: Env, eventId: string) => inventoryFor(env, eventId, { kind: 'event' });

/** Registers the origin's resale routes on the signed origin API (`/_wr/origin/events/...`). */
export function resaleOriginRoutes(api: Hono<AppEnv>): void {
  api.post('/events/:eventId/holds/:holdId/return', async (c) => {
    const { seatIds, idempotencyKey } = parseJsonBody(c.var.rawBody, returnRequest);
    const eventId = eventIdParam(c);
    const holdId = c.req.param('holdId');
    // Idempotent by its key: retried on transient object errors.
    const answer = await callDurableObject<ReturnAnswer>(
      () => eventInventory(c.env, eventId).returnSeats(holdId, seatIds ?? null, idempotencyKey),
      { idempotent: true, name: 'inventory.returnSeats', eventId },
    );
    logDecision(answer.kind === 'ok' ? 'resale.return' : 'resale.return_refused', {
      eventId,
      actor: 'origin',
      holdId,
      code: answer.kind === 'refused' ? answer.code : answer.kind === 'ok' ? null : answer.kind,
    });
    if (answer.kind === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND');
    if (answer.kind === 'not_found') throw new GatewayError('HOLD_NOT_FOUND');
    if (answer.kind === 'refused') refusal(answer);
    if (answer.replayed) c.header('idempotent-replayed', 'true');
    return c.json(returnBody(answer.return));
  });

  api.get('/events/:eventId/waitlist', async (c) => {
    const q = pageQuery.safeParse(c.req.query());
    if (!q.success) throw new GatewayError('INVALID_REQUEST', { detail: 'after: an entry id; limit: 1-500' });
    const eventId = eventIdParam(c);
    const answer = await callDurableObject<ResaleReadAnswer>(
      async () => eventInventory(c.env, eventId).resaleRead('waitlist', q.data.after, q.data.limit),
      { idempotent: true, name: 'inventory.waitlist', eventId },
    );
    if (answer.kind !== 'ok') throw new GatewayError('EVENT_NOT_FOUND');
    const last = answer.entries.at(-1);
    return c.json({
      entries: answer.entries.map(entryBody),
      counts: answer.counts,
      next: answer.entries.length === q.data.limit && last ? last.entryId : null,
    });
  });

  api.post('/events/:eventId/waitlist', async (c) => {
    const { account, quantity } = parseJsonBody(c.var.rawBody, originJoinRequest);
    const eventId = eventIdParam(c);
    // One live entry per account: a retry answers the same entry.
    const answer = await callDurableObject<JoinAnswer>(() => eventInventory(c.env, eventId).joinWaitlist(account, quantity), {
      idempotent: true,
      name: 'inventory.joinWaitlist',
      eventId,
    });
    return c.json(joinResult(answer));
  });

  api.post('/events/:eventId/offers/:holdId/accept', async (c) => {
    const { account } = parseJsonBody(c.var.rawBody, acceptRequest);
    const eventId = eventIdParam(c);
    const holdId = c.req.param('holdId');
    const answer = await callDurableObject<AcceptAnswer>(() => eventInventory(c.env, eventId).acceptOffer(holdId, account), {
      idempotent: true,
      name: 'inventory.acceptOffer',
      eventId,
    });
    logDecision(answer.kind === 'ok' ? 'resale.accept' : 'resale.accept_refused', {
      eventId,
      actor: 'origin',
      holdId,
      code: answer.kind === 'refused' ? answer.code : answer.kind === 'ok' ? null : 'OFFER_NOT_FOUND',
    });
    if (answer.kind === 'not_found') throw new GatewayError('OFFER_NOT_FOUND');
    if (answer.kind === 'refused') refusal(answer);
    return c.json({ ...holdBody(answer.hold), account: answer.hold.account });
  });

  api.get('/events/:eventId/resale/feed', async (c) => {
    const q = pageQuery.safeParse(c.req.query());
    if (!q.success) throw new GatewayError('INVALID_REQUEST', { detail: 'after: a feed entry id; limit: 1-500' });
    const eventId = eventIdParam(c);
    const answer = await callDurableObject<ResaleReadAnswer>(
      async () => eventInventory(c.env, eventId).resaleRead('feed', q.data.after, q.data.limit),
      { idempotent: true, name: 'inventory.resaleFeed', eventId },
    );
    const events = answer.kind === 'feed' ? answer.events : [];
    const last = events.at(-1);
    return c.json({
      events: events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
      next: events.length === q.data.limit && last ? last.id : null,
    });
  });
}

/**
 * `POST /_wr/events/:eventId/waitlist`: a visitor on the sold-out page joins the waitlist with their
 * queue ticket; the account is the ticket's visitor (the entry token's account where the event
 * requires one, so one entry per account). The origin learns of the offer by webhook or feed.
 * The entry id is kept in a cookie, so the visitor's status shows their place and offer. The
 * body is JSON (apps) or the waiting page's form (`quantity`, without JavaScript too): a form is
 * answered with a 303 back to the page it came from (same origin only, as the CSRF check already
 * made sure of the request; else `/`).
 */
export const waitlistApi = new Hono<AppEnv>();

waitlistApi.post('/:eventId/waitlist', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED');
  const form = (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
  const { quantity } = form ? formJoin(await readBodyText(c.req.raw)) : await readJsonBody(c.req.raw, visitorJoinRequest);
  const answer = await callDurableObject<JoinAnswer>(() => eventInventory(c.env, eventId).joinWaitlist(ticket.visitorId, quantity), {
    idempotent: true,
    name: 'inventory.joinWaitlist',
    eventId,
  });
  const result = joinResult(answer);
  const now = Date.now();
  setCookie(
    c,
    waitlistCookie(eventId, isSecure(c.req.url)),
    waitlistCookieValue(result.entry.entryId, result.entry.quantity),
    cookieOptions(c.req.url, cookieMaxAgeS(now, numericDate(now + TICKET_TTL_S * 1000))),
  );
  c.header('cache-control', 'no-store');
  return form ? c.redirect(backTo(c.req.header('referer'), c.req.url), 303) : c.json(result);
});

/** The form's body as a join request. @throws GatewayError INVALID_REQUEST (400) for a quantity outside 1-6 */
function formJoin(text: string): { quantity: number } {
  const parsed = visitorJoinRequest.safeParse({ quantity: Number(new URLSearchParams(text).get('quantity') ?? '1') });
  if (!parsed.success) throw new GatewayError('INVALID_REQUEST', { detail: 'quantity: a whole number of seats, 1-6' });
  return parsed.data;
}

/** The page a form came from when it is on this host (path and query only), else `/`. */
function backTo(referer: string | undefined, url: string): string {
  try {
    const from = new URL(referer ?? '');
    return from.host === new URL(url).host ? from.pathname + from.search : '/';
  } catch {
    return '/';
  }
}
