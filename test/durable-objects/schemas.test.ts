// Every object's migrations are a list in code: ids 1..n in order, and a database left at any
// earlier migration (a deployment of older code) upgrades to the same schema a new object gets.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { migrateSchema, SCHEMAS } from '../../durable-objects/shared/schemas';
import { appliedThrough, migrate } from '../../durable-objects/shared/sql';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { freshEventId } from '../helpers/client';

const KEYS = Object.keys(SCHEMAS) as (keyof typeof SCHEMAS)[];

/** Runs `fn` with the storage of a fresh, never configured WaitingRoom (it has no tables of its own yet). */
async function withEmptyStorage(fn: (storage: DurableObjectStorage) => void): Promise<void> {
  await runInDurableObject(env.WAITING_ROOM.getByName(freshEventId('schema')), (_obj: WaitingRoom, state) => fn(state.storage));
}

/** The schema objects (tables, indexes, views, triggers) of the tables prefixed `prefix`, as SQLite keeps their text. */
function schemaOf(storage: DurableObjectStorage, prefix: string): unknown[] {
  return storage.sql
    .exec(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name LIKE ? ESCAPE '\\' ORDER BY type, name`, `${prefix}\\_%`)
    .toArray();
}

/** Drops every view and table prefixed `prefix` (views first: a view naming a dropped table fails later drops). */
function dropSchema(storage: DurableObjectStorage, prefix: string): void {
  for (const type of ['view', 'table'])
    for (const { name } of storage.sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = ? AND name LIKE ? ESCAPE '\\'`, type, `${prefix}\\_%`)
      .toArray())
      storage.sql.exec(`DROP ${type.toUpperCase()} ${name}`);
}

describe('object schemas', () => {
  it.each(KEYS)('%s: migration ids are 1..n in order, so the latest is the length of the list', (key) => {
    const ids = SCHEMAS[key].migrations.map((m) => m.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });

  it.each(KEYS)('%s: a database at any earlier migration upgrades to the schema a new object gets', async (key) => {
    const { prefix, migrations } = SCHEMAS[key];
    await withEmptyStorage((storage) => {
      migrateSchema(storage, SCHEMAS[key]);
      expect(appliedThrough(storage, prefix)).toBe(migrations.length);
      const fresh = schemaOf(storage, prefix);
      for (let at = 1; at < migrations.length; at++) {
        dropSchema(storage, prefix);
        migrate(storage, prefix, migrations.slice(0, at));
        expect(appliedThrough(storage, prefix), `${key} at migration ${at}`).toBe(at);
        migrateSchema(storage, SCHEMAS[key]);
        expect(appliedThrough(storage, prefix), `${key} from migration ${at}`).toBe(migrations.length);
        expect(schemaOf(storage, prefix), `${key} from migration ${at}`).toEqual(fresh);
      }
      // Up to date: a start applies nothing.
      migrateSchema(storage, SCHEMAS[key]);
      expect(storage.sql.exec(`SELECT COUNT(*) AS n FROM ${prefix}_migrations`).one().n).toBe(migrations.length);
    });
  });
});
