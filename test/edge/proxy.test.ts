// What the origin receives from the proxy: the verified admission token, none of the gateway's secrets.
import { describe, expect, it } from 'vitest';
import { ADMISSION_HEADER } from '../../contracts/names';
import { proxyToOrigin, stripGatewayCookies } from '../../src/lib/proxy';

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

  it.each([
    [null, null],
    ['__wr_t_e=1', null],
    ['a=1; __wr_x=2;b=3', 'a=1; b=3'],
  ])('stripGatewayCookies(%j) = %j', (input, output) => {
    expect(stripGatewayCookies(input)).toBe(output);
  });
});
