// The waiting room's visitor side: the sale area, join and status.
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { isPre, placeKey, shardOf, viewPlace, type AdmissionCursor, type Place } from '../../contracts/queue/cursor';
import { MAX_POLL_MS, lotteryKey } from '../../contracts/queue/queue-policy';
import { shardName } from '../../contracts/names';
import type { AdmitAnswer } from '../../contracts/room-answers';
import { readCursor } from '../lib/cursor-cache';
import { callDurableObject } from '../lib/do-call';
import { logDecision } from '../../contracts/log';
import { clientIp, enforceRateLimit } from '../middleware/rate-limit';
import { readAdmission, readTicket } from '../middleware/credentials';
import { admissionCookie, cookieOptions, isSecure, ticketCookie } from '../lib/cookies';
import { GatewayError, assertNever } from '../lib/errors';
import { proxyToOrigin } from '../lib/proxy';
import { forgetSessions } from '../lib/session-cache';
import { TICKET_TTL_S, signAdmission, signQueueTicket, tokenSettings, type VisitorClaims } from '../lib/token';
import { drawPage, wantsDrawPage } from '../pages/draw-page';
import { langCookie, requestLang, type Lang } from '../pages/i18n';
import { WAITING_SCRIPT, waitingPage } from '../pages/waiting-page';
import { pageSecurityHeaders } from '../lib/security-headers';
import { eventIdParam, type AppEnv } from '../types';
import type { StatusBody } from '../lib/status-body';

interface Turn {
  visitorId: string;
  body: StatusBody;
  /** Seconds until the next poll; absent once admitted. */
  retryAfterS: number | null;
  pageStatus: 200 | 202 | 429;
  page: AdmissionCursor['page'];
  admission: { token: string; admittedAtMs: number } | null;
}

/** The event's admission cursor (cached at the edge), or EVENT_NOT_FOUND. */
async function cursorFor(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<AdmissionCursor> {
  const cursor = await readCursor(
    eventId,
    nowMs,
    async () => (await c.env.WAITING_ROOM.getByName(eventId).cursor()) as AdmissionCursor | null,
    (p) => c.executionCtx.waitUntil(p),
  );
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND', `no event "${eventId}"`);
  return cursor;
}

/**
 * Places this isolate re-queued lately, by visitor and replaced place: replaying an old ticket
 * finds its new place here without calling the objects again (REQUEUE_MEMO_MS).
 */
const requeued = new Map<string, { place: Place; untilMs: number }>();
const REQUEUE_MEMO_MS = 60_000;
const REQUEUE_MEMO_MAX = 10_000;

/**
 * A place from the visitor's queue shard: the same one again, or (`replaces` set) a new one at the
 * back instead of that lapsed or spent place. Creating a place counts against the client IP's join
 * limit.
 *
 * @throws GatewayError RATE_LIMITED (429) over the join limit; OVERLOADED (503) when the shard is
 */
async function joinShard(c: Context<AppEnv>, cursor: AdmissionCursor, visitorId: string, replaces: Place | null): Promise<Place> {
  const ip = clientIp(c);
  if (ip) await enforceRateLimit(c.env, 'join', 'ip', cursor.eventId, ip);
  const shard = shardOf(visitorId, cursor.shards);
  // Both are idempotent: the same visitor gets the same place; a repeated re-join of the same
  // replaced place gets the place the first one handed out.
  const place = await callDurableObject<Place>(
    async () =>
      c.env.QUEUE_SHARD.getByName(shardName(cursor.eventId, shard)).join({
        eventId: cursor.eventId,
        shard,
        visitorId,
        lottery: cursor.policy === 'random',
        saleStartsAtMs: cursor.saleStartsAtMs,
        again: replaces !== null,
        ...(replaces ? { replaces: placeKey(replaces) } : {}),
      }),
    { idempotent: true, name: 'queueShard.join', eventId: cursor.eventId },
  );
  logDecision(replaces ? 'requeued' : 'joined', { eventId: cursor.eventId, shard, preQueue: isPre(place) });
  return place;
}

/** A closed sale takes nobody new: the answer a visitor without a place gets. */
function closedTurn(cursor: AdmissionCursor): Turn {
  return {
    visitorId: '',
    body: {
      state: 'closed',
      eventName: cursor.eventName,
      policy: cursor.policy,
      position: null,
      ahead: null,
      estimatedWaitSeconds: null,
      pollAfterMs: MAX_POLL_MS,
      saleStartsAt: cursor.saleStartsAtMs > 0 ? new Date(cursor.saleStartsAtMs).toISOString() : null,
      commitment: cursor.commitment,
    },
    retryAfterS: MAX_POLL_MS / 1000,
    pageStatus: cursor.pageStatus,
    page: cursor.page,
    admission: null,
  };
}

/**
 * A visitor's turn: a new visitor (`ticket` null) gets a place from their queue shard and a
 * ticket; a visitor with a ticket is answered from the ticket and the cached cursor, with no object
 * call, until the cursor passes their place. Then the WaitingRoom admits them once (and the
 * admission token is minted), or sends them to the back when their place lapsed. Sets cookies.
 */
async function takeTurn(c: Context<AppEnv>, eventId: string, ticket: VisitorClaims | null): Promise<Turn> {
  const now = Date.now();
  const cursor = await cursorFor(c, eventId, now);
  if (!ticket?.place && cursor.mode === 'closed') return closedTurn(cursor);
  const visitorId = ticket?.visitorId ?? crypto.randomUUID();
  let place = ticket?.place ?? (await joinShard(c, cursor, visitorId, null));
  let newTicket = !ticket?.place;
  const keyOf = (p: Place) => (isPre(p) && cursor.draw?.seed ? lotteryKey(cursor.draw.seed, visitorId) : null);
  const memoKey = `${eventId}\n${visitorId}\n${placeKey(place)}`;
  const memo = requeued.get(memoKey);
  if (memo && now < memo.untilMs) {
    // This old ticket was re-queued here moments ago: hand out its new place again.
    place = memo.place;
    newTicket = true;
  }
  let view = viewPlace(cursor, place, await keyOf(place), now);
  let admitted: { admittedAtMs: number; expiresAtMs: number } | null = null;
  // At most twice: a re-join may hand back a place of this visitor's that is already released.
  for (let attempt = 0; attempt < 2 && view.released && !admitted; attempt++) {
    const answer = await callDurableObject<AdmitAnswer>(async () => c.env.WAITING_ROOM.getByName(eventId).admit(visitorId, place), {
      idempotent: true,
      name: 'waitingRoom.admit',
      eventId,
    });
    switch (answer.kind) {
      case 'admitted':
        admitted = answer;
        logDecision('admitted', { eventId, shards: cursor.shards });
        break;
      case 'waiting':
        view = { ...view, released: false };
        break;
      case 'requeue': {
        // A closed sale hands out no new places, not even to a visitor whose place is spent.
        if (cursor.mode === 'closed') return closedTurn(cursor);
        const spent = place;
        place = await joinShard(c, cursor, visitorId, spent);
        if (requeued.size >= REQUEUE_MEMO_MAX) requeued.clear();
        requeued.set(`${eventId}\n${visitorId}\n${placeKey(spent)}`, { place, untilMs: now + REQUEUE_MEMO_MS });
        newTicket = true;
        view = viewPlace(cursor, place, await keyOf(place), now);
        if (attempt === 1) view = { ...view, released: false };
        break;
      }
      case 'event_not_found':
        throw new GatewayError('EVENT_NOT_FOUND', `no event "${eventId}"`);
      default:
        assertNever(answer);
    }
  }
  const settings = tokenSettings(c.env);
  const body: StatusBody = {
    state: admitted ? 'admitted' : view.state,
    eventName: cursor.eventName,
    policy: cursor.policy,
    position: admitted ? null : view.position,
    ahead: admitted ? null : view.ahead,
    estimatedWaitSeconds: admitted ? 0 : view.estimatedWaitSeconds,
    pollAfterMs: admitted ? 0 : view.pollAfterMs,
    saleStartsAt: cursor.saleStartsAtMs > 0 ? new Date(cursor.saleStartsAtMs).toISOString() : null,
    commitment: cursor.commitment,
  };
  if (newTicket) {
    body.queueTicket = await signQueueTicket(settings, eventId, visitorId, place, now);
    setCookie(c, ticketCookie(eventId, isSecure(c.req.url)), body.queueTicket, cookieOptions(c.req.url, TICKET_TTL_S));
  }
  let admission: Turn['admission'] = null;
  if (admitted) {
    const token = await signAdmission(
      settings,
      { eventId, visitorId, expiresAtMs: admitted.expiresAtMs, sessionId: String(admitted.admittedAtMs) },
      now,
    );
    body.admissionToken = token;
    admission = { token, admittedAtMs: admitted.admittedAtMs };
    setCookie(c, admissionCookie(eventId, isSecure(c.req.url)), token, cookieOptions(c.req.url, (admitted.expiresAtMs - now) / 1000));
  }
  return {
    visitorId,
    body,
    retryAfterS: admitted ? null : Math.ceil(view.pollAfterMs / 1000),
    pageStatus: cursor.pageStatus,
    page: cursor.page,
    admission,
  };
}

/** A ticket that fails to verify on the sale URL starts the visitor afresh instead of erroring. */
async function ticketOrNull(c: Context<AppEnv>, eventId: string): Promise<VisitorClaims | null> {
  try {
    return await readTicket(c, eventId, Date.now());
  } catch (err) {
    if (err instanceof GatewayError) return null;
    throw err;
  }
}

function wantsJson(c: Context<AppEnv>): boolean {
  return (c.req.header('accept') ?? '').includes('application/json');
}

function statusHeaders(c: Context<AppEnv>, turn: Turn): void {
  c.header('cache-control', 'no-store');
  if (turn.retryAfterS !== null) c.header('retry-after', String(turn.retryAfterS));
}

/** The sale area `/events/:eventId/*`: admitted visitors are proxied, everyone else waits. */
export const saleArea = new Hono<AppEnv>();

saleArea.all('/:eventId/*', async (c) => {
  const eventId = eventIdParam(c);
  const now = Date.now();
  try {
    const { token, ticketFromBearer } = await readAdmission(c, eventId, now);
    return await proxyToOrigin(c.req.raw, c.env, token, { stripAuthorization: ticketFromBearer });
  } catch (err) {
    if (!(err instanceof GatewayError) || err.code === 'ORIGIN_UNAVAILABLE') throw err;
  }
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    throw new GatewayError('ADMISSION_REQUIRED', 'wait in the queue for your turn first');
  }
  const turn = await takeTurn(c, eventId, await ticketOrNull(c, eventId));
  if (turn.admission) {
    // Admitted on this very request: serve the sale page with the new cookies attached.
    const origin = await proxyToOrigin(c.req.raw, c.env, turn.admission.token, {
      stripAuthorization: !getCookie(c, ticketCookie(eventId, isSecure(c.req.url))),
    });
    const res = new Response(origin.body, origin);
    for (const cookie of c.res.headers.getSetCookie()) res.headers.append('set-cookie', cookie);
    return res;
  }
  statusHeaders(c, turn);
  c.header('vary', 'Accept, Accept-Language, Cookie');
  if (wantsJson(c)) return c.json(turn.body);
  for (const [k, v] of Object.entries(await pageSecurityHeaders([WAITING_SCRIPT]))) c.header(k, v);
  const { lang, chosen } = pageLang(c);
  // The switch's choice is remembered (this no-store page only; the cacheable draw page never sets it).
  if (chosen) c.header('set-cookie', langCookie(chosen, isSecure(c.req.url)), { append: true });
  return c.html(waitingPage(eventId, turn.body, lang, turn.page), turn.pageStatus);
});

/** The visitor's language: `?lang=` (the switch), the remembered cookie, or Accept-Language. */
function pageLang(c: Context<AppEnv>): { lang: Lang; chosen: Lang | null } {
  return requestLang({ query: c.req.query('lang'), cookie: c.req.header('cookie'), acceptLanguage: c.req.header('accept-language') });
}

/** Gateway-owned queue endpoints under `/_wr/events`. */
export const queueApi = new Hono<AppEnv>();

queueApi.post('/:eventId/join', async (c) => {
  const eventId = eventIdParam(c);
  const turn = await takeTurn(c, eventId, await ticketOrNull(c, eventId));
  statusHeaders(c, turn);
  return c.json(turn.body);
});

queueApi.get('/:eventId/status', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED', `join first: POST /_wr/events/${eventId}/join`);
  const turn = await takeTurn(c, eventId, ticket);
  statusHeaders(c, turn);
  return c.json(turn.body);
});

queueApi.post('/:eventId/leave', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED');
  const cursor = await cursorFor(c, eventId, Date.now());
  const shard = shardOf(ticket.visitorId, cursor.shards);
  const opts = { idempotent: true, eventId };
  const [admission, place] = await Promise.all([
    callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).leave(ticket.visitorId), { ...opts, name: 'waitingRoom.leave' }),
    callDurableObject(() => c.env.QUEUE_SHARD.getByName(shardName(eventId, shard)).leave(ticket.visitorId), {
      ...opts,
      name: 'queueShard.leave',
    }),
  ]);
  const left = admission || place;
  forgetSessions(eventId, ticket.visitorId);
  // Both cookies go: the next visit starts at the back of the line.
  deleteCookie(c, admissionCookie(eventId, isSecure(c.req.url)), { path: '/', secure: isSecure(c.req.url) });
  deleteCookie(c, ticketCookie(eventId, isSecure(c.req.url)), { path: '/', secure: isSecure(c.req.url) });
  return c.json({ left });
});

queueApi.get('/:eventId/draw', async (c) => {
  const eventId = eventIdParam(c);
  const record = await callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).drawRecord(), {
    idempotent: true,
    name: 'waitingRoom.drawRecord',
    eventId,
  });
  if (!record) throw new GatewayError('NOT_FOUND', 'this event has no lottery');
  c.header('cache-control', record.drawn ? 'public, max-age=300' : 'public, max-age=10');
  c.header('vary', 'Accept, Accept-Language, Cookie');
  if (wantsDrawPage(c.req.header('accept'), c.req.query('format'))) {
    for (const [k, v] of Object.entries(await pageSecurityHeaders([]))) c.header(k, v);
    return c.html(drawPage(eventId, record, pageLang(c).lang));
  }
  return c.json({ algorithm: 'order entrants by SHA-256 hex of "<seed>:<visitorId>", ascending; ties by id', ...record });
});
