// The waiting room's visitor side: the sale area, join and status.
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { QueueStatus } from '../../durable-objects/waiting-room/waiting-room';
import { readAdmission, readTicket } from '../middleware/credentials';
import { admissionCookie, cookieOptions, isSecure, ticketCookie } from '../lib/cookies';
import { GatewayError, assertNever } from '../lib/errors';
import { proxyToOrigin } from '../lib/proxy';
import { forgetSessions } from '../lib/session-cache';
import { TICKET_TTL_S, signAdmission, signQueueTicket, tokenSettings, type VisitorClaims } from '../lib/token';
import { pickLang } from '../pages/waiting-messages';
import { WAITING_SCRIPT, waitingPage } from '../pages/waiting-page';
import { pageSecurityHeaders } from '../lib/security-headers';
import { eventIdParam, type AppEnv } from '../types';

/** JSON body of join / status (and of the sale URL for `Accept: application/json`). */
export interface StatusBody {
  state: QueueStatus['state'];
  eventName: string;
  policy: QueueStatus['policy'];
  position: number | null;
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  pollAfterMs: number;
  /** ISO 8601, or null when the sale was open from creation. */
  saleStartsAt: string | null;
  /** Lottery events: the draw's commitment (SHA-256 of the secret seed); null otherwise. */
  commitment: string | null;
  /** The queue ticket, for cookie-less clients; present when newly issued. */
  queueTicket?: string;
  /** The admission token, for cookie-less clients; present when `state` is `admitted`. */
  admissionToken?: string;
}

interface Turn {
  visitorId: string;
  status: QueueStatus;
  body: StatusBody;
  admissionToken: string | null;
}

/**
 * Joins or looks up the visitor and, if it is their turn, mints the admission token. Sets both
 * cookies. `ticket` null = a new visitor (a fresh id and queue ticket).
 */
async function takeTurn(c: Context<AppEnv>, eventId: string, ticket: VisitorClaims | null, join: boolean): Promise<Turn> {
  const now = Date.now();
  const room = c.env.WAITING_ROOM.getByName(eventId);
  const visitorId = ticket?.visitorId ?? crypto.randomUUID();
  let answer = ticket && !join ? await room.status(visitorId) : await room.join(visitorId);
  if (answer.kind === 'unknown_visitor') answer = await room.join(visitorId);
  switch (answer.kind) {
    case 'event_not_found':
      throw new GatewayError('EVENT_NOT_FOUND', `no event "${eventId}"`);
    case 'unknown_visitor':
      throw new Error('join returned unknown_visitor');
    case 'status':
      break;
    default:
      assertNever(answer);
  }
  const status = answer;
  const settings = tokenSettings(c.env);
  const body: StatusBody = {
    state: status.state,
    eventName: status.eventName,
    policy: status.policy,
    position: status.position,
    ahead: status.ahead,
    estimatedWaitSeconds: status.estimatedWaitSeconds,
    pollAfterMs: status.pollAfterMs,
    saleStartsAt: status.saleStartsAtMs > 0 ? new Date(status.saleStartsAtMs).toISOString() : null,
    commitment: status.commitment,
  };
  if (!ticket) {
    body.queueTicket = await signQueueTicket(settings, eventId, visitorId, now);
    setCookie(c, ticketCookie(eventId, isSecure(c.req.url)), body.queueTicket, cookieOptions(c.req.url, TICKET_TTL_S));
  }
  let admissionToken: string | null = null;
  if (status.admission) {
    admissionToken = await signAdmission(
      settings,
      { eventId, visitorId, expiresAtMs: status.admission.expiresAtMs, sessionId: String(status.admission.admittedAtMs) },
      now,
    );
    body.admissionToken = admissionToken;
    setCookie(
      c,
      admissionCookie(eventId, isSecure(c.req.url)),
      admissionToken,
      cookieOptions(c.req.url, (status.admission.expiresAtMs - now) / 1000),
    );
  }
  return { visitorId, status, body, admissionToken };
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

function statusHeaders(c: Context<AppEnv>, status: QueueStatus): void {
  c.header('cache-control', 'no-store');
  if (status.state !== 'admitted') c.header('retry-after', String(Math.ceil(status.pollAfterMs / 1000)));
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
  const turn = await takeTurn(c, eventId, await ticketOrNull(c, eventId), false);
  if (turn.admissionToken && turn.status.admission) {
    // Admitted on this very request: the visitor arrives now (not a no-show); serve the sale page
    // with the new cookies attached.
    const { admittedAtMs } = turn.status.admission;
    c.executionCtx.waitUntil(c.env.WAITING_ROOM.getByName(eventId).isActive(turn.visitorId, String(admittedAtMs)));
    const origin = await proxyToOrigin(c.req.raw, c.env, turn.admissionToken, {
      stripAuthorization: !getCookie(c, ticketCookie(eventId, isSecure(c.req.url))),
    });
    const res = new Response(origin.body, origin);
    for (const cookie of c.res.headers.getSetCookie()) res.headers.append('set-cookie', cookie);
    return res;
  }
  statusHeaders(c, turn.status);
  c.header('vary', 'Accept, Accept-Language, Cookie');
  if (wantsJson(c)) return c.json(turn.body);
  for (const [k, v] of Object.entries(await pageSecurityHeaders([WAITING_SCRIPT]))) c.header(k, v);
  return c.html(waitingPage(eventId, turn.body, pickLang(c.req.header('accept-language')), turn.status.page), turn.status.pageStatus);
});

/** Gateway-owned queue endpoints under `/_wr/events`. */
export const queueApi = new Hono<AppEnv>();

queueApi.post('/:eventId/join', async (c) => {
  const eventId = eventIdParam(c);
  const turn = await takeTurn(c, eventId, await ticketOrNull(c, eventId), true);
  statusHeaders(c, turn.status);
  return c.json(turn.body);
});

queueApi.get('/:eventId/status', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED', `join first: POST /_wr/events/${eventId}/join`);
  const turn = await takeTurn(c, eventId, ticket, false);
  statusHeaders(c, turn.status);
  return c.json(turn.body);
});

queueApi.post('/:eventId/leave', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED');
  const left = await c.env.WAITING_ROOM.getByName(eventId).leave(ticket.visitorId);
  forgetSessions(eventId, ticket.visitorId);
  deleteCookie(c, admissionCookie(eventId, isSecure(c.req.url)), { path: '/', secure: isSecure(c.req.url) });
  return c.json({ left });
});

queueApi.get('/:eventId/draw', async (c) => {
  const record = await c.env.WAITING_ROOM.getByName(eventIdParam(c)).drawRecord();
  if (!record) throw new GatewayError('NOT_FOUND', 'this event has no lottery');
  c.header('cache-control', record.drawn ? 'public, max-age=300' : 'public, max-age=10');
  return c.json({ algorithm: 'order entrants by SHA-256 hex of "<seed>:<visitorId>", ascending; ties by id', ...record });
});
