// Reading the visitor's queue ticket and admission token from cookies (browsers) or headers (apps).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { admissionCookie, isSecure, readCookie, ticketCookie } from '../lib/cookies';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { ADMISSION_HEADER } from '../../contracts/names';
import { rememberActiveSession, sessionRecentlyActive } from '../lib/session-cache';
import { tokenSettings, verifyToken, type VisitorClaims } from '../lib/token';
import { eventIdParam, type AppEnv } from '../types';

/**
 * The raw queue ticket: the cookie (browsers), else `Authorization: Bearer` (apps). The cookie
 * wins, so an `Authorization` header meant for the origin never replaces a browser's ticket.
 */
export function rawTicket(c: Context<AppEnv>, eventId: string): { token: string; fromBearer: boolean } | undefined {
  const cookie = strictCookie(c, ticketCookie(eventId, isSecure(c.req.url)));
  if (cookie) return { token: cookie, fromBearer: false };
  // The auth scheme is case-insensitive (RFC 9110 section 11.1): `bearer` is as good as `Bearer`.
  const auth = c.req.header('authorization');
  if (auth && auth.length > 7 && auth[6] === ' ' && auth.slice(0, 6).toLowerCase() === 'bearer')
    return { token: auth.slice(7).trim(), fromBearer: true };
  return undefined;
}

/** The raw admission token: cookie for browsers, `X-Admission-Token` for apps. */
export function rawAdmission(c: Context<AppEnv>, eventId: string): string | undefined {
  return c.req.header(ADMISSION_HEADER) ?? strictCookie(c, admissionCookie(eventId, isSecure(c.req.url)));
}

/**
 * One credential cookie. Two of the same name make it ambiguous (a planted cookie beside ours):
 * @throws GatewayError TOKEN_INVALID
 */
function strictCookie(c: Context<AppEnv>, name: string): string | undefined {
  const value = readCookie(c.req.header('cookie'), name);
  if (typeof value === 'object') throw new GatewayError('TOKEN_INVALID', { detail: `two cookies named ${name} were sent` });
  return value;
}

/**
 * The verified queue ticket, or null when none was sent.
 * @throws GatewayError TOKEN_INVALID / TOKEN_EXPIRED when one was sent but does not verify
 */
export async function readTicket(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<VisitorClaims | null> {
  const raw = rawTicket(c, eventId);
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
 * only while its session is active in the WaitingRoom (asked at most every SESSION_CACHE_MS per
 * isolate), so leaving ends it before `exp`.
 *
 * @throws GatewayError ADMISSION_REQUIRED when absent; TOKEN_EXPIRED / TOKEN_INVALID when it does
 *   not verify; SESSION_ENDED when the visitor left or was admitted again since
 */
export async function readAdmission(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<Admission> {
  const token = rawAdmission(c, eventId);
  if (!token) throw new GatewayError('ADMISSION_REQUIRED', { detail: 'wait in the queue for your turn first' });
  const claims = await verifyToken(tokenSettings(c.env), 'admission', token, eventId, nowMs);
  const raw = rawTicket(c, eventId);
  const ticket = raw ? await verifyToken(tokenSettings(c.env), 'ticket', raw.token, eventId, nowMs) : null;
  if (!ticket || ticket.visitorId !== claims.visitorId) {
    throw new GatewayError('TOKEN_INVALID', { detail: 'the admission token does not belong to this visitor' });
  }
  const sessionId = claims.sessionId!;
  if (!sessionRecentlyActive(eventId, claims.visitorId, sessionId, nowMs)) {
    const active = await callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).isActive(claims.visitorId, sessionId), {
      idempotent: true,
      name: 'waitingRoom.isActive',
      eventId,
    });
    if (!active) {
      throw new GatewayError('SESSION_ENDED', { detail: 'this admission has ended; join the queue again' });
    }
    rememberActiveSession(eventId, claims.visitorId, sessionId, nowMs);
  }
  return { claims, token, ticketFromBearer: raw!.fromBearer };
}

/** Middleware for `/:eventId/...` routes that only admitted visitors may use; sets `admission`. */
export function requireAdmission() {
  return createMiddleware<AppEnv>(async function requireAdmission(c, next) {
    const { claims } = await readAdmission(c, eventIdParam(c), Date.now());
    c.set('admission', claims);
    await next();
  });
}
