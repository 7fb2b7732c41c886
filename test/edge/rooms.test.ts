// Rooms on any path: requests no room covers go to the origin untouched, with no
// cookie and no object call; a room answers at the URLs it covers, most specific pattern first;
// bypass rules let assets through uncounted; bad patterns are refused and change nothing.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { DIRECTORY_NAME } from '../../contracts/names';
import { VIA } from '../../src/lib/proxy';
import { ORIGIN_PULL_HEADER, originPullKey } from '../../origin-sdk/src/protocol.ts';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { NO_BYPASS, viaFreshApp } from '../helpers/rooms';

const admin = async (path: string, init: RequestInit = {}) => {
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      ...init,
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json', ...init.headers },
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { code?: string; config?: Record<string, unknown> } };
};
const EVENT = { releaseRatePerMinute: 600, minReleaseRatePerMinute: 600, maxActiveVisitors: 1000, seats: 10, seatsPerRow: 10 };
const put = (eventId: string, extra: Record<string, unknown>) =>
  admin(`/events/${eventId}`, { method: 'PUT', body: JSON.stringify({ ...EVENT, ...extra }) });

/** Bindings that count every Durable Object stub the app asks for, and an origin that records what it got. */
function instrumented(
  answer: (req: Request) => Response = () => new Response('origin home', { headers: { 'content-type': 'text/plain' } }),
) {
  const calls: string[] = [];
  const count = (name: 'WAITING_ROOM' | 'QUEUE_SHARD' | 'INVENTORY' | 'DIRECTORY') => ({
    getByName: (id: string) => {
      calls.push(`${name}:${id}`);
      return (env[name] as DurableObjectNamespace).getByName(id);
    },
  });
  const seen: Request[] = [];
  const bindings = {
    WAITING_ROOM: count('WAITING_ROOM'),
    QUEUE_SHARD: count('QUEUE_SHARD'),
    INVENTORY: count('INVENTORY'),
    DIRECTORY: count('DIRECTORY'),
    ORIGIN: { fetch: async (req: Request) => (seen.push(req), answer(req)) },
  };
  return { calls, seen, bindings };
}

describe('pass-through (no room covers the request)', () => {
  it('GET / is the origin’s own answer: no gateway cookie, no object call beyond one room-table read per isolate', async () => {
    const { calls, seen, bindings } = instrumented(
      () =>
        new Response('origin home', {
          headers: { 'cache-control': 'public, max-age=60', 'set-cookie': 'site=1; Path=/', 'x-wr-command': 'revoke' },
        }),
    );
    const home = await viaFreshApp('/', { headers: { accept: 'text/html' } }, bindings);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe('origin home');
    // The origin's caching and cookies pass as they are; its command header never reaches the browser.
    expect(home.headers.get('cache-control')).toBe('public, max-age=60');
    expect(home.headers.getSetCookie()).toEqual(['site=1; Path=/']);
    expect(home.headers.has('x-wr-command')).toBe(false);
    expect(calls).toEqual([`DIRECTORY:${DIRECTORY_NAME}`]);
    expect(seen).toHaveLength(1);
  });

  it('forwards as a reverse proxy must: hop-by-hop fields and the gateway’s credentials dropped, Via added, the rest unchanged', async () => {
    const { seen, bindings } = instrumented();
    const res = await viaFreshApp(
      '/account/orders?page=2',
      {
        method: 'POST',
        body: 'a=1',
        headers: {
          connection: 'keep-alive, x-hop',
          'x-hop': 'per-connection',
          'keep-alive': 'timeout=5',
          te: 'trailers',
          'proxy-connection': 'keep-alive',
          cookie: '__Host-wr_t_demo=ticket; theme=dark; __wr_a_demo=adm',
          'x-admission-token': 'forged',
          authorization: 'Bearer site-session',
          'x-custom': 'kept',
          'x-forwarded-host': 'spoofed.example',
          'x-original-url': '/events/demo/',
          'x-wr-origin-pull': 'forged-by-the-client',
          'x-rewrite-url': '/events/demo/',
          'x-forwarded-for': '198.51.100.7',
          'cf-connecting-ip': '203.0.113.9',
        },
      },
      bindings,
    );
    expect(res.status).toBe(200);
    const got = seen[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe(`${BASE}/account/orders?page=2`);
    expect(await got.text()).toBe('a=1');
    // X-Original-URL / X-Rewrite-URL: IIS and some frameworks route by them.
    for (const dropped of [
      'connection',
      'x-hop',
      'keep-alive',
      'te',
      'proxy-connection',
      'x-admission-token',
      'x-original-url',
      'x-rewrite-url',
    ]) {
      expect(got.headers.get(dropped), dropped).toBeNull();
    }
    expect(got.headers.get('cookie')).toBe('theme=dark');
    expect(got.headers.get('authorization')).toBe('Bearer site-session');
    expect(got.headers.get('x-custom')).toBe('kept');
    expect(got.headers.get('via')).toBe(VIA);
    // The origin-pull key replaces the client's value: the origin tells the gateway's requests
    // from direct ones with the SDK's fromGateway (nothing told them apart).
    expect(got.headers.get(ORIGIN_PULL_HEADER)).toBe(await originPullKey(env.ORIGIN_HMAC_SECRET));
    // The host and scheme the visitor asked for (a client-sent X-Forwarded-Host is overwritten), and
    // the address Cloudflare saw as the last X-Forwarded-For hop.
    expect(got.headers.get('x-forwarded-host')).toBe(new URL(BASE).host);
    expect(got.headers.get('x-forwarded-proto')).toBe(new URL(BASE).protocol.slice(0, -1));
    expect(got.headers.get('x-forwarded-for')).toBe('198.51.100.7, 203.0.113.9');
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('passes 20 requests to uncovered paths with 0 object calls once the table is cached', async () => {
    const { calls, seen, bindings } = instrumented();
    const eventId = freshEventId('pt');
    await createEvent(eventId); // covers /events/<id>/* only
    const { createApp } = await import('../../src/app');
    const { createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const app = createApp();
    const send = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(BASE + path, { headers: { cookie: `__Host-wr_t_${eventId}=x` } }),
        { ...env, ...bindings } as unknown as Env,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    await send('/');
    const afterFirst = calls.length;
    const paths = [
      '/',
      '/static/app.js',
      '/events/',
      '/events/other-event/',
      `/events/${eventId}x/`,
      '/account',
      '/api/v1/x',
      '/.well-known/security.txt',
      '/favicon.ico',
      '/events',
    ];
    for (const path of [...paths, ...paths]) {
      const res = await send(path);
      expect(res.headers.getSetCookie(), path).toEqual([]);
    }
    expect(calls.length - afterFirst).toBe(0);
    expect(seen).toHaveLength(21);
  });

  it('the real origin stub serves its own page for an event id no room covers', async () => {
    const v = new Visitor();
    const res = await v.fetch(`/events/${freshEventId('nobody')}/`);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(v.cookies.size).toBe(0);
  });

  it('the origin stub answers /favicon.ico with 204 and an unknown path with a problem document', async () => {
    expect((await new Visitor().fetch('/favicon.ico')).status).toBe(204);
    const res = await new Visitor().fetch('/no/such/page');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: expect.stringContaining('/no/such/page') });
  });
});

describe('rooms at their own URLs', () => {
  it('queues at a custom pattern and leaves the default /events/{id}/ to the origin', async () => {
    const eventId = freshEventId('tp');
    const created = await put(eventId, { patterns: [`/concerts/${eventId}/*`] });
    expect(created.status).toBe(201);
    expect(created.body.config).toMatchObject({ patterns: [`/concerts/${eventId}/*`], bypass: NO_BYPASS });
    const v = new Visitor();
    const page = await v.json<{ state: string; eventName: string }>(`/concerts/${eventId}/seats`);
    expect(page.status).toBe(200);
    expect(page.body.state).toBe('waiting');
    expect(page.res.headers.get('cache-control')).toBe('no-store');
    expect(v.cookies.has(`__Host-wr_t_${eventId}`)).toBe(true);
    const other = new Visitor();
    await other.fetch(`/events/${eventId}/`);
    expect(other.cookies.size).toBe(0);
  });

  it('keeps /events/{id}/* as the default pattern of a new event', async () => {
    const eventId = freshEventId('df');
    expect((await put(eventId, {})).body.config).toMatchObject({ patterns: [`/events/${eventId}/*`] });
    const v = new Visitor();
    expect((await v.json<{ state: string }>(`/events/${eventId}/`)).body.state).toBe('waiting');
  });

  it('sends each URL to the most specific pattern across events, in any spelling', async () => {
    const tour = freshEventId('tour');
    const city = freshEventId('city');
    await put(tour, { name: 'Tour', patterns: [`/${tour}/*`] });
    await put(city, { name: 'City', patterns: [`/${tour}/taipei/*`] });
    const name = async (path: string) => (await new Visitor().json<{ eventName: string }>(path)).body.eventName;
    expect(await name(`/${tour}/osaka/`)).toBe('Tour');
    expect(await name(`/${tour}/taipei/seats`)).toBe('City');
    expect(await name(`/${tour.toUpperCase()}/TAIPEI/seats`)).toBe('City');
    expect(await name(`/${tour}//taipei;x=1/seats`)).toBe('City');
    expect(await name(`/${tour}/osaka/../taipei/`)).toBe('City');
    // Encoded slashes (nginx decodes them): these passed straight to the origin before.
    expect(await name(`/${tour}%2Ftaipei%2fseats`)).toBe('City');
    expect(await name(`/${tour}/taipei%5Cseats`)).toBe('City');
    expect(await name(`/${tour}%2Fosaka/`)).toBe('Tour');
  });

  it('lets bypass rules through to the origin uncounted and without a cookie', async () => {
    const eventId = freshEventId('bp');
    await put(eventId, {
      patterns: [`/shop/${eventId}/*`],
      bypass: { pathPrefixes: [`/shop/${eventId}/static/`], extensions: ['css', 'png'], methods: ['OPTIONS'] },
    });
    for (const [method, path] of [
      ['GET', `/shop/${eventId}/static/app.js`],
      ['GET', `/shop/${eventId}/theme.css`],
      ['GET', `/shop/${eventId}/img/logo.PNG`],
      ['OPTIONS', `/shop/${eventId}/checkout`],
    ] as const) {
      const v = new Visitor();
      const res = await v.fetch(path, { method });
      expect(v.cookies.size, path).toBe(0);
      expect(res.headers.getSetCookie(), path).toEqual([]);
    }
    // An encoded or parameterised spelling is no asset: it queues.
    const sneaky = new Visitor();
    expect((await sneaky.json<{ state: string }>(`/shop/${eventId}/seats;.css`)).body.state).toBe('waiting');
    const stats = await admin(`/events/${eventId}`);
    expect(stats.body.queue).toMatchObject({ waiting: 1 });
  });

  // A bypassed OPTIONS carrying X-HTTP-Method-Override: POST reached the
  // origin with it, and frameworks honouring it would run a POST that never waited.
  it('drops method-override fields from bypassed requests only', async () => {
    const eventId = freshEventId('mo');
    await put(eventId, { patterns: [`/shop/${eventId}/*`], bypass: { pathPrefixes: [], extensions: [], methods: ['OPTIONS'] } });
    const overrides = { 'x-http-method-override': 'POST', 'x-http-method': 'POST', 'x-method-override': 'POST' };
    const { seen, bindings } = instrumented();
    expect((await viaFreshApp(`/shop/${eventId}/checkout`, { method: 'OPTIONS', headers: overrides }, bindings)).status).toBe(200);
    expect((await viaFreshApp(`/elsewhere/${eventId}`, { method: 'OPTIONS', headers: overrides }, bindings)).status).toBe(200);
    expect(
      seen.map((r) => [
        r.method,
        r.headers.get('x-http-method-override'),
        r.headers.get('x-http-method'),
        r.headers.get('x-method-override'),
      ]),
    ).toEqual([
      ['OPTIONS', null, null, null],
      ['OPTIONS', 'POST', 'POST', 'POST'],
    ]);
  });
});

describe('bad patterns are refused and change nothing', () => {
  it.each([
    [{ patterns: ['concerts/2027/*'] }, 400, 'ROUTE_INVALID'],
    [{ patterns: ['/a/*/b'] }, 400, 'ROUTE_INVALID'],
    [{ patterns: [] }, 400, 'ROUTE_INVALID'],
    [{ patterns: ['/*'] }, 400, 'ROUTE_RESERVED'],
    [{ patterns: ['/_wr/events/*'] }, 400, 'ROUTE_RESERVED'],
    [{ patterns: ['/.well-known/*'] }, 400, 'ROUTE_RESERVED'],
    [{ patterns: ['/sale/*', '/sale/vip'] }, 400, 'ROUTE_OVERLAP'],
    [{ patterns: ['/sale/*'], bypass: { extensions: ['.css'] } }, 400, 'ROUTE_INVALID'],
    [{ patterns: ['/sale/*'], bypass: { methods: ['options'] } }, 400, 'ROUTE_INVALID'],
    [{ patterns: ['/sale/*'], bypass: { hosts: ['x'] } }, 400, 'INVALID_REQUEST'],
    [{ patterns: 'not-a-list' }, 400, 'INVALID_REQUEST'],
  ])('%j -> %i %s, for a new event and for an existing one', async (extra, status, code) => {
    const fresh = freshEventId('bad');
    const res = await put(fresh, extra);
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect((await admin(`/events/${fresh}`)).status).toBe(404);
    const existing = freshEventId('keep');
    await put(existing, { patterns: [`/keep/${existing}/*`] });
    const again = await put(existing, extra);
    expect({ status: again.status, code: again.body.code }).toEqual({ status, code });
    expect((await admin(`/events/${existing}`)).body.config).toMatchObject({ patterns: [`/keep/${existing}/*`] });
    expect((await new Visitor().json<{ state: string }>(`/keep/${existing}/`)).body.state).toBe('waiting');
  });

  it('refuses a pattern another event covers (any spelling) with 409 ROUTE_TAKEN, naming it', async () => {
    const owner = freshEventId('own');
    const thief = freshEventId('thief');
    await put(owner, { patterns: [`/own/${owner}/*`] });
    for (const spelling of [`/own/${owner}/*`, `/OWN/${owner}/*`, `/own/${owner}/`.replace(/\/$/, '') + '/*']) {
      const res = await put(thief, { patterns: [`/thief/${thief}`, spelling] });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'ROUTE_TAKEN', detail: expect.stringContaining(owner) });
    }
    expect((await admin(`/events/${thief}`)).status).toBe(404);
    // A more specific pattern under another event's is allowed: it wins for its own URLs.
    expect((await put(thief, { patterns: [`/own/${owner}/vip/*`] })).status).toBe(201);
  });

  it('two events racing for one pattern: exactly one wins, the other gets 409 and nothing', async () => {
    const a = freshEventId('race');
    const b = freshEventId('race');
    const pattern = `/race/${a}/*`;
    const [ra, rb] = await Promise.all([put(a, { patterns: [pattern] }), put(b, { patterns: [pattern] })]);
    expect([ra.status, rb.status].sort()).toEqual([201, 409]);
    const loser = ra.status === 409 ? a : b;
    expect((await admin(`/events/${loser}`)).status).toBe(404);
    const table = await env.DIRECTORY.getByName(DIRECTORY_NAME).roomTable();
    expect(table.rooms.filter((r) => r.patterns.includes(pattern)).map((r) => r.eventId)).toEqual([ra.status === 201 ? a : b]);
  });

  /** A WaitingRoom whose configure write (not the dry run) answers `write`. */
  const roomWhoseWrite = (write: () => Promise<unknown>) => ({
    getByName: (id: string) => {
      const real = env.WAITING_ROOM.getByName(id);
      return new Proxy(real, {
        get: (target, prop) =>
          prop === 'configure'
            ? async (config: Parameters<typeof real.configure>[0], dryRun?: boolean) => (dryRun ? target.configure(config, true) : write())
            : Reflect.get(target, prop),
      });
    },
  });
  const putVia = (eventId: string, body: object, bindings: Record<string, unknown>) =>
    viaFreshApp(
      `/_wr/admin/events/${eventId}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      bindings,
    );

  it('puts the previous patterns back when the WaitingRoom refuses the write after the claim', async () => {
    const eventId = freshEventId('undo');
    await put(eventId, { patterns: [`/undo/${eventId}/*`] });
    const refusing = roomWhoseWrite(async () => ({ kind: 'conflict', detail: 'injected: visitors joined meanwhile' }));
    const res = await putVia(eventId, { ...EVENT, patterns: [`/moved/${eventId}/*`] }, { WAITING_ROOM: refusing });
    expect(res.status).toBe(409);
    expect(await env.DIRECTORY.getByName(DIRECTORY_NAME).room(eventId)).toMatchObject({ patterns: [`/undo/${eventId}/*`] });
    // The moved URL is nobody's: another event may take it.
    expect((await put(freshEventId('next'), { patterns: [`/moved/${eventId}/*`] })).status).toBe(201);
  });

  it('a crash after the claim fails closed (the new URLs answer 404, not the origin) and the same PUT completes it', async () => {
    const eventId = freshEventId('crash');
    const body = { ...EVENT, patterns: [`/crash/${eventId}/*`] };
    const crashing = roomWhoseWrite(async () => {
      throw new Error('injected: the isolate died mid-change');
    });
    expect((await putVia(eventId, body, { WAITING_ROOM: crashing })).status).toBe(500);
    const during = await viaFreshApp(`/crash/${eventId}/`, { headers: { accept: 'application/json' } });
    expect(during.status).toBe(404);
    expect(((await during.json()) as { code: string }).code).toBe('EVENT_NOT_FOUND');
    expect((await put(eventId, { patterns: body.patterns })).status).toBe(201);
    expect((await new Visitor().json<{ state: string }>(`/crash/${eventId}/`)).body.state).toBe('waiting');
  });
});

describe('credentials never leak onto pass-through paths', () => {
  it('an admitted visitor browsing uncovered pages gets no gateway cookie and sends none to the origin', async () => {
    const eventId = freshEventId('leak');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const { seen, bindings } = instrumented();
    const cookie = [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ');
    const res = await viaFreshApp('/account', { headers: { cookie } }, bindings);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(seen[0]!.headers.get('cookie')).toBeNull();
    expect(seen[0]!.headers.get('x-admission-token')).toBeNull();
  });
});
