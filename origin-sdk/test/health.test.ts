// The health reporter: signed reports of the origin's own window, also when idle; Hono and Node middleware.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthReporter, quantile, verifyOriginSignature, type HealthReporterOptions } from '../src/index.ts';
import { healthMiddleware } from '../src/hono.ts';
import { nodeHealth, withHealth } from '../src/node.ts';

const SECRET = 'health-secret';

function fakeGateway(status = 204, body: object = {}) {
  const posts: { url: string; body: string; headers: Headers }[] = [];
  const fetch = async (r: Request) => {
    posts.push({ url: r.url, body: await r.text(), headers: r.headers });
    return status === 204 ? new Response(null, { status }) : Response.json(body, { status });
  };
  return { fetch, posts };
}

function reporter(extra: Partial<HealthReporterOptions> = {}) {
  let now = Date.UTC(2026, 11, 1, 9);
  const g = fakeGateway();
  const r = new HealthReporter({
    gatewayUrl: 'https://gw.test',
    eventId: 'demo',
    secret: SECRET,
    fetch: g.fetch,
    clock: () => now,
    ...extra,
  });
  return { r, g, advance: (ms: number) => (now += ms), now: () => now };
}

afterEach(() => vi.restoreAllMocks());

describe('HealthReporter', () => {
  it('posts the window p50/p99, error rate, active buyers and the requests measured, signed like origin API calls', async () => {
    const { r, g, now } = reporter();
    for (let i = 1; i <= 100; i++) r.record(i, i !== 100);
    r.seen('v1');
    r.seen('v2');
    expect(await r.report()).toMatchObject({ kind: 'accepted' });
    const p = g.posts[0]!;
    expect(p.url).toBe('https://gw.test/_wr/origin/events/demo/health');
    expect(JSON.parse(p.body)).toEqual({
      p50LatencyMs: 50,
      p99LatencyMs: 99,
      errorRate: 0.01,
      activeBuyers: 2,
      windowSeconds: 10,
      sampleCount: 100,
    });
    const ok = await verifyOriginSignature(
      SECRET,
      { method: 'POST', path: '/_wr/origin/events/demo/health', body: p.body },
      p.headers.get('x-wr-timestamp'),
      p.headers.get('x-wr-signature'),
      now(),
    );
    expect(ok).toBe(true);
  });

  it('rounds measured latencies up to whole ms, so a sub-millisecond origin never reads as idle (p99 < 1 ms = nothing measured)', async () => {
    const { r, g } = reporter();
    r.record(0.3, true);
    r.record(0, true);
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toMatchObject({ p50LatencyMs: 1, p99LatencyMs: 1 });
    const fast = reporter({ clock: undefined });
    await fast.r.measure(async () => {});
    expect(fast.r.snapshot().p99LatencyMs).toBe(1);
  });

  it('reports an idle origin as healthy and empty, not as silence', async () => {
    const { r, g, advance } = reporter();
    r.record(900, false);
    advance(11_000);
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toMatchObject({ p99LatencyMs: 0, errorRate: 0, activeBuyers: 0, sampleCount: 0 });
  });

  it('tells accepted, refused (with the gateway code) and no answer apart, and never throws', async () => {
    const refused = reporter({ fetch: fakeGateway(409, { code: 'STALE_REPORT' }).fetch });
    expect(await refused.r.report()).toMatchObject({ kind: 'refused', status: 409, code: 'STALE_REPORT' });
    const down = reporter({ fetch: async () => new Response('x', { status: 503 }) });
    expect((await down.r.report()).kind).toBe('no_answer');
    const broken = reporter({
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    expect((await broken.r.report()).kind).toBe('no_answer');
  });

  it('shares one post between two concurrent report() calls (a later-signed one would make the first stale)', async () => {
    const { r, g } = reporter();
    await Promise.all([r.report(), r.report()]);
    expect(g.posts).toHaveLength(1);
  });

  it('start() reports at once and every interval, also with no traffic, until stop()', async () => {
    const g = fakeGateway();
    const r = new HealthReporter({ gatewayUrl: 'https://gw.test', eventId: 'demo', secret: SECRET, fetch: g.fetch, intervalMs: 500 });
    r.start();
    r.start(); // idempotent: still one timer
    await new Promise((ok) => setTimeout(ok, 1_300));
    r.stop();
    expect(g.posts).toHaveLength(3);
    await new Promise((ok) => setTimeout(ok, 700));
    expect(g.posts).toHaveLength(3);
  });

  it('measure() times a function and counts a throw as a failure', async () => {
    const { r, g, advance } = reporter();
    await r.measure(async () => advance(30));
    await expect(
      r.measure(async () => {
        advance(70);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toMatchObject({ p99LatencyMs: 70, errorRate: 0.5 });
  });

  // A crowd run: an origin far past its capacity finished almost nothing for a while; its reports
  // read "p99 0 ms" (nothing measured) while 234 requests were in flight, some for 10+ s.
  it('reports 200 requests running for 12 s with none completed as p99 >= 12 s over 200 samples (was: nothing measured)', async () => {
    const { r, g, advance } = reporter();
    const requests = Array.from({ length: 200 }, () => r.begin());
    advance(12_000);
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toEqual({
      p50LatencyMs: 12_000,
      p99LatencyMs: 12_000,
      errorRate: 0,
      activeBuyers: 0,
      windowSeconds: 10,
      sampleCount: 200,
      inFlight: 200,
    });
    // They end at 13 s: each is recorded once, with its real time, and no longer counts as running.
    advance(1_000);
    for (const q of requests) q.end(true);
    for (const q of requests) q.end(false); // a second end does nothing
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 13_000, sampleCount: 200, errorRate: 0 });
    expect(r.snapshot().inFlight).toBeUndefined();
    advance(10_001);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 0, sampleCount: 0 });
  });

  it('a discarded request (its client gone) stops counting and is never recorded; measure() counts while it runs', async () => {
    const { r, advance } = reporter();
    const gone = r.begin();
    advance(3_000);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 3_000, sampleCount: 1, inFlight: 1 });
    gone.discard();
    gone.end(true); // after discard: nothing
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 0, sampleCount: 0 });
    let release = () => {};
    const work = r.measure(() => new Promise<void>((ok) => (release = ok)));
    advance(2_000);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 2_000, inFlight: 1 });
    release();
    await work;
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 2_000, sampleCount: 1 });
    expect(r.snapshot().inFlight).toBeUndefined();
  });

  it('stops counting a request running past maxInFlightMs (a handle never ended), and refuses a bad maxInFlightMs', () => {
    const { r, advance } = reporter({ maxInFlightMs: 30_000 });
    r.begin();
    advance(30_000);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 30_000, inFlight: 1 });
    advance(1);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 0, sampleCount: 0 });
    expect(() => reporter({ maxInFlightMs: 500 })).toThrow(/maxInFlightMs/);
  });

  // Any sequence of requests begun, ended (ok or not), discarded or recorded, and time passing: each
  // report counts a request at most once (completed in the window, or running), its p99 is at least
  // A whenever requests running for A ms or more are over 1 % of its samples, and with nothing
  // running it is the report of the completed requests alone.
  it('counts each request at most once per report, and p99 >= A when over 1 % of its samples run for A ms or more (property)', () => {
    type Op =
      { kind: 'begin' } | { kind: 'end'; pick: number; ok: boolean } | { kind: 'discard'; pick: number } | { kind: 'wait'; ms: number };
    const op = fc.oneof(
      fc.constant<Op>({ kind: 'begin' }),
      fc.record({ kind: fc.constant('end' as const), pick: fc.nat(), ok: fc.boolean() }),
      fc.record({ kind: fc.constant('discard' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 6_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const { r, advance, now } = reporter();
        const open: { handle: ReturnType<typeof r.begin>; at: number }[] = [];
        const done: { at: number; ms: number; ok: boolean }[] = [];
        for (const o of ops) {
          if (o.kind === 'begin') open.push({ handle: r.begin(), at: now() });
          else if (o.kind === 'wait') advance(o.ms);
          else if (open.length > 0) {
            const [q] = open.splice(o.pick % open.length, 1);
            if (o.kind === 'end') {
              q!.handle.end(o.ok);
              done.push({ at: now(), ms: now() - q!.at, ok: o.ok });
            } else q!.handle.discard();
          }
          const s = r.snapshot();
          const completed = done.filter((d) => now() - d.at <= 10_000);
          const ages = open.map((q) => now() - q.at);
          expect(s.sampleCount).toBe(completed.length + (s.inFlight ?? 0));
          expect(s.inFlight ?? 0).toBeLessThanOrEqual(open.length);
          expect(s.errorRate).toBe(completed.length ? completed.filter((d) => !d.ok).length / completed.length : 0);
          for (const a of ages) {
            if (ages.filter((x) => x >= a).length * 100 > s.sampleCount) expect(s.p99LatencyMs).toBeGreaterThanOrEqual(a);
          }
          if (open.length === 0) {
            const ms = completed.map((d) => d.ms);
            expect(s.inFlight).toBeUndefined();
            expect(s.p99LatencyMs).toBe(ms.length ? Math.max(1, Math.ceil(quantile(ms, 0.99))) : 0);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses bad options with a TypeError naming the option', () => {
    const base = { gatewayUrl: 'https://gw.test', eventId: 'demo', secret: SECRET };
    expect(() => new HealthReporter({ ...base, eventId: '' })).toThrow(/eventId/);
    expect(() => new HealthReporter({ ...base, secret: '' })).toThrow(/secret/);
    expect(() => new HealthReporter({ ...base, intervalMs: 60_000 })).toThrow(/intervalMs/);
    expect(() => new HealthReporter({ ...base, gatewayUrl: 'mailto:x' })).toThrow(/gatewayUrl/);
    expect(() => new HealthReporter({ ...base, windowMs: 5 })).toThrow(/windowMs/);
  });
});

describe('health middleware', () => {
  it('Hono: records every request; a 5xx and a thrown handler count as failures, a 404 does not', async () => {
    const { r, g } = reporter();
    vi.spyOn(console, 'error').mockImplementation(() => {}); // Hono logs the thrown error
    const app = new Hono();
    app.use('*', healthMiddleware(r));
    app.get('/ok', (c) => c.text('ok'));
    app.get('/fail', (c) => c.text('no', 503));
    app.get('/throw', () => {
      throw new Error('bug');
    });
    for (const p of ['/ok', '/ok', '/fail', '/throw', '/missing']) await app.request(p);
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toMatchObject({ errorRate: 0.4 });
  });

  it('Hono: a request counts with its age while its handler runs, and once with its real time after', async () => {
    const { r, advance } = reporter();
    let release = () => {};
    const app = new Hono();
    app.use('*', healthMiddleware(r));
    app.get('/slow', async (c) => (await new Promise<void>((ok) => (release = ok)), c.text('ok')));
    const answer = app.request('/slow');
    await new Promise((ok) => setTimeout(ok, 10));
    advance(4_000);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 4_000, sampleCount: 1, inFlight: 1 });
    advance(1_000);
    release();
    expect((await answer).status).toBe(200);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 5_000, sampleCount: 1 });
    expect(r.snapshot().inFlight).toBeUndefined();
  });

  it('Node: nodeHealth counts a request while it runs; one whose client closed before the answer is then not counted', () => {
    const { r, advance } = reporter();
    const response = () => {
      const listeners = new Map<string, () => void>();
      return {
        statusCode: 200,
        once: (e: 'finish' | 'close', f: () => void) => listeners.set(e, f),
        emit: (e: string) => listeners.get(e)?.(),
      };
    };
    const measure = nodeHealth(r);
    const [answered, abandoned] = [response(), response()];
    measure({}, answered);
    measure({}, abandoned);
    advance(2_500);
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 2_500, sampleCount: 2, inFlight: 2 });
    answered.emit('finish');
    answered.emit('close'); // after finish: nothing more
    abandoned.emit('close');
    expect(r.snapshot()).toMatchObject({ p99LatencyMs: 2_500, sampleCount: 1 });
    expect(r.snapshot().inFlight).toBeUndefined();
  });

  it('Node http: nodeHealth (Express style) and withHealth (plain handler) record status and failures', async () => {
    const { r, g } = reporter({ clock: Date.now });
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    const express = nodeHealth(r);
    const handler = withHealth(r, async (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      if (req.url === '/throw') throw new Error('bug');
      res.statusCode = req.url === '/fail' ? 500 : 200;
      res.end('x');
    });
    const server = createServer((req, res) => (req.url === '/express' ? express(req, res, () => res.end('e')) : handler(req, res)));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<number>((ok) =>
        httpRequest({ port, path, host: '127.0.0.1' }, (res) => (res.resume(), res.on('end', () => ok(res.statusCode!)))).end(),
      );
    expect([await get('/ok'), await get('/fail'), await get('/throw'), await get('/express')]).toEqual([200, 500, 500, 200]);
    expect(quiet).toHaveBeenCalledWith('origin handler failed:', 'bug');
    await new Promise<void>((ok) => server.close(() => ok()));
    await r.report();
    expect(JSON.parse(g.posts[0]!.body)).toMatchObject({ errorRate: 0.5 });
  });
});
