// Which origin health reports the WaitingRoom keeps: the ordering rule by signed time, pure.
import type { HealthReport } from './health-signals';

/**
 * A report as stored in wr_room.health: the report, when it counts from, when it was signed (epoch
 * ms), and the accepted reports that could still pass the ordering rule (`recent`: signed time and
 * the report's JSON), so that one sent again is known.
 */
export type StoredHealth = HealthReport & { signedAtMs?: number; recent?: [number, string][] };

/** At most this many accepted reports signed at or after the last one's time are remembered; one more is refused. */
export const RECENT_REPORTS_KEPT = 32;

/**
 * Whether a report signed at `signedAtMs` replaces the stored one. Signed timestamps are whole
 * seconds (X-WR-Timestamp), so a report counts as of its signed time clamped to this clock's
 * current second (the signature check bounds how far ahead it may be, MAX_FUTURE_SKEW_S), and
 * reports must arrive in that order: one timed before the last accepted report is refused, and one
 * signed a little ahead never locks out the correctly timed reports after it (ordering by
 * the raw signed time let one report signed 300 s ahead refuse every correct one;
 * clamping to the millisecond refused a report signed in the same second for up to 1 s).
 *
 * A report sent again (the same signed time and values) is a `duplicate`: acknowledged, never
 * stored or acted on again. Failing input: one report signed 5 s ahead,
 * posted 5 times 1.1 s apart, counted as a new report each time (its clamped time moved with the
 * clock), and the loop climbed five times (rate 660 -> 6,000/min, limit 10 -> 213).
 *
 * @param last the stored report
 * @returns `store` with the report to keep, `duplicate`, or `out_of_order`
 */
export function acceptHealthReport(
  last: StoredHealth | null,
  report: Omit<HealthReport, 'reportedAtMs'>,
  signedAtMs: number,
  nowMs: number,
): { kind: 'store'; health: StoredHealth } | { kind: 'duplicate' } | { kind: 'out_of_order' } {
  const reportedAtMs = Math.min(signedAtMs, nowMs - (nowMs % 1000));
  if (last && reportedAtMs < last.reportedAtMs) return { kind: 'out_of_order' };
  const json = JSON.stringify(report);
  const recent = last?.recent ?? [];
  if (recent.some(([at, seen]) => at === signedAtMs && seen === json)) return { kind: 'duplicate' };
  // Only a report signed at or after the new report's time can pass the ordering rule again.
  const kept = recent.filter(([at]) => at >= reportedAtMs);
  if (kept.length >= RECENT_REPORTS_KEPT) return { kind: 'out_of_order' };
  return { kind: 'store', health: { ...report, reportedAtMs, signedAtMs, recent: [...kept, [signedAtMs, json]] } };
}

/** The stored report from its JSON (wr_room.health), or null when none was stored. */
export function parseStoredHealth(json: string | null): StoredHealth | null {
  return json === null ? null : (JSON.parse(json) as StoredHealth);
}

/** The stored report as the organizer sees it: without the remembered recent reports. */
export function publicHealth(stored: StoredHealth | null): HealthReport | null {
  if (!stored) return null;
  const { recent: _recent, ...report } = stored;
  return report;
}
