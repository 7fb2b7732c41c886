// Per-isolate tally of the refusals on a visitor's way into an event's line (proof of work, entry
// token, rate limit, other coded 4xx), reported to the event's WaitingRoom, whose per-minute history
// counts them by cause.
import type { RefusalCause, RefusalCounts } from '../../contracts/history';
import { ERROR_TABLE, type ErrorCode } from './errors';

/** After a report, an isolate holds further refusals of the event this long before the next, ms. */
export const REFUSAL_REPORT_EVERY_MS = 5_000;
/** Events tallied at once per isolate; past this the oldest tally is dropped (its counts lost). */
const MAX_EVENTS = 1_000;

/**
 * The cause a refusal is counted under, or null for answers that are no refusal of the visitor
 * (5xx: overload, maintenance windows, the origin) and for an unknown event (no room to count in).
 */
export function refusalCause(code: ErrorCode): RefusalCause | null {
  if (code.startsWith('PROOF_OF_WORK_')) return 'proofOfWork';
  if (code.startsWith('ENTRY_') || code === 'LANE_NOT_CONFIGURED') return 'entryToken';
  if (code === 'RATE_LIMITED') return 'rateLimit';
  if (code === 'EVENT_NOT_FOUND' || ERROR_TABLE[code].status >= 500) return null;
  return 'other';
}

interface Tally {
  /** When this isolate last reported the event, epoch ms. */
  reportedAtMs: number;
  counts: RefusalCounts;
}

const tallies = new Map<string, Tally>();

const zero = (): RefusalCounts => ({ proofOfWork: 0, entryToken: 0, rateLimit: 0, other: 0 });

/**
 * Counts one refusal. Returns the counts to report now (this one included) when the isolate has
 * not reported the event for REFUSAL_REPORT_EVERY_MS, else null (held for a later report). So a
 * lone refusal reaches the room at once, and a flood costs one room call per isolate every 5 s; an
 * isolate that goes quiet holds back at most one window's counts.
 * @param nowMs epoch ms
 */
export function recordRefusal(eventId: string, cause: RefusalCause, nowMs: number): RefusalCounts | null {
  let t = tallies.get(eventId);
  if (!t) {
    if (tallies.size >= MAX_EVENTS) tallies.delete(tallies.keys().next().value!);
    t = { reportedAtMs: Number.NEGATIVE_INFINITY, counts: zero() };
    tallies.set(eventId, t);
  }
  t.counts[cause]++;
  // A clock that went back reports too, rather than holding counts until it catches up.
  if (nowMs - t.reportedAtMs < REFUSAL_REPORT_EVERY_MS && nowMs >= t.reportedAtMs) return null;
  const out = t.counts;
  t.counts = zero();
  t.reportedAtMs = nowMs;
  return out;
}
