// AccountLedger schema: append-only migrations (never edit an applied entry; a new one takes the next id).
import type { Migration } from '../shared/sql';

export const LEDGER_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'one row per hold counted against its account',
    sql: `
      CREATE TABLE led_entries (
        hold_id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        request TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        state TEXT NOT NULL,
        reserved_at INTEGER NOT NULL,
        check_at INTEGER NOT NULL,
        object TEXT NOT NULL,
        claims INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX led_entries_key ON led_entries (account, idempotency_key);
      CREATE INDEX led_entries_due ON led_entries (check_at) WHERE state = 'reserved';
    `,
  },
];
