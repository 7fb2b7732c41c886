// Inventory schema, migration 9: returns, the waitlist and resale (kept apart so schema.ts stays readable).
import type { Migration } from '../shared/sql';

export const RESALE_MIGRATION: Migration = {
  id: 9,
  description: 'returns, the waitlist and face-value resale: face values, returns, refunds, waitlist, resale events',
  // A seat keeps its face value (what its first buyer paid for it) from its first sale on: a resold
  // seat costs that plus the organizer's fee (resale-policy.ts). A returned seat has one row per
  // (original hold, seat); its refund is one row of inv_refunds (one per returned seat: the unique
  // key). The waitlist has one live entry per account (the partial unique index). Every return,
  // offer, lapse, resale and refund is one row of inv_resale_events (unique by kind and subject),
  // the feed the origin polls; an offer's row also carries its webhook's delivery state.
  // inv_resale_dirty lists what a write changed that the resale must follow up (its triggers).
  sql: `
    ALTER TABLE inv_seats ADD COLUMN face_minor INTEGER;
    UPDATE inv_seats SET face_minor = (SELECT h.price_minor / h.quantity FROM inv_holds h WHERE h.hold_id = inv_seats.hold_id)
      WHERE status = 'SOLD';
    CREATE TABLE inv_returns (
      return_id TEXT PRIMARY KEY,
      hold_id TEXT NOT NULL,
      order_id TEXT NOT NULL,
      idempotency_key TEXT NOT NULL UNIQUE,
      request TEXT NOT NULL,
      refund TEXT NOT NULL CHECK (refund IN ('on_resale', 'at_once')),
      created_at INTEGER NOT NULL
    );
    CREATE INDEX inv_returns_hold ON inv_returns (hold_id);
    CREATE TABLE inv_return_seats (
      return_id TEXT NOT NULL,
      hold_id TEXT NOT NULL,
      seat_id TEXT NOT NULL,
      face_minor INTEGER NOT NULL,
      refunded_at INTEGER,
      resold_hold_id TEXT,
      PRIMARY KEY (hold_id, seat_id)
    );
    CREATE INDEX inv_return_seats_open ON inv_return_seats (seat_id) WHERE resold_hold_id IS NULL;
    CREATE INDEX inv_return_seats_return ON inv_return_seats (return_id);
    CREATE TABLE inv_refunds (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      return_id TEXT NOT NULL,
      order_id TEXT NOT NULL,
      seat_id TEXT NOT NULL,
      amount_minor INTEGER NOT NULL,
      currency TEXT NOT NULL,
      at INTEGER NOT NULL,
      UNIQUE (return_id, seat_id)
    );
    CREATE TABLE inv_waitlist (
      entry_id INTEGER PRIMARY KEY AUTOINCREMENT,
      account TEXT NOT NULL,
      quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 6),
      state TEXT NOT NULL CHECK (state IN ('WAITING', 'OFFERED', 'TAKEN', 'LAPSED')),
      joined_at INTEGER NOT NULL,
      hold_id TEXT,
      accepted INTEGER NOT NULL DEFAULT 0
    );
    CREATE UNIQUE INDEX inv_waitlist_live ON inv_waitlist (account) WHERE state IN ('WAITING', 'OFFERED');
    CREATE INDEX inv_waitlist_state ON inv_waitlist (state, entry_id);
    CREATE INDEX inv_waitlist_hold ON inv_waitlist (hold_id) WHERE hold_id IS NOT NULL;
    CREATE TABLE inv_resale_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('return', 'offer', 'offer_lapsed', 'offer_taken', 'resold', 'refund')),
      ref TEXT NOT NULL,
      data TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      UNIQUE (kind, ref)
    );
    CREATE INDEX inv_resale_events_due ON inv_resale_events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
    -- What the resale must look at after a write: returned seats that changed state, offers whose
    -- hold ended. Written by triggers, so no write path can skip it, and read (then emptied) by
    -- every write's settle step: its cost follows what changed, not how many seats wait for resale.
    CREATE TABLE inv_resale_dirty (
      kind TEXT NOT NULL CHECK (kind IN ('seat', 'offer')),
      ref TEXT NOT NULL,
      PRIMARY KEY (kind, ref)
    ) WITHOUT ROWID;
    CREATE TRIGGER inv_resale_seat_changed AFTER UPDATE OF status ON inv_seats
      WHEN OLD.status IS NOT NEW.status AND NEW.status IN ('SOLD', 'AVAILABLE')
    BEGIN
      INSERT OR IGNORE INTO inv_resale_dirty (kind, ref) SELECT 'seat', NEW.seat_id
        WHERE EXISTS (SELECT 1 FROM inv_return_seats WHERE seat_id = NEW.seat_id AND resold_hold_id IS NULL);
    END;
    CREATE TRIGGER inv_resale_offer_ended AFTER UPDATE OF status ON inv_holds
      WHEN NEW.status IN ('SOLD', 'RELEASED', 'EXPIRED')
    BEGIN
      INSERT OR IGNORE INTO inv_resale_dirty (kind, ref) SELECT 'offer', NEW.hold_id
        WHERE EXISTS (SELECT 1 FROM inv_waitlist WHERE hold_id = NEW.hold_id);
    END;
  `,
};
