// Reading the visitor's queue ticket and admission token from cookies (browsers) or headers (apps).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { admissionCookie, isSecure, readCookie, ticketCookie } from '../lib/cookies';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { ADMISSION_HEADER } from '../../contracts/names';
import { readCursor } from '../lib/cursor-cache';
import { leftRecently, rememberActiveSession, sessionRecentlyActive } from '../lib/session-cache';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { lookUpSession, sessionTag } from '../../contracts/queue/ended-sessions';
import { tokenSettings, verifyToken, type VisitorClaims } from '../lib/token';
import { eventIdParam, type AppEnv } from '../types';

/**
 * What reading credentials needs of a request: its header fields, its URL, the Worker's bindings
 * and `waitUntil`. A Hono Context gives it (`fromContext`); so does a raw request on the admitted
 * fast path (src/routes/admitted.ts), which answers without building a Context.
 */
export interface CredentialRequest {
  /** A request header field, or undefined when absent. */
  header(name: string): string | undefined;
  url: string;
  env: Env;
  waitUntil(p: Promise<unknown>): void;
}

/** The CredentialRequest of a Hono Context. */
export function fromContext(c: Context<AppEnv>): CredentialRequest {
  return { header: (name) => c.req.header(name), url: c.req.url, env: c.env, waitUntil: (p) => c.executionCtx.waitUntil(p) };
}

/**
 * The raw queue ticket: the cookie (browsers), else `Authorization: Bearer` (apps). The cookie
 * wins, so an `Authorization` header meant for the origin never replaces a browser's ticket.
 */
function rawTicket(
  r: CredentialRequest,
  eventId: string,
  cookies = r.header('cookie'),
): { token: string; fromBearer: boolean } | undefined {
  const cookie = strictCookie(cookies, ticketCookie(eventId, isSecure(r.url)));
  if (cookie) return { token: cookie, fromBearer: false };
  // The auth scheme is case-insensitive (RFC 9110 section 11.1): `bearer` is as good as `Bearer`.
  const auth = r.header('authorization');
  if (auth && auth.length > 7 && auth[6] === ' ' && auth.slice(0, 6).toLowerCase() === 'bearer')
    return { token: auth.slice(7).trim(), fromBearer: true };
  return undefined;
}

/** The raw admission token: cookie for browsers, `X-Admission-Token` for apps. */
function rawAdmission(r: CredentialRequest, eventId: string, cookies: string | undefined): string | undefined {
  return r.header(ADMISSION_HEADER) ?? strictCookie(cookies, admissionCookie(eventId, isSecure(r.url)));
}

/**
 * One credential cookie of a Cookie header. Two of the same name make it ambiguous (a planted
 * cookie beside ours):
 * @throws GatewayError TOKEN_INVALID
 */
function strictCookie(cookies: string | undefined, name: string): string | undefined {
  const value = readCookie(cookies, name);
  if (typeof value === 'object') throw new GatewayError('TOKEN_INVALID', { detail: `two cookies named ${name} were sent` });
  return value;
}

/**
 * The verified queue ticket, or null when none was sent.
 * @throws GatewayError TOKEN_INVALID / TOKEN_EXPIRED when one was sent but does not verify
 */
export async function readTicket(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<VisitorClaims | null> {
  const raw = rawTicket(fromContext(c), eventId);
  return raw ? verifyToken(tokenSettings(c.env), 'ticket', raw.token, eventId, nowMs) : null;
}

/** A verified admission: its claims, the raw token, and whether the ticket came as a bearer token. */
export interface Admission {
  claims: VisitorClaims;
  token: string;
  ticketFromBearer: boolean;
}

/**
 * The verified admission of this visitor. An admission token counts only together with the queue
 * ticket it names (same subject, same event), so a token copied to another browser is useless, and
 * only while its session is active (`checkSession`), so leaving ends it before `exp`.
 *
 * @throws GatewayError ADMISSION_REQUIRED when absent; TOKEN_EXPIRED / TOKEN_INVALID when it does
 *   not verify; SESSION_ENDED when the visitor left or was admitted again since
 */
export async function readAdmission(r: CredentialRequest, eventId: string, nowMs: number): Promise<Admission> {
  // Read once for both credentials: each read copies the whole header out of the runtime.
  const cookies = r.header('cookie');
  const token = rawAdmission(r, eventId, cookies);
  if (!token) throw new GatewayError('ADMISSION_REQUIRED', { detail: 'wait in the queue for your turn first' });
  const settings = tokenSettings(r.env);
  const claims = await verifyToken(settings, 'admission', token, eventId, nowMs);
  const raw = rawTicket(r, eventId, cookies);
  const ticket = raw ? await verifyToken(settings, 'ticket', raw.token, eventId, nowMs) : null;
  if (!ticket || ticket.visitorId !== claims.visitorId) {
    throw new GatewayError('TOKEN_INVALID', { detail: 'the admission token does not belong to this visitor' });
  }
  await checkSession(r, eventId, claims.visitorId, claims.sessionId!, nowMs);
  return { claims, token, ticketFromBearer: raw!.fromBearer };
}

/**
 * The session check: a session the gateway signed is active until its `exp` unless the WaitingRoom
 * ended it early (a leave, an origin's revoke, a re-admission). The edge reads those ends from the
 * admission cursor it caches anyway (contracts/queue/ended-sessions.ts; at most CURSOR_MAX_STALE_MS
 * old), so an admitted visitor's request costs no object call. It asks the WaitingRoom itself
 * (`isActive`) only when the list names the session, when the visitor left through this isolate
 * within LEFT_HERE_MS (its cursor may predate the leave), or when the cursor has no complete list
 * (more than ENDED_SESSIONS_MAX ends, or an older room; then, as before the list, a confirmation is
 * trusted for SESSION_CACHE_MS). A leave thus ends the admission at once in the isolate that
 * handled it and within CURSOR_MAX_STALE_MS (2 s) everywhere.
 *
 * @param sessionId the admission's `sid` (its admission time, epoch ms, as a string)
 * @throws GatewayError SESSION_ENDED when the session ended (or the event no longer exists);
 *   OVERLOADED when the WaitingRoom is (see do-call.ts)
 */
async function checkSession(r: CredentialRequest, eventId: string, visitorId: string, sessionId: string, nowMs: number): Promise<void> {
  const room = () => r.env.WAITING_ROOM.getByName(eventId);
  const cursor = await readCursor(
    eventId,
    nowMs,
    async () => (await room().cursor()) as AdmissionCursor | null,
    (p) => r.waitUntil(p),
  );
  if (!cursor) throw new GatewayError('SESSION_ENDED', { detail: 'this event has no waiting room any more' });
  const seen = lookUpSession(cursor.endedSessions, sessionTag(visitorId, sessionId));
  const left = leftRecently(eventId, visitorId, nowMs);
  if (seen === 'unlisted' && !left) return;
  // Only a complete list is fresher than a confirmation: with it, a listed session is asked anew.
  const cached = seen === 'unknown' && !left;
  if (cached && sessionRecentlyActive(eventId, visitorId, sessionId, nowMs)) return;
  const active = await callDurableObject(() => room().isActive(visitorId, sessionId), {
    idempotent: true,
    name: 'waitingRoom.isActive',
    eventId,
  });
  if (!active) throw new GatewayError('SESSION_ENDED', { detail: 'this admission has ended; join the queue again' });
  if (cached) rememberActiveSession(eventId, visitorId, sessionId, nowMs);
}

/** Middleware for `/:eventId/...` routes that only admitted visitors may use; sets `admission`. */
export function requireAdmission() {
  return createMiddleware<AppEnv>(async function requireAdmission(c, next) {
    const { claims } = await readAdmission(fromContext(c), eventIdParam(c), Date.now());
    c.set('admission', claims);
    await next();
  });
}
