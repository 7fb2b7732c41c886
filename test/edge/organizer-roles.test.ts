// Named organizer keys and roles: every organizer route against every role, the role table against
// the mounted app, and what a key's holder sees (created once, listed without secrets, revoked).
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { ORGANIZER_BASE, ORGANIZER_ROUTES, type OrganizerRoute } from '../../src/lib/organizer-routes';
import { ORGANIZER_ROLES, roleCovers } from '../../contracts/organizer-access';
import { createEvent, freshEventId } from '../helpers/client';
import { newKey, organizer } from '../helpers/organizer';

/** A concrete request for each route of the table (bodies are valid or not: the role is checked first). */
function requestFor(route: OrganizerRoute, eventId: string): { method: string; path: string; body?: unknown } {
  const [method, pattern] = route.split(' ') as [string, string];
  const path = pattern
    .replace(':eventId', eventId)
    .replace(':channelId', 'box-office')
    .replace(':allocationId', 'alloc-1')
    .replace(':keyId', '000000000000');
  const body = method === 'GET' || method === 'DELETE' ? undefined : route === 'POST /events/:eventId/rate' ? { fixedPerMinute: null } : {};
  return { method, path, ...(body === undefined ? {} : { body }) };
}

describe('organizer roles', () => {
  it('states a role for every mounted organizer route, and mounts every route of the table', () => {
    // The dashboard and console shells (`/_wr/admin/`, `/_wr/admin/console`) hold no data and sit outside the API.
    const mounted = createApp()
      .routes.filter(
        (r) =>
          r.method !== 'ALL' &&
          r.path.startsWith(`${ORGANIZER_BASE}/`) &&
          r.path !== `${ORGANIZER_BASE}/` &&
          r.path !== `${ORGANIZER_BASE}/console`,
      )
      .map((r) => `${r.method} ${r.path.slice(ORGANIZER_BASE.length)}`);
    expect(new Set(mounted)).toEqual(new Set(Object.keys(ORGANIZER_ROUTES)));
  });

  it('lets each role call exactly the routes its role covers, and answers 403 ROLE_REQUIRED naming the role otherwise', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    const keys = Object.fromEntries(await Promise.all(ORGANIZER_ROLES.map(async (r) => [r, (await newKey(r)).key] as const)));
    const table: string[] = [`${'route'.padEnd(52)} ${ORGANIZER_ROLES.map((r) => r.padEnd(9)).join('')}`];
    for (const route of Object.keys(ORGANIZER_ROUTES) as OrganizerRoute[]) {
      const need = ORGANIZER_ROUTES[route];
      const cells: string[] = [];
      for (const role of ORGANIZER_ROLES) {
        const { method, path, body } = requestFor(route, eventId);
        const res = await organizer(path, { method, body, token: keys[role]! });
        if (roleCovers(role, need)) {
          expect([401, 403], `${role} ${route}: ${res.text}`).not.toContain(res.status);
        } else {
          expect(res.status, `${role} ${route}`).toBe(403);
          expect(res.body).toMatchObject({ code: 'ROLE_REQUIRED', role: need });
        }
        cells.push(String(res.status).padEnd(9));
      }
      table.push(`${route.padEnd(52)} ${cells.join('')}`);
    }
    console.log(`organizer routes x roles (status per role; 403 = ROLE_REQUIRED):\n${table.join('\n')}`);
  });

  it('shows a key once, lists keys without secrets or hashes, and notes when each was last used', async () => {
    const created = await organizer('/keys', { method: 'POST', body: { label: 'Box office lead', role: 'viewer' } });
    expect(created.status).toBe(201);
    const key = created.body['key'] as string;
    expect(key).toMatch(/^wrk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({ label: 'Box office lead', role: 'viewer', lastUsedAt: null, revokedAt: null });
    expect((await organizer('/me', { token: key })).body).toMatchObject({
      role: 'viewer',
      actor: { kind: 'key', id: created.body['keyId'], label: 'Box office lead' },
    });
    const list = await organizer('/keys');
    expect(list.text).not.toContain(key.slice(17));
    const listed = (list.body['keys'] as Record<string, unknown>[]).find((k) => k['keyId'] === created.body['keyId'])!;
    expect(Object.keys(listed).sort()).toEqual(['createdAt', 'keyId', 'label', 'lastUsedAt', 'revokedAt', 'role']);
    expect(listed['lastUsedAt']).toEqual(expect.any(Number));
  });

  it('refuses a revoked key with KEY_REVOKED at once in the revoking isolate, and an unknown or malformed key with UNAUTHORIZED', async () => {
    const { keyId, key } = await newKey('operator');
    expect((await organizer('/events', { token: key })).status).toBe(200);
    const revoked = await organizer(`/keys/${keyId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(revoked.body['revokedAt']).toEqual(expect.any(Number));
    const after = await organizer('/events', { token: key });
    expect(after.status).toBe(401);
    expect(after.body['code']).toBe('KEY_REVOKED');
    const forged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [forged, 'wrk_not-a-key', `${env.ADMIN_TOKEN}x`, null]) {
      const res = await organizer('/events', { token });
      expect(res.status, String(token)).toBe(401);
      expect(res.body['code']).toBe('UNAUTHORIZED');
    }
    expect((await organizer('/keys/ffffffffffff', { method: 'DELETE' })).body['code']).toBe('KEY_NOT_FOUND');
    // A refused key changes nothing: an operator key cannot make an admin key.
    const { key: operator } = await newKey('operator');
    const escalate = await organizer('/keys', { method: 'POST', body: { label: 'mine', role: 'admin' }, token: operator });
    expect(escalate.body).toMatchObject({ code: 'ROLE_REQUIRED', role: 'admin' });
  });
});
