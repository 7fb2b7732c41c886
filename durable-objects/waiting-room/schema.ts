// WaitingRoom schema: append-only migrations (never edit an applied entry; a new one takes the next id).
import type { Migration } from '../shared/sql';

export const WAITING_ROOM_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'room settings, visitors, rate log',
    sql: `
      CREATE TABLE wr_room (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        config TEXT NOT NULL,
        mode TEXT NOT NULL,
        seed TEXT NOT NULL,
        drawn INTEGER NOT NULL,
        rate INTEGER NOT NULL,
        last_report_at INTEGER NOT NULL,
        carry REAL NOT NULL,
        last_tick_at INTEGER NOT NULL,
        next_seq INTEGER NOT NULL,
        next_rank INTEGER NOT NULL,
        admitted_total INTEGER NOT NULL,
        health TEXT
      );
      CREATE TABLE wr_visitors (
        visitor_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        rank INTEGER UNIQUE,
        state TEXT NOT NULL,
        joined_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        admitted_at INTEGER,
        expires_at INTEGER
      );
      CREATE INDEX wr_visitors_queue ON wr_visitors (state, rank);
      CREATE TABLE wr_rate_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        rate INTEGER NOT NULL,
        reason TEXT NOT NULL
      );
    `,
  },
  {
    id: 2,
    description: 'organizer fixed rate, gateway signals, arrivals for no-shows, 30-minute samples',
    sql: `
      ALTER TABLE wr_room ADD COLUMN fixed_rate INTEGER;
      ALTER TABLE wr_room ADD COLUMN sold_out INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN commitment TEXT;
      ALTER TABLE wr_room ADD COLUMN active_limit INTEGER;
      ALTER TABLE wr_room ADD COLUMN slow_start INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE wr_room ADD COLUMN admit_rate INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN last_sample_at INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_visitors ADD COLUMN arrived_at INTEGER;
      CREATE INDEX wr_visitors_admitted ON wr_visitors (admitted_at);
      CREATE TABLE wr_gateway (
        at INTEGER NOT NULL,
        holds INTEGER NOT NULL,
        conflicts INTEGER NOT NULL,
        hold_p99_ms REAL
      );
      CREATE TABLE wr_draw (
        rank INTEGER PRIMARY KEY,
        visitor_id TEXT NOT NULL
      );
      CREATE TABLE wr_samples (
        at INTEGER PRIMARY KEY,
        rate INTEGER NOT NULL,
        admit_rate INTEGER NOT NULL,
        active_limit INTEGER NOT NULL,
        origin_p99_ms REAL,
        origin_error_rate REAL,
        waiting INTEGER NOT NULL,
        active INTEGER NOT NULL,
        admitted_total INTEGER NOT NULL,
        hold_p99_ms REAL,
        conflict_rate REAL,
        no_show_rate REAL
      );
    `,
  },
  {
    id: 3,
    description: 'admission cursor over queue shards: waiting visitors move to the shards, the room keeps admissions',
    // Waiting visitors now hold their place in a signed queue ticket and a QueueShard; the room
    // keeps arrival counts, the cursor and the admitted visitors. Places of a sale in progress
    // during this upgrade are not carried over (deploy between sales).
    sql: `
      ALTER TABLE wr_room ADD COLUMN shards INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE wr_room ADD COLUMN c_bucket INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN c_idx INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN c_shard INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN draw_size INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN draw_released INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN lapsed_bucket INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN lapsed_idx INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN lapsed_shard INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_room ADD COLUMN lapsed_draw INTEGER NOT NULL DEFAULT 0;
      DROP TABLE wr_visitors;
      CREATE TABLE wr_admissions (
        visitor_id TEXT PRIMARY KEY,
        place TEXT NOT NULL,
        released_at INTEGER NOT NULL,
        admitted_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        state TEXT NOT NULL
      );
      CREATE INDEX wr_admissions_active ON wr_admissions (state, expires_at);
      CREATE INDEX wr_admissions_released ON wr_admissions (released_at);
      CREATE TABLE wr_arrivals (
        shard INTEGER NOT NULL,
        bucket INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (shard, bucket)
      );
      CREATE TABLE wr_shards (shard INTEGER PRIMARY KEY, sealed_before INTEGER NOT NULL, pre_queue INTEGER NOT NULL);
      CREATE TABLE wr_releases (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        count INTEGER NOT NULL,
        claimed INTEGER NOT NULL DEFAULT 0,
        draw_after INTEGER NOT NULL,
        c_bucket INTEGER NOT NULL,
        c_idx INTEGER NOT NULL,
        c_shard INTEGER NOT NULL
      );
      CREATE INDEX wr_releases_at ON wr_releases (at);
      ALTER TABLE wr_draw ADD COLUMN key TEXT;
      CREATE UNIQUE INDEX wr_draw_visitor ON wr_draw (visitor_id);
    `,
  },
  {
    id: 4,
    description: 'release controller: the load at the last overload (its memory, as CUBIC W_max)',
    sql: `ALTER TABLE wr_room ADD COLUMN overload_limit INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    id: 5,
    description: 'release controller: reports spent in conservative slow start (HyStart++, RFC 9406)',
    sql: `ALTER TABLE wr_room ADD COLUMN css_rounds INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    id: 6,
    description: 'presale lanes: a cursor, lapse mark and release count per lane, arrivals per lane, and each release per lane',
    sql: `
      CREATE TABLE wr_lanes (
        lane TEXT PRIMARY KEY,
        c_bucket INTEGER NOT NULL DEFAULT 0,
        c_idx INTEGER NOT NULL DEFAULT 0,
        c_shard INTEGER NOT NULL DEFAULT 0,
        lapsed_bucket INTEGER NOT NULL DEFAULT 0,
        lapsed_idx INTEGER NOT NULL DEFAULT 0,
        lapsed_shard INTEGER NOT NULL DEFAULT 0,
        released INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE wr_lane_arrivals (
        lane TEXT NOT NULL,
        shard INTEGER NOT NULL,
        bucket INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (lane, shard, bucket)
      );
      CREATE TABLE wr_lane_releases (
        id INTEGER NOT NULL,
        lane TEXT NOT NULL,
        c_bucket INTEGER NOT NULL,
        c_idx INTEGER NOT NULL,
        c_shard INTEGER NOT NULL,
        PRIMARY KEY (lane, id)
      );
    `,
  },
  {
    id: 7,
    description: 'release controller: report time of the last cut (one cut per report window, again while the overload persists)',
    sql: `ALTER TABLE wr_room ADD COLUMN last_cut_at INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    id: 8,
    description: 'sessions ended before exp (leave, revoke, re-admission), published in the cursor until their exp',
    sql: `
      CREATE TABLE wr_ended (tag INTEGER NOT NULL, expires_at INTEGER NOT NULL);
      CREATE INDEX wr_ended_tag ON wr_ended (tag);
      CREATE INDEX wr_ended_expires ON wr_ended (expires_at);
    `,
  },
  {
    id: 9,
    description: 'scheduled changes: time-boxed overrides of release bounds, active limit, admission lifetime and page',
    sql: `
      CREATE TABLE wr_overrides (
        id TEXT PRIMARY KEY,
        starts_at INTEGER NOT NULL,
        ends_at INTEGER NOT NULL,
        reason TEXT NOT NULL,
        settings TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    id: 10,
    description: 'per-minute history, kept 30 days',
    sql: `
      CREATE TABLE wr_history (
        at INTEGER PRIMARY KEY,
        waiting INTEGER NOT NULL,
        admitted INTEGER NOT NULL,
        active INTEGER NOT NULL,
        released INTEGER NOT NULL,
        departures INTEGER NOT NULL,
        queue_p50 INTEGER,
        queue_p90 INTEGER,
        origin_p99 REAL,
        origin_errors REAL,
        rate INTEGER NOT NULL,
        active_limit INTEGER NOT NULL,
        binds TEXT NOT NULL
      );
    `,
  },
  {
    id: 11,
    description: 'maintenance windows: when the current one began (the lapse clock of released places stops in it)',
    sql: `ALTER TABLE wr_room ADD COLUMN reject_since INTEGER;`,
  },
  {
    id: 12,
    description: "refusals by cause: the gateway isolates' reports until the history folds them into a minute, and per minute",
    sql: `
      CREATE TABLE wr_refusals (
        at INTEGER NOT NULL,
        proof_of_work INTEGER NOT NULL,
        entry_token INTEGER NOT NULL,
        rate_limit INTEGER NOT NULL,
        other INTEGER NOT NULL
      );
      CREATE INDEX wr_refusals_at ON wr_refusals (at);
      ALTER TABLE wr_history ADD COLUMN refused_pow INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_history ADD COLUMN refused_entry INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_history ADD COLUMN refused_limit INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wr_history ADD COLUMN refused_other INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    id: 13,
    description: 'admissions by admission time: the history reads one minute of them, not the whole table',
    sql: `CREATE INDEX wr_admissions_admitted ON wr_admissions (admitted_at);`,
  },
];
