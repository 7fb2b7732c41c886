// What the WaitingRoom's RPC methods take and answer besides the queue contracts (contracts/room-answers.ts).
import type { QueueConfig } from '../../contracts/event-config';
import type { RoomMode } from '../../contracts/queue/queue-policy';
import type { StoredOverride } from '../../contracts/schedule';
import type { BindingConstraint } from './admission-pace';
import type { HealthReport } from './health-signals';
import type { GatewaySignals } from './health-signals';

/** One dashboard sample. Rates per minute, latencies ms, shares 0..1. */
export interface Sample {
  at: number;
  rate: number;
  admitRate: number;
  activeLimit: number;
  originP99Ms: number | null;
  originErrorRate: number | null;
  waiting: number;
  active: number;
  admittedTotal: number;
  holdP99Ms: number | null;
  conflictRate: number | null;
  noShowRate: number | null;
}

/** Hold outcomes one gateway isolate saw over its last window. */
export interface HoldSignals {
  holds: number;
  conflicts: number;
  /** p99 of those holds' round trips, ms. */
  p99Ms: number;
}

/** What binds admissions now. Rates per minute, counts in visitors. */
export interface Binding {
  binds: BindingConstraint;
  detail: string;
  releaseRatePerMinute: number;
  admitPerMinute: number;
  /** The controller's active limit (never above the organizer's max). */
  activeLimit: number;
  /** The organizer's max active visitors. */
  maxActiveVisitors: number;
  active: number;
  /** Unclaimed places inside the claim window, the share of them expected to arrive, and their bound. */
  unclaimed: number;
  expectedArrivals: number;
  unclaimedLimit: number;
  paused: boolean;
  /** Why the origin counts as silent or failing, or null while its reports are fresh. */
  originSilent: string | null;
}

/** Live numbers for the organizer. */
export interface RoomStats {
  config: QueueConfig;
  mode: RoomMode;
  waiting: number;
  active: number;
  admittedTotal: number;
  /** Released visitors who have not claimed their admission yet (within the idle timeout). */
  pending: number;
  /** What limits admissions right now, and the numbers behind it (the dashboard's "what binds"). */
  binding: Binding;
  /**
   * Admitted visitors who left, were revoked or expired, per minute over about the last minute
   * (admission-pace measuredDepartures; the wait estimate's slot term); null with under 10 s measured.
   */
  departuresPerMinute: number | null;
  /** Queue shards K. */
  shards: number;
  /** Requests this object instance has served since it started (for the scale benchmark). */
  objectRequests: number;
  releaseRatePerMinute: number;
  /** Admissions per minute after no-show compensation. */
  admitPerMinute: number;
  /** The controller's limit on active visitors (never above the organizer's max). */
  activeLimit: number;
  /** The organizer's fixed rate, or null when the controller decides. */
  fixedRatePerMinute: number | null;
  lastHealth: HealthReport | null;
  gateway: GatewaySignals;
  rateLog: { at: number; rate: number; reason: string }[];
  /** The event's scheduled changes in start order (contracts/schedule.ts); absent in the pure stats read. */
  schedule?: StoredOverride[];
  /** The config in effect now: `config` with the scheduled changes on now (absent in the pure stats read). */
  inEffect?: QueueConfig;
  /** One sample every 5 s over the last 30 minutes, oldest first. */
  samples: Sample[];
  lottery: { commitment: string; drawn: boolean; seed: string | null } | null;
  /** The presale lanes in release order (empty for an event without lanes). */
  lanes: LaneStats[];
}

/** One presale lane's line for the organizer. */
export interface LaneStats {
  lane: string;
  /** The lane's sale start, epoch ms (the event's own when the organizer set none). */
  saleStartsAtMs: number;
  releaseSharePercent: number;
  /** Visitors of the lane in line (counted arrivals not released). */
  waiting: number;
  /** Visitors of the lane released so far. */
  released: number;
}
