// The WaitingRoom's measurements: the gateway's hold signals (wr_gateway) and the dashboard's
// samples (wr_samples), which the release controller and the wait estimate read back.
import type { Sql } from '../shared/sql';
import type { AdmissionSample } from './admission-pace';
import type { HealthReport } from './health-signals';
import type { GatewaySignals } from './health-signals';
import type { Sample } from './room-types';
import { EDGE_WAIT_WINDOW_MS, SIGNAL_WINDOW_MS, gatewaySignals, noShowWindow, type SignalSums } from './tick-plan';

/** The room's signal and sample rows, read and written inside the WaitingRoom's own calls. */
export class SignalStore {
  /**
   * Edge waits as isolates reported them, oldest first: [at, p99 ms]. Kept in memory, not in SQL:
   * a signal seconds old is the only one that counts, and one lost with the object is sent again
   * within seconds.
   */
  private edgeWaits: [number, number][] = [];

  constructor(private readonly sql: Sql) {}

  /** Stores one isolate's edge-wait p99 (ms) at `nowMs`. */
  recordEdgeWait(nowMs: number, p99Ms: number): void {
    this.edgeWaits.push([nowMs, p99Ms]);
    if (this.edgeWaits.length > 1_000) this.edgeWaits.shift();
  }

  /** The gateway's signals at `nowMs` (tick-plan gatewaySignals over SIGNAL_WINDOW_MS), with the worst edge wait of EDGE_WAIT_WINDOW_MS. */
  gateway(nowMs: number): GatewaySignals {
    this.edgeWaits = this.edgeWaits.filter(([at]) => at >= nowMs - EDGE_WAIT_WINDOW_MS);
    const edgeWaitP99Ms = this.edgeWaits.length === 0 ? null : Math.max(...this.edgeWaits.map(([, ms]) => ms));
    return { ...gatewaySignals(this.sums(nowMs, SIGNAL_WINDOW_MS)), edgeWaitP99Ms };
  }

  /** Stores one isolate's hold signals and forgets those older than `windowMs`. */
  recordHolds(nowMs: number, holds: number, conflicts: number, p99Ms: number, windowMs: number): void {
    this.sql.run`INSERT INTO wr_gateway (at, holds, conflicts, hold_p99_ms) VALUES (${nowMs}, ${holds}, ${conflicts}, ${p99Ms})`;
    this.sql.run`DELETE FROM wr_gateway WHERE at < ${nowMs - windowMs}`;
  }

  /** The sums the gateway signals come from: holds over `windowMs`, releases in the no-show window. */
  sums(nowMs: number, windowMs: number): SignalSums {
    const g = this.sql.one<{ holds: number | null; conflicts: number | null; p99: number | null }>`
      SELECT SUM(holds) AS holds, SUM(conflicts) AS conflicts, MAX(hold_p99_ms) AS p99 FROM wr_gateway WHERE at >= ${nowMs - windowMs}`;
    const w = noShowWindow(nowMs);
    const r = this.sql.one<{ released: number | null; claimed: number | null }>`
      SELECT SUM(count) AS released, SUM(claimed) AS claimed FROM wr_releases WHERE at BETWEEN ${w.fromMs} AND ${w.toMs}`;
    return {
      holds: g?.holds ?? 0,
      conflicts: g?.conflicts ?? 0,
      worstHoldP99Ms: g?.p99 ?? null,
      released: r?.released ?? 0,
      claimed: r?.claimed ?? 0,
    };
  }

  /** Records one dashboard sample at `nowMs` and forgets samples older than `keepMs`. */
  record(
    nowMs: number,
    s: {
      rate: number;
      admitRate: number;
      limit: number;
      report: HealthReport | null;
      waiting: number;
      active: number;
      gateway: GatewaySignals;
    },
    keepMs: number,
  ): void {
    const total = this.sql.one<{ admitted_total: number }>`SELECT admitted_total FROM wr_room`?.admitted_total ?? 0;
    this.sql
      .run`INSERT OR REPLACE INTO wr_samples VALUES (${nowMs}, ${s.rate}, ${s.admitRate}, ${s.limit}, ${s.report?.p99LatencyMs ?? null}, ${s.report?.errorRate ?? null},
      ${s.waiting}, ${s.active}, ${total}, ${s.gateway.holdP99Ms}, ${s.gateway.conflictRate}, ${s.gateway.noShowRate})`;
    this.sql.run`DELETE FROM wr_samples WHERE at < ${nowMs - keepMs}`;
    this.sql.run`UPDATE wr_room SET last_sample_at = ${nowMs}`;
  }

  /** Dashboard samples newer than `sinceMs`, oldest first. */
  since(sinceMs: number): Sample[] {
    return this.sql.all<Sample>`
      SELECT at, rate, admit_rate AS admitRate, active_limit AS activeLimit, origin_p99_ms AS originP99Ms,
        origin_error_rate AS originErrorRate, waiting, active, admitted_total AS admittedTotal, hold_p99_ms AS holdP99Ms,
        conflict_rate AS conflictRate, no_show_rate AS noShowRate
      FROM wr_samples WHERE at > ${sinceMs} ORDER BY at`;
  }

  /** Admitted totals, waiting and active counts of the samples since `sinceMs`, oldest first (for measuredAdmissionRate). */
  admissions(sinceMs: number): AdmissionSample[] {
    return this.sql
      .all<AdmissionSample>`SELECT at, admitted_total AS admittedTotal, waiting, active FROM wr_samples WHERE at >= ${sinceMs} ORDER BY at`;
  }
}
