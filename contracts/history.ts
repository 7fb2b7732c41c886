// An event's per-minute history as the WaitingRoom keeps it and the organizer API serves it.

/** One minute of the room, as stored (wr_history) and served. Counts are visitors; rates per minute. */
export interface MinuteFigures {
  /** Start of the minute, epoch ms. */
  atMs: number;
  /** In line at the minute's last tick. */
  waiting: number;
  /** Admissions handed out during the minute. */
  admitted: number;
  /** Active (admitted, not ended) at the minute's last tick. */
  active: number;
  /** Places released during the minute. */
  released: number;
  /** Admissions that ended (expired, left, revoked) during the minute: active before + admitted - active now. */
  departures: number;
  /** Time in queue of the minute's admissions, ms (from the arrival second their place names); null when none. */
  queueP50Ms: number | null;
  queueP90Ms: number | null;
  /** The origin's last report: p99 latency ms and error rate 0-1; null without one. */
  originP99Ms: number | null;
  originErrorRate: number | null;
  releaseRatePerMinute: number;
  activeLimit: number;
  /** What bound admissions (room-report.ts BindingConstraint). */
  binds: string;
  /** Visitors the edge refused during the minute, by cause (RefusalCounts): requests, not distinct visitors. */
  refusedProofOfWork: number;
  refusedEntryToken: number;
  refusedRateLimit: number;
  refusedOther: number;
}

/** The causes the edge refuses a visitor on the way into the line for (src/lib/refusal-tally.ts names the codes of each). */
export const REFUSAL_CAUSES = ['proofOfWork', 'entryToken', 'rateLimit', 'other'] as const;
/** One cause of refusal. */
export type RefusalCause = (typeof REFUSAL_CAUSES)[number];
/** Refused requests per cause over some window (one gateway isolate's report, or a minute). */
export type RefusalCounts = Record<RefusalCause, number>;

/** WaitingRoom `historyBetween` outcome: the points with their step (ms), a refused range, or null (no event). */
export type HistoryAnswer = { kind: 'ok'; stepMs: number; points: MinuteFigures[] } | { kind: 'invalid'; detail: string } | null;
