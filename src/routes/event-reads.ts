// What the organizer API's configuration edits share: the retried object call, the event's stored
// configuration with its live numbers, and the 412 answer of a stale `If-Match`.
import type { Context } from 'hono';
import { DIRECTORY_NAME } from '../../contracts/names';
import { joinConfig, type InventoryConfig } from '../../contracts/event-config';
import { callDurableObject, type DoCallOptions } from '../lib/do-call';
import { eventStats } from '../lib/inventory-router';
import { GatewayError, problemResponse } from '../lib/errors';
import { configEtag } from '../lib/config-edits';
import type { AppEnv } from '../types';

/** Every organizer call is idempotent (same request, same state), so each may be retried. */
export function call<T>(name: string, eventId: string | undefined, run: () => Promise<T>): Promise<T> {
  const opts: DoCallOptions = { idempotent: true, name, ...(eventId ? { eventId } : {}) };
  return callDurableObject(run, opts);
}

/** The EventDirectory (versions, edit leases, the room table). */
export const directory = (c: Context<AppEnv>) => c.env.DIRECTORY.getByName(DIRECTORY_NAME);

/**
 * The stored configuration in the shape of the PUT body (routing included), its live numbers and
 * the Inventory's plan (`plan`, whose shape is fixed once created); `event` null: no such event,
 * `pending` when its creation did not finish.
 */
export async function readEvent(c: Context<AppEnv>, eventId: string) {
  const [room, seats, urls] = await Promise.all([
    call('waitingRoom.stats', eventId, async () => c.env.WAITING_ROOM.getByName(eventId).stats()),
    call('inventory.stats', eventId, async () => eventStats(c.env, eventId)),
    call('directory.room', eventId, async () => directory(c).room(eventId)),
  ]);
  if (!room || seats.kind !== 'stats') return { pending: seats.kind === 'stats' && !!seats.stats.pendingChange, event: null, plan: null };
  const { config: queueConfig, ...queue } = room;
  const { config: inventoryConfig, ...inventory } = seats.stats;
  // The room's URLs as routed now (none: the event is not routed at all).
  const routing = { patterns: urls?.patterns ?? [], bypass: urls?.bypass ?? { pathPrefixes: [], extensions: [], methods: [] } };
  const plan: InventoryConfig = inventoryConfig;
  return { pending: false, event: { config: { ...joinConfig(queueConfig, inventoryConfig), ...routing }, queue, inventory }, plan };
}

/** 412 with the current version (in `ETag` and the body): read the event again and redo the edit. */
export function stale(version: number, editing: boolean): Response {
  const res = problemResponse(
    new GatewayError('VERSION_MISMATCH', {
      detail: editing
        ? 'another edit of this event is under way; read it again when it is done'
        : `the event is at version ${configEtag(version)}; read it again and redo the change`,
      extra: { etag: configEtag(version) },
    }),
  );
  res.headers.set('etag', configEtag(version));
  return res;
}
