// The WaitingRoom's SQL for scheduled changes (schema.ts migration 9): one row per change, kept
// after it ends (the report after the sale lists them). The rules are in schedule-policy.ts.
import type { OverrideSettings, OverrideState, StoredOverride } from '../../contracts/schedule';
import type { Sql } from '../shared/sql';

interface OverrideRow {
  id: string;
  starts_at: number;
  ends_at: number;
  reason: string;
  settings: string;
  state: OverrideState;
}

/** Scheduled-change queries over the synchronous SQLite API (no await inside any of them). */
export class ScheduleStore {
  /**
   * The stored changes in start order, read once per instance and replaced on each write here (this
   * class is the table's only writer), so the room's every read of its config costs no query.
   */
  private cached: StoredOverride[] | null = null;

  constructor(private readonly sql: Sql) {}

  /** Every stored change, in start order (then id). */
  list(): readonly StoredOverride[] {
    this.cached ??= this.sql
      .all<OverrideRow>`SELECT id, starts_at, ends_at, reason, settings, state FROM wr_overrides ORDER BY starts_at, id`.map((r) => ({
      id: r.id,
      startsAtMs: r.starts_at,
      endsAtMs: r.ends_at,
      reason: r.reason,
      settings: JSON.parse(r.settings) as OverrideSettings,
      state: r.state,
    }));
    return this.cached;
  }

  /** Stores a new change as `scheduled`. */
  add(o: Omit<StoredOverride, 'state'>, nowMs: number): void {
    this.sql.run`INSERT INTO wr_overrides (id, starts_at, ends_at, reason, settings, state, created_at)
      VALUES (${o.id}, ${o.startsAtMs}, ${o.endsAtMs}, ${o.reason}, ${JSON.stringify(o.settings)}, 'scheduled', ${nowMs})`;
    this.cached = null;
  }

  /** Records that a change started or ended (the alarm applied it). */
  setState(id: string, state: OverrideState): void {
    this.sql.run`UPDATE wr_overrides SET state = ${state} WHERE id = ${id}`;
    this.cached = null;
  }

  /** Moves a change's end to `nowMs` (cancelled while on); the schedule tick then marks it ended. */
  endEarly(id: string, nowMs: number): void {
    this.sql.run`UPDATE wr_overrides SET ends_at = ${nowMs} WHERE id = ${id}`;
    this.cached = null;
  }

  /** Forgets the changes that ended before `beforeMs` (the report lists those within its history). */
  pruneEnded(beforeMs: number): void {
    if (!this.list().some((o) => o.state === 'ended' && o.endsAtMs < beforeMs)) return;
    this.sql.run`DELETE FROM wr_overrides WHERE state = 'ended' AND ends_at < ${beforeMs}`;
    this.cached = null;
  }

  /** Removes a change that has not started. */
  remove(id: string): void {
    this.sql.run`DELETE FROM wr_overrides WHERE id = ${id}`;
    this.cached = null;
  }

  /** Counts an admission of the `passthrough` method in the room's admitted total (no release made it). */
  countPassThrough(): void {
    this.sql.run`UPDATE wr_room SET admitted_total = admitted_total + 1`;
  }
}
