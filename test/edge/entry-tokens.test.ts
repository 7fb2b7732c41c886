// Entry tokens through the gateway in workerd: one place and one lottery entry per account however
// many browsers it uses, the browser and app paths, every bad token refused with nothing changed,
// anonymous tickets from before the requirement, and the organizer's sign-in URL rule.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { SignJWT, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { signEntryToken } from '../../origin-sdk/src/entry';
import { shardName } from '../../contracts/names';
import { verifyDraw, type DrawRecord } from '../../contracts/queue/queue-policy';
import { ticketCookie } from '../../src/lib/cookies';
import { Visitor, createEvent, freshEventId, tick } from '../helpers/client';
import { QueueHarness } from '../helpers/queue';

const ENTRY = { require: 'account', signInUrl: '/login', lanes: [{ lane: 'presale', releaseSharePercent: 50 }] };

/** A token as the origin would sign it after a sign-in. */
const entryToken = (eventId: string, account: string, o: { lane?: string; ttlS?: number; nowMs?: number } = {}) =>
  signEntryToken(
    { account, eventId, ttlS: o.ttlS ?? 120, ...(o.lane ? { lane: o.lane } : {}), ...(o.nowMs ? { nowMs: o.nowMs } : {}) },
    env.ORIGIN_HMAC_SECRET,
  );

/** The rows of the event's (single) queue shard: every place it handed out. */
const shardRows = (eventId: string) =>
  runInDurableObject(env.QUEUE_SHARD.getByName(shardName(eventId, 0)), (_o, s) =>
    s.storage.sql
      .exec<{ visitor_id: string; pre: number; bucket: number; idx: number }>('SELECT visitor_id, pre, bucket, idx FROM qs_visitors')
      .toArray(),
  );

/** The claims of a queue ticket (base64url payload, not verified: the gateway signed it). */
const claimsOf = (jwt: string) =>
  JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string; pl: unknown };

/** An app's join with an entry token. */
const appJoin = (eventId: string, token: string, v = new Visitor()) =>
  v.json<{ state: string; queueTicket?: string; position: number | null; code?: string; signInUrl?: string }>(
    `/_wr/events/${eventId}/join`,
    {
      method: 'POST',
      headers: { 'x-entry-token': token },
    },
  );

describe('an event that requires an entry token', () => {
  it('gives a visitor without one no place: JSON says where to sign in, a browser gets the sign-in page', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId, { entry: ENTRY })).status).toBe(201);
    const json = await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(json.status).toBe(401);
    expect(json.body).toMatchObject({ code: 'ENTRY_REQUIRED', signInUrl: '/login' });
    const res = await new Visitor().fetch(`/events/${eventId}/seats?x=1`, { headers: { accept: 'text/html', 'accept-language': 'ja' } });
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
    const html = await res.text();
    expect(html).toContain('ログインして列に並ぶ');
    expect(html).toContain(`href="/login?wr_return=%2Fevents%2F${eventId}%2Fseats%3Fx%3D1"`);
    expect(await shardRows(eventId)).toEqual([]);
  });

  it('takes a browser back from signing in: a place, then a 303 to the same URL without the token', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    const v = new Visitor();
    const res = await v.fetch(`/events/${eventId}/?lang=es&wr_entry=${await entryToken(eventId, 'fan@example.com')}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/events/${eventId}/?lang=es`);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(v.cookies.has(ticketCookie(eventId, true))).toBe(true);
    const page = await v.fetch(`/events/${eventId}/?lang=es`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="headline"');
    expect(await shardRows(eventId)).toHaveLength(1);
  });

  // The room matched `//evil.example/..%2Fevents/<id>/` (the matching
  // normal form) and the 303 went to `//evil.example/...`, another site; `//events/<id>/` to host "events".
  it('redirects back from signing in only within the site, and returns there, whatever the path’s leading slashes', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    for (const [path, location] of [
      [`//evil.example/..%2Fevents/${eventId}/`, `/evil.example/..%2Fevents/${eventId}/`],
      [`//events/${eventId}/`, `/events/${eventId}/`],
      [`/%5C/events/${eventId}/`, `/%5C/events/${eventId}/`],
    ] as const) {
      const res = await new Visitor().fetch(`${path}?wr_entry=${await entryToken(eventId, 'fan@example.com')}`, { redirect: 'manual' });
      expect([res.status, res.headers.get('location')], path).toEqual([303, location]);
    }
    const signIn = await new Visitor().fetch(`//evil.example/..%2Fevents/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(await signIn.text()).toContain(`wr_return=%2Fevil.example%2F..%252Fevents%2F${eventId}%2F"`);
  });

  it('gives a second browser of the same account the same place, and a second account its own', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    const first = await appJoin(eventId, await entryToken(eventId, 'fan@example.com'));
    const second = await appJoin(eventId, await entryToken(eventId, 'fan@example.com'));
    const other = await appJoin(eventId, await entryToken(eventId, 'someone@example.com'));
    for (const r of [first, second, other]) expect(r.status).toBe(200);
    const [a, b, c] = [first, second, other].map((r) => claimsOf(r.body.queueTicket!));
    expect(b).toMatchObject({ sub: a!.sub, pl: a!.pl });
    expect(a!.sub).toMatch(/^acct-[0-9a-f]{32}$/);
    expect(c!.sub).not.toBe(a!.sub);
    expect(await shardRows(eventId)).toHaveLength(2);
    // The app polls with its bearer ticket alone, no token needed any more.
    const status = await new Visitor().json(`/_wr/events/${eventId}/status`, {
      headers: { authorization: `Bearer ${first.body.queueTicket}` },
    });
    expect(status).toMatchObject({ status: 200, body: { state: 'waiting' } });
  });

  it('a bot with one account and 1,000 cookie jars gets 1 place and 1 lottery entry; the draw publishes the hashed id and verifies', async () => {
    const eventId = freshEventId();
    const start = Date.now() + 3_600_000;
    await createEvent(eventId, { entry: ENTRY, policy: 'random', saleStartsAt: new Date(start).toISOString() });
    const tickets = new Set<string>();
    for (let jar = 0; jar < 1000; jar++) {
      const r = await appJoin(eventId, await entryToken(eventId, 'bot@example.com'));
      expect(r.status).toBe(200);
      tickets.add(claimsOf(r.body.queueTicket!).sub);
    }
    // Two honest accounts enter too.
    for (const account of ['ana@example.com', 'bo@example.com']) await appJoin(eventId, await entryToken(eventId, account));
    expect(tickets.size).toBe(1);
    const rows = await shardRows(eventId);
    expect(rows).toHaveLength(3);
    expect(rows.filter((r) => r.visitor_id === [...tickets][0])).toHaveLength(1);
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.waiting).toBe(3);
    // The draw at sale start: the published entrants are the hashed ids, and verify-draw recomputes the order.
    await new QueueHarness(eventId).tick(start + 1);
    const record = (await new Visitor().json<DrawRecord>(`/_wr/events/${eventId}/draw?format=json`)).body;
    expect(record.drawn).toBe(true);
    expect(record.entrants).toHaveLength(3);
    expect(record.entrants).toContain([...tickets][0]);
    for (const id of record.entrants!) expect(id).toMatch(/^acct-[0-9a-f]{32}$/);
    expect(JSON.stringify(record)).not.toContain('example.com');
    expect(await verifyDraw(record)).toEqual([]);
  });

  it('refuses every bad token with its own 4xx code and changes no place', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    const used = await entryToken(eventId, 'fan@example.com');
    expect((await appJoin(eventId, used)).status).toBe(200);
    const before = await shardRows(eventId);
    const otherEvent = freshEventId();
    await createEvent(otherEvent, { entry: ENTRY });
    const forged = await signEntryToken({ account: 'fan@example.com', eventId, ttlS: 60 }, 'not-the-origin-secret');
    // Genuine (the origin's secret) but for both events at once: one sign-in, a place in each.
    const nowS = Math.floor(Date.now() / 1000);
    const bothEvents = await new SignJWT({
      iss: 'waiting-room-origin',
      aud: [eventId, otherEvent],
      sub: 'two@example.com',
      jti: crypto.randomUUID(),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'wr-entry+jwt' })
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 60)
      .sign(new TextEncoder().encode(env.ORIGIN_HMAC_SECRET));
    const cases: [string, string, number, string][] = [
      ['replayed (another browser)', used, 409, 'ENTRY_TOKEN_USED'],
      ['expired', await entryToken(eventId, 'late@example.com', { ttlS: 60, nowMs: Date.now() - 120_000 }), 401, 'ENTRY_TOKEN_EXPIRED'],
      ['forged', forged, 401, 'ENTRY_TOKEN_INVALID'],
      ['for another event', await entryToken(otherEvent, 'fan@example.com'), 403, 'ENTRY_TOKEN_OTHER_EVENT'],
      ['for this event and another (aud a list)', bothEvents, 401, 'ENTRY_TOKEN_INVALID'],
      ['malformed', 'eyJhbGciOiJIUzI1NiJ9.e30', 401, 'ENTRY_TOKEN_INVALID'],
      ['an unknown lane', await entryToken(eventId, 'vip@example.com', { lane: 'vip' }), 403, 'LANE_NOT_CONFIGURED'],
    ];
    for (const [name, token, status, code] of cases) {
      const r = await appJoin(eventId, token);
      expect({ name, status: r.status, code: r.body.code, signInUrl: r.body.signInUrl }).toEqual({
        name,
        status,
        code,
        signInUrl: '/login',
      });
      // The browser path: the sign-in page with the same status, and no cookie.
      const page = await new Visitor().fetch(`/events/${eventId}/?wr_entry=${encodeURIComponent(token)}`, { redirect: 'manual' });
      expect(page.status, name).toBe(status);
      expect(page.headers.getSetCookie(), name).toEqual([]);
    }
    // The token naming both events gets no place at the other one either.
    expect((await appJoin(otherEvent, bothEvents)).body.code).toBe('ENTRY_TOKEN_INVALID');
    expect(await shardRows(eventId)).toEqual(before);
    expect(await shardRows(otherEvent)).toEqual([]);
  });

  it('verifies tokens with the origin’s own keys when the event names its JWKS path (fetched from the origin), and then refuses HS256', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: { ...ENTRY, jwksPath: '/.well-known/entry-jwks.json' } });
    const jwk = JSON.parse(env.TEST_ENTRY_SIGNING_JWK) as JWK;
    const key = await importJWK(jwk, 'ES256');
    const es256 = (kid: string) =>
      new SignJWT({ iss: 'waiting-room-origin', aud: eventId, sub: 'fan@example.com', jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', typ: 'wr-entry+jwt', kid })
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(key);
    expect((await appJoin(eventId, await es256(jwk.kid!))).status).toBe(200);
    expect((await appJoin(eventId, await es256('unknown-kid'))).body.code).toBe('ENTRY_TOKEN_INVALID');
    expect((await appJoin(eventId, await entryToken(eventId, 'fan@example.com'))).body.code).toBe('ENTRY_TOKEN_INVALID');
    // A path the origin does not serve: the keys cannot be had, 503, no place.
    const missing = freshEventId();
    await createEvent(missing, { entry: { ...ENTRY, jwksPath: '/no-such-jwks.json' } });
    const down = await appJoin(missing, await es256(jwk.kid!));
    expect(down.status).toBe(503);
    expect(await shardRows(missing)).toEqual([]);
    // Only a path on the origin: a URL, `//host` or the gateway's own paths are refused.
    for (const jwksPath of ['https://evil.example/jwks.json', '//evil.example/jwks.json', '/_wr/x', 'jwks.json'])
      expect((await createEvent(freshEventId(), { entry: { ...ENTRY, jwksPath } })).status, jwksPath).toBe(400);
  });

  it('accepts a configured lane', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    expect((await appJoin(eventId, await entryToken(eventId, 'early@example.com', { lane: 'presale' }))).status).toBe(200);
  });

  it('keeps an admitted account admitted on its second device, and after it ends gives both devices one new place', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { entry: ENTRY });
    const phone = new Visitor();
    await appJoin(eventId, await entryToken(eventId, 'fan@example.com'), phone);
    await tick(eventId);
    expect((await phone.json(`/_wr/events/${eventId}/status`)).body).toMatchObject({ state: 'admitted' });
    const laptop = new Visitor();
    expect((await appJoin(eventId, await entryToken(eventId, 'fan@example.com'), laptop)).body).toMatchObject({ state: 'admitted' });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!).toMatchObject({ admittedTotal: 1 });
    // The admission ends (leave); each device comes back: one new place at the back, the same for both.
    const phoneTicket = phone.cookies.get(ticketCookie(eventId, true))!;
    await laptop.json(`/_wr/events/${eventId}/leave`, { method: 'POST' });
    const again = await appJoin(eventId, await entryToken(eventId, 'fan@example.com'));
    const old = await new Visitor().json<{ queueTicket?: string }>(`/_wr/events/${eventId}/status`, {
      headers: { authorization: `Bearer ${phoneTicket}` },
    });
    expect(claimsOf(old.body.queueTicket!).pl).toEqual(claimsOf(again.body.queueTicket!).pl);
    expect(await shardRows(eventId)).toHaveLength(1);
  });

  it('gives an anonymous ticket from before the requirement no place: the visitor signs in and gets an account place', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const joined = await new Visitor().json<{ queueTicket: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await createEvent(eventId, { entry: ENTRY })).status).toBe(200);
    const bearer = { authorization: `Bearer ${joined.body.queueTicket}` };
    const status = await new Visitor().json(`/_wr/events/${eventId}/status`, { headers: bearer });
    expect(status).toMatchObject({ status: 401, body: { code: 'ENTRY_REQUIRED', signInUrl: '/login' } });
    const signedIn = await appJoin(eventId, await entryToken(eventId, 'fan@example.com'));
    expect(claimsOf(signedIn.body.queueTicket!).sub).toMatch(/^acct-/);
  });
});

describe('the organizer API and entry', () => {
  it('refuses a sign-in URL off the event’s site with 400 SIGN_IN_URL_INVALID and creates nothing', async () => {
    for (const signInUrl of [
      'https://evil.example/login',
      '//evil.example/login',
      '/\\evil.example',
      'javascript:alert(1)',
      '/_wr/admin/',
    ]) {
      const eventId = freshEventId();
      const res = await createEvent(eventId, { entry: { ...ENTRY, signInUrl } });
      expect(res.status, signInUrl).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('SIGN_IN_URL_INVALID');
      expect(await env.WAITING_ROOM.getByName(eventId).stats()).toBeNull();
    }
    const farStart = new Date(Date.now() + 10 * 365 * 86_400_000).toISOString();
    const badLanes = [
      [
        { lane: 'a', releaseSharePercent: 60 },
        { lane: 'a', releaseSharePercent: 10 },
      ],
      [
        { lane: 'a', releaseSharePercent: 60 },
        { lane: 'b', releaseSharePercent: 41 },
      ],
      [{ lane: 'Pre Sale', releaseSharePercent: 10 }],
      [{ lane: 'a', releaseSharePercent: 101 }],
      [{ lane: 'a', releaseSharePercent: 10, saleStartsAt: farStart }],
      Array.from({ length: 9 }, (_, i) => ({ lane: `l${i}`, releaseSharePercent: 1 })),
    ];
    for (const lanes of badLanes) {
      const eventId = freshEventId();
      const res = await createEvent(eventId, { entry: { ...ENTRY, lanes } });
      expect(res.status, JSON.stringify(lanes)).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('INVALID_REQUEST');
      expect(await env.WAITING_ROOM.getByName(eventId).stats()).toBeNull();
    }
  });

  it('accepts an https sign-in URL on a host the room names, and shows the entry rule as sent', async () => {
    const eventId = freshEventId();
    const entry = { ...ENTRY, signInUrl: 'https://tickets.example.com/login' };
    const res = await createEvent(eventId, { entry, patterns: [`tickets.example.com/${eventId}/*`] });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { config: { entry: unknown } };
    expect(body.config.entry).toEqual({ ...entry, issuer: 'waiting-room-origin' });
  });
});
