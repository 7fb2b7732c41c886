// Creating and changing an event across its objects (Inventory, WaitingRoom, directory): two
// concurrent PUTs never mix (one wins whole, the other gets 409 and changes nothing), and a crash
// after any object's write leaves an event that the same PUT completes or, after the lease, another
// PUT replaces.
import { env } from 'cloudflare:workers';
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { CHANGE_LEASE_MS } from '../../durable-objects/inventory/config-change';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { createApp } from '../../src/app';
import { BASE, freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';

const app = createApp();

const PLAN_A = { name: 'Plan A', releaseRatePerMinute: 600, maxActiveVisitors: 1000, seats: 100, seatsPerRow: 10, seatPriceMinor: 4000 };
const PLAN_B = {
  name: 'Plan B',
  policy: 'random',
  saleStartsAt: new Date(Date.now() + 3_600_000).toISOString(),
  releaseRatePerMinute: 300,
  maxActiveVisitors: 50,
  seats: 40,
  seatsPerRow: 8,
  seatPriceMinor: 9000,
  tiers: [{ tier: 'floor', capacity: 20, priceMinor: 2500 }],
};

type Body = Record<string, unknown>;

/** One admin request through the gateway app, with `overrides` on top of the real bindings. */
async function admin(method: string, path: string, body?: Body, overrides: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }),
    { ...env, ...overrides },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as Body, retryAfter: res.headers.get('retry-after') };
}

const put = (eventId: string, body: Body, overrides: Partial<Env> = {}) => admin('PUT', `/events/${eventId}`, body, overrides);
const read = (eventId: string) => admin('GET', `/events/${eventId}`);

/** The stored event matches `plan` in every field of both objects (nothing mixed in from another PUT). */
async function expectStoredWhole(eventId: string, plan: Body): Promise<void> {
  const got = await read(eventId);
  expect(got.status).toBe(200);
  const config = got.body.config as Body;
  for (const [k, v] of Object.entries(plan)) expect(config[k], k).toEqual(v);
  expect((got.body.inventory as Body).pendingChange).toBeNull();
  const list = (await admin('GET', '/events')).body.events as { eventId: string; name: string }[];
  expect(list.find((e) => e.eventId === eventId)?.name).toBe(plan.name);
  await checkInvariants(env.INVENTORY.getByName(eventId));
}

/**
 * A namespace whose stubs run `hook` around the real method calls: `before` may hold a call back,
 * `after` runs once the real call returned (and may throw, like a Worker dying right after that
 * write committed).
 */
function hooked<N>(
  ns: N,
  hook: { before?: (method: string, args: unknown[]) => Promise<void>; after?: (method: string, args: unknown[]) => Promise<void> },
): N {
  return {
    getByName: (name: string) => {
      const real = (ns as unknown as { getByName(n: string): object }).getByName(name);
      return new Proxy(real, {
        get(target, prop) {
          const value: unknown = Reflect.get(target, prop);
          if (typeof prop !== 'string' || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await hook.before?.(prop, args);
            // Called as a method of the stub (an RPC stub has no `apply` of its own).
            const result: unknown = await (target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[prop]!(...args);
            await hook.after?.(prop, args);
            return result;
          };
        },
      });
    },
  } as unknown as N;
}

describe('concurrent PUTs of the same event', () => {
  it('one wins whole, the other gets 409 CONFIG_CONFLICT, when the second runs while the first is between its Inventory and WaitingRoom writes', async () => {
    const eventId = freshEventId('race');
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let first = true;
    // Request A stops right after its first Inventory call returned; B runs whole meanwhile.
    const paused = hooked(env.INVENTORY, {
      after: async () => {
        if (!first) return;
        first = false;
        reached();
        await gate;
      },
    });
    const a = put(eventId, PLAN_A, { INVENTORY: paused });
    await atGate;
    const b = await put(eventId, PLAN_B);
    open();
    const resA = await a;
    expect([resA.status, b.status].sort()).toEqual([201, 409]);
    const [winner, loser] = resA.status === 201 ? [PLAN_A, b] : [PLAN_B, resA];
    expect(loser.body).toMatchObject({ code: 'CONFIG_CONFLICT' });
    await expectStoredWhole(eventId, winner);
  });

  it('ten races of two different PUTs: always exactly one 201 and one 409, and the stored event is the winner whole', async () => {
    for (let i = 0; i < 10; i++) {
      const eventId = freshEventId('race');
      const [a, b] = await Promise.all([put(eventId, PLAN_A), put(eventId, PLAN_B)]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body).toMatchObject({ code: 'CONFIG_CONFLICT' });
      await expectStoredWhole(eventId, a.status === 201 ? PLAN_A : PLAN_B);
    }
  });

  it('a second change while one is in flight gets 409 with Retry-After and changes nothing', async () => {
    const eventId = freshEventId('race');
    expect((await put(eventId, PLAN_A)).status).toBe(201);
    // A change that started and is still within its lease (as if its request were running now).
    await env.INVENTORY.getByName(eventId).beginChange({
      changeId: 'other',
      fingerprint: 'other-body',
      config: await storedInventoryConfig(eventId),
    });
    const refused = await put(eventId, { ...PLAN_A, seatPriceMinor: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFIG_CONFLICT' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(CHANGE_LEASE_MS / 1000 - 5);
    expect(((await read(eventId)).body.config as Body).seatPriceMinor).toBe(4000);
  });
});

async function storedInventoryConfig(eventId: string) {
  const stats = await env.INVENTORY.getByName(eventId).stats();
  if (stats.kind !== 'stats') throw new Error('setup');
  return stats.stats.config;
}

/** Moves the event's Inventory clock past any change lease (the crashed request's lease ran out). */
async function pastTheLease(eventId: string): Promise<void> {
  await runInDurableObject(env.INVENTORY.getByName(eventId), (obj: Inventory) => {
    obj.clock = () => Date.now() + CHANGE_LEASE_MS + 1_000;
  });
}

/** Every write of the creation flow, as a crash point: the Worker dies right after it committed. */
const CRASH_POINTS = [
  { after: 'inventory.beginChange', binding: 'INVENTORY', method: 'beginChange', pending: true, roomExists: false },
  { after: 'room.configure (write)', binding: 'WAITING_ROOM', method: 'configure', pending: true, roomExists: true },
  { after: 'directory.register', binding: 'DIRECTORY', method: 'register', pending: true, roomExists: true },
  { after: 'inventory.finishChange', binding: 'INVENTORY', method: 'finishChange', pending: false, roomExists: true },
] as const;

function crashAfter(point: (typeof CRASH_POINTS)[number]): Partial<Env> {
  const ns = env[point.binding];
  return {
    [point.binding]: hooked(ns, {
      after: async (method, args) => {
        // The WaitingRoom's dry run (second argument true) writes nothing: not a crash point.
        if (method === point.method && args[1] !== true) throw new Error(`injected crash after ${point.after}`);
      },
    }),
  };
}

describe('a crash at every point of event creation', () => {
  for (const point of CRASH_POINTS) {
    it(`after ${point.after}: the event reads consistently, and the same PUT again completes it whole`, async () => {
      const eventId = freshEventId('crash');
      expect((await put(eventId, PLAN_A, crashAfter(point))).status).toBe(500);
      const half = await read(eventId);
      if (point.roomExists) {
        expect(half.status).toBe(200);
        expect((half.body.inventory as Body).pendingChange === null).toBe(!point.pending);
      } else {
        expect(half.status).toBe(404);
        expect(half.body).toMatchObject({ code: 'EVENT_NOT_FOUND', detail: expect.stringContaining('did not finish') });
      }
      const again = await put(eventId, PLAN_A);
      expect(again.status).toBe(point.pending ? 201 : 200);
      await expectStoredWhole(eventId, PLAN_A);
    });

    it(`after ${point.after}: another plan is refused while the lease runs, then replaces the unfinished one whole`, async () => {
      const eventId = freshEventId('crash');
      expect((await put(eventId, PLAN_A, crashAfter(point))).status).toBe(500);
      const early = await put(eventId, PLAN_B);
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ code: 'CONFIG_CONFLICT' });
      if (!point.pending) {
        // Creation had finished: the plan is fixed, as for any event.
        await expectStoredWhole(eventId, PLAN_A);
        return;
      }
      expect(Number(early.retryAfter)).toBeGreaterThan(0);
      await pastTheLease(eventId);
      expect((await put(eventId, PLAN_B)).status).toBe(201);
      await expectStoredWhole(eventId, PLAN_B);
    });
  }

  it('after the Inventory applied a change the WaitingRoom then refused: a creation is undone (404), an update restores the old prices', async () => {
    const eventId = freshEventId('undo');
    const refusing = hooked(env.WAITING_ROOM, {});
    const room = {
      getByName: (name: string) => {
        const stub = refusing.getByName(name);
        return new Proxy(stub, {
          get: (t, p) =>
            p === 'configure'
              ? async (c: unknown, dryRun?: boolean) =>
                  dryRun ? { kind: 'ok', created: true } : { kind: 'conflict', detail: 'visitors joined meanwhile' }
              : Reflect.get(t, p),
        });
      },
    } as unknown as Env['WAITING_ROOM'];
    expect((await put(eventId, PLAN_A, { WAITING_ROOM: room })).status).toBe(409);
    expect(await env.INVENTORY.getByName(eventId).stats()).toEqual({ kind: 'event_not_found' });
    expect((await put(eventId, PLAN_B)).status).toBe(201);
    expect((await put(eventId, { ...PLAN_B, seatPriceMinor: 1 }, { WAITING_ROOM: room })).status).toBe(409);
    await expectStoredWhole(eventId, PLAN_B);
  });
});
