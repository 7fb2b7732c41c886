// The objects' SQL migrations as static assets: each object's code knows the last migration
// id of its list, the assets hold exactly the lists, and an object reads its asset only when its
// database is behind; a missing or stale asset is a clear error that applies nothing.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { migrateFromAssets, schemaAssetPath } from '../../durable-objects/shared/schema-assets';
import { MIGRATION_LISTS } from '../../durable-objects/shared/schema-sources';
import { SCHEMAS } from '../../durable-objects/shared/schemas';
import { appliedThrough, type Migration } from '../../durable-objects/shared/sql';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { freshEventId } from '../helpers/client';

const TEST_MIGRATIONS: readonly Migration[] = [
  { id: 1, description: 'a table', sql: 'CREATE TABLE tst_a (id INTEGER PRIMARY KEY)' },
  { id: 2, description: 'a column', sql: 'ALTER TABLE tst_a ADD COLUMN note TEXT' },
];

/** An ASSETS binding that answers `body` with `status` and counts its reads. */
function fakeAssets(status: number, body: unknown): { binding: Fetcher; reads: string[] } {
  const reads: string[] = [];
  const binding = {
    fetch: async (input: RequestInfo | URL) => {
      reads.push(new URL(String(input)).pathname);
      return new Response(JSON.stringify(body), { status });
    },
  } as unknown as Fetcher;
  return { binding, reads };
}

/** Runs `fn` with the storage of a fresh, never configured WaitingRoom (it has no tables of its own yet). */
async function withEmptyStorage(fn: (storage: DurableObjectStorage) => Promise<void>): Promise<void> {
  await runInDurableObject(env.WAITING_ROOM.getByName(freshEventId('schema')), async (_obj: WaitingRoom, state) => fn(state.storage));
}

describe('schema assets', () => {
  it.each(Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[])("%s: the code's last migration id is its list's last id", (key) => {
    const ids = MIGRATION_LISTS[key].map((m) => m.id);
    expect(ids, `${key}: ids 1..n in order`).toEqual(ids.map((_, i) => i + 1));
    expect(SCHEMAS[key].latest, `raise SCHEMAS.${key}.latest in durable-objects/shared/schemas.ts to ${ids.at(-1)}`).toBe(ids.at(-1));
  });

  it('hold exactly the migration lists, at the paths the objects read', async () => {
    for (const key of Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[]) {
      const res = await env.ASSETS.fetch(`https://assets.invalid${schemaAssetPath(SCHEMAS[key].prefix)}`);
      expect(res.status, key).toBe(200);
      expect(await res.json(), key).toEqual(MIGRATION_LISTS[key]);
    }
  });

  it('bring an empty database to the latest migration from the real asset (the Inventory list into a fresh object)', async () => {
    await withEmptyStorage(async (storage) => {
      await migrateFromAssets(storage, env.ASSETS, SCHEMAS.inventory);
      expect(appliedThrough(storage, 'inv')).toBe(SCHEMAS.inventory.latest);
      expect(storage.sql.exec(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'inv_seats'`).one().n).toBe(1);
    });
  });

  it('read the asset only when a migration is missing: once for an empty database, never when up to date', async () => {
    await withEmptyStorage(async (storage) => {
      const assets = fakeAssets(200, TEST_MIGRATIONS);
      await migrateFromAssets(storage, assets.binding, { prefix: 'tst', latest: 2 });
      await migrateFromAssets(storage, assets.binding, { prefix: 'tst', latest: 2 });
      expect(assets.reads).toEqual(['/_wr/schema/tst.json']);
      expect(appliedThrough(storage, 'tst')).toBe(2);
    });
  });

  it('apply only the missing migrations to a database one step behind', async () => {
    await withEmptyStorage(async (storage) => {
      await migrateFromAssets(storage, fakeAssets(200, TEST_MIGRATIONS.slice(0, 1)).binding, { prefix: 'tst', latest: 1 });
      storage.sql.exec(`INSERT INTO tst_a (id) VALUES (7)`);
      await migrateFromAssets(storage, fakeAssets(200, TEST_MIGRATIONS).binding, { prefix: 'tst', latest: 2 });
      expect(storage.sql.exec(`SELECT id, note FROM tst_a`).toArray()).toEqual([{ id: 7, note: null }]);
    });
  });

  it('refuse a missing asset, naming its path, and apply nothing', async () => {
    await withEmptyStorage(async (storage) => {
      await expect(migrateFromAssets(storage, fakeAssets(404, 'no').binding, { prefix: 'tst', latest: 2 })).rejects.toThrow(
        'schema asset /_wr/schema/tst.json answered 404: build the assets with scripts/page-assets.ts',
      );
      expect(appliedThrough(storage, 'tst')).toBe(0);
    });
  });

  it('refuse an asset built from older sources than the code (it ends before `latest`), and apply nothing', async () => {
    await withEmptyStorage(async (storage) => {
      const stale = fakeAssets(200, TEST_MIGRATIONS.slice(0, 1));
      await expect(migrateFromAssets(storage, stale.binding, { prefix: 'tst', latest: 2 })).rejects.toThrow(
        'schema asset /_wr/schema/tst.json ends at migration 1, this code expects 2: rebuild the assets',
      );
      expect(appliedThrough(storage, 'tst')).toBe(0);
    });
  });
});
