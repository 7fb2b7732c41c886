// The WaitingRoom's SQL for its per-minute history (schema.ts migrations 10 and 12): one row per
// minute the room ticked in, kept HISTORY_KEEP_MS (pruned by the alarm), read over a range in steps;
// and the gateway's refusal reports, kept until a minute's row folds them in.
import type { RefusalCounts } from '../../contracts/history';
import type { Sql } from '../shared/sql';
import type { MinuteFigures } from './history-policy';

interface HistoryRow {
  at: number;
  waiting: number;
  admitted: number;
  active: number;
  released: number;
  departures: number;
  queue_p50: number | null;
  queue_p90: number | null;
  origin_p99: number | null;
  origin_errors: number | null;
  rate: number;
  active_limit: number;
  binds: string;
  refused_pow: number;
  refused_entry: number;
  refused_limit: number;
  refused_other: number;
}

/** History queries over the synchronous SQLite API (no await inside any of them). */
export class HistoryStore {
  constructor(private readonly sql: Sql) {}

  /** The start of the last minute written, epoch ms (0: none). */
  lastAtMs(): number {
    return this.sql.one<{ at: number | null }>`SELECT MAX(at) AS at FROM wr_history`?.at ?? 0;
  }

  /** Writes one minute (a repeat of the same minute replaces it) and drops rows older than `keepFromMs`. */
  write(f: MinuteFigures, keepFromMs: number): void {
    this.sql.run`INSERT OR REPLACE INTO wr_history (at, waiting, admitted, active, released, departures, queue_p50, queue_p90,
        origin_p99, origin_errors, rate, active_limit, binds, refused_pow, refused_entry, refused_limit, refused_other)
      VALUES (${f.atMs}, ${f.waiting}, ${f.admitted}, ${f.active}, ${f.released}, ${f.departures}, ${f.queueP50Ms}, ${f.queueP90Ms},
        ${f.originP99Ms}, ${f.originErrorRate}, ${f.releaseRatePerMinute}, ${f.activeLimit}, ${f.binds},
        ${f.refusedProofOfWork}, ${f.refusedEntryToken}, ${f.refusedRateLimit}, ${f.refusedOther})`;
    this.sql.run`DELETE FROM wr_history WHERE at < ${keepFromMs}`;
  }

  /** The active count of the last minute written (departures are counted against it), 0 without one. */
  lastActive(): number {
    return this.sql.one<{ active: number }>`SELECT active FROM wr_history ORDER BY at DESC LIMIT 1`?.active ?? 0;
  }

  /**
   * Minutes from `fromMs` (inclusive) to `toMs` (exclusive), one point per `stepMs`: counts of
   * events summed (admitted, released, departures, refusals), levels and percentiles at their highest in the
   * step (waiting, active, queue times, origin figures, rate), the active limit at its lowest, and
   * what bound at the step's last minute.
   */
  range(fromMs: number, toMs: number, stepMs: number): MinuteFigures[] {
    // The runtime binds JS numbers as SQLite REALs, so `/` divides exactly: the step index is CAST.
    const rows = this.sql.all<HistoryRow>`
      SELECT MIN(at) AS at, MAX(waiting) AS waiting, SUM(admitted) AS admitted, MAX(active) AS active, SUM(released) AS released,
        SUM(departures) AS departures, MAX(queue_p50) AS queue_p50, MAX(queue_p90) AS queue_p90, MAX(origin_p99) AS origin_p99,
        MAX(origin_errors) AS origin_errors, MAX(rate) AS rate, MIN(active_limit) AS active_limit, SUM(refused_pow) AS refused_pow,
        SUM(refused_entry) AS refused_entry, SUM(refused_limit) AS refused_limit, SUM(refused_other) AS refused_other,
        (SELECT h2.binds FROM wr_history h2 WHERE h2.at >= ${fromMs} + CAST((h.at - ${fromMs}) / ${stepMs} AS INTEGER) * ${stepMs}
           AND h2.at < ${fromMs} + (CAST((h.at - ${fromMs}) / ${stepMs} AS INTEGER) + 1) * ${stepMs} ORDER BY h2.at DESC LIMIT 1) AS binds
      FROM wr_history h WHERE at >= ${fromMs} AND at < ${toMs}
      GROUP BY CAST((at - ${fromMs}) / ${stepMs} AS INTEGER) ORDER BY at`;
    return rows.map((r) => ({
      atMs: r.at,
      waiting: r.waiting,
      admitted: r.admitted,
      active: r.active,
      released: r.released,
      departures: r.departures,
      queueP50Ms: r.queue_p50,
      queueP90Ms: r.queue_p90,
      originP99Ms: r.origin_p99,
      originErrorRate: r.origin_errors,
      releaseRatePerMinute: r.rate,
      activeLimit: r.active_limit,
      binds: r.binds,
      refusedProofOfWork: r.refused_pow,
      refusedEntryToken: r.refused_entry,
      refusedRateLimit: r.refused_limit,
      refusedOther: r.refused_other,
    }));
  }

  /** Admissions handed out in [fromMs, toMs): their place key and time (queue times). */
  admissionsBetween(fromMs: number, toMs: number): { place: string; admittedAtMs: number }[] {
    return this.sql.all<{ place: string; admitted_at: number }>`
      SELECT place, admitted_at FROM wr_admissions WHERE admitted_at >= ${fromMs} AND admitted_at < ${toMs}`.map((r) => ({
      place: r.place,
      admittedAtMs: r.admitted_at,
    }));
  }

  /** Places released in [fromMs, toMs) (release records are kept at least a claim window, longer than a minute). */
  releasedBetween(fromMs: number, toMs: number): number {
    return this.sql.one<{ n: number | null }>`SELECT SUM(count) AS n FROM wr_releases WHERE at >= ${fromMs} AND at < ${toMs}`?.n ?? 0;
  }

  /** Stores one gateway isolate's refusal counts at `nowMs` (nothing for an all-zero report). */
  recordRefusals(nowMs: number, c: RefusalCounts): void {
    if (c.proofOfWork + c.entryToken + c.rateLimit + c.other === 0) return;
    this.sql.run`INSERT INTO wr_refusals (at, proof_of_work, entry_token, rate_limit, other)
      VALUES (${nowMs}, ${c.proofOfWork}, ${c.entryToken}, ${c.rateLimit}, ${c.other})`;
  }

  /**
   * The refusals reported before `toMs`, summed, and forgotten: a minute's row takes every report
   * not folded into an earlier one (a room that slept keeps them for its next row).
   */
  takeRefusalsBefore(toMs: number): RefusalCounts {
    const r = this.sql.one<{ pow: number | null; entry: number | null; limit: number | null; other: number | null }>`
      SELECT SUM(proof_of_work) AS pow, SUM(entry_token) AS entry, SUM(rate_limit) AS "limit", SUM(other) AS other
      FROM wr_refusals WHERE at < ${toMs}`;
    this.sql.run`DELETE FROM wr_refusals WHERE at < ${toMs}`;
    return { proofOfWork: r?.pow ?? 0, entryToken: r?.entry ?? 0, rateLimit: r?.limit ?? 0, other: r?.other ?? 0 };
  }
}
