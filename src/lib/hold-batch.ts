// Seat holds coalesced per isolate: concurrent holds from this isolate to one Inventory
// object go as one `holdMany` call (group commit), each caller still getting its own answer or error.
import { HOLD_BATCH_MAX, type HoldAnswer, type HoldBatchItem } from '../../contracts/inventory-answers';
import type { BatchOutcome } from '../../contracts/batch';
import { coalescedCalls } from './coalesce';
import { parseCoalescing } from './settings';

/** The part of the INVENTORY binding a hold uses. */
export interface HoldNamespace {
  getByName(name: string): { holdMany(items: HoldBatchItem[]): Promise<BatchOutcome<HoldAnswer>[]> };
}

/**
 * Holds' coalescers, one per Inventory namespace binding (the bench's stub Inventory has the same
 * object names as the real one), and HOLD_COALESCING resolved once per env object.
 */
const holds = coalescedCalls<{ HOLD_COALESCING?: string }, HoldBatchItem, HoldAnswer>(
  HOLD_BATCH_MAX,
  (env) => parseCoalescing('HOLD_COALESCING', env.HOLD_COALESCING),
  'inventory.holdMany answered nothing for one hold',
);

/**
 * Places one visitor's hold on the Inventory object `objectName`, coalesced with this isolate's
 * other holds to that object (src/lib/coalesce.ts): with no call to it in flight the hold goes at
 * once, so a lone hold waits for nothing; holds that arrive while one is in flight go together,
 * in arrival order, at most HOLD_BATCH_MAX per call, when it returns. The object decides them one
 * at a time in that order, each as `Inventory.hold` would (`Inventory.holdMany`): all or nothing,
 * idempotency keys, the per-account limit and the hold TTL are per item, unchanged. Alone when
 * HOLD_COALESCING is off or the runtime cannot hand answers across requests.
 *
 * @param env the INVENTORY binding and HOLD_COALESCING
 * @param objectName the object's name (`inventoryNameFor`); the stub is made in the request that sends
 * @param waitUntil the request's `ctx.waitUntil`: keeps it alive until its batch settles
 * @returns this hold's answer
 * @throws SettingsError for a malformed HOLD_COALESCING; the batch call's error for every hold of
 *   that batch (with the runtime's `retryable` / `overloaded` flags, so `callDurableObject` retries
 *   each by its idempotency key); an Error with the object's message when this hold's own decision
 *   threw (a bug: it stored nothing); or `stalledError` (retryable) when its batch never answered
 */
export async function coalescedHold(
  env: { INVENTORY: HoldNamespace; HOLD_COALESCING?: string },
  objectName: string,
  item: HoldBatchItem,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<HoldAnswer> {
  const ns = env.INVENTORY;
  return holds.call(env, ns, { key: objectName, item, send: (items) => ns.getByName(objectName).holdMany(items), waitUntil });
}
