// QueueShard schema: append-only migrations (never edit an applied entry; a new one takes the next id).
import type { Migration } from '../shared/sql';

export const QUEUE_SHARD_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'visitors with their places, arrivals per bucket, pre-queue seal',
    sql: `
      CREATE TABLE qs_visitors (
        visitor_id TEXT PRIMARY KEY,
        pre INTEGER NOT NULL,
        bucket INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        left_at INTEGER
      );
      CREATE INDEX qs_visitors_pre ON qs_visitors (pre);
      CREATE TABLE qs_buckets (bucket INTEGER PRIMARY KEY, count INTEGER NOT NULL);
      CREATE TABLE qs_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed INTEGER NOT NULL,
        min_bucket INTEGER NOT NULL,
        announced INTEGER NOT NULL
      );
      INSERT INTO qs_state VALUES (1, 0, 0, 0);
    `,
  },
  {
    id: 2,
    description: 'entry tokens already used for a place (single use, kept until they expire)',
    sql: `
      CREATE TABLE qs_entry_tokens (token_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE INDEX qs_entry_tokens_expiry ON qs_entry_tokens (expires_at);
    `,
  },
  {
    id: 3,
    description: 'presale lanes: the lane of a place, arrivals per lane and bucket (the public queue keeps qs_buckets)',
    sql: `
      ALTER TABLE qs_visitors ADD COLUMN lane TEXT;
      CREATE TABLE qs_lane_buckets (lane TEXT NOT NULL, bucket INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (lane, bucket));
    `,
  },
];
