// The report after the sale, per event: what the WaitingRoom recorded (its admissions, rate log,
// per-minute history, scheduled changes, lottery record), with the Inventory's sold count.
import type { MinuteFigures } from './history';
import type { StoredOverride } from './schedule';

/** Time in queue of every admission from a line place: percentiles and a histogram, ms. */
export interface QueueTimeDistribution {
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
  p99Ms: number | null;
  /** Admissions that waited up to `upToMs` (and more than the bucket before); the last bucket has `upToMs` null (longer). */
  buckets: { upToMs: number | null; count: number }[];
}

/** A run of minutes with something wrong: its first and last minute (epoch ms) and the worst figures seen. */
export interface Incident {
  fromMs: number;
  toMs: number;
  worstP99Ms: number | null;
  worstErrorRate: number | null;
}

/** WaitingRoom `report` outcome (the sold count is the Inventory's, added by the organizer API). */
export interface RoomReport {
  eventId: string;
  eventName: string;
  generatedAtMs: number;
  /** Everyone who took a place or passed straight through: admitted so far plus those still in line. */
  visitors: number;
  admitted: number;
  waitingAtEnd: number;
  queueTime: QueueTimeDistribution;
  /** The per-minute history of the whole sale (up to 30 days, in the steps of historyRange). */
  minutes: MinuteFigures[];
  /** Every change of rate or limit with its reason, oldest first. */
  rateChanges: { atMs: number; rate: number; reason: string }[];
  schedule: StoredOverride[];
  /** Runs of minutes the room did not release because it was paused (by the organizer or a maintenance window). */
  pauses: Incident[];
  /** Runs of minutes the origin was silent or failing (what bound admissions, or its error rate over the event's maximum). */
  originIncidents: Incident[];
  /** The lottery's public record: the commitment published before the draw, the seed revealed after; null for FIFO. */
  lottery: { commitment: string; drawn: boolean; seed: string | null } | null;
}
