// The failing input through the gateway: one admitted visitor sends 60 distinct
// `since` values above the map version. Before, each made the Inventory serialize the full map.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { SeatMapAnswer } from '../../contracts/inventory-answers';
import { IsolateSeatMaps, MAP_CACHE_MAX_BYTES, SNAPSHOT_CACHE_MS, seatMapCacheBytes } from '../../src/lib/seat-map-cache';
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

  it('an Inventory answers each key once a second per data centre: a second isolate takes the first one’s copy from the Cache API', async () => {
    const eventId = freshEventId('shared');
    let loads = 0;
    const load = async (since: number | undefined): Promise<SeatMapAnswer> => {
      loads++;
      const map = {
        kind: 'snapshot',
        version: 40 + loads,
        seats: [],
        tiers: [],
        seatPriceMinor: 1,
        currency: 'EUR',
        salesClosed: false,
        since,
      };
      return { kind: 'map', json: JSON.stringify(map), version: map.version, sections: [] };
    };
    const writes: Promise<unknown>[] = [];
    const waitUntil = (p: Promise<unknown>) => writes.push(p);
    const [a, b] = [new IsolateSeatMaps(), new IsolateSeatMaps()];
    const t0 = Date.now();
    const body = await a.get(eventId, undefined, load, t0, waitUntil);
    await Promise.all(writes);
    expect(await b.get(eventId, undefined, load, t0 + 500, waitUntil)).toBe(body);
    expect(loads).toBe(1);
    // The copy told the second isolate the map's version: a `since` above it asks for the delta from
    // it, which the first isolate then takes from the Cache API too.
    const delta = await b.get(eventId, 10 ** 12, load, t0 + 500, waitUntil);
    await Promise.all(writes);
    expect(await a.get(eventId, 41, load, t0 + 600, waitUntil)).toBe(delta);
    expect(loads).toBe(2);
    // A second after the first read neither isolate nor the shared copy serves it: one read more.
    expect(JSON.parse((await b.get(eventId, undefined, load, t0 + SNAPSHOT_CACHE_MS, waitUntil))!)).toMatchObject({ version: 43 });
    expect(loads).toBe(3);
    // An event that does not exist is not shared: each isolate asks.
    const missing = async (): Promise<SeatMapAnswer> => (loads++, { kind: 'event_not_found' });
    expect(await a.get(`${eventId}-x`, undefined, missing, t0, waitUntil)).toBeNull();
    await Promise.all(writes);
    expect(await b.get(`${eventId}-x`, undefined, missing, t0, waitUntil)).toBeNull();
    expect(loads).toBe(5);
  });
});
