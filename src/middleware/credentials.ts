// Reading the visitor's queue ticket and admission token from cookies (browsers) or headers (apps).
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { getCookie } from 'hono/cookie';
import { admissionCookie, ticketCookie } from '../lib/cookies';
import { GatewayError } from '../lib/errors';
import { ADMISSION_HEADER } from '../lib/proxy';
import { tokenSettings, verifyToken, type VisitorClaims } from '../lib/token';
import { eventIdParam, type AppEnv } from '../types';

/** Variables set by `requireAdmission`. */
export interface AdmissionVariables {
  /** The admitted visitor; `visitorId` is the account used for seat holds. */
  admission: VisitorClaims;
}

/** The raw queue ticket: cookie for browsers, `Authorization: Bearer` for apps. */
export function rawTicket(c: Context<AppEnv>, eventId: string): string | undefined {
  const auth = c.req.header('authorization');
  if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
  return getCookie(c, ticketCookie(eventId));
}

/** The raw admission token: cookie for browsers, `X-Admission-Token` for apps. */
export function rawAdmission(c: Context<AppEnv>, eventId: string): string | undefined {
  return c.req.header(ADMISSION_HEADER) ?? getCookie(c, admissionCookie(eventId));
}

/**
 * The verified queue ticket, or null when none was sent.
 * @throws GatewayError TOKEN_INVALID / TOKEN_EXPIRED when one was sent but does not verify
 */
export async function readTicket(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<VisitorClaims | null> {
  const raw = rawTicket(c, eventId);
  return raw ? verifyToken(tokenSettings(c.env), 'ticket', raw, eventId, nowMs) : null;
}

/**
 * The verified admission of this visitor. An admission token counts only together with the queue
 * ticket it names (same subject, same event), so a token copied to another browser is useless.
 *
 * @throws GatewayError ADMISSION_REQUIRED when absent; TOKEN_EXPIRED / TOKEN_INVALID otherwise
 */
export async function readAdmission(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<{ claims: VisitorClaims; token: string }> {
  const token = rawAdmission(c, eventId);
  if (!token) throw new GatewayError('ADMISSION_REQUIRED', 'wait in the queue for your turn first');
  const claims = await verifyToken(tokenSettings(c.env), 'admission', token, eventId, nowMs);
  const ticket = await readTicket(c, eventId, nowMs);
  if (!ticket || ticket.visitorId !== claims.visitorId) {
    throw new GatewayError('TOKEN_INVALID', 'the admission token does not belong to this visitor');
  }
  return { claims, token };
}

/** Middleware for `/:eventId/...` routes that only admitted visitors may use; sets `admission`. */
export function requireAdmission() {
  return createMiddleware<AppEnv>(async function requireAdmission(c, next) {
    const { claims } = await readAdmission(c, eventIdParam(c), Date.now());
    c.set('admission', claims);
    await next();
  });
}
