// The hold client: signed calls, a timeout per try, retries with the same ids, a typed result per refusal.
import { describe, expect, it } from 'vitest';
import { GatewayClient, verifyOriginSignature, type GatewayClientOptions } from '../src/index.ts';

const SECRET = 'client-secret';
const HOLD = {
  holdId: 'h1',
  status: 'SOLD',
  seatIds: ['A1'],
  tier: null,
  quantity: 1,
  priceMinor: 5000,
  currency: 'EUR',
  expiresAt: '2026-12-01T09:05:00.000Z',
  orderId: 'o1',
};

/** A fake gateway: answers from `script` in order (the last repeats), records every request. */
function fakeGateway(script: ((r: Request) => Response | Promise<Response>)[]) {
  const seen: { method: string; url: string; body: string; headers: Headers }[] = [];
  const fetch = async (r: Request) => {
    seen.push({ method: r.method, url: r.url, body: await r.clone().text(), headers: r.headers });
    return script[Math.min(seen.length - 1, script.length - 1)]!(r);
  };
  return { fetch, seen };
}

const client = (fetch: GatewayClientOptions['fetch'], extra: Partial<GatewayClientOptions> = {}) =>
  new GatewayClient({ gatewayUrl: 'https://gw.test', eventId: 'demo', secret: SECRET, fetch, sleep: async () => {}, ...extra });

describe('GatewayClient', () => {
  it('signs each call over method, path and body, as the gateway checks it', async () => {
    const g = fakeGateway([() => Response.json(HOLD)]);
    const r = await client(g.fetch).confirm('h1', { orderId: 'o1', amountMinor: 5000, account: 'v1' });
    const { expiresAt, ...rest } = HOLD;
    expect(r).toEqual({ kind: 'ok', hold: { ...rest, account: null, expiresAtMs: Date.parse(expiresAt) } });
    const s = g.seen[0]!;
    expect(s.url).toBe('https://gw.test/_wr/origin/events/demo/holds/h1/confirm');
    expect(JSON.parse(s.body)).toEqual({ orderId: 'o1', amountMinor: 5000, account: 'v1' });
    const path = new URL(s.url).pathname;
    expect(
      await verifyOriginSignature(
        SECRET,
        { method: 'POST', path, body: s.body },
        s.headers.get('x-wr-timestamp'),
        s.headers.get('x-wr-signature'),
        Date.now(),
      ),
    ).toBe(true);
  });

  it('retries 503, 429, timeouts and network failures with the same body (same order id), then succeeds', async () => {
    const g = fakeGateway([
      () => Response.json({ code: 'OVERLOADED' }, { status: 503 }),
      () => {
        throw new TypeError('fetch failed');
      },
      () => Response.json(HOLD),
    ]);
    const waits: number[] = [];
    const r = await client(g.fetch, { sleep: async (ms) => void waits.push(ms), random: () => 0.5 }).confirm('h1', {
      orderId: 'o1',
      amountMinor: 5000,
    });
    expect(r.kind).toBe('ok');
    expect(g.seen).toHaveLength(3);
    expect(new Set(g.seen.map((s) => s.body)).size).toBe(1);
    expect(waits).toEqual([100, 200]);
  });

  it('gives no_answer after the last try, with the reason; each try has its own timeout', async () => {
    const hang = (r: Request) =>
      new Promise<Response>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason as Error)));
    const g = fakeGateway([hang]);
    const r = await client(g.fetch, { timeoutMs: 100 }).release('h1');
    expect(r).toEqual({ kind: 'no_answer', reason: 'timeout', attempts: 3 });
    expect(g.seen).toHaveLength(3);
    const down = fakeGateway([() => new Response('bad gateway', { status: 502 })]);
    expect(await client(down.fetch, { retry: { attempts: 2 } }).getHold('h1')).toEqual({
      kind: 'no_answer',
      reason: 'server_error',
      attempts: 2,
    });
  });

  it('returns each documented refusal typed, with the hold when the gateway sends it, and never retries it', async () => {
    for (const [status, code] of [
      [409, 'HOLD_EXPIRED'],
      [409, 'PRICE_MISMATCH'],
      [409, 'ORDER_ALREADY_USED'],
      [409, 'ACCOUNT_LIMIT'],
      [409, 'HOLD_ALREADY_CONFIRMED'],
      [403, 'NOT_HOLD_OWNER'],
      [404, 'HOLD_NOT_FOUND'],
      [401, 'SIGNATURE_INVALID'],
    ] as const) {
      const g = fakeGateway([() => Response.json({ code, detail: 'why', hold: code === 'HOLD_NOT_FOUND' ? undefined : HOLD }, { status })]);
      const r = await client(g.fetch).confirm('h1', { orderId: 'o2', amountMinor: 1 });
      expect(r).toMatchObject({ kind: 'refused', code, status, detail: 'why', hold: code === 'HOLD_NOT_FOUND' ? null : { holdId: 'h1' } });
      expect(g.seen).toHaveLength(1);
    }
    const odd = fakeGateway([() => Response.json({ code: 'SOMETHING_NEW' }, { status: 418 })]);
    expect(await client(odd.fetch).getHold('h1')).toMatchObject({ kind: 'refused', code: 'UNRECOGNIZED', detail: 'SOMETHING_NEW (418)' });
  });

  it('lists holds page by page; the signature covers the path without the query', async () => {
    const g = fakeGateway([
      () => Response.json({ holds: [{ ...HOLD, account: 'v1' }], next: 'h1' }),
      () => Response.json({ holds: [], next: null }),
    ]);
    const c = client(g.fetch);
    const p1 = await c.listHolds({ limit: 1 });
    expect(p1).toMatchObject({ kind: 'ok', holds: [{ holdId: 'h1', account: 'v1' }], next: 'h1' });
    expect(await c.listHolds({ after: 'h1', limit: 1 })).toEqual({ kind: 'ok', holds: [], next: null });
    expect(g.seen[1]!.url).toBe('https://gw.test/_wr/origin/events/demo/holds?limit=1&after=h1');
    const s = g.seen[1]!;
    expect(
      await verifyOriginSignature(
        SECRET,
        { method: 'GET', path: '/_wr/origin/events/demo/holds', body: '' },
        s.headers.get('x-wr-timestamp'),
        s.headers.get('x-wr-signature'),
        Date.now(),
      ),
    ).toBe(true);
  });

  it('extends a hold under its idempotency key in the signed body, retried with the same key, with the extension typed', async () => {
    const extended = {
      ...HOLD,
      status: 'HELD',
      orderId: null,
      extension: { used: 1, max: 2, latestExpiresAt: '2026-12-01T09:15:00.000Z' },
    };
    const g = fakeGateway([() => Response.json({ code: 'OVERLOADED' }, { status: 503 }), () => Response.json(extended)]);
    const r = await client(g.fetch).extendHold('h1', { idempotencyKey: 'ext-1', account: 'v1' });
    expect(r).toMatchObject({
      kind: 'ok',
      hold: { holdId: 'h1', status: 'HELD', expiresAtMs: Date.parse(HOLD.expiresAt) },
      extension: { used: 1, max: 2, latestExpiresAtMs: Date.parse('2026-12-01T09:15:00.000Z') },
    });
    expect(g.seen.map((s) => s.url)).toEqual(Array(2).fill('https://gw.test/_wr/origin/events/demo/holds/h1/extend'));
    expect(g.seen.map((s) => JSON.parse(s.body))).toEqual(Array(2).fill({ idempotencyKey: 'ext-1', account: 'v1' }));
    const refused = fakeGateway([
      () => Response.json({ code: 'HOLD_EXTENSION_LIMIT', detail: 'used up', hold: extended }, { status: 409 }),
    ]);
    expect(await client(refused.fetch).extendHold('h1', { idempotencyKey: 'ext-2' })).toMatchObject({
      kind: 'refused',
      code: 'HOLD_EXTENSION_LIMIT',
      status: 409,
      hold: { holdId: 'h1' },
    });
    expect(refused.seen).toHaveLength(1);
    await expect(client(refused.fetch).extendHold('h1', { idempotencyKey: 'has space' })).rejects.toThrow(TypeError);
  });

  it('refuses bad input with a TypeError and sends nothing', async () => {
    const g = fakeGateway([() => Response.json(HOLD)]);
    const c = client(g.fetch);
    await expect(c.confirm('h1', { orderId: '', amountMinor: 1 })).rejects.toThrow(/orderId/);
    await expect(c.confirm('h1', { orderId: 'o', amountMinor: 1.5 })).rejects.toThrow(/amountMinor/);
    await expect(c.confirm('h1', { orderId: 'o', amountMinor: -1 })).rejects.toThrow(/amountMinor/);
    await expect(c.getHold('')).rejects.toThrow(/holdId/);
    await expect(c.listHolds({ limit: 501 })).rejects.toThrow(/limit/);
    await expect(c.release('h1', { account: '' })).rejects.toThrow(/account/);
    expect(() => client(g.fetch, { eventId: 'Bad Event' })).toThrow(/eventId/);
    expect(() => client(g.fetch, { secret: '' })).toThrow(/secret/);
    expect(() => client(g.fetch, { gatewayUrl: 'ftp://x' })).toThrow(/gatewayUrl/);
    expect(() => client(g.fetch, { timeoutMs: 5 })).toThrow(/timeoutMs/);
    expect(() => client(g.fetch, { retry: { attempts: 0 } })).toThrow(/attempts/);
    expect(g.seen).toHaveLength(0);
  });
});
