// Which origin health reports the WaitingRoom keeps: the ordering rule by signed time, pure.
import type { HealthReport } from './release-controller';

/** A report as stored in wr_room.health: the report, when it counts from, and when it was signed (epoch ms). */
export type StoredHealth = HealthReport & { signedAtMs?: number };

/**
 * Whether a report signed at `signedAtMs` replaces the stored one. Reports must arrive in signing
 * order: one signed before the last accepted report is refused, so a replayed report can never
 * stand in for a newer one. Freshness counts from the signed time, but never from later than
 * `nowMs` (a report signed ahead of this clock counts as signed now).
 * @param last the stored report (reports stored before `signedAtMs` existed order by `reportedAtMs`)
 * @returns `store` with the report to keep, or `out_of_order`
 */
export function acceptHealthReport(
  last: StoredHealth | null,
  report: Omit<HealthReport, 'reportedAtMs'>,
  signedAtMs: number,
  nowMs: number,
): { kind: 'store'; health: StoredHealth } | { kind: 'out_of_order' } {
  if (last && signedAtMs < (last.signedAtMs ?? last.reportedAtMs)) return { kind: 'out_of_order' };
  return { kind: 'store', health: { ...report, reportedAtMs: Math.min(signedAtMs, nowMs), signedAtMs } };
}

/** The stored report from its JSON (wr_room.health), or null when none was stored. */
export function parseStoredHealth(json: string | null): StoredHealth | null {
  return json === null ? null : (JSON.parse(json) as StoredHealth);
}
