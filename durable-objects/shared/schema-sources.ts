// The schema assets' sources: every object's migration list by its asset path. Only
// scripts/page-assets.ts (in Node) and the tests import this file, never the Worker
// (.dependency-cruiser.cjs `migrations-are-assets`).
import { INVENTORY_MIGRATIONS } from '../inventory/schema';
import { WAITING_ROOM_MIGRATIONS } from '../waiting-room/schema';
import { QUEUE_SHARD_MIGRATIONS } from '../waiting-room/queue-shard-schema';
import { DIRECTORY_MIGRATIONS } from '../event-directory-schema';
import { LEDGER_MIGRATIONS } from '../account-ledger/schema';
import { schemaAssetPath } from './schema-assets';
import { SCHEMAS } from './schemas';
import type { Migration } from './sql';

/** Each object's full migration list, keyed as SCHEMAS. */
export const MIGRATION_LISTS: Record<keyof typeof SCHEMAS, readonly Migration[]> = {
  inventory: INVENTORY_MIGRATIONS,
  waitingRoom: WAITING_ROOM_MIGRATIONS,
  queueShard: QUEUE_SHARD_MIGRATIONS,
  directory: DIRECTORY_MIGRATIONS,
  accountLedger: LEDGER_MIGRATIONS,
};

/** The schema assets: asset path -> the JSON text of that object's migration list. */
export function schemaAssetSources(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, list] of Object.entries(MIGRATION_LISTS))
    out[schemaAssetPath(SCHEMAS[key as keyof typeof SCHEMAS].prefix)] = JSON.stringify(list);
  return out;
}
