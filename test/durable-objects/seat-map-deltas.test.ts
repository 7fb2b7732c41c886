// The seat map's deltas under random schedules (fast-check): since migration 7 they are the
// change feed's seat entries, written by triggers. Holds, releases, payments, sales, expiries (alarm
// and sweep on the next write), allocations and their ends, clock jumps: a reader holding the map of
// any earlier version who applies `seatMap(version)`'s changes has exactly the map of now.
import fc from 'fast-check';
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { SeatStatus } from '../../contracts/inventory-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { seatMapOf } from '../helpers/inventory';
import { checkInvariants } from '../helpers/inventory-invariants';

type Stub = DurableObjectStub<Inventory>;
type Seats = Record<string, SeatStatus>;
const SEATS = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4'];
const TTL_MS = 60_000;

const arbSeats = fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 3 });
const arbOp = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('hold' as const), account: fc.nat(3), seatIds: arbSeats, key: fc.nat(4) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('allocate' as const),
      id: fc.nat(1),
      seatIds: arbSeats,
      releaseInMs: fc.integer({ min: 1, max: TTL_MS }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), id: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: TTL_MS }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'alarm' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'record' as const }) },
);

/** The map of now, read from storage (not the object's one-second snapshot reuse), with its version. */
async function mapNow(inv: Stub, nowMs: number): Promise<{ version: number; seats: Seats }> {
  return runInDurableObject(inv, (o: Inventory, s) => {
    const version = s.storage.sql.exec<{ version: number }>('SELECT version FROM inv_plan').one().version;
    return { version, seats: Object.fromEntries(o.store.snapshotSeats(nowMs).map((x) => [x.id, x.status])) };
  });
}

it('a reader applying the deltas since any earlier version has exactly the map of now', async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(arbOp, { minLength: 4, maxLength: 25 }), async (ops) => {
      const inv = env.INVENTORY.getByName(freshEventId('smd'));
      await inv.configure({
        seats: 8,
        seatsPerRow: 4,
        seatPriceMinor: 100,
        currency: 'EUR',
        tiers: [],
        holdTtlMs: TTL_MS,
        paymentGraceMs: 30_000,
        maxSeatsPerAccount: 6,
      });
      await inv.putChannel('box', 'Box office');
      let now = Date.now();
      const setClock = () => runInDurableObject(inv, (o: Inventory) => (o.clock = () => now));
      await setClock();
      const holds: { id: string; price: number }[] = [];
      const recorded = [await mapNow(inv, now)];
      const pick = (n: number) => holds[n % holds.length]!;
      for (const op of ops) {
        if (op.kind === 'hold') {
          const a = await inv.hold(`a${op.account}`, { seatIds: op.seatIds }, `k${op.key}`);
          if (a.kind === 'held' && !a.replayed) holds.push({ id: a.hold.holdId, price: a.hold.priceMinor });
        } else if (op.kind === 'release' && holds.length) await inv.release(pick(op.pick).id, null, true);
        else if (op.kind === 'pay' && holds.length) await inv.startPayment(pick(op.pick).id, null);
        else if (op.kind === 'confirm' && holds.length) {
          const h = pick(op.pick);
          await inv.confirm(h.id, `o-${h.id}`, h.price, null);
        } else if (op.kind === 'allocate')
          await inv.allocate({
            allocationId: `al${op.id}`,
            channelId: 'box',
            target: { seatIds: op.seatIds },
            releaseAtMs: now + op.releaseInMs,
          });
        else if (op.kind === 'end') await inv.endAllocation(`al${op.id}`);
        else if (op.kind === 'advance') {
          now += op.ms;
          await setClock();
        } else if (op.kind === 'alarm') {
          await runInDurableObject(inv, async (_o, s) => s.storage.setAlarm(Date.now() + 60_000));
          await runDurableObjectAlarm(inv);
        } else if (op.kind === 'record') recorded.push(await mapNow(inv, now));
      }
      // Every passed deadline and release time written (as the alarm does at its time), then compare.
      await runInDurableObject(inv, async (_o, s) => s.storage.setAlarm(Date.now() + 60_000));
      await runDurableObjectAlarm(inv);
      await checkInvariants(inv);
      const final = await mapNow(inv, now);
      for (const past of recorded) {
        const map = await seatMapOf(inv, past.version);
        if (map.kind !== 'delta') throw new Error(`expected a delta since ${past.version}`);
        const applied = { ...past.seats };
        for (const c of map.changes) applied[c.id] = c.status;
        expect(applied, `since version ${past.version}`).toEqual(final.seats);
        expect(map.version).toBe(final.version);
        checked++;
      }
    }),
    { numRuns: 40 },
  );
  expect(checked).toBeGreaterThanOrEqual(40);
});
