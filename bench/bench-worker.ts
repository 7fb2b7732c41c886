// Benchmark build of the gateway: the real Worker and objects, plus no-op baselines and an
// in-object hold loop, all in one bundle run by Miniflare (never deployed).
import { DurableObject } from 'cloudflare:workers';
import { Inventory } from '../durable-objects/inventory/inventory';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';
import gateway from '../src/index';
import { pickSeatIndexes, prng } from './hotspot';

export { EventDirectory, QueueShard, WaitingRoom } from '../src/index';

/** The Inventory with one extra method that runs many holds inside the object. */
export class BenchInventory extends Inventory {
  /** Runs `n` hot-spot holds of 1-6 seats back to back inside the object; returns how they ended. */
  async benchHolds(n: number, seatCount: number, perRow: number, seed: number): Promise<{ granted: number; refused: number }> {
    const random = prng(seed);
    const ids = seatIdsFor(seatCount, perRow);
    let granted = 0;
    for (let i = 0; i < n; i++) {
      const seatIds = pickSeatIndexes(random, seatCount, perRow).map((k) => ids[k]!);
      const r = await this.hold(`acct-${i % 5000}`, { seatIds }, `k-${seed}-${i}`);
      if (r.kind === 'held') granted++;
    }
    return { granted, refused: n - granted };
  }
}

/** The platform's floors: a Durable Object RPC that does nothing, and one that makes one durable write. */
export class Noop extends DurableObject {
  async ping(): Promise<number> {
    return 1;
  }

  /** One SQLite upsert: what any durable answer costs (the response waits for the write to commit). */
  async write(key: string): Promise<number> {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    this.ctx.storage.sql.exec('INSERT INTO t (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1', key);
    return 1;
  }
}

type BenchEnv = Omit<Env, 'INVENTORY'> & { NOOP: DurableObjectNamespace<Noop>; INVENTORY: DurableObjectNamespace<BenchInventory> };

export default {
  async fetch(request: Request, env: BenchEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/__bench/noop') return new Response('ok');
    if (url.pathname === '/__bench/noop-do') return new Response(String(await env.NOOP.getByName('noop').ping()));
    if (url.pathname === '/__bench/write-do')
      return new Response(String(await env.NOOP.getByName('noop').write(String(Math.floor(Math.random() * 50_000)))));
    if (url.pathname === '/__bench/hold-direct') {
      // The inventory RPC alone, without the gateway's routing, auth and validation.
      const body = (await request.json()) as { seatIds: string[] };
      const r = await env.INVENTORY.getByName(url.searchParams.get('event') ?? '').hold(`a-${Math.random()}`, body, crypto.randomUUID());
      return Response.json(r, { status: r.kind === 'held' ? 201 : 409 });
    }
    if (url.pathname === '/__bench/in-object') {
      const q = (k: string) => Number(url.searchParams.get(k));
      const stub = env.INVENTORY.getByName(url.searchParams.get('event') ?? '');
      return Response.json(await stub.benchHolds(q('n'), q('seats'), q('perRow'), q('seed')));
    }
    // BenchInventory is an Inventory, so this is the gateway's own Env.
    return gateway.fetch(request, env as unknown as Env, ctx);
  },
};
