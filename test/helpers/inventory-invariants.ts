// The invariants of DESIGN.md section 6, read from an Inventory's own tables (shared by its tests).
import { runInDurableObject } from 'cloudflare:test';
import { expect } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { inventoryStats } from './inventory';
import { CONSISTENT } from '../../contracts/inventory-answers';

type Stub = DurableObjectStub<Inventory>;

/** The invariants of DESIGN.md section 6, read from the object's own tables. */
export async function checkInvariants(inv: Stub): Promise<void> {
  const stats = await inventoryStats(inv);
  expect(stats.consistency).toEqual(CONSISTENT);
  await runInDurableObject(inv, (_obj, state) => {
    const sql = state.storage.sql;
    // Every seat is claimed by at most one live or SOLD hold (a returned seat no longer by its first order), and the seat row names that hold.
    const doubly = sql
      .exec(
        `SELECT hs.seat_id FROM inv_hold_seats hs JOIN inv_holds h ON h.hold_id = hs.hold_id
        WHERE h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD')
        AND NOT EXISTS (SELECT 1 FROM inv_return_seats rs WHERE rs.hold_id = hs.hold_id AND rs.seat_id = hs.seat_id)
        GROUP BY hs.seat_id HAVING COUNT(*) > 1`,
      )
      .toArray();
    expect(doubly).toEqual([]);
    const orphan = sql
      .exec(
        `SELECT s.seat_id FROM inv_seats s WHERE s.status != 'AVAILABLE' AND NOT EXISTS (
        SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id WHERE h.hold_id = s.hold_id AND hs.seat_id = s.seat_id
        AND ((s.status = 'SOLD' AND h.status = 'SOLD') OR (s.status = 'HELD' AND h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'))))`,
      )
      .toArray();
    expect(orphan).toEqual([]);
    // All or nothing: a live or sold hold owns every one of its seats (but those its order returned).
    const partial = sql
      .exec(
        `SELECT h.hold_id FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
        LEFT JOIN inv_seats s ON s.seat_id = hs.seat_id AND s.hold_id = h.hold_id
        WHERE h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD') AND s.seat_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM inv_return_seats rs WHERE rs.hold_id = hs.hold_id AND rs.seat_id = hs.seat_id)`,
      )
      .toArray();
    expect(partial).toEqual([]);
  });
}
