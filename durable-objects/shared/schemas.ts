// Every Durable Object's schema: its tables' prefix and its migration list, imported as code. An
// object brings its database up to date in its constructor (`migrateSchema`); the latest migration
// is the last of its list.
import { LEDGER_MIGRATIONS } from '../account-ledger/schema';
import { DIRECTORY_MIGRATIONS } from '../event-directory-schema';
import { INVENTORY_MIGRATIONS } from '../inventory/schema';
import { QUEUE_SHARD_MIGRATIONS } from '../waiting-room/queue-shard-schema';
import { WAITING_ROOM_MIGRATIONS } from '../waiting-room/schema';
import { migrate, type Migration } from './sql';

/** An object's schema. */
export interface Schema {
  /** The tables' prefix; applied migrations are recorded in `<prefix>_migrations`. */
  readonly prefix: string;
  /** Its migrations, ids 1..n in order (append only: never edit an applied entry). */
  readonly migrations: readonly Migration[];
}

/** Every object's schema, by object. */
export const SCHEMAS = {
  inventory: { prefix: 'inv', migrations: INVENTORY_MIGRATIONS },
  waitingRoom: { prefix: 'wr', migrations: WAITING_ROOM_MIGRATIONS },
  queueShard: { prefix: 'qs', migrations: QUEUE_SHARD_MIGRATIONS },
  directory: { prefix: 'dir', migrations: DIRECTORY_MIGRATIONS },
  accountLedger: { prefix: 'led', migrations: LEDGER_MIGRATIONS },
} as const satisfies Record<string, Schema>;

/**
 * Brings this object's database up to the last migration of `schema`, from whatever migration it
 * stands at (none for a new object): each missing migration in its own transaction (`migrate`).
 * Call inside `blockConcurrencyWhile`, so no request sees a half-built schema.
 *
 * @throws SqlError when a migration fails (rolled back; the next start retries)
 */
export function migrateSchema(storage: DurableObjectStorage, schema: Schema): void {
  migrate(storage, schema.prefix, schema.migrations);
}
