// What the origin receives from the proxy: the verified admission token, none of the gateway's secrets.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMISSION_HEADER } from '../../contracts/names';
import { fetchFromOrigin, originTarget, passThrough, proxyToOrigin, stripGatewayCookies } from '../../src/lib/proxy';

function capturingOrigin() {
  const seen: Request[] = [];
  const env = { ORIGIN_URL: '', ORIGIN: { fetch: async (req: Request) => (seen.push(req), new Response('ok')) } as unknown as Fetcher };
  return { seen, env };
}

describe('proxyToOrigin', () => {
  it('replaces a client-sent admission header, drops gateway cookies, keeps the rest', async () => {
    const { seen, env } = capturingOrigin();
    const req = new Request('https://gw.test/events/e/page?x=1', {
      headers: { [ADMISSION_HEADER]: 'forged', cookie: '__wr_t_e=t; theme=dark; __wr_a_e=a', authorization: 'Bearer origin-session' },
    });
    await proxyToOrigin(req, env, 'verified');
    const got = seen[0]!;
    expect(new URL(got.url).pathname + new URL(got.url).search).toBe('/events/e/page?x=1');
    expect(got.headers.get(ADMISSION_HEADER)).toBe('verified');
    expect(got.headers.get('cookie')).toBe('theme=dark');
    expect(got.headers.get('authorization')).toBe('Bearer origin-session');
  });

  it("drops Authorization when it carried the app's queue ticket", async () => {
    const { seen, env } = capturingOrigin();
    await proxyToOrigin(new Request('https://gw.test/events/e/', { headers: { authorization: 'Bearer ticket' } }), env, 'v', {
      stripAuthorization: true,
    });
    expect(seen[0]!.headers.get('authorization')).toBeNull();
    expect(seen[0]!.headers.get('cookie')).toBeNull();
  });

  it('maps a failing origin to 503 ORIGIN_UNAVAILABLE with Retry-After', async () => {
    const env = { ORIGIN_URL: '', ORIGIN: { fetch: async () => Promise.reject(new Error('down')) } as unknown as Fetcher };
    await expect(proxyToOrigin(new Request('https://gw.test/events/e/'), env, 'v')).rejects.toMatchObject({
      code: 'ORIGIN_UNAVAILABLE',
      retryAfterS: 10,
    });
  });

  it('drops the fields a Connection header names whenever the header reaches the Worker', async () => {
    const { seen, env } = capturingOrigin();
    const headers = { connection: 'close, X-Foo,  x-bar ', 'x-foo': '1', 'x-bar': '2', 'x-kept': '3' };
    await proxyToOrigin(new Request('https://gw.test/events/e/', { headers }), env, 'v');
    const out = seen[0]!.headers;
    expect([out.get('connection'), out.get('x-foo'), out.get('x-bar'), out.get('x-kept')]).toEqual([null, null, null, '3']);
  });

  it('sends the verified admission token even when a Connection header names its field', async () => {
    const { seen, env } = capturingOrigin();
    const headers = { connection: `close, ${ADMISSION_HEADER}`, [ADMISSION_HEADER]: 'forged' };
    await proxyToOrigin(new Request('https://gw.test/events/e/', { headers }), env, 'verified');
    expect(seen[0]!.headers.get(ADMISSION_HEADER)).toBe('verified');
  });

  it("edits a copy: the visitor's request keeps its own headers for the answer", async () => {
    // The forwarded request's headers are edited in place; the app still reads the visitor's
    // request afterwards (its Accept chooses an error page).
    const { seen, env } = capturingOrigin();
    const given = { [ADMISSION_HEADER]: 'forged', cookie: '__wr_a_e=a; theme=dark', connection: 'x-foo', 'x-foo': '1' };
    const req = new Request('https://gw.test/events/e/', { headers: given });
    await proxyToOrigin(req, env, 'verified');
    const url = new URL('https://gw.test/site/');
    const plain = new Request(url, { headers: given });
    await passThrough(plain, url, env);
    for (const r of [req, plain]) expect(Object.fromEntries(r.headers)).toEqual(given);
    expect(seen.map((r) => [r.headers.get('cookie'), r.headers.get('x-foo'), r.headers.get(ADMISSION_HEADER)])).toEqual([
      ['theme=dark', null, 'verified'],
      ['theme=dark', null, null],
    ]);
  });

  it.each([
    [null, null],
    ['__wr_t_e=1', null],
    ['a=1; __wr_x=2;b=3', 'a=1; b=3'],
    ['__Host-wr_a_e=x; theme=dark', 'theme=dark'],
    ['x__wr_=1; a=2;;', 'x__wr_=1; a=2'],
    // Without a gateway cookie the header goes on as it came.
    ['a=1;b=2', 'a=1;b=2'],
  ])('stripGatewayCookies(%j) = %j', (input, output) => {
    expect(stripGatewayCookies(input)).toBe(output);
  });
});

describe('with ORIGIN_URL, every request reaches that origin and no other host', () => {
  afterEach(() => vi.unstubAllGlobals());

  // Paths the WHATWG parser reads as network-path references when resolved against a base.
  const hostilePaths = [
    '//127.0.0.1:8799/steal',
    '/\\127.0.0.1:8799/x',
    '//127.0.0.1:8799/..%2Fevents/e/',
    '///evil.test/x',
    '//evil.test',
    '/%2F%2Fevil.test/x',
    '//user:pass@evil.test/x?q=1',
  ];

  function capturingFetch() {
    const seen: Request[] = [];
    vi.stubGlobal('fetch', async (input: Request) => (seen.push(input), new Response('ok')));
    return seen;
  }
  const env = { ORIGIN_URL: 'http://shop.test:8080/ignored-base', ORIGIN_TIMEOUT_MS: '5000' };

  it.each(hostilePaths)('originTarget keeps the origin host for %s', (path) => {
    const target = originTarget(new URL(`https://gw.test${path}`), env.ORIGIN_URL);
    expect(target.host).toBe('shop.test:8080');
    expect(target.pathname).toBe(new URL(`https://gw.test${path}`).pathname);
  });

  it.each(hostilePaths)('passThrough of %s goes to the configured origin with the path kept', async (path) => {
    const seen = capturingFetch();
    const url = new URL(`https://gw.test${path}`);
    await passThrough(new Request(url, { headers: { cookie: 'session=secret' } }), url, env);
    expect(seen).toHaveLength(1);
    expect(new URL(seen[0]!.url).host).toBe('shop.test:8080');
    expect(new URL(seen[0]!.url).pathname).toBe(url.pathname);
  });

  it.each(hostilePaths)('proxyToOrigin of %s goes to the configured origin', async (path) => {
    const seen = capturingFetch();
    await proxyToOrigin(new Request(`https://gw.test${path}`, { headers: { cookie: 'session=secret' } }), env, 'verified');
    expect(new URL(seen[0]!.url).host).toBe('shop.test:8080');
    expect(seen[0]!.headers.get(ADMISSION_HEADER)).toBe('verified');
  });

  it('fetchFromOrigin of a network-path reference stays on the origin', async () => {
    const seen = capturingFetch();
    await fetchFromOrigin(new URL('https://gw.test//evil.test/jwks.json'), env, 1000);
    expect(new URL(seen[0]!.url).host).toBe('shop.test:8080');
  });

  it('keeps the query and drops a fragment', () => {
    expect(originTarget(new URL('https://gw.test/a/b?x=1&y=%2F#frag'), 'https://shop.test').href).toBe('https://shop.test/a/b?x=1&y=%2F');
  });
});
