// What a seat map costs the Inventory in rows read: a delta reads the seats that changed, not the
// whole venue (with the seat list and a bound flag in one WHERE, SQLite scanned all 5,000 seats).
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { seatMapOf } from '../helpers/inventory';

it('a delta of two changed seats reads a few rows of a 5,000-seat venue; the snapshot reads them all', async () => {
  const inv = env.INVENTORY.getByName(freshEventId('reads'));
  await inv.configure({
    seats: 5_000,
    seatsPerRow: 50,
    seatPriceMinor: 100,
    currency: 'EUR',
    tiers: [],
    holdTtlMs: 60_000,
    paymentGraceMs: 30_000,
    maxSeatsPerAccount: 6,
  });
  const v0 = (await seatMapOf(inv)).version;
  expect((await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'k')).kind).toBe('held');
  const rowsRead = (read: (o: Inventory) => unknown) =>
    runInDurableObject(inv, (o: Inventory, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      let rows = 0;
      const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        cursors.push(cursor);
        return cursor;
      }) as typeof sql.exec;
      try {
        read(o);
      } finally {
        sql.exec = exec;
      }
      for (const c of cursors) rows += c.rowsRead;
      return rows;
    });
  const now = Date.now();
  expect(await rowsRead((o) => expect(o.store.changesSince(v0, now)).toHaveLength(2))).toBeLessThan(50);
  expect(await rowsRead((o) => expect(o.store.snapshotSeats(now)).toHaveLength(5_000))).toBeGreaterThanOrEqual(5_000);
});
