// Which origin health reports the WaitingRoom keeps: the ordering rule by signed time, pure.
import type { HealthReport } from './health-signals';

/** A report as stored in wr_room.health: the report, when it counts from, and when it was signed (epoch ms). */
export type StoredHealth = HealthReport & { signedAtMs?: number };

/**
 * Whether a report signed at `signedAtMs` replaces the stored one. A report counts as of its signed
 * time clamped to `nowMs` (the signature check bounds how far ahead it may be, MAX_FUTURE_SKEW_S),
 * and reports must arrive in that order: one timed before the last accepted report is refused, so
 * a replayed report can never stand in for a newer one (nor look fresh), while one signed a little
 * ahead never locks out the correctly timed reports after it (#14.6: ordering by the raw signed
 * time let one report signed 300 s ahead refuse every correct one with 409 STALE_REPORT).
 * @param last the stored report
 * @returns `store` with the report to keep, or `out_of_order`
 */
export function acceptHealthReport(
  last: StoredHealth | null,
  report: Omit<HealthReport, 'reportedAtMs'>,
  signedAtMs: number,
  nowMs: number,
): { kind: 'store'; health: StoredHealth } | { kind: 'out_of_order' } {
  const reportedAtMs = Math.min(signedAtMs, nowMs);
  if (last && reportedAtMs < last.reportedAtMs) return { kind: 'out_of_order' };
  return { kind: 'store', health: { ...report, reportedAtMs, signedAtMs } };
}

/** The stored report from its JSON (wr_room.health), or null when none was stored. */
export function parseStoredHealth(json: string | null): StoredHealth | null {
  return json === null ? null : (JSON.parse(json) as StoredHealth);
}
