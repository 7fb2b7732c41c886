// The WaitingRoom's SQL for sessions ended before their `exp` (schema.ts migration 8): the
// revocation list the cursor publishes (contracts/queue/ended-sessions.ts). An entry lasts until
// the session's own `exp`, after which the token's expiry ends it anyway.
import { sessionTag, type EndedSessions } from '../../contracts/queue/ended-sessions';
import type { Sql } from '../shared/sql';

/** The part of an admission (wr_admissions) its end is listed by. */
export interface EndedAdmission {
  visitor_id: string;
  admitted_at: number;
  expires_at: number;
}

/** Ended-session queries over the synchronous SQLite API (no await inside any of them). */
export class EndedStore {
  constructor(private readonly sql: Sql) {}

  /** Lists a session ended at `nowMs` (epoch ms), if its token is still valid then. */
  list(a: EndedAdmission, nowMs: number): void {
    if (a.expires_at <= nowMs) return;
    this.sql.run`INSERT INTO wr_ended (tag, expires_at) VALUES (${sessionTag(a.visitor_id, String(a.admitted_at))}, ${a.expires_at})`;
  }

  /** Forgets the entries whose session reached its `exp` by `nowMs`. */
  prune(nowMs: number): void {
    this.sql.run`DELETE FROM wr_ended WHERE expires_at <= ${nowMs}`;
  }

  /**
   * The sessions ended before their `exp` that have not reached it at `nowMs`, as tags ascending;
   * past `max` of them, none and `complete: false` (the edge then asks the object per visitor).
   */
  published(nowMs: number, max: number): EndedSessions {
    const rows = this.sql.all<{ tag: number }>`
      SELECT DISTINCT tag FROM wr_ended WHERE expires_at > ${nowMs} ORDER BY tag LIMIT ${max + 1}`;
    return rows.length > max ? { tags: [], complete: false } : { tags: rows.map((r) => r.tag), complete: true };
  }
}
