// Hold coalescing at the edge (src/lib/hold-batch.ts): concurrent holds from one isolate to one
// Inventory object go as few `holdMany` calls, and each visitor still gets exactly the answer a
// hold of its own would: one winner per seat, replays of the first result, the batch's failure
// retried per caller by its idempotency key. @cloudflare/vitest-plugin runs its tests without
// cross-request promise resolution, so the concurrent holds run inside this test's request with
// HOLD_COALESCING "on" (as test/edge/join-coalescing.test.ts does for joins).
import { env } from 'cloudflare:workers';
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HoldBatchItem } from '../../contracts/inventory-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { createApp } from '../../src/app';
import { BASE, type Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { inventoryStats } from '../helpers/inventory';

/** The object's own count of `holdMany` calls and the holds they carried. */
const batches = (eventId: string) => runInDurableObject(env.INVENTORY.getByName(eventId), (obj: Inventory) => ({ ...obj.holdBatches }));

async function visitors(eventId: string, n: number): Promise<Visitor[]> {
  const out: Visitor[] = [];
  for (let i = 0; i < n; i++) out.push(await admittedVisitor(eventId));
  return out;
}

/** A visitor's hold through a gateway app with `overrides` on top of the real bindings. */
async function holdVia(v: Visitor, eventId: string, seatIds: string[], key: string, overrides: Partial<Env>) {
  const headers = new Headers({ 'idempotency-key': key, 'content-type': 'application/json', accept: 'application/json' });
  headers.set('cookie', [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; '));
  const ctx = createExecutionContext();
  const init = { method: 'POST', headers, body: JSON.stringify({ seatIds }) };
  const gatewayEnv = { ...env, HOLD_COALESCING: 'on', ...overrides };
  const res = await createApp().fetch(new Request(`${BASE}/_wr/events/${eventId}/holds`, init), gatewayEnv, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Record<string, unknown> };
}

/**
 * An INVENTORY namespace whose `holdMany` runs the real one and then, for the first `failures`
 * calls, throws `err` anyway: the object committed, then the call failed (a reset before the answer).
 */
function failingAfterCommit(err: Error, failures: number) {
  const calls: number[] = [];
  const ns = {
    getByName: (name: string) => {
      const real = env.INVENTORY.getByName(name);
      return new Proxy(real, {
        get(target, prop) {
          if (prop !== 'holdMany') return Reflect.get(target, prop);
          return async (items: HoldBatchItem[]) => {
            calls.push(items.length);
            const out = await target.holdMany(items);
            if (calls.length <= failures) throw err;
            return out;
          };
        },
      });
    },
  };
  return { ns: ns as unknown as Env['INVENTORY'], calls };
}

describe('hold coalescing per isolate', () => {
  it('concurrent holds of the same seats: fewer object calls than holds, exactly one 201, the others 409 as alone', async () => {
    const eventId = freshEventId('batch');
    await createEvent(eventId);
    const crowd = await visitors(eventId, 6);
    const before = await batches(eventId);
    const answers = await Promise.all(crowd.map((v, i) => holdVia(v, eventId, ['C1', 'C2'], `key-${i}`, {})));
    const after = await batches(eventId);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toMatchObject({ code: 'SEATS_UNAVAILABLE' });
    expect(after.holds - before.holds).toBe(6);
    expect(after.calls - before.calls).toBeLessThan(6);
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(1);
    await checkInvariants(env.INVENTORY.getByName(eventId));
  });

  it('a replay with the same idempotency key inside one batch gets the first result', async () => {
    const eventId = freshEventId('batch');
    await createEvent(eventId);
    const [v] = await visitors(eventId, 1);
    const key = crypto.randomUUID();
    const before = await batches(eventId);
    const answers = await Promise.all([0, 1, 2, 3].map(() => holdVia(v!, eventId, ['D1'], key, {})));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.holdId)).size).toBe(1);
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(3);
    // The replays were answered inside a batch (fewer calls than holds), not one call each.
    expect((await batches(eventId)).calls - before.calls).toBeLessThan(4);
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(1);
  });

  it('the object throwing fails that batch for each of its callers, and each retry by its key gets the first result', async () => {
    const eventId = freshEventId('batch');
    await createEvent(eventId);
    const crowd = await visitors(eventId, 4);
    // The first two calls commit, then fail as a lost connection would: their callers retry by key.
    const flaky = failingAfterCommit(Object.assign(new Error('Network connection lost.'), { retryable: true }), 2);
    const answers = await Promise.all(crowd.map((v, i) => holdVia(v, eventId, [`E${i + 1}`], `key-${i}`, { INVENTORY: flaky.ns })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    // The first batch's callers got their committed hold replayed; nobody got a second hold.
    expect(answers.filter((a) => a.replayed === 'true').length).toBeGreaterThanOrEqual(1);
    expect(new Set(answers.map((a) => a.body.holdId)).size).toBe(4);
    expect(flaky.calls.length).toBeGreaterThanOrEqual(3);
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(4);
    await checkInvariants(env.INVENTORY.getByName(eventId));
  });

  it('a batch that fails for good answers 503 to each of its callers and holds nothing twice', async () => {
    const eventId = freshEventId('batch');
    await createEvent(eventId);
    const crowd = await visitors(eventId, 3);
    const flaky = failingAfterCommit(Object.assign(new Error('Network connection lost.'), { retryable: true }), Infinity);
    const answers = await Promise.all(crowd.map((v, i) => holdVia(v, eventId, [`F${i + 1}`], `key-${i}`, { INVENTORY: flaky.ns })));
    expect(answers.map((a) => [a.status, a.body.code])).toEqual([
      [503, 'OVERLOADED'],
      [503, 'OVERLOADED'],
      [503, 'OVERLOADED'],
    ]);
    // Committed once each (the object stored them before failing): never twice.
    expect((await inventoryStats(env.INVENTORY.getByName(eventId))).holds.HELD).toBe(3);
    await checkInvariants(env.INVENTORY.getByName(eventId));
  });
});
