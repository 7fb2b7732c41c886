// Per-isolate tally of seat-hold round trips, flushed to the event's WaitingRoom every few seconds.
import { quantile } from '../../contracts/stats';

/** An isolate reports its holds to the WaitingRoom at most this often, ms. */
export const FLUSH_EVERY_MS = 5_000;
const MAX_SAMPLES = 2_000;

interface Tally {
  since: number;
  latencies: number[];
  /** Accounts that tried, and those refused for taken seats: one account hammering counts once. */
  accounts: Set<string>;
  conflicted: Set<string>;
}

const tallies = new Map<string, Tally>();

/**
 * Records one hold's round trip (ms) and whether the seats were taken. Returns the window to
 * report when FLUSH_EVERY_MS has passed since the last report for this event, else null: `holds`
 * and `conflicts` count distinct accounts, so one client retrying cannot fake a crowd.
 */
export function recordHold(
  eventId: string,
  account: string,
  ms: number,
  conflict: boolean,
  nowMs: number,
): { holds: number; conflicts: number; p99Ms: number } | null {
  const t: Tally = tallies.get(eventId) ?? { since: nowMs, latencies: [], accounts: new Set(), conflicted: new Set() };
  tallies.set(eventId, t);
  if (t.latencies.length < MAX_SAMPLES) t.latencies.push(ms);
  if (t.accounts.size < MAX_SAMPLES) t.accounts.add(account);
  if (conflict && t.conflicted.size < MAX_SAMPLES) t.conflicted.add(account);
  if (nowMs - t.since < FLUSH_EVERY_MS) return null;
  tallies.delete(eventId);
  return { holds: t.accounts.size, conflicts: t.conflicted.size, p99Ms: quantile(t.latencies, 0.99) };
}
