// The EventDirectory's list of events (dir_events), for the organizer dashboard.
import type { Sql } from '../shared/sql';

/** One listed event. Times epoch ms. */
export interface DirectoryEntry {
  eventId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** Events table access for the EventDirectory. */
export class EventStore {
  constructor(private readonly sql: Sql) {}

  /** Adds the event, or renames it (`updatedAt` moves to `nowMs`). */
  register(eventId: string, name: string, nowMs: number): void {
    this.sql.run`INSERT INTO dir_events (event_id, name, created_at, updated_at) VALUES (${eventId}, ${name}, ${nowMs}, ${nowMs})
      ON CONFLICT (event_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`;
  }

  /** Every event, most recently changed first (at most 500). */
  list(): DirectoryEntry[] {
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
