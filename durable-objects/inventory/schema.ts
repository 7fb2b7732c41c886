// Inventory schema: append-only migrations (never edit an applied entry).
import type { Migration } from '../shared/sql';

export const INVENTORY_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'seat plan, seats, holds and their seats',
    sql: `
      CREATE TABLE inv_plan (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        config TEXT NOT NULL,
        version INTEGER NOT NULL
      );
      CREATE TABLE inv_seats (
        seat_id TEXT PRIMARY KEY,
        ord INTEGER NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('AVAILABLE', 'HELD', 'SOLD')),
        hold_id TEXT,
        hold_expires_at INTEGER,
        order_id TEXT,
        version INTEGER NOT NULL
      );
      CREATE INDEX inv_seats_hold ON inv_seats (hold_id);
      CREATE TABLE inv_holds (
        hold_id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('HELD', 'SOLD', 'RELEASED', 'EXPIRED')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        order_id TEXT,
        idempotency_key TEXT NOT NULL,
        request TEXT NOT NULL,
        first_result TEXT NOT NULL,
        UNIQUE (account, idempotency_key)
      );
      CREATE INDEX inv_holds_live ON inv_holds (status, expires_at);
      CREATE INDEX inv_holds_account ON inv_holds (account, status);
      CREATE TABLE inv_hold_seats (
        hold_id TEXT NOT NULL,
        seat_id TEXT NOT NULL,
        PRIMARY KEY (hold_id, seat_id)
      );
      CREATE INDEX inv_hold_seats_seat ON inv_hold_seats (seat_id);
    `,
  },
];
