// The EventDirectory's room table: each event's room (its rules as JSON, dir_rooms), the pattern
// keys it holds (dir_room_keys, one owner per key) and the table's version (dir_room_version).
import type { RoomRules } from '../../contracts/room-patterns';
import type { RoomClaim } from '../../contracts/room-table';
import type { Sql } from '../shared/sql';

/** Room table access for the EventDirectory. */
export class RoomTableStore {
  constructor(private readonly sql: Sql) {}

  /** The first of `keys` another event holds, with that event; null when all are free for `eventId`. */
  takenBy(eventId: string, keys: string[]): { key: string; eventId: string } | null {
    for (const key of keys) {
      const owner = this.sql.one<{ event_id: string }>`SELECT event_id FROM dir_room_keys WHERE pattern_key = ${key}`;
      if (owner && owner.event_id !== eventId) return { key, eventId: owner.event_id };
    }
    return null;
  }

  /** The event's room and the pattern keys it holds; null when it has none. */
  claimOf(eventId: string): RoomClaim | null {
    const row = this.sql.one<{ rules: string }>`SELECT rules FROM dir_rooms WHERE event_id = ${eventId}`;
    if (!row) return null;
    const keys = this.sql.all<{ pattern_key: string }>`SELECT pattern_key FROM dir_room_keys WHERE event_id = ${eventId}`;
    return { room: JSON.parse(row.rules) as RoomRules, keys: keys.map((k) => k.pattern_key) };
  }

  /**
   * Replaces the event's room and keys with `claim` (null: removes them) and bumps the version.
   * Run it inside a transaction: it is several statements.
   * @returns the table's new version
   */
  replace(eventId: string, claim: RoomClaim | null): number {
    this.sql.run`DELETE FROM dir_room_keys WHERE event_id = ${eventId}`;
    this.sql.run`DELETE FROM dir_rooms WHERE event_id = ${eventId}`;
    if (claim) {
      for (const key of claim.keys) this.sql.run`INSERT INTO dir_room_keys (pattern_key, event_id) VALUES (${key}, ${eventId})`;
      this.sql.run`INSERT INTO dir_rooms (event_id, rules) VALUES (${eventId}, ${JSON.stringify(claim.room)})`;
    }
    this.sql.run`UPDATE dir_room_version SET version = version + 1`;
    return this.version();
  }

  /** The table's version (0 before any room was written). */
  version(): number {
    return this.sql.one<{ version: number }>`SELECT version FROM dir_room_version`?.version ?? 0;
  }

  /** Every event's room, by event id. */
  rooms(): RoomRules[] {
    return this.sql.all<{ rules: string }>`SELECT rules FROM dir_rooms ORDER BY event_id`.map((r) => JSON.parse(r.rules) as RoomRules);
  }
}
