// EventDirectory Durable Object: the list of configured events, for the organizer dashboard.
import { DurableObject } from 'cloudflare:workers';
import { Sql, migrate, type Migration } from './shared/sql';

const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'events',
    sql: `CREATE TABLE dir_events (event_id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  },
];

/** One listed event. Times epoch ms. */
export interface DirectoryEntry {
  eventId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** One instance (DIRECTORY_NAME) remembers every event the organizer API created; it decides nothing. */
export class EventDirectory extends DurableObject<Env> {
  private readonly sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, 'dir', MIGRATIONS));
  }

  /** Adds or renames an event. */
  async register(eventId: string, name: string): Promise<void> {
    const now = Date.now();
    this.sql.run`INSERT INTO dir_events (event_id, name, created_at, updated_at) VALUES (${eventId}, ${name}, ${now}, ${now})
      ON CONFLICT (event_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`;
  }

  /** Every event, most recently changed first (at most 500). */
  async list(): Promise<DirectoryEntry[]> {
    return this.sql.all<{
      event_id: string;
      name: string;
      created_at: number;
      updated_at: number;
    }>`SELECT * FROM dir_events ORDER BY updated_at DESC LIMIT 500`.map((r) => ({
      eventId: r.event_id,
      name: r.name,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }
}
