// A sold-out event with resale for the gateway's resale tests, made through the organizer API and
// sold through the event's Inventory.
import { env } from 'cloudflare:workers';
import { createEvent, freshEventId } from './client';

/** A return deadline 30 days from now, ISO 8601 (the organizer input's `resale.returnDeadline`). */
export const RETURN_DEADLINE = new Date(Date.now() + 30 * 86_400_000).toISOString();

/**
 * An event of 4 seats at 5000 minor units, sold out to ann (A1, A2) and bob (A3, A4), each order
 * confirmed; its id, its Inventory and the two sold holds' ids.
 * @param resale the organizer input's `resale` (null: an event without resale)
 * @param prefix the event id's prefix
 * @throws Error when the event is refused or a hold is not granted
 */
export async function soldOutEvent(resale: Record<string, unknown> | null, prefix = 'resale') {
  const eventId = freshEventId(prefix);
  const created = await createEvent(eventId, { seats: 4, seatsPerRow: 4, seatPriceMinor: 5000, ...(resale ? { resale } : {}) });
  if (created.status >= 300) throw new Error(await created.text());
  const inv = env.INVENTORY.getByName(eventId);
  const holds: string[] = [];
  for (const [account, seatIds] of [
    ['ann', ['A1', 'A2']],
    ['bob', ['A3', 'A4']],
  ] as const) {
    const h = await inv.hold(account, { seatIds: [...seatIds] }, `k-${account}`);
    if (h.kind !== 'held') throw new Error(`hold refused: ${h.kind}`);
    await inv.confirm(h.hold.holdId, `order-${account}`, 10_000, null);
    holds.push(h.hold.holdId);
  }
  return { eventId, inv, ann: holds[0]!, bob: holds[1]! };
}
