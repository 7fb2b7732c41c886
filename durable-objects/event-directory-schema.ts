// EventDirectory schema: append-only migrations (never edit an applied entry; a new one takes the next id).
import type { Migration } from './shared/sql';

/** The directory's schema steps (append only). */
export const DIRECTORY_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'events',
    sql: `CREATE TABLE dir_events (event_id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  },
  {
    id: 2,
    description: 'room table: one row per claimed pattern key, the rules per event, a version; existing events get /events/{id}/*',
    sql: `CREATE TABLE dir_room_keys (pattern_key TEXT PRIMARY KEY, event_id TEXT NOT NULL);
      CREATE INDEX dir_room_keys_event ON dir_room_keys (event_id);
      CREATE TABLE dir_rooms (event_id TEXT PRIMARY KEY, rules TEXT NOT NULL);
      CREATE TABLE dir_room_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
      INSERT INTO dir_room_version (id, version) VALUES (1, 1);
      INSERT INTO dir_room_keys (pattern_key, event_id) SELECT '/events/' || event_id || '/*', event_id FROM dir_events;
      INSERT INTO dir_rooms (event_id, rules) SELECT event_id, json_object('eventId', event_id,
        'patterns', json_array('/events/' || event_id || '/*'),
        'bypass', json_object('pathPrefixes', json('[]'), 'extensions', json('[]'), 'methods', json('[]'))) FROM dir_events`,
  },
  {
    id: 3,
    description: 'organizer access: named keys (hashes only), the audit record of organizer writes, configuration versions',
    sql: `CREATE TABLE dir_keys (key_id TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL, role TEXT NOT NULL,
        created_at INTEGER NOT NULL, last_used_at INTEGER, revoked_at INTEGER);
      CREATE TABLE dir_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, entry_key TEXT NOT NULL UNIQUE, event_id TEXT NOT NULL,
        at INTEGER NOT NULL, actor_kind TEXT NOT NULL, actor_id TEXT NOT NULL, actor_label TEXT NOT NULL, action TEXT NOT NULL,
        changes TEXT NOT NULL, request_id TEXT NOT NULL);
      CREATE INDEX dir_audit_event ON dir_audit (event_id, id);
      CREATE TABLE dir_config_versions (event_id TEXT PRIMARY KEY, version INTEGER NOT NULL, edit_id TEXT, edit_fp TEXT,
        edit_until INTEGER)`,
  },
];
