// Inventory.holdMany (coalesced holds) inside workerd: a batch answers exactly what the same holds
// one call after another answer (fast-check), the same seats twice give one hold, a replay inside a
// batch gets the first result, one item that throws fails alone, and bad batches change nothing.
import fc from 'fast-check';
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { HOLD_BATCH_MAX, type HoldAnswer, type HoldBatchItem } from '../../contracts/inventory-answers';
import type { BatchOutcome } from '../../contracts/batch';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { GRACE_MS, SEATS, TTL_MS, INVENTORY_CONFIG } from '../helpers/schedules';
import { inventoryStats } from '../helpers/inventory';

type Stub = DurableObjectStub<Inventory>;

async function inventory(nowMs: number): Promise<Stub> {
  const inv = env.INVENTORY.getByName(freshEventId('batch'));
  expect(await inv.configure(INVENTORY_CONFIG)).toEqual({ kind: 'ok', created: true });
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
  return inv;
}

/** The error a call fails with (an RPC promise is awaited here, so nothing is left unhandled). */
async function failure(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the call to fail');
}

/** The answer of an outcome that must have one. */
function answerOf(o: BatchOutcome<HoldAnswer> | undefined): HoldAnswer {
  if (!o?.ok) throw new Error(`expected an answer, got ${JSON.stringify(o)}`);
  return o.value;
}

/** An answer with hold ids replaced by the order they first appeared in (two objects mint different uuids). */
function normalize(answers: HoldAnswer[]): unknown[] {
  const ids = new Map<string, number>();
  return answers.map((a) => {
    if (a.kind !== 'held') return a;
    if (!ids.has(a.hold.holdId)) ids.set(a.hold.holdId, ids.size);
    return { ...a, hold: { ...a.hold, holdId: ids.get(a.hold.holdId) } };
  });
}

const arbItem: fc.Arbitrary<HoldBatchItem> = fc.record({
  account: fc.constantFrom('alice', 'bob', 'carol'),
  request: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.uniqueArray(fc.constantFrom(...SEATS, 'Z9'), { minLength: 1, maxLength: 4 }).map((seatIds) => ({ seatIds })),
    },
    { weight: 1, arbitrary: fc.record({ tier: fc.constantFrom('floor', 'nope'), quantity: fc.integer({ min: 0, max: 4 }) }) },
  ),
  idempotencyKey: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
});

describe('Inventory.holdMany', () => {
  it('answers a batch exactly as the same holds one call after another, in order (random batches)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbItem, { minLength: 1, maxLength: 12 }), async (generated) => {
        // Plain objects (fast-check's records do not cross RPC as they are).
        const items = JSON.parse(JSON.stringify(generated)) as HoldBatchItem[];
        const now = Date.now();
        const [batched, oneByOne] = await Promise.all([inventory(now), inventory(now)]);
        const together = (await batched.holdMany(items)).map(answerOf);
        const apart: HoldAnswer[] = [];
        for (const item of items) apart.push(await oneByOne.hold(item.account, item.request, item.idempotencyKey));
        expect(normalize(together)).toEqual(normalize(apart));
        expect((await inventoryStats(batched)).holds).toEqual((await inventoryStats(oneByOne)).holds);
        await checkInvariants(batched);
      }),
      { numRuns: 25 },
    );
  });

  it('the same seats twice in one batch: exactly one hold, the other unavailable', async () => {
    const inv = await inventory(Date.now());
    const out = (
      await inv.holdMany([
        { account: 'alice', request: { seatIds: ['A1', 'A2'] }, idempotencyKey: 'a' },
        { account: 'bob', request: { seatIds: ['A2', 'A3'] }, idempotencyKey: 'b' },
        { account: 'carol', request: { seatIds: ['A3'] }, idempotencyKey: 'c' },
      ])
    ).map(answerOf);
    expect(out.map((a) => a.kind)).toEqual(['held', 'unavailable', 'held']);
    expect(out[1]).toMatchObject({ kind: 'unavailable', seatIds: ['A2'] });
    expect((await inventoryStats(inv)).holds.HELD).toBe(2);
    await checkInvariants(inv);
  });

  it('a replay inside one batch gets the first result; the same key with another request is refused', async () => {
    const inv = await inventory(Date.now());
    const out = (
      await inv.holdMany([
        { account: 'alice', request: { seatIds: ['B1'] }, idempotencyKey: 'k' },
        { account: 'alice', request: { seatIds: ['B1'] }, idempotencyKey: 'k' },
        { account: 'alice', request: { seatIds: ['B2'] }, idempotencyKey: 'k' },
      ])
    ).map(answerOf);
    if (out[0]!.kind !== 'held') throw new Error('setup');
    expect(out[1]).toEqual({ kind: 'held', hold: out[0]!.hold, replayed: true, paymentGraceMs: GRACE_MS });
    expect(out[2]).toEqual({ kind: 'idempotency_conflict' });
    // And after the batch, through the one-hold call.
    expect(await inv.hold('alice', { seatIds: ['B1'] }, 'k')).toEqual({
      kind: 'held',
      hold: out[0]!.hold,
      replayed: true,
      paymentGraceMs: GRACE_MS,
    });
  });

  it('keeps the per-account limit across the items of one batch', async () => {
    const inv = await inventory(Date.now());
    const out = (
      await inv.holdMany([
        { account: 'alice', request: { seatIds: ['A1', 'A2', 'A3', 'A4'] }, idempotencyKey: 'a' },
        { account: 'alice', request: { seatIds: ['B1', 'B2', 'B3'] }, idempotencyKey: 'b' },
        { account: 'bob', request: { seatIds: ['B1', 'B2', 'B3'] }, idempotencyKey: 'b' },
      ])
    ).map(answerOf);
    expect(out.map((a) => a.kind)).toEqual(['held', 'account_limit', 'held']);
  });

  it('an item whose decision throws fails alone and stores nothing; the others stand and the alarm is armed', async () => {
    const now = Date.now();
    const inv = await inventory(now);
    await runInDurableObject(inv, (obj: Inventory) => {
      const insert = obj.store.insertHold.bind(obj.store);
      let calls = 0;
      obj.store.insertHold = (...args) => {
        insert(...args);
        if (++calls === 2) throw new Error('injected failure after the writes');
      };
    });
    const out = await inv.holdMany([
      { account: 'alice', request: { seatIds: ['A1'] }, idempotencyKey: 'a' },
      { account: 'bob', request: { seatIds: ['A2'] }, idempotencyKey: 'b' },
      { account: 'carol', request: { seatIds: ['A3'] }, idempotencyKey: 'c' },
    ]);
    expect(out[0]).toMatchObject({ ok: true, value: { kind: 'held' } });
    expect(out[1]).toEqual({ ok: false, error: 'injected failure after the writes' });
    expect(out[2]).toMatchObject({ ok: true, value: { kind: 'held' } });
    // Bob's hold rolled back whole: his seat is free, his key unused.
    expect((await inventoryStats(inv)).holds.HELD).toBe(2);
    expect(await inv.hold('dora', { seatIds: ['A2'] }, 'd')).toMatchObject({ kind: 'held', replayed: false });
    expect(await runInDurableObject(inv, (_obj, state) => state.storage.getAlarm())).toBe(now + TTL_MS);
    await checkInvariants(inv);
  });

  it('refuses an empty or oversized batch and stores nothing', async () => {
    const inv = await inventory(Date.now());
    const item: HoldBatchItem = { account: 'alice', request: { seatIds: ['A1'] }, idempotencyKey: 'a' };
    expect(await failure(inv.holdMany([]))).toMatch(/holdMany takes 1 to 32 holds/);
    expect(
      await failure(inv.holdMany(Array.from({ length: HOLD_BATCH_MAX + 1 }, (_, i) => ({ ...item, idempotencyKey: `k${i}` })))),
    ).toMatch(/holdMany takes/);
    expect((await inventoryStats(inv)).holds.HELD ?? 0).toBe(0);
  });

  it('answers event_not_found for every item of an object with no plan', async () => {
    const inv = env.INVENTORY.getByName(freshEventId('batch-none'));
    const item: HoldBatchItem = { account: 'alice', request: { seatIds: ['A1'] }, idempotencyKey: 'a' };
    expect(await inv.holdMany([item, item])).toEqual([
      { ok: true, value: { kind: 'event_not_found' } },
      { ok: true, value: { kind: 'event_not_found' } },
    ]);
  });
});
