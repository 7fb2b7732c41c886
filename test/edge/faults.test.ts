// Faults seen from the edge: an overloaded or flaky inventory, an origin that is slow, failing or
// down, and a signing-key rotation during a sale. Each ends with what must still be true.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { admissionCookie } from '../../src/lib/cookies';
import { signOriginRequest } from '../../contracts/hmac';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';
import { inventoryStats } from '../helpers/inventory';

/** Sends a visitor's request through a gateway app running with `overrides` on top of the real bindings. */
async function viaGateway(v: Visitor, path: string, init: RequestInit, overrides: Partial<Env>): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('cookie', [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; '));
  const ctx = createExecutionContext();
  // A fresh app each time: an app keeps its isolate's room table for 2 s, so one made before
  // this test's event existed would pass the event's URL through to the (hanging) origin.
  const res = await createApp().fetch(new Request(BASE + path, { ...init, headers }), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** An INVENTORY namespace whose every call fails with `err` (or runs `real` once `failures` ran out). */
function flakyInventory(err: Error, failures = Infinity) {
  let calls = 0;
  const ns = {
    getByName: (name: string) => {
      const realStub = env.INVENTORY.getByName(name);
      return new Proxy(realStub, {
        get(target, prop) {
          // The edge sends holds as `holdMany` (coalesced per isolate: src/lib/hold-batch.ts).
          if (prop !== 'holdMany') return Reflect.get(target, prop);
          return async (...args: Parameters<typeof realStub.holdMany>) => {
            calls++;
            if (calls <= failures) throw err;
            return target.holdMany(...args);
          };
        },
      });
    },
  };
  return { ns: ns as unknown as Env['INVENTORY'], calls: () => calls };
}

const doError = (message: string, flags: { retryable?: boolean; overloaded?: boolean }) => Object.assign(new Error(message), flags);

const holdInit = (key: string, seatIds = ['A1']): RequestInit => ({
  method: 'POST',
  headers: { 'idempotency-key': key, 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ seatIds }),
});

describe('inventory overloaded or flaky', () => {
  it('answers 503 OVERLOADED with Retry-After when the inventory is overloaded, calls it once, and holds nothing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const inv = flakyInventory(doError('Durable Object is overloaded. Too many requests queued.', { overloaded: true, retryable: false }));
    const res = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('k1'), { INVENTORY: inv.ns });
    expect(res.status).toBe(503);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(2);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(await res.json()).toMatchObject({ code: 'OVERLOADED', status: 503 });
    expect(inv.calls()).toBe(1); // never retried: retrying feeds the overload
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(0);
  });

  it('retries a transient (retryable) failure of the idempotent hold and answers with the one hold', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const inv = flakyInventory(doError('Network connection lost.', { retryable: true }), 2);
    const res = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('k1'), { INVENTORY: inv.ns });
    expect(res.status).toBe(201);
    expect(inv.calls()).toBe(3);
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(1);
  });

  it('gives up after 3 tries with 503 OVERLOADED, and a bug (not retryable) is not retried', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const flaky = flakyInventory(doError('Network connection lost.', { retryable: true }));
    const res = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('k1'), { INVENTORY: flaky.ns });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('OVERLOADED');
    expect(flaky.calls()).toBe(3);
    const buggy = flakyInventory(new Error('invariant: something impossible'));
    const bug = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('k2'), { INVENTORY: buggy.ns });
    expect(bug.status).toBe(500);
    expect(await bug.text()).not.toContain('invariant');
    expect(buggy.calls()).toBe(1);
  });
});

describe('origin slow, failing or down', () => {
  const failing = (behaviour: 'throw' | 'hang' | 503) =>
    ({
      fetch: async (req: Request) => {
        if (behaviour === 'throw') throw new Error('connection refused');
        if (behaviour === 503) return new Response('upstream busy', { status: 503, headers: { 'retry-after': '30' } });
        return new Promise<Response>((_resolve, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
      },
    }) as unknown as Fetcher;

  it.each([
    ['down (connection refused)', 'throw', 10, 'cannot be reached'],
    ['slow (no answer within ORIGIN_TIMEOUT_MS)', 'hang', 10, 'did not answer in time'],
    ['failing (it answers 503)', 503, 30, 'failing or overloaded'],
  ] as const)('shows an admitted visitor a clear 503 page when the origin is %s', async (_name, behaviour, retryAfter, words) => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const overrides = { ORIGIN: failing(behaviour), ORIGIN_TIMEOUT_MS: '50' };
    const page = await viaGateway(v, `/events/${eventId}/`, { headers: { accept: 'text/html' } }, overrides);
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe(String(retryAfter));
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('ORIGIN_UNAVAILABLE');
    expect(html).toContain(words);
    expect(html).toContain('nobody in the queue loses their place');
    // Apps get the same as problem details.
    const api = await viaGateway(v, `/events/${eventId}/`, { headers: { accept: 'application/json' } }, overrides);
    expect(api.status).toBe(503);
    expect(api.headers.get('content-type')).toBe('application/problem+json');
    expect(await api.json()).toMatchObject({ code: 'ORIGIN_UNAVAILABLE' });
    // The admission survives the outage: with the origin back, the same visitor gets in.
    const back = await v.fetch(`/events/${eventId}/`);
    expect(await back.text()).toContain('id="sale-data"');
  });

  async function adminStats(eventId: string) {
    const res = await viaGateway(
      new Visitor(),
      `/_wr/admin/events/${eventId}`,
      { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } },
      {},
    );
    return (await res.json()) as { queue: { releaseRatePerMinute: number; admittedTotal: number; rateLog: { reason: string }[] } };
  }

  async function positions(visitors: Visitor[], eventId: string): Promise<(number | null)[]> {
    const out: (number | null)[] = [];
    for (const v of visitors) {
      const s = await v.json<{ state: string; position: number | null }>(`/_wr/events/${eventId}/status`);
      out.push(s.body.state === 'waiting' ? s.body.position : null);
    }
    return out;
  }

  it('a silent origin (onOriginDown: pause): releases stop, every waiting visitor keeps their place', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 60, onOriginDown: 'pause' });
    const visitors: Visitor[] = [];
    for (let i = 0; i < 8; i++) {
      const v = new Visitor();
      await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
      visitors.push(v);
    }
    // One tick first: it counts every shard's arrivals into the cursor. Before it, positions are
    // estimates from the arrivals counted so far, which are short when the joins straddle a second
    // (seen: [1, 2, 1, 2, 3, 4, 5, 6]). With no health report and onOriginDown pause, it releases nobody.
    await tick(eventId, 1);
    const before = await positions(visitors, eventId);
    expect(before).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await tick(eventId, 4);
    expect(await positions(visitors, eventId)).toEqual(before);
    const stats = await adminStats(eventId);
    expect(stats.queue.releaseRatePerMinute).toBe(0);
    expect(stats.queue.admittedTotal).toBe(0);
    expect(stats.queue.rateLog[0]!.reason).toContain('no health report');
  });

  it('a failing origin (onOriginDown: minimum): the rate falls to the minimum, admissions keep arrival order, no place is lost', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, {
      releaseRatePerMinute: 600,
      minReleaseRatePerMinute: 12,
      maxActiveVisitors: 1000,
      onOriginDown: 'minimum',
    });
    const visitors: Visitor[] = [];
    for (let i = 0; i < 10; i++) {
      const v = new Visitor();
      await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
      visitors.push(v);
    }
    const health = async (report: object, atMs: number) => {
      const path = `/_wr/origin/events/${eventId}/health`;
      const body = JSON.stringify(report);
      const signed = await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, body, atMs);
      const res = await viaGateway(
        new Visitor(),
        path,
        { method: 'POST', headers: { ...signed, 'content-type': 'application/json' }, body },
        {},
      );
      expect(res.status).toBe(204);
    };
    const t0 = Date.now();
    // A healthy origin first: the rate climbs above the minimum.
    for (const ago of [8_000, 6_000, 4_000]) {
      await health({ p99LatencyMs: 50, errorRate: 0, activeBuyers: 0, sampleCount: 40 }, t0 - ago);
      await tick(eventId);
    }
    const climbed = await adminStats(eventId);
    expect(climbed.queue.releaseRatePerMinute).toBeGreaterThan(12);
    // Then it fails.
    await health({ p99LatencyMs: 9000, errorRate: 0.9, activeBuyers: 0 }, t0);
    let last = await positions(visitors, eventId);
    for (let i = 0; i < 8; i++) {
      await tick(eventId);
      const now = await positions(visitors, eventId);
      // Nobody moves back; whoever is admitted was ahead of everyone still waiting.
      now.forEach((p, j) => {
        if (p !== null) expect(p).toBeLessThanOrEqual(last[j] ?? Infinity);
      });
      const firstWaiting = now.findIndex((p) => p !== null);
      if (firstWaiting >= 0) expect(now.slice(firstWaiting).every((p) => p !== null)).toBe(true);
      last = now;
    }
    const res = await viaGateway(
      new Visitor(),
      `/_wr/admin/events/${eventId}`,
      { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } },
      {},
    );
    const stats = (await res.json()) as { queue: { releaseRatePerMinute: number; rateLog: { reason: string }[] } };
    expect(stats.queue.releaseRatePerMinute).toBe(12);
    console.log(JSON.stringify(stats.queue.rateLog));
    expect(stats.queue.rateLog.some((r) => r.reason.includes('origin failing'))).toBe(true);
  });
});

describe('signing key rotation during a sale', () => {
  async function keyPair(kid: string) {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    return {
      priv: JSON.stringify({ ...(await exportJWK(privateKey)), kid }),
      pub: JSON.stringify({ ...(await exportJWK(publicKey)), kid }),
    };
  }

  it('keeps tokens of the previous key working at every endpoint while it is published, and refuses them once removed', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId); // tokens signed with the current key (env)
    const current = JSON.parse(env.ADMISSION_SIGNING_JWK) as Record<string, unknown>;
    const { d: _private, ...currentPublic } = current;
    const next = await keyPair('k-next');
    const during = { ADMISSION_SIGNING_JWK: next.priv, ADMISSION_PREVIOUS_PUBLIC_JWK: JSON.stringify(currentPublic) };
    const jwks = (await (await viaGateway(v, '/.well-known/jwks.json', {}, during)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(['k-next', current.kid]);
    expect((await viaGateway(v, `/_wr/events/${eventId}/seats`, { headers: { accept: 'application/json' } }, during)).status).toBe(200);
    expect((await viaGateway(v, `/_wr/events/${eventId}/status`, { headers: { accept: 'application/json' } }, during)).status).toBe(200);
    const held = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('rot-1'), during);
    expect(held.status).toBe(201);

    // The previous key removed: the old tokens stop working at once (no cached verification).
    const after = { ADMISSION_SIGNING_JWK: next.priv, ADMISSION_PREVIOUS_PUBLIC_JWK: '' };
    const seats = await viaGateway(v, `/_wr/events/${eventId}/seats`, { headers: { accept: 'application/json' } }, after);
    expect(seats.status).toBe(401);
    expect(((await seats.json()) as { code: string }).code).toBe('TOKEN_INVALID');
    const hold = await viaGateway(v, `/_wr/events/${eventId}/holds`, holdInit('rot-2', ['A2']), after);
    expect(hold.status).toBe(401);
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(1);
    expect(v.cookies.get(admissionCookie(eventId, true))).toBeTruthy();
  });
});
