// Inventory schema: append-only migrations (never edit an applied entry; a new one takes the next id).
import type { Migration } from '../shared/sql';
import { RESALE_MIGRATION } from './schema-resale';

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
  {
    id: 2,
    description: 'payment states, general-admission tiers, prices, seat-map deltas, audit log',
    sql: `
      CREATE TABLE inv_holds_v2 (
        hold_id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD', 'RELEASED', 'EXPIRED')),
        kind TEXT NOT NULL CHECK (kind IN ('seats', 'tier')),
        tier TEXT,
        quantity INTEGER NOT NULL,
        price_minor INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        order_id TEXT,
        idempotency_key TEXT NOT NULL,
        request TEXT NOT NULL,
        first_result TEXT NOT NULL,
        UNIQUE (account, idempotency_key)
      );
      INSERT INTO inv_holds_v2
        SELECT hold_id, account, status, 'seats', NULL, n, n * COALESCE((SELECT json_extract(config, '$.seatPriceMinor') FROM inv_plan), 5000),
          created_at, expires_at, order_id, idempotency_key, 'seats:' || request, first_result
        FROM (SELECT h.*, (SELECT COUNT(*) FROM inv_hold_seats hs WHERE hs.hold_id = h.hold_id) AS n FROM inv_holds h);
      DROP TABLE inv_holds;
      ALTER TABLE inv_holds_v2 RENAME TO inv_holds;
      CREATE INDEX inv_holds_due ON inv_holds (status, expires_at);
      CREATE INDEX inv_holds_account ON inv_holds (account, status);
      CREATE INDEX inv_seats_status ON inv_seats (status);
      -- One order pays for one hold.
      CREATE UNIQUE INDEX inv_holds_order ON inv_holds (order_id) WHERE order_id IS NOT NULL;
      CREATE TABLE inv_tiers (
        tier TEXT PRIMARY KEY,
        capacity INTEGER NOT NULL,
        price_minor INTEGER NOT NULL,
        held INTEGER NOT NULL DEFAULT 0,
        sold INTEGER NOT NULL DEFAULT 0,
        CHECK (held >= 0 AND sold >= 0 AND held + sold <= capacity)
      );
      CREATE TABLE inv_deltas (
        version INTEGER NOT NULL,
        seat_id TEXT NOT NULL,
        status TEXT NOT NULL
      );
      CREATE INDEX inv_deltas_version ON inv_deltas (version);
      ALTER TABLE inv_plan ADD COLUMN pruned_through INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE inv_plan ADD COLUMN sold_out INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE inv_plan ADD COLUMN event_id TEXT;
      -- No deltas exist for versions written before this migration: a client asking for them gets a snapshot.
      UPDATE inv_plan SET pruned_through = version;
      CREATE TABLE inv_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        hold_id TEXT NOT NULL,
        from_status TEXT,
        to_status TEXT NOT NULL,
        actor TEXT NOT NULL,
        reason TEXT NOT NULL
      );
    `,
  },
  {
    id: 3,
    description: 'each hold keeps the currency it was priced in',
    // A hold is priced when it is placed; an organizer changing the event's currency later must not
    // change what an existing hold costs. Existing holds take the plan's currency of today.
    sql: `
      ALTER TABLE inv_holds ADD COLUMN currency TEXT;
      UPDATE inv_holds SET currency = COALESCE((SELECT json_extract(config, '$.currency') FROM inv_plan WHERE id = 1), 'EUR');
    `,
  },
  {
    id: 4,
    description: 'configuration changes in flight; sales closed to new holds',
    // A change that spans the Inventory, the WaitingRoom and the directory is recorded here while it
    // runs, so a concurrent change is refused and one cut short by a crash is resumed or replaced.
    sql: `
      CREATE TABLE inv_change (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        change_id TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_plan INTEGER NOT NULL,
        previous_config TEXT,
        started_at INTEGER NOT NULL,
        lease_until INTEGER NOT NULL,
        done INTEGER NOT NULL
      );
      ALTER TABLE inv_plan ADD COLUMN sales_closed INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    id: 5,
    description: 'sales channels, their allocations, and the change feed',
    // Channels sell from the same seats as the website. A channel's key is derived from
    // CHANNEL_KEY_SECRET and its generation (src/lib/channel-keys.ts), so no key material is stored
    // here: revoking bumps nothing but `revoked`, re-activating bumps `generation`.
    // Allocations reserve seats (one live allocation per seat: the primary key) or a tier quota for
    // one channel until `release_at`; decisions compare `release_at` with the clock of each call
    // (allocation-policy.ts), `ended` only records that the end was written to the feed.
    // The feed is written by triggers, so no write path (today's or a future one) can change a seat,
    // a tier counter or an allocation without its entry; each entry carries the whole new state of
    // its item at that version, so replaying any entries twice or from an earlier cursor converges.
    sql: `
      CREATE TABLE inv_channels (
        channel_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        generation INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE inv_allocations (
        allocation_id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('seats', 'tier')),
        tier TEXT,
        quantity INTEGER NOT NULL CHECK (quantity >= 0),
        release_at INTEGER NOT NULL,
        ended INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX inv_allocations_live ON inv_allocations (ended, release_at);
      CREATE TABLE inv_allocation_seats (
        seat_id TEXT PRIMARY KEY,
        allocation_id TEXT NOT NULL
      );
      CREATE INDEX inv_allocation_seats_allocation ON inv_allocation_seats (allocation_id);
      ALTER TABLE inv_holds ADD COLUMN channel_id TEXT;
      ALTER TABLE inv_holds ADD COLUMN allocation_id TEXT;
      CREATE INDEX inv_holds_allocation ON inv_holds (allocation_id, status);
      CREATE TABLE inv_feed (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        version INTEGER NOT NULL,
        item TEXT NOT NULL CHECK (item IN ('seat', 'tier')),
        name TEXT NOT NULL,
        status TEXT,
        allocation_id TEXT,
        channel_id TEXT,
        capacity INTEGER,
        held INTEGER,
        sold INTEGER,
        reserved INTEGER
      );
      CREATE INDEX inv_feed_version ON inv_feed (version);
      -- Feed entries exist from this version on; older cursors read the snapshot first.
      ALTER TABLE inv_plan ADD COLUMN feed_from INTEGER NOT NULL DEFAULT 0;
      UPDATE inv_plan SET feed_from = version;
      CREATE VIEW inv_seat_feed_state AS
        SELECT s.seat_id, s.status, a.allocation_id, a.channel_id FROM inv_seats s
        LEFT JOIN inv_allocation_seats x ON x.seat_id = s.seat_id
        LEFT JOIN inv_allocations a ON a.allocation_id = x.allocation_id AND a.ended = 0;
      CREATE VIEW inv_tier_feed_state AS
        SELECT t.tier, t.capacity, t.held, t.sold, (
          SELECT COALESCE(SUM(MAX(0, a.quantity - (SELECT COALESCE(SUM(h.quantity), 0) FROM inv_holds h WHERE h.allocation_id = a.allocation_id
            AND h.status IN ('HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD')))), 0)
          FROM inv_allocations a WHERE a.kind = 'tier' AND a.tier = t.tier AND a.ended = 0) AS reserved
        FROM inv_tiers t;
      CREATE TRIGGER inv_feed_seat_status AFTER UPDATE OF status ON inv_seats WHEN OLD.status IS NOT NEW.status
      BEGIN
        INSERT INTO inv_feed (version, item, name, status, allocation_id, channel_id)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'seat', seat_id, status, allocation_id, channel_id
          FROM inv_seat_feed_state WHERE seat_id = NEW.seat_id;
      END;
      CREATE TRIGGER inv_feed_seat_allocated AFTER INSERT ON inv_allocation_seats
      BEGIN
        INSERT INTO inv_feed (version, item, name, status, allocation_id, channel_id)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'seat', seat_id, status, allocation_id, channel_id
          FROM inv_seat_feed_state WHERE seat_id = NEW.seat_id;
      END;
      CREATE TRIGGER inv_feed_seat_unallocated AFTER DELETE ON inv_allocation_seats
      BEGIN
        INSERT INTO inv_feed (version, item, name, status, allocation_id, channel_id)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'seat', seat_id, status, allocation_id, channel_id
          FROM inv_seat_feed_state WHERE seat_id = OLD.seat_id;
      END;
      CREATE TRIGGER inv_feed_tier_counts AFTER UPDATE OF held, sold ON inv_tiers WHEN OLD.held IS NOT NEW.held OR OLD.sold IS NOT NEW.sold
      BEGIN
        INSERT INTO inv_feed (version, item, name, capacity, held, sold, reserved)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'tier', tier, capacity, held, sold, reserved
          FROM inv_tier_feed_state WHERE tier = NEW.tier;
      END;
      CREATE TRIGGER inv_feed_tier_allocated AFTER INSERT ON inv_allocations WHEN NEW.kind = 'tier'
      BEGIN
        INSERT INTO inv_feed (version, item, name, capacity, held, sold, reserved)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'tier', tier, capacity, held, sold, reserved
          FROM inv_tier_feed_state WHERE tier = NEW.tier;
      END;
      CREATE TRIGGER inv_feed_tier_allocation_changed AFTER UPDATE OF quantity, ended, tier ON inv_allocations WHEN NEW.kind = 'tier'
      BEGIN
        INSERT INTO inv_feed (version, item, name, capacity, held, sold, reserved)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'tier', tier, capacity, held, sold, reserved
          FROM inv_tier_feed_state WHERE tier IN (OLD.tier, NEW.tier);
      END;
    `,
  },
  {
    id: 6,
    description: "the event's own object keeps each section's sold-out flag",
    // An event with sections is sold out when its own object (tiers) and every section's object are.
    sql: `
      CREATE TABLE inv_section_flags (
        section TEXT PRIMARY KEY,
        sold_out INTEGER NOT NULL
      );
    `,
  },
  {
    id: 7,
    description: 'seat-map deltas are read from the change feed (inv_deltas dropped); two hold indexes fewer to write',
    // Every seat change was written twice: a seat-map delta by the write paths and a feed entry by
    // the triggers of migration 5 (the same seat, version and new status). The seat map now reads
    // the feed's seat entries, so a seat change costs one log row. Deltas from before this
    // migration are gone: a reader with an older version gets a snapshot, as after migration 2. The
    // feed's version index serves `version > since` (no new index: each one is a write per entry).
    // Each hold wrote five index entries and each transition rewrote three: `inv_holds_account`
    // repeated the account prefix of UNIQUE (account, idempotency_key), which serves the per-account
    // sum as well, and public holds (no allocation) need no entry in the allocation index.
    sql: `
      DROP TABLE inv_deltas;
      UPDATE inv_plan SET pruned_through = version;
      DROP INDEX inv_holds_account;
      DROP INDEX inv_holds_allocation;
      CREATE INDEX inv_holds_allocation ON inv_holds (allocation_id, status) WHERE allocation_id IS NOT NULL;
    `,
  },
  {
    id: 8,
    description: 'hold extensions: a count per hold and one row per extension, by idempotency key',
    // A buyer may ask for more time on a HELD hold within the organizer's bounds (hold-extension.ts).
    // The count bounds the extensions; the rows make each one idempotent by its key (a retry after a
    // lost answer replays the deadline it gave). Refusals are not remembered, as for holds.
    sql: `
      ALTER TABLE inv_holds ADD COLUMN extensions INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE inv_hold_extensions (
        hold_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (hold_id, idempotency_key)
      );
    `,
  },
  RESALE_MIGRATION,
];
