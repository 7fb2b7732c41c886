// Inventory adapter inside workerd: random schedules of holds, releases, confirms, clock jumps and
// late alarms never break the invariants of DESIGN.md section 6.
import fc from 'fast-check';
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HoldView, Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';

const SEATS = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4'];
const TTL = 60_000;

type Op =
  | { kind: 'hold'; account: number; seats: string[]; key: number }
  | { kind: 'release'; pick: number; byOrigin: boolean }
  | { kind: 'confirm'; pick: number; order: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'alarm' };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('hold' as const),
      account: fc.nat(3),
      seats: fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 4 }),
      key: fc.nat(5),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), byOrigin: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat(), order: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 2 * TTL }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'alarm' as const }) },
);

async function configure(eventId: string) {
  const inv = env.INVENTORY.getByName(eventId);
  await inv.configure({ seats: 8, seatsPerRow: 4, holdTtlMs: TTL, maxSeatsPerAccount: 8 });
  return inv;
}

async function setClock(inv: DurableObjectStub<Inventory>, nowMs: number) {
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
}

describe('Inventory under random schedules', () => {
  it('keeps every seat in at most one live hold or one order, whatever the order of operations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 5, maxLength: 30 }), async (ops) => {
        const inv = await configure(freshEventId('prop'));
        let now = Date.now();
        await setClock(inv, now);
        const holds: HoldView[] = [];
        const firstResult = new Map<string, HoldView>();
        for (const op of ops) {
          if (op.kind === 'hold') {
            const account = `acct-${op.account}`;
            const key = `${account}:${op.key}`;
            const r = await inv.hold(account, op.seats, key);
            if (r.kind === 'held') {
              const seen = firstResult.get(key);
              if (seen)
                expect(r.hold).toEqual(seen); // a replay returns the first result
              else firstResult.set(key, r.hold);
              expect(r.replayed).toBe(seen !== undefined);
              if (!seen) holds.push(r.hold);
            }
          } else if (op.kind === 'release' && holds.length) {
            const h = holds[op.pick % holds.length]!;
            await inv.release(h.holdId, op.byOrigin ? null : h.account);
          } else if (op.kind === 'confirm' && holds.length) {
            const h = holds[op.pick % holds.length]!;
            const r = await inv.confirm(h.holdId, `order-${op.order}`, null);
            if (r.kind === 'ok') expect(r.hold.status).toBe('SOLD');
          } else if (op.kind === 'advance') {
            now += op.ms;
            await setClock(inv, now);
          } else if (op.kind === 'alarm') {
            // A late or duplicate alarm, fired whether or not one is due.
            await runInDurableObject(inv, async (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
            await runDurableObjectAlarm(inv);
          }
          await checkInvariants(inv, now);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a hold retried after the seat was taken over still returns its first result and creates nothing', async () => {
    const inv = await configure(freshEventId());
    const now = Date.now();
    await setClock(inv, now);
    const first = await inv.hold('alice', ['A1'], 'k');
    await setClock(inv, now + TTL + 1);
    const bob = await inv.hold('bob', ['A1'], 'k2');
    expect(bob.kind).toBe('held');
    const replay = await inv.hold('alice', ['A1'], 'k');
    expect(replay).toEqual({ ...first, replayed: true });
    expect((await inv.stats())!.holds).toMatchObject({ HELD: 1, EXPIRED: 1 });
  });
});

/** The invariants of DESIGN.md section 6, read from the object's own tables. */
async function checkInvariants(inv: DurableObjectStub<Inventory>, now: number) {
  const stats = (await inv.stats())!;
  expect(stats.consistency).toEqual({ seatsWithMultipleOrders: 0, soldSeatsWithoutMatchingOrder: 0 });
  await runInDurableObject(inv, (_obj, state) => {
    const sql = state.storage.sql;
    // Every seat is claimed by at most one live (unexpired HELD) or SOLD hold.
    const doubly = sql
      .exec(
        `SELECT hs.seat_id FROM inv_hold_seats hs JOIN inv_holds h ON h.hold_id = hs.hold_id
         WHERE h.status = 'SOLD' OR (h.status = 'HELD' AND h.expires_at > ?) GROUP BY hs.seat_id HAVING COUNT(*) > 1`,
        now,
      )
      .toArray();
    expect(doubly).toEqual([]);
    // The seats table agrees with the holds: a HELD/SOLD seat names a hold that owns it in that state.
    const mismatched = sql
      .exec(
        `SELECT s.seat_id FROM inv_seats s WHERE s.status != 'AVAILABLE' AND NOT EXISTS (
           SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
           WHERE h.hold_id = s.hold_id AND hs.seat_id = s.seat_id AND h.status = s.status)`,
      )
      .toArray();
    expect(mismatched).toEqual([]);
    // A live hold's seats are all marked with it (all or nothing).
    const partial = sql
      .exec(
        `SELECT h.hold_id FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
         LEFT JOIN inv_seats s ON s.seat_id = hs.seat_id AND s.hold_id = h.hold_id AND s.status = h.status
         WHERE h.status IN ('HELD', 'SOLD') AND s.seat_id IS NULL`,
      )
      .toArray();
    expect(partial).toEqual([]);
  });
}
