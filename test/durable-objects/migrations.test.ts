// Schema upgrades keep data: an Inventory written by migration 1 reads correctly after migration 2.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { INVENTORY_MIGRATIONS } from '../../durable-objects/inventory/schema';
import { WAITING_ROOM_MIGRATIONS } from '../../durable-objects/waiting-room/schema';
import { migrate, type Migration } from '../../durable-objects/shared/sql';
import { freshEventId } from '../helpers/client';
import { inventoryStats, seatMapOf } from '../helpers/inventory';

/** Drops every view and table of the Inventory's schema (views first: a view naming a dropped table fails later renames). */
function emptyInventorySchema(sql: SqlStorage): void {
  for (const type of ['view', 'table'])
    for (const { name } of sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = ? AND name LIKE 'inv_%'`, type)
      .toArray())
      sql.exec(`DROP ${type.toUpperCase()} IF EXISTS ${name}`);
}

describe('migrations', () => {
  it('upgrades a version-1 inventory (holds, seats, idempotency records) without losing anything', async () => {
    const inv = env.INVENTORY.getByName(freshEventId('mig'));
    const later = Date.now() + 3_600_000;
    await runInDurableObject(inv, (obj: Inventory, state) => {
      const sql = state.storage.sql;
      // Back to an empty database, then only the first migration, as an early deployment had it.
      emptyInventorySchema(sql);
      migrate(state.storage, 'inv', INVENTORY_MIGRATIONS.slice(0, 1));
      sql.exec(
        `INSERT INTO inv_plan (id, config, version) VALUES (1, '{"seats":2,"seatsPerRow":2,"holdTtlMs":300000,"maxSeatsPerAccount":6}', 3)`,
      );
      sql.exec(`INSERT INTO inv_seats VALUES ('A1', 0, 'SOLD', 'h1', NULL, 'order-1', 3), ('A2', 1, 'HELD', 'h2', ?, NULL, 2)`, later);
      sql.exec(
        `INSERT INTO inv_holds VALUES ('h1', 'alice', 'SOLD', 1, 2, 'order-1', 'k1', 'A1', '{"holdId":"h1"}'),
        ('h2', 'bob', 'HELD', 1, ?, NULL, 'k2', 'A2', '{"holdId":"h2"}')`,
        later,
      );
      sql.exec(`INSERT INTO inv_hold_seats VALUES ('h1', 'A1'), ('h2', 'A2')`);

      migrate(state.storage, 'inv', INVENTORY_MIGRATIONS);
      void obj;
    });
    const stats = await inventoryStats(inv);
    expect(stats.seats).toMatchObject({ sold: 1, held: 1, available: 0 });
    expect(stats.consistency).toEqual({
      seatsWithMultipleOrders: 0,
      soldSeatsWithoutMatchingOrder: 0,
      tiersInconsistent: 0,
      seatsWithMultipleLiveHolds: 0,
      refundsUnmatched: 0,
      resaleFeedGaps: 0,
      waitlistSkips: 0,
      refundsBeforeResale: 0,
      returnedSeatsAdrift: 0,
    });
    expect(stats.config).toMatchObject({ seatPriceMinor: 5000, currency: 'EUR', tiers: [] });
    // The old idempotency record still answers a retry with the first result.
    expect(await inv.hold('bob', { seatIds: ['A2'] }, 'k2')).toMatchObject({ kind: 'held', replayed: true, hold: { holdId: 'h2' } });
    expect(await inv.getHold('h2', 'bob')).toMatchObject({
      kind: 'ok',
      hold: { status: 'HELD', seatIds: ['A2'], quantity: 1, priceMinor: 5000 },
    });
    // Regression: the upgrade priced old holds at 0, so they sold for nothing or never.
    expect(await inv.confirm('h2', 'order-2', 0, null)).toMatchObject({ kind: 'refused', code: 'PRICE_MISMATCH' });
    expect(await inv.confirm('h2', 'order-2', 5000, null)).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    // Regression: no deltas exist from before the upgrade, so an old version gets a snapshot.
    expect((await seatMapOf(inv, 1)).kind).toBe('snapshot');
  });

  it('a migration failing halfway leaves the old schema and data intact; the next start completes it', async () => {
    let inv = env.INVENTORY.getByName(freshEventId('mig'));
    const later = Date.now() + 3_600_000;
    // Migration 2 with a fault injected after its destructive steps (the old holds table dropped).
    const real = INVENTORY_MIGRATIONS[1]!;
    const broken: Migration = {
      ...real,
      sql: real.sql.replace('DROP TABLE inv_holds;', 'DROP TABLE inv_holds; INSERT INTO no_such_table VALUES (1);'),
    };
    expect(broken.sql).not.toBe(real.sql);
    await runInDurableObject(inv, (_obj: Inventory, state) => {
      const sql = state.storage.sql;
      emptyInventorySchema(sql);
      migrate(state.storage, 'inv', INVENTORY_MIGRATIONS.slice(0, 1));
      sql.exec(
        `INSERT INTO inv_plan (id, config, version) VALUES (1, '{"seats":2,"seatsPerRow":2,"holdTtlMs":300000,"maxSeatsPerAccount":6}', 2)`,
      );
      sql.exec(`INSERT INTO inv_seats VALUES ('A1', 0, 'HELD', 'h1', ?, NULL, 2), ('A2', 1, 'AVAILABLE', NULL, NULL, NULL, 1)`, later);
      sql.exec(`INSERT INTO inv_holds VALUES ('h1', 'alice', 'HELD', 1, ?, NULL, 'k1', 'A1', '{"holdId":"h1"}')`, later);
      sql.exec(`INSERT INTO inv_hold_seats VALUES ('h1', 'A1')`);
    });
    await runInDurableObject(inv, (_obj: Inventory, state) => {
      const sql = state.storage.sql;
      expect(() => migrate(state.storage, 'inv', [INVENTORY_MIGRATIONS[0]!, broken])).toThrow(/no such table/);
      // Rolled back as one: the old holds table with its row, no half-made tables, migration 2 unrecorded.
      const columns = sql
        .exec(`SELECT name FROM pragma_table_info('inv_holds')`)
        .toArray()
        .map((r) => r.name);
      expect(columns).not.toContain('kind');
      expect(sql.exec(`SELECT hold_id FROM inv_holds`).toArray()).toEqual([{ hold_id: 'h1' }]);
      const tables = sql
        .exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('inv_holds_v2', 'inv_tiers', 'inv_audit')`)
        .toArray();
      expect(tables).toEqual([]);
      expect(sql.exec(`SELECT id FROM inv_migrations`).toArray()).toEqual([{ id: 1 }]);
    });
    // A failed start resets the object (blockConcurrencyWhile throws); the next one retries.
    await runInDurableObject(inv, (_obj, state) => state.abort('migration failed')).catch(() => undefined);
    inv = env.INVENTORY.get(inv.id);
    // The fresh instance's constructor ran the real migrations: the data reads as before.
    expect(await inv.getHold('h1', 'alice')).toMatchObject({ kind: 'ok', hold: { status: 'HELD', seatIds: ['A1'], priceMinor: 5000 } });
    expect(await inv.hold('alice', { seatIds: ['A1'] }, 'k1')).toMatchObject({ kind: 'held', replayed: true });
    const stats = await inventoryStats(inv);
    expect(stats.seats).toMatchObject({ held: 1, available: 1 });
    expect(stats.consistency).toEqual({
      seatsWithMultipleOrders: 0,
      soldSeatsWithoutMatchingOrder: 0,
      tiersInconsistent: 0,
      seatsWithMultipleLiveHolds: 0,
      refundsUnmatched: 0,
      resaleFeedGaps: 0,
      waitlistSkips: 0,
      refundsBeforeResale: 0,
      returnedSeatsAdrift: 0,
    });
    const applied = await runInDurableObject(inv, (_obj, state) =>
      state.storage.sql.exec<{ id: number }>('SELECT id FROM inv_migrations ORDER BY id').toArray(),
    );
    expect(applied.map((r) => r.id)).toEqual(INVENTORY_MIGRATIONS.map((m) => m.id));
  });

  it('applies each migration once, in order, and records it', async () => {
    const inv = env.INVENTORY.getByName(freshEventId('mig'));
    const applied = await runInDurableObject(inv, (_obj, state) => {
      migrate(state.storage, 'inv', INVENTORY_MIGRATIONS); // a second run is a no-op
      return state.storage.sql
        .exec<{ id: number }>('SELECT id FROM inv_migrations ORDER BY id')
        .toArray()
        .map((r) => r.id);
    });
    expect(applied).toEqual(INVENTORY_MIGRATIONS.map((m) => m.id));
    expect(WAITING_ROOM_MIGRATIONS.map((m) => m.id)).toEqual([...WAITING_ROOM_MIGRATIONS.keys()].map((i) => i + 1));
  });
});
