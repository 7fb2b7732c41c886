// Who is calling the organizer API (ADMIN_TOKEN, a named key, or a Cloudflare Access identity),
// whether their role covers the route (src/lib/organizer-routes.ts), and the record of what they changed.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import { roleCovers, type AuditInput, type FieldChange, type KeyCheckAnswer, type Organizer } from '../../contracts/organizer-access';
import { DIRECTORY_NAME } from '../../contracts/names';
import { secretsEqual } from '../../contracts/hmac';
import { ACCESS_HEADER, accessKeySet, accessRole, accessSettings, verifyAccessAssertion } from '../lib/access-sso';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { hashKey, looksLikeKey } from '../lib/organizer-keys';
import { roleForRoute } from '../lib/organizer-routes';
import { gatewaySettings } from '../lib/settings';
import type { AppEnv } from '../types';

const unauthorized = (detail: string) => new GatewayError('UNAUTHORIZED', { detail });

/** The bearer token of `Authorization` (scheme case-insensitive, RFC 9110 section 11.1), or null. */
function bearer(header: string | undefined): string | null {
  if (!header || header.length < 8 || header[6] !== ' ' || header.slice(0, 6).toLowerCase() !== 'bearer') return null;
  return header.slice(7).trim() || null;
}

/**
 * The caller: a bearer ADMIN_TOKEN (admin), a bearer named key, or, with single sign-on
 * configured, a Cloudflare Access assertion mapped to a role.
 * @throws GatewayError UNAUTHORIZED (no or unknown credentials); KEY_REVOKED; ACCESS_TOKEN_INVALID /
 *   ACCESS_TOKEN_EXPIRED; NO_ORGANIZER_ROLE (a verified identity no ACCESS_ROLES rule names)
 */
async function identify(c: Context<AppEnv>, nowMs: number): Promise<Organizer> {
  const token = bearer(c.req.header('authorization'));
  if (token) {
    const { adminToken } = gatewaySettings(c.env);
    // An unset ADMIN_TOKEN is no bootstrap key; the compare takes the same time wherever the tokens differ.
    if (adminToken !== '' && (await secretsEqual(token, adminToken)))
      return { role: 'admin', actor: { kind: 'bootstrap', id: 'admin-token', label: 'ADMIN_TOKEN' } };
    if (!looksLikeKey(token)) throw unauthorized('the bearer token is neither ADMIN_TOKEN nor an organizer key');
    const keyHash = await hashKey(token);
    const cache = c.var.organizerKeys;
    let key = cache.get(keyHash, nowMs);
    if (!key) {
      const answer = await callDurableObject<KeyCheckAnswer>(
        async () => c.env.DIRECTORY.getByName(DIRECTORY_NAME).authenticateKey(keyHash),
        {
          idempotent: true,
          name: 'directory.authenticateKey',
        },
      );
      if (answer.kind === 'unknown') throw unauthorized('no such organizer key');
      if (answer.kind === 'revoked') throw new GatewayError('KEY_REVOKED', { detail: `organizer key ${answer.keyId} was revoked` });
      key = answer.key;
      cache.remember(keyHash, key, nowMs);
    }
    return { role: key.role, actor: { kind: 'key', id: key.keyId, label: key.label } };
  }
  const assertion = c.req.header(ACCESS_HEADER);
  const access = accessSettings(c.env);
  if (assertion && access) {
    const identity = await verifyAccessAssertion(assertion, access, accessKeySet(access), nowMs);
    const role = accessRole(access.rules, identity.email, identity.groups);
    if (!role) throw new GatewayError('NO_ORGANIZER_ROLE', { detail: `ACCESS_ROLES gives ${identity.email} no organizer role` });
    return { role, actor: { kind: 'sso', id: identity.email, label: identity.email } };
  }
  throw unauthorized(
    access
      ? 'send Authorization: Bearer <organizer key>, or sign in through Cloudflare Access'
      : 'send Authorization: Bearer <organizer key>',
  );
}

/**
 * Middleware for the organizer API: identifies the caller, and refuses a route their role does not
 * cover (ROLE_REQUIRED, 403, naming the role in `role`); sets `organizer`.
 */
export function organizerAuth() {
  return createMiddleware<AppEnv>(async function organizerAuth(c, next) {
    const organizer = await identify(c, Date.now());
    // The route that will answer: the last matched one that is not middleware.
    const route = matchedRoutes(c).findLast((r) => r.method !== 'ALL');
    const need = route ? roleForRoute(route.method, route.path) : 'viewer';
    if (!roleCovers(organizer.role, need)) {
      throw new GatewayError('ROLE_REQUIRED', {
        detail: `${route?.method ?? c.req.method} ${route?.path ?? ''} needs the ${need} role; this ${organizer.actor.kind === 'sso' ? 'identity' : 'key'} is ${organizer.role}`,
        extra: { role: need },
      });
    }
    c.set('organizer', organizer);
    await next();
  });
}

/** The request's id for the audit: Cloudflare's `cf-ray`, else a new random one. */
function requestId(c: Context<AppEnv>): string {
  const ray = c.req.header('cf-ray');
  return ray && ray.length <= 64 ? ray : crypto.randomUUID();
}

/** The audit entry of an organizer write by this request's caller. */
export function auditEntry(
  c: Context<AppEnv>,
  eventId: string,
  action: string,
  changes: FieldChange[],
): { entryKey: string; entry: AuditInput } {
  return { entryKey: crypto.randomUUID(), entry: { eventId, actor: c.var.organizer.actor, action, changes, requestId: requestId(c) } };
}

/**
 * Appends the audit entry of a write that succeeded (a refused write records nothing). Retried
 * like any idempotent call: the entry key makes a repeated append a no-op.
 */
export async function recordChange(c: Context<AppEnv>, eventId: string, action: string, changes: FieldChange[]): Promise<void> {
  const { entryKey, entry } = auditEntry(c, eventId, action, changes);
  await callDurableObject(async () => c.env.DIRECTORY.getByName(DIRECTORY_NAME).appendAudit(entryKey, entry), {
    idempotent: true,
    name: 'directory.appendAudit',
    ...(eventId ? { eventId } : {}),
  });
}
