// Whole requests timed inside the bench Worker, one after another (no network, no contention from
// the load generator): what each path costs the isolate, next to the no-op floors measured in the
// same loop. `npm run bench:profile` prints them beside its CPU profiles.
import type { Place } from '../contracts/queue/cursor';

/** What the steps call: the gateway's fetch, the bench bindings, and the events to join. */
export interface StepTargets {
  gateway: (request: Request, env: unknown, ctx: ExecutionContext) => Promise<Response>;
  /** The bench env, and the same with the stub objects (bench-envs.ts stubbedEnvOf). */
  env: unknown;
  stubbed: unknown;
  origin: Fetcher;
  /** The no-op object (bench-objects.ts Noop). */
  noop: { ping(): Promise<number>; write(key: string): Promise<number> };
  shard: (eventId: string) => { join(req: unknown): Promise<Place> };
  ctx: ExecutionContext;
  /** An open event with 1 queue shard (real objects), and one for the stub objects. */
  joinEvent: string;
  stubEvent: string;
  /** An event with an admitted visitor, and that visitor's Cookie header (issued on http://127.0.0.1); empty: no such step. */
  admittedEvent: string;
  admittedCookie: string;
  /** Run only the steps whose names contain this text; empty: all. */
  only: string;
}

/**
 * Mean microseconds per request of each path over `n` sequential requests. Workers' timers advance
 * only at I/O, and every step here ends in I/O (an object call, a subrequest, or a tick), so each
 * loop's time is the sum of its requests'.
 */
export async function requestSteps(t: StepTargets, n: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const time = async (name: string, step: (i: number) => Promise<unknown>) => {
    if (t.only && !name.includes(t.only)) return;
    await scheduler.wait(0);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    await scheduler.wait(0);
    out[name] = Math.round(((performance.now() - t0) * 1000) / n);
  };
  const drain = async (res: Response) => void (await res.arrayBuffer());
  const ip = { 'cf-connecting-ip': '203.0.113.7' };
  const join = (eventId: string, env: unknown, headers: Record<string, string>) => () =>
    t.gateway(new Request(`http://bench/_wr/events/${eventId}/join`, { method: 'POST', headers }), env, t.ctx).then(drain);
  const noop = t.noop;
  await time('no-op handler (floor of a request)', async () => drain(new Response('ok')));
  await time('no-op Durable Object RPC (B)', () => noop.ping());
  await time('one-SQLite-write RPC (C)', (i) => noop.write(`s-${i}`));
  await time('forward to the origin Worker (F)', () => t.origin.fetch(new Request('http://bench/site/home')).then(drain));
  await time('pass-through through the gateway', () => t.gateway(new Request('http://bench/site/home'), t.env, t.ctx).then(drain));
  if (t.admittedEvent) {
    const page = `http://127.0.0.1/events/${t.admittedEvent}/tickets`;
    await time('admitted page request in a room', () =>
      t.gateway(new Request(page, { headers: { cookie: t.admittedCookie } }), t.env, t.ctx).then(drain),
    );
  }
  await time('join, gateway only, no limiter call', join(t.stubEvent, t.stubbed, {}));
  await time('join, gateway only, limiter call in waitUntil', join(t.stubEvent, t.stubbed, ip));
  await time('join, 1 queue shard, no limiter call', join(t.joinEvent, t.env, {}));
  await time('join, 1 queue shard, limiter call in waitUntil', join(t.joinEvent, t.env, ip));
  const shard = t.shard(t.joinEvent);
  await time('QueueShard.join RPC alone (new visitor)', (i) =>
    shard.join({
      eventId: t.joinEvent,
      shard: 0,
      visitorId: `step-${i}-${Math.random()}`,
      lottery: false,
      saleStartsAtMs: 0,
      again: false,
    }),
  );
  return out;
}
