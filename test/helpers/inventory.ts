// Reading an Inventory's answers in tests: the stats and seat map of an event that must exist.
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { InventoryStats, SeatMap } from '../../contracts/inventory-answers';

type Stub = DurableObjectStub<Inventory>;

/** The Inventory's stats; fails the test when the event does not exist. */
export async function inventoryStats(inv: Stub): Promise<InventoryStats> {
  const answer = await inv.stats();
  if (answer.kind !== 'stats') throw new Error('expected the event to exist');
  return answer.stats;
}

/** The Inventory's seat map (snapshot, or delta after `since`), parsed; fails the test when the event does not exist. */
export async function seatMapOf(inv: Stub, since?: number): Promise<SeatMap> {
  const answer = await inv.seatMap(since);
  if (answer.kind !== 'map') throw new Error('expected the event to exist');
  const map = JSON.parse(answer.json) as SeatMap;
  if (map.version !== answer.version) throw new Error(`the answer's version ${answer.version} is not its map's ${map.version}`);
  return map;
}
