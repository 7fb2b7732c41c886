// Admission tokens: forged, tampered, expired, wrong-event and wrong-kind tokens are refused.
import { SignJWT, importJWK } from 'jose';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { admissionCookie, ticketCookie } from '../../src/lib/cookies';
import { signAdmission, signQueueTicket, tokenSettings, verifyToken } from '../../src/lib/token';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { inventoryStats } from '../helpers/inventory';

const settings = tokenSettings(env);

/** Swaps the visitor's admission cookie for `token` and asks for the seat map. */
async function seatsWith(v: Visitor, eventId: string, token: string) {
  v.cookies.set(admissionCookie(eventId, true), token);
  return v.json(`/_wr/events/${eventId}/seats`);
}

/** The decoded payload of a JWT (base64url, no verification). */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

async function forge(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const jwk = JSON.parse(env.ADMISSION_SIGNING_JWK) as Record<string, unknown>;
  const key = await importJWK(jwk, 'ES256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: jwk.kid as string, typ: 'wr-admission+jwt', ...header }).sign(key);
}

describe('admission token checks', () => {
  it('accepts the genuine token and refuses a tampered one with 401 TOKEN_INVALID', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const genuine = v.cookies.get(admissionCookie(eventId, true))!;
    expect((await seatsWith(v, eventId, genuine)).status).toBe(200);

    const [h, , s] = genuine.split('.');
    const payload = claimsOf(genuine);
    const tamperedPayload = btoa(JSON.stringify({ ...payload, exp: (payload.exp as number) + 3600 }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const tampered = await seatsWith(v, eventId, `${h}.${tamperedPayload}.${s}`);
    expect(tampered.status).toBe(401);
    expect(tampered.body).toMatchObject({ code: 'TOKEN_INVALID', status: 401 });
  });

  it('refuses an expired token with 401 TOKEN_EXPIRED, apart from invalid ones', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const visitorId = (await verifyToken(settings, 'ticket', v.cookies.get(ticketCookie(eventId, true))!, eventId, Date.now())).visitorId;
    const now = Date.now();
    const expired = await signAdmission(settings, { eventId, visitorId, expiresAtMs: now - 60_000, sessionId: '1' }, now - 600_000);
    const res = await seatsWith(v, eventId, expired);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TOKEN_EXPIRED');
  });

  it("refuses another event's token, a queue ticket posing as admission, alg none and another visitor's token", async () => {
    const eventId = freshEventId();
    const otherEvent = freshEventId();
    await createEvent(eventId);
    await createEvent(otherEvent);
    const v = await admittedVisitor(eventId);
    const ticket = v.cookies.get(ticketCookie(eventId, true))!;
    const visitorId = (await verifyToken(settings, 'ticket', ticket, eventId, Date.now())).visitorId;
    const now = Date.now();

    const wrongEvent = await signAdmission(settings, { eventId: otherEvent, visitorId, expiresAtMs: now + 60_000, sessionId: '1' }, now);
    const ticketAsAdmission = await signQueueTicket(settings, eventId, visitorId, { bucket: 0, idx: 0, shard: 0 }, now);
    const unsigned = `${btoa(JSON.stringify({ alg: 'none', typ: 'wr-admission+jwt' })).replace(/=+$/, '')}.${btoa(
      JSON.stringify({ iss: 'waiting-room-gateway', aud: eventId, sub: visitorId, jti: 'x', iat: 1, exp: 9_999_999_999 }),
    ).replace(/=+$/, '')}.`;
    const someoneElse = await signAdmission(
      settings,
      { eventId, visitorId: crypto.randomUUID(), expiresAtMs: now + 60_000, sessionId: '1' },
      now,
    );
    const noJti = await forge({
      iss: 'waiting-room-gateway',
      aud: eventId,
      sub: visitorId,
      iat: Math.floor(now / 1000),
      exp: Math.floor(now / 1000) + 60,
    });

    for (const token of [wrongEvent, ticketAsAdmission, unsigned, someoneElse, noJti, 'garbage']) {
      const res = await seatsWith(v, eventId, token);
      expect(res.status, token.slice(0, 40)).toBe(401);
      expect(res.body.code).toBe('TOKEN_INVALID');
    }
  });

  it('refuses holds without an admission token and never reaches the inventory', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = new Visitor();
    await v.fetch(`/events/${eventId}/`);
    const res = await v.hold(eventId, ['A1']);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('ADMISSION_REQUIRED');
    const stats = await inventoryStats(env.INVENTORY.getByName(eventId));
    expect(Object.values(stats!.holds).every((n) => n === 0)).toBe(true);
  });

  it('publishes only public keys in the JWKS', async () => {
    const res = await new Visitor().fetch('/.well-known/jwks.json');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(k.d).toBeUndefined();
    }
  });

  it('ends an admission when the visitor leaves: a copy of the old token gets 401 SESSION_ENDED', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const copy = new Visitor();
    for (const [k, val] of v.cookies) copy.cookies.set(k, val);
    await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' });
    // Leaving drops both cookies; a copy of them made before is useless.
    expect(v.cookies.get(admissionCookie(eventId, true))).toBe('');
    const res = await copy.json(`/_wr/events/${eventId}/seats`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SESSION_ENDED');
    // On the sale URL the visitor is simply back in line, at the back.
    const back = await v.json<{ state: string }>(`/events/${eventId}/`);
    expect(back.body.state).toBe('waiting');
  });

  it("keeps a browser's place when it also sends an Authorization header meant for the origin", async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const res = await v.fetch(`/events/${eventId}/`, { headers: { authorization: 'Bearer origin-session-abc' } });
    expect(await res.text()).toContain('id="sale-data"');
  });
});

describe('cookies and forged tokens', () => {
  it('treats two cookies of the same name as invalid, whatever their order', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const name = admissionCookie(eventId, true);
    const genuine = v.cookies.get(name)!;
    const others = [...v.cookies].filter(([k]) => k !== name).map(([k, val]) => `${k}=${val}`);
    for (const cookie of [
      [`${name}=${genuine}`, `${name}=planted`],
      [`${name}=planted`, `${name}=${genuine}`],
    ]) {
      const res = await exports.default.fetch(
        new Request(`${BASE}/_wr/events/${eventId}/seats`, { headers: { cookie: [...others, ...cookie].join('; ') } }),
      );
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('TOKEN_INVALID');
    }
  });

  it('uses bare cookie names over plain HTTP (local development), __Host- names over HTTPS', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const res = await exports.default.fetch(new Request(`http://localhost:8787/events/${eventId}/`));
    const line = res.headers.getSetCookie()[0]!;
    expect(line.startsWith(`__wr_t_${eventId}=`)).toBe(true);
    expect(line).not.toContain('Secure');
    // Anywhere but localhost, plain HTTP still gets __Host- names and Secure (browsers drop them).
    const prod = await exports.default.fetch(new Request(`http://tickets.example/events/${eventId}/`));
    expect(prod.headers.getSetCookie()[0]!.startsWith(`__Host-wr_t_${eventId}=`)).toBe(true);
    expect(prod.headers.getSetCookie()[0]).toContain('Secure');
  });

  it.each([
    ['alg none (lower case)', { alg: 'none' }],
    ['alg None', { alg: 'None' }],
    ['alg NONE', { alg: 'NONE' }],
  ])('refuses %s with 401', async (_name, header) => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const claims = claimsOf(v.cookies.get(admissionCookie(eventId, true))!) as object;
    const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    for (const sig of ['', 'AAAA']) {
      const res = await seatsWith(v, eventId, `${b64({ ...header, typ: 'wr-admission+jwt' })}.${b64(claims)}.${sig}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('TOKEN_INVALID');
    }
  });

  it('refuses an HS256 token keyed with the public key, an empty signature, and a not-yet-valid token', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const genuine = v.cookies.get(admissionCookie(eventId, true))!;
    const claims = claimsOf(genuine);
    const jwk = JSON.parse(env.ADMISSION_SIGNING_JWK) as Record<string, string>;
    const publicJson = new TextEncoder().encode(JSON.stringify({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }));
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: jwk.kid!, typ: 'wr-admission+jwt' }).sign(publicJson);
    const now = Math.floor(Date.now() / 1000);
    const future = await forge({ ...claims, nbf: now + 600 });
    for (const token of [hs, `${genuine.split('.').slice(0, 2).join('.')}.`, future]) {
      const res = await seatsWith(v, eventId, token);
      expect(res.status, token.slice(0, 30)).toBe(401);
      expect(res.body.code).toBe('TOKEN_INVALID');
    }
  });
});

describe('token lifetime', () => {
  it('refuses an admission token issued more than two hours ago, even with a far exp', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const claims = claimsOf(v.cookies.get(admissionCookie(eventId, true))!) as Record<string, number>;
    const now = Math.floor(Date.now() / 1000);
    const old = await forge({ ...claims, iat: now - 3 * 3600, exp: now + 3600 });
    const res = await seatsWith(v, eventId, old);
    expect(res.status).toBe(401);
  });
});
