// The edge's limit on admitted visitors' requests in flight to the origin (src/lib/origin-limit.ts):
// the origin never serves more than the limit at once, the rest wait at the edge in arrival order,
// a request that waited as long as the origin would get is refused without reaching it, the waits
// reach the event's WaitingRoom, and a failed request gives its place back.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { EDGE_WAIT_FLUSH_MS, MAX_PER_VISITOR, originGate } from '../../src/lib/origin-limit';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

/** `n` visitors admitted one after another (each admission runs the room's tick). */
async function admittedVisitors(eventId: string, n: number): Promise<Visitor[]> {
  const visitors: Visitor[] = [];
  for (let i = 0; i < n; i++) visitors.push(await admittedVisitor(eventId));
  return visitors;
}

/** A visitor's request through a gateway app whose origin is `origin`. */
async function viaGateway(v: Visitor, path: string, overrides: Partial<Env>, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers({ accept: 'text/html', cookie: [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ') });
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(BASE + path, { ...init, headers }), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** An origin that answers each request after `ms` and counts how many it serves at once, in all and per `?v=`. */
function countingOrigin(ms: number) {
  let now = 0;
  const per = new Map<string, number>();
  const seen = { served: 0, most: 0, mostOfOne: 0, methods: [] as string[] };
  const fetcher = {
    fetch: async (req: Request) => {
      const v = new URL(req.url).searchParams.get('v') ?? '';
      now++;
      per.set(v, (per.get(v) ?? 0) + 1);
      seen.served++;
      seen.most = Math.max(seen.most, now);
      seen.mostOfOne = Math.max(seen.mostOfOne, per.get(v)!);
      seen.methods.push(req.method);
      await new Promise((resolve) => setTimeout(resolve, ms));
      now--;
      per.set(v, per.get(v)! - 1);
      return new Response('<p>a page</p>', { headers: { 'content-type': 'text/html' } });
    },
  } as unknown as Fetcher;
  return { fetcher, seen };
}

describe("the edge's limit on requests in flight to the origin", () => {
  it('never gives the origin more than the limit at once, refuses at the edge what waited too long, and tells the room the waits', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const visitors = await admittedVisitors(eventId, 4);
    const v = visitors[0]!;
    // Each answer takes 400 ms and the origin gets 500 ms: the limit's first requests hold their
    // places for 400 ms, the next ones for 400 more, so the last ones cannot get a place in time.
    const origin = countingOrigin(400);
    const overrides = { ORIGIN: origin.fetcher, ORIGIN_TIMEOUT_MS: '500' };
    // Four visitors, twelve pages each at once: more than the limit, and more than one visitor's share.
    const n = visitors.length * 12;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        viaGateway(visitors[i % visitors.length]!, `/events/${eventId}/?v=${i % visitors.length}&n=${i}`, overrides),
      ),
    );
    // Equal round trips only ever raise the limit (by the queue allowance): its value now bounds the run.
    expect(origin.seen.most).toBeLessThanOrEqual(Math.floor(originGate.limit.limit));
    expect(origin.seen.most).toBeLessThan(n);
    expect(origin.seen.mostOfOne).toBeLessThanOrEqual(MAX_PER_VISITOR);
    const refused = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status === 200).length + refused.length).toBe(n);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    // The refused ones never reached the origin, and their visitors are told why and kept in.
    expect(origin.seen.served).toBe(n - refused.length);
    for (const r of refused) {
      const html = await r.text();
      expect(html).toContain('ORIGIN_UNAVAILABLE');
      expect(html).toContain('waited too long for its turn');
      expect(html).toContain('your admission stays valid');
    }
    // The waits reach the event's WaitingRoom with the isolate's next request after its interval
    // (src/lib/edge-wait.ts), for the release law to count.
    await new Promise((resolve) => setTimeout(resolve, EDGE_WAIT_FLUSH_MS));
    expect((await viaGateway(v, `/events/${eventId}/`, overrides)).status).toBe(200);
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.gateway.edgeWaitP99Ms).toBeGreaterThanOrEqual(400);
  });

  it('gives the place back when the origin fails, hangs or answers 503', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const failing = (kind: number): Fetcher =>
      ({
        fetch: async (req: Request) => {
          if (kind === 0) throw new Error('connection refused');
          if (kind === 1) return new Response('busy', { status: 503 });
          return new Promise<Response>((_resolve, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
        },
      }) as unknown as Fetcher;
    // More failures in a row than the limit has places: a place kept by any of them would make
    // the last ones wait and be refused as over the limit.
    for (let i = 0; i < Math.floor(originGate.limit.limit) + 5; i++) {
      const overrides = { ORIGIN: failing(i % 3), ORIGIN_TIMEOUT_MS: '30' };
      const page = await viaGateway(v, `/events/${eventId}/`, overrides);
      expect(page.status).toBe(503);
      expect(await page.text()).not.toContain('waited too long');
    }
    const ok = countingOrigin(0);
    const healthy = { ORIGIN: ok.fetcher, ORIGIN_TIMEOUT_MS: '15000' };
    const page = await viaGateway(v, `/events/${eventId}/`, healthy);
    expect(page.status).toBe(200);
  });

  it('lets an upload through while the places are all taken: a slow upload never holds one', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const visitors = await admittedVisitors(eventId, 6);
    // Pages hang until the test lets them go; the post is answered at once.
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const methods: string[] = [];
    const origin = {
      fetch: async (req: Request) => {
        methods.push(req.method);
        if (req.method === 'GET') await held;
        return new Response('ok');
      },
    } as unknown as Fetcher;
    const overrides = { ORIGIN: origin, ORIGIN_TIMEOUT_MS: '10000' };
    // The limit this isolate learned in the tests before (its own module state, as in production).
    const places = Math.floor(originGate.limit.limit);
    expect(places).toBeLessThanOrEqual(6 * MAX_PER_VISITOR - 4);
    const pages = Array.from({ length: places + 4 }, (_, i) => viaGateway(visitors[i % 6]!, `/events/${eventId}/?v=${i % 6}`, overrides));
    const upload = viaGateway(visitors[0]!, `/events/${eventId}/checkout`, overrides, { method: 'POST', body: 'seat=A1' });
    expect((await upload).status).toBe(200);
    // The post was answered while every place was taken and four pages still waited at the edge.
    expect(methods.filter((m) => m === 'GET')).toHaveLength(places);
    expect(methods).toContain('POST');
    letGo();
    expect((await Promise.all(pages)).every((p) => p.status === 200)).toBe(true);
  });
});
