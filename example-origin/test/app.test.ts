// The example origin without a gateway: public pages need no admission, the room's pages do, and
// every request is measured for the health reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionTokenFor, gatewayKey, localServer } from '../../origin-sdk/test/fixtures.ts';
import { exampleOrigin } from '../app.ts';
import { ORIGIN_PULL_HEADER, originPullKey } from '../../origin-sdk/src/index.ts';

let key: Awaited<ReturnType<typeof gatewayKey>>;
let gateway: Awaited<ReturnType<typeof localServer>>;

beforeAll(async () => {
  key = await gatewayKey();
  // A stand-in gateway: its JWKS, and 204 for health reports.
  gateway = await localServer((req, _body, res) => {
    if (req.url === '/.well-known/jwks.json')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] }));
    res.writeHead(204).end();
  });
});
afterAll(() => gateway.close());

describe('example origin', () => {
  it('with requireGateway, refuses every request without the origin-pull key (a bot at the origin directly)', async () => {
    const { app } = exampleOrigin({ gatewayUrl: gateway.url, secret: 'pull-secret', eventId: 'demo', requireGateway: true });
    expect((await app.request('/')).status).toBe(403);
    expect((await app.request('/', { headers: { [ORIGIN_PULL_HEADER]: await originPullKey('other-secret') } })).status).toBe(403);
    const viaGateway = { [ORIGIN_PULL_HEADER]: await originPullKey('pull-secret') };
    expect((await app.request('/', { headers: viaGateway })).status).toBe(200);
    // Through the gateway, the room still needs an admission.
    expect((await app.request('/events/demo/', { headers: viaGateway })).status).toBe(401);
  });

  it('serves the home page and its stylesheet to anyone, the event page only to admitted visitors', async () => {
    const { app, health } = exampleOrigin({ gatewayUrl: gateway.url, secret: 's', eventId: 'demo' });
    expect((await app.request('/')).status).toBe(200);
    const css = await app.request('/static/site.css');
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    const denied = await app.request('/events/demo/');
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ code: 'ADMISSION_MISSING' });
    const token = await admissionTokenFor(key, { nowMs: Date.now(), eventId: 'demo' });
    const page = await app.request('/events/demo/', { headers: { 'x-admission-token': token } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-visitor="visitor-1"');
    const expired = await admissionTokenFor(key, { nowMs: Date.now(), eventId: 'demo', ttlS: -60 });
    expect(await (await app.request('/events/demo/', { headers: { 'x-admission-token': expired } })).json()).toMatchObject({
      code: 'ADMISSION_EXPIRED',
    });
    // All five requests measured; the admitted visitor counts as an active buyer.
    const r = health.snapshot();
    expect(r.activeBuyers).toBe(1);
    expect(await health.report()).toMatchObject({ kind: 'accepted' });
    expect(gateway.requests.at(-1)!.url).toBe('/_wr/origin/events/demo/health');
  });
});
