// Single sign-on through Cloudflare Access, offline: the team's key set is served by a fetch stub,
// assertions are signed in the test (right and wrong audience, expired, unknown key, no role).
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app';
import { ACCESS_CLOCK_TOLERANCE_S } from '../../src/lib/access-sso';
import { BASE, createEvent, freshEventId } from '../helpers/client';
import type { AuditEntry } from '../../contracts/organizer-access';

const TEAM = 'test-team.cloudflareaccess.com';
const ISSUER = `https://${TEAM}`;
const AUD = 'a'.repeat(64);
const CERTS = `${ISSUER}/cdn-cgi/access/certs`;
// The gateway with single sign-on configured; every binding else as in the other tests. (Own
// properties defined, not assigned: an assignment would reach the test env through its prototype.)
const ssoEnv = Object.create(env, {
  ACCESS_TEAM_DOMAIN: { value: TEAM },
  ACCESS_AUD: { value: AUD },
  ACCESS_ROLES: { value: 'ops-lead@example.com=operator, group:Ticketing admins=admin, *@example.com=viewer' },
}) as Env;
const app = createApp();

let signing: CryptoKey;
let stranger: CryptoKey;
let certsFetched = 0;

beforeAll(async () => {
  const current = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  signing = current.privateKey;
  stranger = other.privateKey;
  const jwks = { keys: [{ ...(await exportJWK(current.publicKey)), kid: 'current', alg: 'RS256', use: 'sig' }] };
  const real = globalThis.fetch;
  // Only the team's certs URL is answered here; nothing else in these tests leaves the Worker.
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== CERTS) return real(input, init);
    certsFetched++;
    return Response.json(jwks);
  });
});
afterAll(() => vi.restoreAllMocks());

/** An assertion as Access signs it: RS256, the team as `iss`, the application tag in `aud`. */
function assertion(claims: Record<string, unknown>, opts: { key?: CryptoKey; kid?: string; aud?: string; expS?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: 'ops-lead@example.com', type: 'app', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'current' })
    .setIssuer(ISSUER)
    .setAudience([opts.aud ?? AUD])
    .setIssuedAt(now - 60)
    .setExpirationTime(opts.expS ?? now + 3600)
    .sign(opts.key ?? signing);
}

async function call(path: string, token: string | null, init: RequestInit = {}, bindings: Env = ssoEnv) {
  const headers = new Headers(init.headers);
  if (token !== null) headers.set('cf-access-jwt-assertion', token);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}/_wr/admin${path}`, { ...init, headers }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('Cloudflare Access single sign-on', () => {
  it('maps a verified email to its role, and records the identity in the audit', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const token = await assertion({});
    expect((await call('/me', token)).body).toEqual({
      role: 'operator',
      actor: { kind: 'sso', id: 'ops-lead@example.com', label: 'ops-lead@example.com' },
    });
    expect((await call(`/events/${eventId}/pause`, token, { method: 'POST' })).status).toBe(200);
    const denied = await call(`/events/${eventId}`, token, {
      method: 'PATCH',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(denied.body).toMatchObject({ code: 'ROLE_REQUIRED', role: 'admin' });
    const entries = (await call(`/events/${eventId}/changes`, token)).body['entries'] as AuditEntry[];
    expect(entries.at(-1)).toMatchObject({ action: 'event.pause', actor: { kind: 'sso', id: 'ops-lead@example.com' } });
    expect(certsFetched).toBeGreaterThan(0);
  });

  it('gives the strongest role of every rule an identity matches: a group over a domain', async () => {
    const admin = await assertion({ email: 'dana@example.com', groups: ['Ticketing admins', 'Everyone'] });
    expect((await call('/me', admin)).body['role']).toBe('admin');
    const oidc = await assertion({ email: 'fin@example.com', custom: { groups: ['Ticketing admins'] } });
    expect((await call('/me', oidc)).body['role']).toBe('admin');
    expect((await call('/me', await assertion({ email: 'eve@example.com' }))).body['role']).toBe('viewer');
  });

  it('refuses an identity no rule names with 403 NO_ORGANIZER_ROLE', async () => {
    const res = await call('/events', await assertion({ email: 'someone@elsewhere.org' }));
    expect(res.status).toBe(403);
    expect(res.body['code']).toBe('NO_ORGANIZER_ROLE');
  });

  it.each([
    ['another application’s audience', () => assertion({}, { aud: 'b'.repeat(64) }), 401, 'ACCESS_TOKEN_INVALID'],
    ['a key the team never published', () => assertion({}, { key: stranger, kid: 'unknown' }), 401, 'ACCESS_TOKEN_INVALID'],
    ['a forged signature under the team’s key id', () => assertion({}, { key: stranger }), 401, 'ACCESS_TOKEN_INVALID'],
    [
      'an expiry past the clock tolerance',
      () => assertion({}, { expS: Math.floor(Date.now() / 1000) - ACCESS_CLOCK_TOLERANCE_S - 5 }),
      401,
      'ACCESS_TOKEN_EXPIRED',
    ],
    ['no email (a service token)', () => assertion({ email: undefined, common_name: 'svc' }), 401, 'ACCESS_TOKEN_INVALID'],
    ['a malformed header', async () => 'not.a.jwt', 401, 'ACCESS_TOKEN_INVALID'],
  ])('refuses an assertion with %s, changing nothing', async (_what, make, status, code) => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const res = await call(`/events/${eventId}/pause`, await make(), { method: 'POST' });
    expect(res.status).toBe(status);
    expect(res.body['code']).toBe(code);
    const entries = (await call(`/events/${eventId}/changes`, await assertion({}))).body['entries'] as AuditEntry[];
    expect(entries.map((e) => e.action)).toEqual(['event.create']);
  });

  it('ignores the header when single sign-on is not configured', async () => {
    const res = await call('/me', await assertion({}), {}, env);
    expect(res.status).toBe(401);
    expect(res.body['code']).toBe('UNAUTHORIZED');
  });
});
