// The one way the edge reaches an event's Inventory: from what a request names (seats, a tier, a
// hold id, a section) to the Durable Object stub that serves it (contracts/inventory-names.ts).
import { inventoryObjectName, type InventoryRoute } from '../../contracts/inventory-names';
import { GatewayError } from './errors';

/** The stub of one Inventory object (the RPC methods of durable-objects/inventory/inventory.ts). */
export type InventoryStub = ReturnType<Env['INVENTORY']['getByName']>;

/**
 * The Inventory object of event `eventId` that serves `route`. Every caller at the edge (holds,
 * hold reads and releases, the origin API, the seat map, event setup, admin) gets its stub here, so
 * a hold id, a seat and a section always reach the same object. Names: the event's own object is
 * `<eventId>` (events without sections: every seat and tier), a section's is
 * `<eventId>/section/<section>`.
 *
 * @param env the gateway's bindings (only INVENTORY is used)
 * @param eventId a validated event id
 * @throws GatewayError SECTION_MIX (400) when a hold names seats of more than one section; nothing
 *   was called
 */
export function inventoryFor(env: Pick<Env, 'INVENTORY'>, eventId: string, route: InventoryRoute): InventoryStub {
  const target = inventoryObjectName(eventId, route);
  if (!target.ok) throw new GatewayError(target.code, { detail: target.detail });
  return env.INVENTORY.getByName(target.name);
}
