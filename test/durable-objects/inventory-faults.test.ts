// Inventory under injected faults: the object reset at each boundary (after a commit, before the
// answer; between payment-pending and confirm; halfway through the alarm's expiries), alarms late,
// twice or lost, and an RPC from a newer Worker. After the retry or the next request: no duplicate
// hold, no seat freed or sold twice, the alarm re-armed; the invariants hold after every step.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HoldRequest } from '../../contracts/inventory-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { InventoryConfig } from '../../contracts/event-config';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { queueConfig } from '../helpers/queue';
import { GRACE_MS, SEAT_PRICE, TTL_MS, INVENTORY_CONFIG } from '../helpers/schedules';
import { inventoryStats } from '../helpers/inventory';
import { crashAfterNextCommit, failure, reset } from '../helpers/inventory-faults';

type Stub = DurableObjectStub<Inventory>;

/** The private parts of the adapter that the fault seams replace (test-only access). */
interface Seams {
  armAlarm: () => Promise<void>;
  store: { applyTransition: (...args: unknown[]) => void };
}

async function inventory(): Promise<Stub> {
  const inv = env.INVENTORY.getByName(freshEventId('fault'));
  expect(await inv.configure(INVENTORY_CONFIG)).toEqual({ kind: 'ok', created: true });
  return inv;
}

async function setClock(inv: Stub, nowMs: number): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
}

async function alarmAt(inv: Stub): Promise<number | null> {
  return runInDurableObject(inv, (_obj, state) => state.storage.getAlarm());
}

function sqlRows<T>(inv: Stub, query: string, ...args: (string | number)[]): Promise<T[]> {
  return runInDurableObject(inv, (_obj, state) => state.storage.sql.exec(query, ...args).toArray() as T[]);
}

async function auditCount(inv: Stub, holdId: string, to: string): Promise<number> {
  return (await inv.auditLog(0, 1000)).filter((e) => e.holdId === holdId && e.to === to).length;
}

describe('object reset at each boundary', () => {
  it('after a hold commits and before the answer: the retry returns the same hold, nothing doubles, the alarm is re-armed', async () => {
    let inv = await inventory();
    await crashAfterNextCommit(inv);
    expect(await failure(inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'k1'))).toMatch(/injected reset/);
    inv = await reset(inv);
    // Found by this test: the restarted object had the hold but no alarm for its deadline.
    const rows = await sqlRows<{ hold_id: string; expires_at: number }>(inv, `SELECT hold_id, expires_at FROM inv_holds`);
    expect(rows).toHaveLength(1);
    expect(await alarmAt(inv)).toBe(rows[0]!.expires_at);

    const retry = await inv.hold('alice', { seatIds: ['A2', 'A1'] }, 'k1');
    expect(retry).toMatchObject({ kind: 'held', replayed: true, hold: { holdId: rows[0]!.hold_id, seatIds: ['A1', 'A2'] } });
    // Someone else's hold of the same seats is refused: the crashed hold owns them.
    expect(await inv.hold('bob', { seatIds: ['A1'] }, 'k1')).toMatchObject({ kind: 'unavailable', seatIds: ['A1'] });
    expect((await inventoryStats(inv)).holds.HELD).toBe(1);
    await checkInvariants(inv);
  });

  it('between payment-pending and confirm: repeated calls move the deadline once and sell the seats once', async () => {
    let inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const held = await inv.hold('alice', { seatIds: ['B1'] }, 'k1');
    if (held.kind !== 'held') throw new Error('setup');
    const holdId = held.hold.holdId;

    await crashAfterNextCommit(inv);
    expect(await failure(inv.startPayment(holdId, 'alice'))).toMatch(/injected reset/);
    inv = await reset(inv);
    await setClock(inv, t0 + 1_000);
    expect(await alarmAt(inv)).toBe(t0 + GRACE_MS);
    // The origin retries: a no-op, the grace does not start again.
    expect(await inv.startPayment(holdId, 'alice')).toMatchObject({
      kind: 'ok',
      hold: { status: 'PAYMENT_PENDING', expiresAtMs: t0 + GRACE_MS },
    });
    await checkInvariants(inv);

    await crashAfterNextCommit(inv);
    expect(await failure(inv.confirm(holdId, 'order-1', SEAT_PRICE, null))).toMatch(/injected reset/);
    inv = await reset(inv);
    await setClock(inv, t0 + 2_000);
    expect(await alarmAt(inv)).toBeNull(); // nothing left with a deadline
    expect(await inv.confirm(holdId, 'order-1', SEAT_PRICE, null)).toMatchObject({
      kind: 'ok',
      hold: { status: 'SOLD', orderId: 'order-1' },
    });
    // A second order for the same hold, or the same order for another hold, is refused.
    expect(await inv.confirm(holdId, 'order-2', SEAT_PRICE, null)).toMatchObject({ kind: 'refused', code: 'HOLD_ALREADY_CONFIRMED' });
    expect(await auditCount(inv, holdId, 'SOLD')).toBe(1);
    expect(await auditCount(inv, holdId, 'PAYMENT_PENDING')).toBe(1);
    expect((await inventoryStats(inv)).seats.sold).toBe(1);
    await checkInvariants(inv);
  });

  it('halfway through the alarm expiring several holds: all or none expire, the retried alarm frees each seat once', async () => {
    let inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const ids: string[] = [];
    for (const [i, seat] of ['A1', 'A2', 'A3'].entries()) {
      const h = await inv.hold(`acct-${i}`, { seatIds: [seat] }, `k${i}`);
      if (h.kind !== 'held') throw new Error('setup');
      ids.push(h.hold.holdId);
    }
    const tier = await inv.hold('acct-t', { tier: 'floor', quantity: 2 }, 'kt');
    if (tier.kind !== 'held') throw new Error('setup');
    ids.push(tier.hold.holdId);

    // The second expiry throws: the runtime would reset the object and retry the alarm.
    await runInDurableObject(inv, (obj: Inventory) => {
      const seams = obj as unknown as Seams;
      const real = seams.store.applyTransition.bind(seams.store);
      let calls = 0;
      obj.clock = () => t0 + TTL_MS + 1;
      seams.store.applyTransition = (...args: unknown[]) => {
        if (++calls === 2) throw new Error('injected reset inside the alarm');
        real(...args);
      };
    });
    expect(await failure(runDurableObjectAlarm(inv))).toMatch(/injected reset/);
    // One transaction: not one hold expired, no seat freed, no audit line written.
    const statuses = await sqlRows<{ status: string }>(inv, `SELECT status FROM inv_holds`);
    expect(statuses.map((r) => r.status)).toEqual(['HELD', 'HELD', 'HELD', 'HELD']);
    expect((await sqlRows<{ n: number }>(inv, `SELECT COUNT(*) AS n FROM inv_seats WHERE status = 'HELD'`))[0]!.n).toBe(3);

    inv = await reset(inv);
    expect(await alarmAt(inv)).toBe(t0 + TTL_MS);
    await setClock(inv, t0 + TTL_MS + 1);
    expect(await runDurableObjectAlarm(inv)).toBe(true);
    for (const id of ids) expect(await auditCount(inv, id, 'EXPIRED')).toBe(1);
    expect((await inventoryStats(inv)).seats.available).toBe(8);
    expect((await inventoryStats(inv)).tiers[0]).toMatchObject({ held: 0, available: 5 });
    expect(await alarmAt(inv)).toBeNull();

    // A new holder takes A1; a duplicate alarm afterwards frees nothing of theirs.
    const next = await inv.hold('dora', { seatIds: ['A1'] }, 'kd');
    if (next.kind !== 'held') throw new Error('A1 should be free again');
    await runInDurableObject(inv, async (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
    await runDurableObjectAlarm(inv);
    for (const id of ids) expect(await auditCount(inv, id, 'EXPIRED')).toBe(1);
    expect(await inv.getHold(next.hold.holdId, 'dora')).toMatchObject({ kind: 'ok', hold: { status: 'HELD' } });
    await checkInvariants(inv);
  });
});

describe('alarms late, twice or never', () => {
  it('a lost alarm (stuck in the past): the next write sweeps the passed deadlines and re-arms', async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const a = await inv.hold('alice', { seatIds: ['A4'] }, 'ka');
    if (a.kind !== 'held') throw new Error('setup');
    await runInDurableObject(inv, async (_obj, state) => state.storage.deleteAlarm());
    expect(await runDurableObjectAlarm(inv)).toBe(false);

    await setClock(inv, t0 + TTL_MS + 5_000);
    // Bob's hold of the same seat is the next write: it expires Alice's first, then succeeds.
    const b = await inv.hold('bob', { seatIds: ['A4'] }, 'kb');
    expect(b).toMatchObject({ kind: 'held', replayed: false });
    expect(await inv.getHold(a.hold.holdId, null)).toMatchObject({ kind: 'ok', hold: { status: 'EXPIRED' } });
    expect(await alarmAt(inv)).toBe(t0 + TTL_MS + 5_000 + TTL_MS);
    await checkInvariants(inv);
  });

  it('a late alarm expires only the holds whose own deadline passed; a second run changes nothing', async () => {
    const inv = await inventory();
    const t0 = Date.now();
    await setClock(inv, t0);
    const early = await inv.hold('alice', { seatIds: ['B2'] }, 'ka');
    await setClock(inv, t0 + TTL_MS - 1_000);
    const later = await inv.hold('bob', { seatIds: ['B3'] }, 'kb');
    if (early.kind !== 'held' || later.kind !== 'held') throw new Error('setup');
    // The alarm for t0 + TTL arrives 500 ms late.
    await setClock(inv, t0 + TTL_MS + 500);
    expect(await runDurableObjectAlarm(inv)).toBe(true);
    expect(await inv.getHold(early.hold.holdId, null)).toMatchObject({ hold: { status: 'EXPIRED' } });
    expect(await inv.getHold(later.hold.holdId, null)).toMatchObject({ hold: { status: 'HELD' } });
    expect(await alarmAt(inv)).toBe(t0 + 2 * TTL_MS - 1_000);
    const versionBefore = (await inventoryStats(inv)).version;
    await runInDurableObject(inv, async (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
    expect(await runDurableObjectAlarm(inv)).toBe(true);
    expect((await inventoryStats(inv)).version).toBe(versionBefore);
    expect(await auditCount(inv, early.hold.holdId, 'EXPIRED')).toBe(1);
    await checkInvariants(inv);
  });
});

describe('deploy skew', () => {
  it('accepts an RPC from a newer Worker with an extra field, and a retry without it replays', async () => {
    const inv = await inventory();
    const newer = { seatIds: ['A1'], seatNote: 'aisle please' } as unknown as HoldRequest;
    const first = await inv.hold('alice', newer, 'k1');
    expect(first).toMatchObject({ kind: 'held', replayed: false });
    expect(await inv.hold('alice', { seatIds: ['A1'] }, 'k1')).toMatchObject({ kind: 'held', replayed: true });
    const newerConfig = { ...INVENTORY_CONFIG, holdTtlMs: TTL_MS * 2, futureOption: true } as unknown as InventoryConfig;
    expect(await inv.configure(newerConfig)).toEqual({ kind: 'ok', created: false });
    expect((await inventoryStats(inv)).config.holdTtlMs).toBe(TTL_MS * 2);
    await checkInvariants(inv);
  });
});

describe('a write that reaches a second object', () => {
  it('the sold-out signal to the WaitingRoom lost after the commit: the flag is not stored, and the next change delivers it', async () => {
    const eventId = freshEventId('soldout');
    const room = env.WAITING_ROOM.getByName(eventId);
    expect(await room.configure(queueConfig(eventId))).toMatchObject({ kind: 'ok' });
    const inv = env.INVENTORY.getByName(eventId);
    expect(await inv.configure({ ...INVENTORY_CONFIG, seats: 1, seatsPerRow: 1, tiers: [] })).toMatchObject({ kind: 'ok' });
    const held = await inv.hold('alice', { seatIds: ['A1'] }, 'k1');
    if (held.kind !== 'held') throw new Error('setup');
    // The WaitingRoom cannot be reached while the payment starts (the last place goes).
    await runInDurableObject(inv, (obj: Inventory) => {
      const o = obj as unknown as { env: Env };
      o.env = {
        ...o.env,
        WAITING_ROOM: { getByName: () => ({ setSoldOut: async () => Promise.reject(new Error('injected: room unreachable')) }) },
      } as unknown as Env;
    });
    expect(await inv.startPayment(held.hold.holdId, null)).toMatchObject({ kind: 'ok', hold: { status: 'PAYMENT_PENDING' } });
    expect((await room.cursor())!.soldOut).toBe(false);
    expect(await sqlRows<{ sold_out: number }>(inv, `SELECT sold_out FROM inv_plan`)).toEqual([{ sold_out: 0 }]);
    // A reset brings the real bindings back; the next change (the confirm) delivers the signal.
    const fresh = await reset(inv);
    expect(await fresh.confirm(held.hold.holdId, 'o1', SEAT_PRICE, null)).toMatchObject({ kind: 'ok' });
    expect((await room.cursor())!.soldOut).toBe(true);
    await checkInvariants(fresh);
  });
});
