// Inventory adapter inside workerd: the same random schedules as the pure reference model, with
// every outcome compared and the invariants read from SQL; concurrent bursts; the named races.
import fc from 'fast-check';
import { env } from 'cloudflare:workers';
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HoldChangeAnswer, HoldRequest } from '../../contracts/inventory-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { InventoryConfig } from '../../contracts/event-config';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import type { ModelOutcome } from '../helpers/inventory-model';
import { GRACE_MS, SEAT_PRICE, SEATS, TIERS, TTL_MS, arbSchedule, scheduleModel, INVENTORY_CONFIG } from '../helpers/schedules';
import { inventoryStats, seatMapOf } from '../helpers/inventory';

type Stub = DurableObjectStub<Inventory>;

async function inventory(config: Partial<InventoryConfig> = {}): Promise<Stub> {
  const inv = env.INVENTORY.getByName(freshEventId('inv'));
  expect(await inv.configure({ ...INVENTORY_CONFIG, ...config })).toEqual({ kind: 'ok', created: true });
  return inv;
}

async function setClock(inv: Stub, nowMs: number): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
}

/** Fires the alarm now, whether or not one is due (a late or duplicate alarm). */
async function fireAlarm(inv: Stub): Promise<void> {
  await runInDurableObject(inv, async (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
  await runDurableObjectAlarm(inv);
}

const outcome = (a: HoldChangeAnswer): ModelOutcome =>
  a.kind === 'ok' ? { kind: 'ok', status: a.hold.status } : a.kind === 'refused' ? { kind: 'refused', code: a.code } : { kind: a.kind };

describe('Inventory against the reference model', () => {
  it('gives the same answer as the pure model at every step of random schedules, and keeps the invariants', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(arbSchedule, async (ops) => {
        runs++;
        const inv = await inventory();
        const model = scheduleModel();
        let now = Date.now();
        await setClock(inv, now);
        const ids: { real: string; model: string }[] = [];
        for (const op of ops) {
          if (op.kind === 'hold') {
            const account = `acct-${op.account}`;
            const real = await inv.hold(account, op.request as HoldRequest, `k${op.key}`);
            const expected = model.hold(account, op.request, `k${op.key}`, now);
            expect(real.kind).toBe(expected.kind);
            if (real.kind === 'held') {
              expect(real.replayed).toBe(expected.replayed);
              if (!real.replayed) ids.push({ real: real.hold.holdId, model: expected.holdId! });
            }
          } else if (op.kind === 'advance') {
            now += op.ms;
            await setClock(inv, now);
          } else if (op.kind === 'alarm') {
            await fireAlarm(inv);
            model.sweep(now);
          } else if (ids.length > 0) {
            const { real, model: mid } = ids[op.pick % ids.length]!;
            const h = model.holds.get(mid)!;
            if (op.kind === 'payment_pending') {
              expect(outcome(await inv.startPayment(real, null))).toEqual(
                model.change(mid, { kind: 'payment_pending', account: null, graceMs: GRACE_MS }, now),
              );
            } else if (op.kind === 'confirm') {
              const amount = h.priceMinor + (op.wrongAmount ? 1 : 0);
              const order = `order-${op.order}`;
              expect(outcome(await inv.confirm(real, order, amount, null))).toEqual(
                model.change(mid, { kind: 'confirm', orderId: order, amountMinor: amount, account: null }, now),
              );
            } else {
              const account = op.byOrigin ? null : h.account;
              expect(outcome(await inv.release(real, account, op.byOrigin))).toEqual(
                model.change(mid, { kind: 'release', account, byOrigin: op.byOrigin }, now),
              );
            }
          }
          await checkInvariants(inv);
        }
        // Same seats, same owners, same tier counters.
        model.sweep(now);
        await fireAlarm(inv);
        const map = await seatMapOf(inv);
        expect(map.kind === 'snapshot' && map.seats).toEqual(SEATS.map((id) => ({ id, status: model.seats.get(id)!.status })));
        expect(map.tiers.map((t) => [t.tier, t.held, t.sold])).toEqual([...model.tiers].map(([name, t]) => [name, t.held, t.sold]));
      }),
      { numRuns: 60 },
    );
    expect(runs).toBe(60);
  }, 120_000);

  it('keeps the invariants when bursts of operations arrive at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbSchedule, { minLength: 2, maxLength: 4 }), async (bursts) => {
        const inv = await inventory();
        let now = Date.now();
        await setClock(inv, now);
        const holds: string[] = [];
        for (const burst of bursts) {
          await Promise.all(
            burst.map(async (op) => {
              if (op.kind === 'hold') {
                const r = await inv.hold(`acct-${op.account}`, op.request as HoldRequest, `k${op.key}`);
                if (r.kind === 'held' && !r.replayed) holds.push(r.hold.holdId);
              } else if (op.kind === 'alarm') await runDurableObjectAlarm(inv);
              else if (op.kind === 'advance') return;
              else if (holds.length > 0) {
                const id = holds[op.pick % holds.length]!;
                if (op.kind === 'payment_pending') await inv.startPayment(id, null);
                else if (op.kind === 'release') await inv.release(id, null, op.byOrigin);
                else await inv.confirm(id, `order-${op.order}`, 1, null);
              }
            }),
          );
          now += TTL_MS / 2;
          await setClock(inv, now);
          await checkInvariants(inv);
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);
});

describe('named races', () => {
  it('last seats: 50 concurrent mixed-size requests for 10 seats are each all or nothing, no seat twice', async () => {
    const inv = await inventory({ seats: 10, seatsPerRow: 10, tiers: [], maxSeatsPerAccount: 6 });
    const seats = Array.from({ length: 10 }, (_, i) => `A${i + 1}`);
    const requests = Array.from({ length: 50 }, (_, i) => {
      const n = 1 + (i % 6);
      const start = (i * 7) % 10;
      return Array.from({ length: n }, (_, k) => seats[(start + k) % 10]!);
    });
    const results = await Promise.all(requests.map((seatIds, i) => inv.hold(`acct-${i}`, { seatIds }, `k-${i}`)));
    const owner = new Map<string, string>();
    for (const [i, r] of results.entries()) {
      if (r.kind !== 'held') {
        expect(r.kind).toBe('unavailable');
        continue;
      }
      expect(r.hold.seatIds).toEqual([...requests[i]!].sort());
      for (const s of r.hold.seatIds) {
        expect(owner.has(s), `seat ${s} twice`).toBe(false);
        owner.set(s, r.hold.holdId);
      }
    }
    const map = await seatMapOf(inv);
    expect(map.kind === 'snapshot' && map.seats.filter((s) => s.status === 'HELD').length).toBe(owner.size);
    await checkInvariants(inv);
  });

  it('last places of a tier: 50 concurrent requests never take more than its capacity', async () => {
    const inv = await inventory({ seats: 0, tiers: [{ tier: 'floor', capacity: 10, priceMinor: 100 }] });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => inv.hold(`acct-${i}`, { tier: 'floor', quantity: 1 + (i % 6) }, 'k')),
    );
    const taken = results.reduce((a, r) => a + (r.kind === 'held' ? r.hold.quantity : 0), 0);
    expect(taken).toBeLessThanOrEqual(10);
    expect(taken).toBeGreaterThanOrEqual(5);
    expect((await inventoryStats(inv)).tiers[0]).toMatchObject({ capacity: 10, held: taken, available: 10 - taken });
    await checkInvariants(inv);
  });

  it("A's hold expires, B holds the seats, A releases and A's late alarm fires: B is untouched", async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const a = await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'a');
    await setClock(inv, t0 + TTL_MS + 1);
    const b = await inv.hold('bob', { seatIds: ['A2', 'A3'] }, 'b');
    expect(b.kind).toBe('held');
    if (a.kind !== 'held' || b.kind !== 'held') throw new Error('setup');
    expect(await inv.release(a.hold.holdId, 'alice', false)).toMatchObject({ kind: 'refused', code: 'HOLD_EXPIRED' });
    await fireAlarm(inv);
    await fireAlarm(inv);
    expect((await inv.getHold(b.hold.holdId, 'bob')) as { hold: { status: string } }).toMatchObject({ hold: { status: 'HELD' } });
    const map = await seatMapOf(inv);
    expect(map.kind === 'snapshot' && map.seats.filter((s) => s.status === 'HELD').map((s) => s.id)).toEqual(['A2', 'A3']);
    await checkInvariants(inv);
  });

  it("A's expired hold cannot be confirmed after B bought the seats", async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const a = await inv.hold('alice', { seatIds: ['B1'] }, 'a');
    await setClock(inv, t0 + TTL_MS);
    const b = await inv.hold('bob', { seatIds: ['B1'] }, 'b');
    if (a.kind !== 'held' || b.kind !== 'held') throw new Error('setup');
    expect(await inv.confirm(b.hold.holdId, 'order-b', SEAT_PRICE, null)).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    expect(await inv.confirm(a.hold.holdId, 'order-a', SEAT_PRICE, null)).toMatchObject({ kind: 'refused', code: 'HOLD_EXPIRED' });
    await checkInvariants(inv);
  });

  it('treats the deadline itself as passed: at expires_at the seat is free for the next buyer', async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    await inv.hold('alice', { seatIds: ['A4'] }, 'a');
    await setClock(inv, t0 + TTL_MS - 1);
    expect((await inv.hold('bob', { seatIds: ['A4'] }, 'b')).kind).toBe('unavailable');
    await setClock(inv, t0 + TTL_MS);
    expect((await inv.hold('bob', { seatIds: ['A4'] }, 'b')).kind).toBe('held');
  });

  it('expires a hold on the next request and re-arms when the alarm was deleted or stuck in the past', async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const a = await inv.hold('alice', { seatIds: ['A1'] }, 'a');
    await inv.hold('carol', { seatIds: ['B4'] }, 'c2');
    await runInDurableObject(inv, async (_obj, state) => state.storage.deleteAlarm());
    await setClock(inv, t0 + TTL_MS + 5);
    const c = await inv.hold('carol', { seatIds: ['B3'] }, 'c');
    expect(c.kind).toBe('held');
    if (a.kind !== 'held' || c.kind !== 'held') throw new Error('setup');
    expect((await inv.getHold(a.hold.holdId, null)) as { hold: { status: string } }).toMatchObject({ hold: { status: 'EXPIRED' } });
    expect((await inventoryStats(inv)).holds.EXPIRED).toBe(2);
    const alarm = await runInDurableObject(inv, (_obj, state) => state.storage.getAlarm());
    expect(alarm).toBe(c.hold.expiresAtMs);
  });

  it('a retry with the same key after the object was reset between commit and response returns the first hold', async () => {
    const inv = await inventory();
    const first = await inv.hold('alice', { seatIds: ['A3'] }, 'key-1'); // the response is "lost"
    await evictDurableObject(inv);
    const retry = await inv.hold('alice', { seatIds: ['A3'] }, 'key-1');
    expect(retry).toEqual({ ...first, replayed: true });
    expect((await inventoryStats(inv)).holds.HELD).toBe(1);
  });

  it('keeps a pending payment out of sale after its grace, until the origin confirms or releases it', async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const a = await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'a');
    if (a.kind !== 'held') throw new Error('setup');
    expect(await inv.startPayment(a.hold.holdId, 'alice')).toMatchObject({
      kind: 'ok',
      hold: { status: 'PAYMENT_PENDING', expiresAtMs: t0 + GRACE_MS },
    });
    await setClock(inv, t0 + GRACE_MS + TTL_MS);
    await fireAlarm(inv);
    expect((await inv.getHold(a.hold.holdId, null)) as { hold: { status: string } }).toMatchObject({
      hold: { status: 'NEEDS_RECONCILIATION' },
    });
    expect((await inv.hold('bob', { seatIds: ['A1'] }, 'b')).kind).toBe('unavailable');
    expect((await inventoryStats(inv)).seats).toMatchObject({ needsReconciliation: 2, available: 6 });
    expect(await inv.release(a.hold.holdId, 'alice', false)).toMatchObject({ kind: 'refused', code: 'PAYMENT_IN_PROGRESS' });
    expect(await inv.confirm(a.hold.holdId, 'late-order', 2 * SEAT_PRICE, null)).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    await checkInvariants(inv);
  });

  it('lets one order id pay for one hold only (was: two holds sold to one payment)', async () => {
    const inv = await inventory();
    const a = await inv.hold('alice', { seatIds: ['A1'] }, 'a');
    const b = await inv.hold('bob', { seatIds: ['A2'] }, 'b');
    if (a.kind !== 'held' || b.kind !== 'held') throw new Error('setup');
    expect(await inv.confirm(a.hold.holdId, 'ORD-1', SEAT_PRICE, null)).toMatchObject({ kind: 'ok' });
    expect(await inv.confirm(b.hold.holdId, 'ORD-1', SEAT_PRICE, null)).toMatchObject({ kind: 'refused', code: 'ORDER_ALREADY_USED' });
    expect(await inv.getHold(b.hold.holdId, null)).toMatchObject({ hold: { status: 'HELD' } });
  });

  it('re-checks the per-account limit at confirm (the organizer lowered it meanwhile)', async () => {
    const inv = await inventory();
    const a = await inv.hold('alice', { seatIds: ['A1', 'A2', 'A3'] }, 'a');
    const b = await inv.hold('alice', { seatIds: ['B1', 'B2'] }, 'b');
    if (a.kind !== 'held' || b.kind !== 'held') throw new Error('setup');
    await inv.configure({ ...INVENTORY_CONFIG, maxSeatsPerAccount: 4 });
    expect(await inv.confirm(a.hold.holdId, 'o1', 3 * SEAT_PRICE, null)).toMatchObject({ kind: 'refused', code: 'ACCOUNT_LIMIT' });
    await inv.release(b.hold.holdId, 'alice', false);
    expect(await inv.confirm(a.hold.holdId, 'o1', 3 * SEAT_PRICE, null)).toMatchObject({ kind: 'ok' });
  });
});

describe('seat map and audit', () => {
  it('serves the changes since a version, latest status per seat, and the empty delta for versions ahead of the map', async () => {
    const inv = await inventory();
    const v0 = (await seatMapOf(inv)).version;
    const a = await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'a');
    if (a.kind !== 'held') throw new Error('setup');
    const d1 = await seatMapOf(inv, v0);
    expect(d1).toMatchObject({
      kind: 'delta',
      since: v0,
      changes: [
        { id: 'A1', status: 'HELD' },
        { id: 'A2', status: 'HELD' },
      ],
    });
    await inv.release(a.hold.holdId, 'alice', false);
    // An answer is reused for a second: within it the same `since` gets d1 again.
    expect(await seatMapOf(inv, v0)).toEqual(d1);
    await runInDurableObject(inv, (o: Inventory) => {
      const later = Date.now() + 1_000;
      o.clock = () => later;
    });
    const d2 = await seatMapOf(inv, v0);
    expect(d2.kind === 'delta' && d2.changes).toEqual([
      { id: 'A1', status: 'AVAILABLE' },
      { id: 'A2', status: 'AVAILABLE' },
    ]);
    expect(await seatMapOf(inv, d2.version)).toMatchObject({ kind: 'delta', changes: [] });
    // A `since` above the version made the object serialize the whole map (a
    // snapshot) for every distinct value; no reader can be ahead, so it gets the empty delta.
    expect(await seatMapOf(inv, d2.version + 100)).toMatchObject({ kind: 'delta', since: d2.version, version: d2.version, changes: [] });
  });

  it('logs every transition with its actor and reason, pageable', async () => {
    const inv = await inventory();
    const a = await inv.hold('alice', { tier: 'floor', quantity: 2 }, 'a');
    if (a.kind !== 'held') throw new Error('setup');
    await inv.startPayment(a.hold.holdId, null);
    await inv.confirm(a.hold.holdId, 'o-7', 2 * TIERS[0]!.priceMinor, null);
    const log = await inv.auditLog(0, 10);
    expect(log.map((e) => [e.from, e.to, e.actor])).toEqual([
      [null, 'HELD', 'visitor'],
      ['HELD', 'PAYMENT_PENDING', 'origin'],
      ['PAYMENT_PENDING', 'SOLD', 'origin'],
    ]);
    expect(log[2]!.reason).toContain('o-7');
    expect(await inv.auditLog(log[1]!.id, 10)).toHaveLength(1);
  });
});
