// The failing input through the gateway: one admitted visitor sends 60 distinct
// `since` values above the map version. Before, each made the Inventory serialize the full map.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { MAP_CACHE_MAX_BYTES, seatMapCacheBytes } from '../../src/lib/seat-map-cache';
import { admittedVisitor, createEvent, freshEventId } from '../helpers/client';

describe('client-chosen seat-map keys', () => {
  it('60 distinct `since` values above the version cost at most one snapshot and a few deltas per second, and stay within the byte bound', async () => {
    const eventId = freshEventId('since');
    await createEvent(eventId, { seats: 5000, seatsPerRow: 50 });
    const v = await admittedVisitor(eventId);
    const inventory = env.INVENTORY.getByName(eventId);
    const counts = () => runInDurableObject(inventory, (obj: Inventory) => ({ reads: obj.mapReads, snapshots: obj.snapshotsServed }));
    const before = await counts();
    const started = Date.now();
    const first = await v.json<{ version: number }>(`/_wr/events/${eventId}/seats`);
    expect(first.status).toBe(200);
    for (let i = 1; i <= 60; i++) {
      const res = await v.json<{ kind: string; since: number; changes: unknown[] }>(
        `/_wr/events/${eventId}/seats?since=${first.body.version + i * 7919}`,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ kind: 'delta', changes: [] });
      expect(res.body.since).toBeLessThanOrEqual(first.body.version);
    }
    const seconds = Math.max(1, Math.ceil((Date.now() - started) / 1000));
    const after = await counts();
    expect(after.snapshots - before.snapshots).toBeLessThanOrEqual(seconds);
    expect(after.reads - before.reads).toBeLessThanOrEqual(2 * seconds);
    expect(seatMapCacheBytes()).toBeLessThanOrEqual(MAP_CACHE_MAX_BYTES);
  });

  it('a `since` rounded down still lists every change after it', async () => {
    const eventId = freshEventId('since');
    await createEvent(eventId, { seats: 100, seatsPerRow: 10 });
    const v = await admittedVisitor(eventId);
    const first = await v.json<{ version: number }>(`/_wr/events/${eventId}/seats`);
    expect((await v.hold(eventId, ['C3'])).status).toBe(201);
    const delta = await v.json<{ kind: string; version: number; changes: { id: string; status: string }[] }>(
      `/_wr/events/${eventId}/seats?since=${first.body.version}`,
    );
    expect(delta.body.kind).toBe('delta');
    expect(delta.body.changes).toContainEqual({ id: 'C3', status: 'HELD' });
  });
});
