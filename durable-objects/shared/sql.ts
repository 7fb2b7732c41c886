// The one way Durable Objects here talk SQL: placeholders only, errors carry the query text.

/** A value SQLite accepts as a bound parameter. */
export type SqlValue = string | number | null;

/** One schema step; never edit an applied entry, append a new one. */
export interface Migration {
  id: number;
  description: string;
  sql: string;
}

/** Thrown when a statement fails; carries the query text, never the bound values. */
class SqlError extends Error {
  constructor(query: string, cause: unknown) {
    super(`SQL failed: ${query.replace(/\s+/g, ' ').trim()}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SqlError';
  }
}

/**
 * Tagged-template access to `ctx.storage.sql` (synchronous SQLite API of Durable Objects).
 * Every interpolation becomes a `?` placeholder, so values never enter the query text.
 */
export class Sql {
  constructor(private readonly storage: SqlStorage) {}

  /** All rows of a query, typed by the caller. */
  all<T>(strings: TemplateStringsArray, ...values: SqlValue[]): T[] {
    return this.exec(strings, values).toArray() as T[];
  }

  /** The first row, or null. */
  one<T>(strings: TemplateStringsArray, ...values: SqlValue[]): T | null {
    const rows = this.all<T>(strings, ...values);
    return rows[0] ?? null;
  }

  /** Runs a statement for its effect. (To count changed rows use `all` with RETURNING: `rowsWritten` also counts index writes.) */
  run(strings: TemplateStringsArray, ...values: SqlValue[]): void {
    this.exec(strings, values).toArray();
  }

  private exec(strings: TemplateStringsArray, values: SqlValue[]): SqlStorageCursor<Record<string, SqlStorageValue>> {
    const query = strings.join('?');
    try {
      return this.storage.exec(query, ...values);
    } catch (err) {
      throw new SqlError(query, err);
    }
  }
}

/**
 * Applies the migrations not yet applied, in id order, each in its own transaction, and records
 * them in `<prefix>_migrations`. Call from the constructor inside `blockConcurrencyWhile`.
 *
 * @throws SqlError when a migration fails (that migration is rolled back; the next start retries)
 */
export function migrate(storage: DurableObjectStorage, prefix: string, migrations: readonly Migration[]): void {
  const table = `${prefix}_migrations`;
  storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    storage.sql
      .exec<{ id: number }>(`SELECT id FROM ${table}`)
      .toArray()
      .map((r) => r.id),
  );
  for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
    if (applied.has(m.id)) continue;
    storage.transactionSync(() => {
      try {
        storage.sql.exec(m.sql);
      } catch (err) {
        throw new SqlError(m.sql, err);
      }
      storage.sql.exec(`INSERT INTO ${table} (id, description, applied_at) VALUES (?, ?, ?)`, m.id, m.description, Date.now());
    });
  }
}

/** Whether this object's database has been set up (its `<prefix>_migrations` table exists). */
export function hasSchema(storage: DurableObjectStorage, prefix: string): boolean {
  return storage.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, `${prefix}_migrations`).toArray().length > 0;
}

/** The id of the last migration applied to this object's database (`<prefix>_migrations`), or 0 before any. */
export function appliedThrough(storage: DurableObjectStorage, prefix: string): number {
  if (!hasSchema(storage, prefix)) return 0;
  const row = storage.sql.exec<{ last: number | null }>(`SELECT MAX(id) AS last FROM ${prefix}_migrations`).one();
  return row.last ?? 0;
}
