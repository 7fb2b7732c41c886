// A small second-by-second model of a room's slots and line, for the wait estimate's tests: the
// release tick (rate x time, capped by the free slots and the line), admitted visitors who stay
// their own time and leave, and the samples the WaitingRoom keeps (one every 5 s, after the tick).
// Released visitors claim at once (no unclaimed places), so the free slots are bound - active.
import type { AdmissionSample } from '../../durable-objects/waiting-room/admission-pace';

/** The room modelled. Times in seconds from the model's start, rates per minute. */
export interface SimRoom {
  /** The slot bound: the lower of the controller's active limit and the organizer's max active. */
  slotBound: number;
  ratePerMinute: number;
  /** How long the i-th admitted visitor (0-based) stays, s. */
  stayS: (i: number) => number;
  /** Visitors who join at second s. */
  arrivals: (s: number) => number;
  /** Visitors already active at second 0 and when each leaves, s (default none). */
  activeAtStart?: readonly number[];
}

/** What the WaitingRoom would read at one instant. */
export interface SimInstant {
  /** Epoch ms. */
  at: number;
  /** The stored samples (oldest first) and the current state as the last one. */
  samples: AdmissionSample[];
  /** Claims made after `atMs` (epoch ms) and up to this instant. */
  claimsSince: (atMs: number) => number;
  active: number;
  waiting: number;
  freeSlots: number;
  /** Admissions the tick released at this second (0 before the tick). */
  released: number;
}

/** The model's second 0, epoch ms. */
export const SIM_T0 = 1_800_000_000_000;

/**
 * Runs the room for `seconds` and returns two instants per second: `before` the tick (after the
 * second's arrivals and departures) and `after` it (the samples include the one taken then).
 */
export function simulateRoom(room: SimRoom, seconds: number): { before: SimInstant; after: SimInstant }[] {
  let ends = [...(room.activeAtStart ?? [])];
  let waiting = 0;
  let total = 0;
  let carry = 0;
  let admittedCount = 0;
  const claims: number[] = [];
  const samples: AdmissionSample[] = [];
  const out: { before: SimInstant; after: SimInstant }[] = [];
  const instant = (at: number, released: number): SimInstant => ({
    at,
    samples: [...samples, { at, admittedTotal: total, waiting, active: ends.length }],
    claimsSince: claimCounter(claims, claims.length),
    active: ends.length,
    waiting,
    freeSlots: room.slotBound - ends.length,
    released,
  });
  for (let s = 0; s < seconds; s++) {
    const at = SIM_T0 + s * 1000;
    waiting += room.arrivals(s);
    ends = ends.filter((e) => e > s);
    const before = instant(at, 0);
    carry += room.ratePerMinute / 60;
    const n = Math.max(0, Math.min(Math.floor(carry), room.slotBound - ends.length, waiting));
    carry = Math.min(carry - n, 0.999);
    waiting -= n;
    total += n;
    for (let k = 0; k < n; k++) {
      ends.push(s + room.stayS(admittedCount++));
      claims.push(at);
    }
    if (s % 5 === 0) samples.push({ at, admittedTotal: total, waiting, active: ends.length });
    out.push({ before, after: instant(at, n) });
  }
  return out;
}

/** The second at which the visitor at `position` in line at instant `from` (an `after` instant) is released. */
export function releasedAtS(run: readonly { after: SimInstant }[], from: number, position: number): number | null {
  let left = position;
  for (let s = from + 1; s < run.length; s++) {
    left -= run[s]!.after.released;
    if (left <= 0) return s;
  }
  return null;
}

/** Counts the first `n` claim times (ascending, epoch ms) after a time: a binary search. */
function claimCounter(claims: readonly number[], n: number): (atMs: number) => number {
  return (atMs) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (claims[mid]! <= atMs) lo = mid + 1;
      else hi = mid;
    }
    return n - lo;
  };
}
