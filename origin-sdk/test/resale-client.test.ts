// The resale calls of the origin SDK: signed like the hold calls, typed refusals, arguments checked
// before anything is sent, retried with the same body, and the offer webhook's signature check.
import { describe, expect, it } from 'vitest';
import { ResaleClient, signOriginRequest, verifyOriginSignature, verifyResaleWebhook } from '../src/index.ts';

const SECRET = 'client-secret';

function fakeGateway(script: (() => Response)[]) {
  const seen: { method: string; url: string; body: string; headers: Headers }[] = [];
  const fetch = async (r: Request) => {
    seen.push({ method: r.method, url: r.url, body: await r.clone().text(), headers: r.headers });
    return script[Math.min(seen.length - 1, script.length - 1)]!();
  };
  return { fetch, seen };
}

const client = (fetch: (r: Request) => Promise<Response>) =>
  new ResaleClient({ gatewayUrl: 'https://gw.test', eventId: 'demo', secret: SECRET, fetch, sleep: async () => {} });

describe('ResaleClient', () => {
  it('returns seats with a signed call, retried with the same body after a 503', async () => {
    const ret = { returnId: 'r1', holdId: 'h1', orderId: 'o1', refund: 'on_resale', createdAt: '2027-01-01T00:00:00.000Z', seats: [] };
    const g = fakeGateway([() => new Response(null, { status: 503 }), () => Response.json(ret)]);
    expect(await client(g.fetch).returnSeats('h1', { idempotencyKey: 'k1', seatIds: ['A1'] })).toEqual({ kind: 'ok', value: ret });
    expect(g.seen.map((s) => s.body)).toEqual([
      JSON.stringify({ idempotencyKey: 'k1', seatIds: ['A1'] }),
      JSON.stringify({ idempotencyKey: 'k1', seatIds: ['A1'] }),
    ]);
    const s = g.seen[1]!;
    expect(s.url).toBe('https://gw.test/_wr/origin/events/demo/holds/h1/return');
    const ok = await verifyOriginSignature(
      SECRET,
      { method: 'POST', path: new URL(s.url).pathname, body: s.body },
      s.headers.get('x-wr-timestamp'),
      s.headers.get('x-wr-signature'),
      Date.now(),
    );
    expect(ok).toBe(true);
  });

  it('takes a 2xx whose body is cut off (the gateway killed mid-answer) for no answer, and tries again', async () => {
    const ret = { returnId: 'r1', holdId: 'h1', orderId: 'o1', refund: 'on_resale', createdAt: '2027-01-01T00:00:00.000Z', seats: [] };
    const cut = () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"returnId":"r1","ho'));
            c.error(new TypeError('terminated'));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const once = new ResaleClient({
      gatewayUrl: 'https://gw.test',
      eventId: 'demo',
      secret: SECRET,
      fetch: fakeGateway([cut]).fetch,
      retry: { attempts: 1 },
    });
    expect(await once.returnSeats('h1', { idempotencyKey: 'k1' })).toEqual({ kind: 'no_answer', reason: 'network', attempts: 1 });
    const g = fakeGateway([cut, () => Response.json(ret)]);
    expect(await client(g.fetch).returnSeats('h1', { idempotencyKey: 'k1' })).toEqual({ kind: 'ok', value: ret });
    expect(g.seen).toHaveLength(2);
  });

  it('types the resale refusals, and names an unknown code in the detail', async () => {
    const g = fakeGateway([() => Response.json({ code: 'OFFER_LAPSED', detail: 'too late' }, { status: 409 })]);
    expect(await client(g.fetch).acceptOffer('h9', 'cid')).toEqual({
      kind: 'refused',
      code: 'OFFER_LAPSED',
      status: 409,
      detail: 'too late',
    });
    const u = fakeGateway([() => Response.json({ code: 'SOMETHING_NEW', detail: 'x' }, { status: 409 })]);
    expect(await client(u.fetch).joinWaitlist('cid', 1)).toMatchObject({ code: 'UNRECOGNIZED', detail: 'SOMETHING_NEW x' });
  });

  it('checks its arguments before sending anything', async () => {
    const g = fakeGateway([() => Response.json({})]);
    const c = client(g.fetch);
    await expect(c.returnSeats('h1', { idempotencyKey: 'has space' })).rejects.toThrow(TypeError);
    await expect(c.returnSeats('h1', { idempotencyKey: 'k', seatIds: [] })).rejects.toThrow(TypeError);
    await expect(c.joinWaitlist('cid', 7)).rejects.toThrow(TypeError);
    await expect(c.waitlist({ limit: 501 })).rejects.toThrow(TypeError);
    expect(g.seen).toEqual([]);
  });
});

describe('verifyResaleWebhook', () => {
  it('accepts a body signed with the origin secret and refuses another secret or a changed body', async () => {
    const body = JSON.stringify({ id: 3, at: '2027-01-01T00:00:00.000Z', kind: 'offer', ref: 'h1', data: { account: 'cid' } });
    const headers = await signOriginRequest(SECRET, 'POST', '/hooks/resale', body, Date.now());
    const req = (b: string) => new Request('https://origin.test/hooks/resale', { method: 'POST', body: b, headers });
    expect(await verifyResaleWebhook(req(body), SECRET)).toMatchObject({ id: 3, kind: 'offer', data: { account: 'cid' } });
    expect(await verifyResaleWebhook(req(body), 'other')).toBeNull();
    expect(await verifyResaleWebhook(req(body.replace('cid', 'eve')), SECRET)).toBeNull();
  });
});
