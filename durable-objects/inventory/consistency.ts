// The consistency checks behind "a seat is never sold twice", read from the Inventory's tables.
import type { Sql } from '../shared/sql';
import type { ConsistencyCounts } from '../../contracts/inventory-answers';

/** Counts every violation of DESIGN.md section 6 the tables can show; each must be 0. */
export function consistencyCounts(sql: Sql): ConsistencyCounts {
  const n = (row: { n: number | null } | null) => row?.n ?? 0;
  return {
    seatsWithMultipleOrders: n(sql.one`SELECT COUNT(*) AS n FROM (SELECT hs.seat_id FROM inv_hold_seats hs
      JOIN inv_holds h ON h.hold_id = hs.hold_id WHERE h.status = 'SOLD' GROUP BY hs.seat_id HAVING COUNT(*) > 1)`),
    soldSeatsWithoutMatchingOrder: n(sql.one`SELECT COUNT(*) AS n FROM inv_seats s WHERE s.status = 'SOLD' AND NOT EXISTS (
      SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
      WHERE hs.seat_id = s.seat_id AND h.hold_id = s.hold_id AND h.status = 'SOLD' AND h.order_id = s.order_id)`),
    tiersInconsistent: n(sql.one`SELECT COUNT(*) AS n FROM inv_tiers t WHERE t.held + t.sold > t.capacity
      OR t.held != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'))
      OR t.sold != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status = 'SOLD')`),
  };
}
