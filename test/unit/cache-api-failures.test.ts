// The data centre's Cache API is a shortcut, never a dependency: when it fails, the cursor and the
// seat map come from their objects and the visitor gets an answer, not a 500.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import type { SeatMapAnswer } from '../../contracts/inventory-answers';
import { readCursor } from '../../src/lib/cursor-cache';
import { IsolateSeatMaps } from '../../src/lib/seat-map-cache';

const broken = { match: () => Promise.reject(new Error('cache down')), put: () => Promise.reject(new Error('cache down')) };
const map = (version: number, sections: string[] = []): SeatMapAnswer => ({
  kind: 'map',
  json: JSON.stringify({ kind: 'snapshot', version, seats: [], tiers: [], seatPriceMinor: 1, currency: 'EUR', salesClosed: false }),
  version,
  sections,
});

describe('a failing Cache API', () => {
  beforeEach(() => {
    (globalThis as { caches?: unknown }).caches = { default: broken };
  });
  afterEach(() => {
    delete (globalThis as { caches?: unknown }).caches;
  });

  it('leaves the cursor to the WaitingRoom', async () => {
    const cursor = { eventId: 'cache-down', publishedAtMs: 1 } as AdmissionCursor;
    expect(await readCursor('cache-down', Date.now(), async () => cursor)).toBe(cursor);
  });

  it('leaves the seat map to the Inventory', async () => {
    const waits: Promise<unknown>[] = [];
    const body = await new IsolateSeatMaps().get(
      'cache-down',
      undefined,
      async () => map(7),
      Date.now(),
      (p) => waits.push(p),
    );
    expect(JSON.parse(body!)).toMatchObject({ version: 7 });
    await Promise.all(waits);
  });
});

describe('an event with sections', () => {
  it('is one cache key whatever `since` says: its map is always the merged snapshot', async () => {
    const maps = new IsolateSeatMaps();
    let loads = 0;
    const load = async () => (loads++, map(40_000, ['A', 'B']));
    const now = 1_000_000;
    for (let i = 0; i < 60; i++) await maps.get('sectioned', 20_500 + i * 300, load, now, () => {});
    expect(loads).toBe(2); // the first since key, then the snapshot key for every other value
  });
});
