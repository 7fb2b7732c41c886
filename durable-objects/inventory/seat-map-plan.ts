// Which seat map a reader gets: the rule that keeps a client-chosen `since` from costing a full map.

/** Seat-map deltas kept for `seatMap(since)`, in versions; older `since` values get a snapshot. */
export const DELTA_RETENTION = 20_000;

/** `planSeatMap` outcome: the whole map, or the changes after `since` (normalized). */
export type SeatMapPlan = { kind: 'snapshot' } | { kind: 'delta'; since: number };

/**
 * Decides what a seat-map read with `since` serves, so every client-chosen value maps to a cheap
 * answer: no `since`, or one older than the kept deltas, gets the snapshot; a `since` at or above
 * the current version gets the (empty) delta from the current version, never a snapshot (no
 * reader can be ahead: versions only grow, so such a value is stale from another event or forged).
 *
 * @param since the version the reader has, or undefined
 * @param map the current version and the newest version whose deltas were pruned
 */
export function planSeatMap(since: number | undefined, map: { version: number; prunedThrough: number }): SeatMapPlan {
  if (since === undefined || !Number.isSafeInteger(since) || since < map.prunedThrough) return { kind: 'snapshot' };
  return { kind: 'delta', since: Math.min(since, map.version) };
}
