// The health reporter: signed reports of the origin's own window, also when idle; Hono and Node middleware.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthReporter, verifyOriginSignature, type HealthReporterOptions } from '../src/index.ts';
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
