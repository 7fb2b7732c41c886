// The consistency checks behind "a seat is never sold twice", read from the Inventory's tables,
// returns, the waitlist and the resale included.
import type { Sql } from '../shared/sql';
import type { ConsistencyCounts } from '../../contracts/inventory-answers';

/**
 * Counts every violation of the invariants of docs/explanation/inventory.md the tables can show;
 * each must be 0. A returned seat's original order stops owning it when its refund is paid.
 */
export function consistencyCounts(sql: Sql): ConsistencyCounts {
  const n = (row: { n: number | null } | null) => row?.n ?? 0;
  return {
    seatsWithMultipleOrders: n(sql.one`SELECT COUNT(*) AS n FROM (SELECT hs.seat_id FROM inv_hold_seats hs
      JOIN inv_holds h ON h.hold_id = hs.hold_id WHERE h.status = 'SOLD' AND NOT EXISTS (SELECT 1 FROM inv_return_seats rs
        WHERE rs.hold_id = hs.hold_id AND rs.seat_id = hs.seat_id AND rs.refunded_at IS NOT NULL)
      GROUP BY hs.seat_id HAVING COUNT(*) > 1)`),
    soldSeatsWithoutMatchingOrder: n(sql.one`SELECT COUNT(*) AS n FROM inv_seats s WHERE s.status = 'SOLD' AND NOT EXISTS (
      SELECT 1 FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id
      WHERE hs.seat_id = s.seat_id AND h.hold_id = s.hold_id AND h.status = 'SOLD' AND h.order_id = s.order_id)`),
    tiersInconsistent: n(sql.one`SELECT COUNT(*) AS n FROM inv_tiers t WHERE t.held + t.sold > t.capacity
      OR t.held != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'))
      OR t.sold != (SELECT COALESCE(SUM(quantity), 0) FROM inv_holds h WHERE h.tier = t.tier AND h.status = 'SOLD')`),
    // An offer is a hold like any other: never two live holds on one seat.
    seatsWithMultipleLiveHolds: n(sql.one`SELECT COUNT(*) AS n FROM (SELECT hs.seat_id FROM inv_hold_seats hs
      JOIN inv_holds h ON h.hold_id = hs.hold_id WHERE h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION')
      GROUP BY hs.seat_id HAVING COUNT(*) > 1)`),
    // Every refund matches exactly one returned seat, refunded, at its face value; every refunded seat has its refund.
    refundsUnmatched:
      n(sql.one`SELECT COUNT(*) AS n FROM inv_refunds f WHERE (SELECT COUNT(*) FROM inv_return_seats rs WHERE rs.return_id = f.return_id
        AND rs.seat_id = f.seat_id AND rs.refunded_at IS NOT NULL AND rs.face_minor = f.amount_minor) != 1`) +
      n(sql.one`SELECT COUNT(*) AS n FROM inv_return_seats rs WHERE rs.refunded_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM inv_refunds f WHERE f.return_id = rs.return_id AND f.seat_id = rs.seat_id)`),
    // Every return, offer, resale and refund is in the resale feed (once: its unique key).
    resaleFeedGaps:
      n(
        sql.one`SELECT COUNT(*) AS n FROM inv_returns r WHERE NOT EXISTS (SELECT 1 FROM inv_resale_events e WHERE e.kind = 'return' AND e.ref = r.return_id)`,
      ) +
      n(sql.one`SELECT COUNT(*) AS n FROM inv_waitlist w WHERE w.hold_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM inv_resale_events e WHERE e.kind = 'offer' AND e.ref = w.hold_id)`) +
      n(sql.one`SELECT COUNT(*) AS n FROM inv_return_seats rs WHERE rs.resold_hold_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM inv_resale_events e WHERE e.kind = 'resold' AND e.ref = rs.seat_id || ':' || rs.resold_hold_id)`) +
      n(sql.one`SELECT COUNT(*) AS n FROM inv_refunds f WHERE NOT EXISTS (SELECT 1 FROM inv_resale_events e WHERE e.kind = 'refund'
        AND e.ref = f.return_id || ':' || f.seat_id)`),
    // Offers go in arrival order: no entry still waiting has a later entry that was offered seats.
    waitlistSkips: n(sql.one`SELECT COUNT(*) AS n FROM inv_waitlist w WHERE w.state = 'WAITING'
      AND EXISTS (SELECT 1 FROM inv_waitlist o WHERE o.entry_id > w.entry_id AND o.hold_id IS NOT NULL)`),
    // Under `on_resale` a seat is refunded only once its new buyer's purchase confirmed: never a
    // refund for a seat nobody bought (nor one whose resale hold is not SOLD).
    refundsBeforeResale: n(sql.one`SELECT COUNT(*) AS n FROM inv_refunds f JOIN inv_returns r ON r.return_id = f.return_id
      JOIN inv_return_seats rs ON rs.return_id = f.return_id AND rs.seat_id = f.seat_id WHERE r.refund = 'on_resale'
      AND NOT EXISTS (SELECT 1 FROM inv_holds h WHERE h.hold_id = rs.resold_hold_id AND h.status = 'SOLD')`),
    // A returned seat not resold yet is held (offered, or on open sale in someone's hold) or free;
    // sold means a resale went unrecorded (no resale, refund or feed entry), and free while an
    // account waits means the waitlist was passed over. Only while the event has resale rules.
    returnedSeatsAdrift: n(sql.one`SELECT COUNT(*) AS n FROM inv_return_seats rs JOIN inv_seats s ON s.seat_id = rs.seat_id
      WHERE rs.resold_hold_id IS NULL AND EXISTS (SELECT 1 FROM inv_plan p WHERE p.id = 1 AND json_extract(p.config, '$.resale') IS NOT NULL)
      AND (s.status = 'SOLD' OR (s.status = 'AVAILABLE' AND EXISTS (SELECT 1 FROM inv_waitlist w WHERE w.state = 'WAITING')))`),
  };
}
