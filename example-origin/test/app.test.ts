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

// Three concurrent checkouts of one hold: one order, and every answer the same paid order.
describe('example origin checkout', () => {
  it('is one order per hold: concurrent and repeated checkouts of a hold all answer the same paid order', async () => {
    // A stand-in of the gateway's origin API for one hold, with the Inventory's rules for it
    // (payment-pending and confirm are idempotent; another order id is HOLD_ALREADY_CONFIRMED).
    const hold = {
      holdId: 'h-1',
      status: 'HELD',
      account: 'visitor-1',
      seatIds: ['A1'],
      tier: null,
      quantity: 1,
      priceMinor: 5000,
      currency: 'EUR',
      expiresAtMs: Date.now() + 300_000,
      orderId: null as string | null,
    };
    const confirms: string[] = [];
    const api = await localServer((req, body, res) => {
      const answer = (status: number, data: object) =>
        setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data)), 5 + Math.random() * 20);
      if (req.url === '/.well-known/jwks.json') return answer(200, { keys: [key.jwk] });
      if (req.method === 'GET' && req.url === '/_wr/origin/events/demo/holds/h-1') return answer(200, hold);
      if (req.url === '/_wr/origin/events/demo/holds/h-1/payment-pending') {
        if (hold.status === 'HELD') hold.status = 'PAYMENT_PENDING';
        return hold.status === 'PAYMENT_PENDING' ? answer(200, hold) : answer(409, { code: 'HOLD_NOT_ACTIVE' });
      }
      if (req.url === '/_wr/origin/events/demo/holds/h-1/confirm') {
        const { orderId } = JSON.parse(body) as { orderId: string };
        confirms.push(orderId);
        if (hold.status === 'SOLD' && hold.orderId !== orderId) return answer(409, { code: 'HOLD_ALREADY_CONFIRMED' });
        Object.assign(hold, { status: 'SOLD', orderId });
        return answer(200, hold);
      }
      res.writeHead(204).end();
    });
    try {
      const { app } = exampleOrigin({ gatewayUrl: api.url, secret: 's', eventId: 'demo' });
      const token = await admissionTokenFor(key, { nowMs: Date.now(), eventId: 'demo' });
      const checkout = async () => {
        const res = await app.request('/events/demo/checkout', {
          method: 'POST',
          headers: { 'x-admission-token': token, 'content-type': 'application/json' },
          body: JSON.stringify({ holdId: 'h-1' }),
        });
        const answer = (await res.json()) as { status: string; orderId: string };
        return { http: res.status, status: answer.status, orderId: answer.orderId };
      };
      const answers = [...(await Promise.all([checkout(), checkout(), checkout()])), await checkout()];
      expect(answers.map((a) => [a.http, a.status, a.orderId])).toEqual(Array(4).fill([200, 'PAID', answers[0]!.orderId]));
      expect(new Set(confirms).size).toBe(1);
    } finally {
      await api.close();
    }
  });

  it('answers the same paid order to a checkout whose payment-pending arrives after the other checkout sold the hold', async () => {
    // The double click's order on a loaded machine, made certain: both checkouts read the hold
    // while HELD, the first moves it to payment and sells it, only then does the second's
    // payment-pending arrive (the Inventory answers 409 HOLD_NOT_ACTIVE for a SOLD hold).
    const hold = {
      holdId: 'h-2',
      status: 'HELD',
      account: 'visitor-1',
      seatIds: ['A2'],
      tier: null,
      quantity: 1,
      priceMinor: 5000,
      currency: 'EUR',
      expiresAtMs: Date.now() + 300_000,
      orderId: null as string | null,
    };
    let reads = 0;
    let bothRead!: () => void;
    const bothReadP = new Promise<void>((r) => (bothRead = r));
    let sold!: () => void;
    const soldP = new Promise<void>((r) => (sold = r));
    let pendings = 0;
    const api = await localServer(async (req, body, res) => {
      const answer = (status: number, data: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data));
      if (req.url === '/.well-known/jwks.json') return answer(200, { keys: [key.jwk] });
      const base = '/_wr/origin/events/demo/holds/h-2';
      if (req.method === 'GET' && req.url === base) {
        const snapshot = { ...hold };
        if (++reads === 2) bothRead();
        await bothReadP;
        return answer(200, snapshot);
      }
      if (req.url === `${base}/payment-pending`) {
        if (++pendings > 1) await soldP;
        if (hold.status === 'HELD') hold.status = 'PAYMENT_PENDING';
        return hold.status === 'PAYMENT_PENDING' ? answer(200, hold) : answer(409, { code: 'HOLD_NOT_ACTIVE', status: 409 });
      }
      if (req.url === `${base}/confirm`) {
        const { orderId } = JSON.parse(body) as { orderId: string };
        if (hold.status === 'SOLD' && hold.orderId !== orderId) return answer(409, { code: 'HOLD_ALREADY_CONFIRMED', status: 409 });
        Object.assign(hold, { status: 'SOLD', orderId });
        answer(200, hold);
        return sold();
      }
      res.writeHead(204).end();
    });
    try {
      const { app } = exampleOrigin({ gatewayUrl: api.url, secret: 's', eventId: 'demo' });
      const token = await admissionTokenFor(key, { nowMs: Date.now(), eventId: 'demo' });
      const checkout = async () => {
        const res = await app.request('/events/demo/checkout', {
          method: 'POST',
          headers: { 'x-admission-token': token, 'content-type': 'application/json' },
          body: JSON.stringify({ holdId: 'h-2' }),
        });
        const answer = (await res.json()) as { status: string; orderId: string };
        return [res.status, answer.status, answer.orderId];
      };
      const answers = await Promise.all([checkout(), checkout()]);
      expect(pendings).toBe(2);
      expect(answers).toEqual([
        [200, 'PAID', hold.orderId],
        [200, 'PAID', hold.orderId],
      ]);
    } finally {
      await api.close();
    }
  });
});

describe('example origin returns', () => {
  it('returns the buyer’s own paid order through the SDK, says each refusal in words, and refuses another’s order', async () => {
    const holds: Record<string, { holdId: string; status: string; account: string; seatIds: string[] }> = {
      mine: { holdId: 'mine', status: 'SOLD', account: 'visitor-1', seatIds: ['A1'] },
      theirs: { holdId: 'theirs', status: 'SOLD', account: 'visitor-2', seatIds: ['A2'] },
    };
    const keys: string[] = [];
    const api = await localServer((req, body, res) => {
      const answer = (status: number, data: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data));
      if (req.url === '/.well-known/jwks.json') return answer(200, { keys: [key.jwk] });
      const hold = /^\/_wr\/origin\/events\/demo\/holds\/([a-z]+)(\/return)?$/.exec(req.url ?? '');
      if (hold && !hold[2]) return answer(200, holds[hold[1]!]!);
      if (hold) {
        keys.push((JSON.parse(body) as { idempotencyKey: string }).idempotencyKey);
        if (keys.length > 1) return answer(409, { code: 'ORDER_ALREADY_RETURNED', detail: 'every seat of this order was returned' });
        return answer(200, {
          returnId: 'r1',
          holdId: 'mine',
          orderId: 'o1',
          refund: 'on_resale',
          createdAt: '',
          seats: [{ seatId: 'A1', faceMinor: 5000, refunded: false, resoldHoldId: null }],
        });
      }
      res.writeHead(204).end();
    });
    try {
      const { app } = exampleOrigin({ gatewayUrl: api.url, secret: 's', eventId: 'demo' });
      const token = await admissionTokenFor(key, { nowMs: Date.now(), eventId: 'demo' });
      const ret = async (holdId: string, idempotencyKey: string) => {
        const res = await app.request('/events/demo/return', {
          method: 'POST',
          headers: { 'x-admission-token': token, 'content-type': 'application/json' },
          body: JSON.stringify({ holdId, idempotencyKey }),
        });
        return { status: res.status, body: (await res.json()) as { code: string; message: string } };
      };
      expect(await ret('mine', 'k1')).toEqual({
        status: 200,
        body: expect.objectContaining({ code: 'RETURNED', message: 'Returned A1. You are refunded when they are resold.' }),
      });
      expect(await ret('mine', 'k2')).toEqual({
        status: 409,
        body: { code: 'ORDER_ALREADY_RETURNED', message: 'These tickets were already returned.' },
      });
      expect(await ret('theirs', 'k3')).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      expect(keys).toEqual(['k1', 'k2']);
    } finally {
      await api.close();
    }
  });
});
