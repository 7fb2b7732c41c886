// The WaitingRoom's stored rows as its queries read them (schema.ts), and the FIFO places its row names.
import { LONGEST_HOLD_TOTAL_S } from '../../contracts/event-input';
import type { FifoPlace } from '../../contracts/queue/cursor';
import type { RoomMode } from '../../contracts/queue/queue-policy';

/** The room's one row (wr_room). Times epoch ms, rates per minute, flags 0/1. */
export interface RoomRow {
  config: string;
  mode: RoomMode;
  seed: string;
  drawn: number;
  rate: number;
  last_report_at: number;
  carry: number;
  last_tick_at: number;
  admitted_total: number;
  health: string | null;
  fixed_rate: number | null;
  sold_out: number;
  commitment: string | null;
  active_limit: number | null;
  slow_start: number;
  css_rounds: number;
  overload_limit: number;
  last_cut_at: number;
  admit_rate: number;
  last_sample_at: number;
  shards: number;
  c_bucket: number;
  c_idx: number;
  c_shard: number;
  draw_size: number;
  draw_released: number;
  lapsed_bucket: number;
  lapsed_idx: number;
  lapsed_shard: number;
  lapsed_draw: number;
  /** When the maintenance window in effect began, epoch ms; null outside one. */
  reject_since: number | null;
}

/**
 * The longest an admission is kept alive for a hold, ms: the longest a hold may last with its
 * extensions (at least the longest hold TTL) plus the longest payment grace (contracts/event-input.ts).
 */
export const MAX_HOLD_COVER_MS = (LONGEST_HOLD_TOTAL_S + 900) * 1000;

/** One visitor's admission (wr_admissions). */
export interface AdmissionRow {
  visitor_id: string;
  place: string;
  released_at: number;
  admitted_at: number;
  expires_at: number;
  state: 'admitted' | 'left';
}

/** The room's admission cursor (the first FIFO place not released) from its row. */
export function cursorOf(room: RoomRow): FifoPlace {
  return { bucket: room.c_bucket, idx: room.c_idx, shard: room.c_shard };
}

/** FIFO places before this were released too long ago to claim (their release records are pruned). */
export function lapsedOf(room: RoomRow): FifoPlace {
  return { bucket: room.lapsed_bucket, idx: room.lapsed_idx, shard: room.lapsed_shard };
}
