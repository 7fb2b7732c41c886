// The room's per-minute history as pure rules: which minute a tick records, the figures of a
// minute from what the room counted, how long rows are kept, and which ranges the organizer may
// ask for (with the step that keeps an answer small). Times are epoch ms, taken as inputs.
import { REFUSAL_CAUSES, type RefusalCounts } from '../../contracts/history';
import { BUCKET_MS, parsePlaceKey } from '../../contracts/queue/cursor';
export type { MinuteFigures } from '../../contracts/history';

/** One minute in ms. */
export const MINUTE_MS = 60_000;
/** How long per-minute rows are kept, ms: 30 days. */
export const HISTORY_KEEP_MS = 30 * 24 * 60 * MINUTE_MS;
/** At most this many points in one answer; longer ranges are summed or maxed over wider steps. */
export const HISTORY_MAX_POINTS = 1_440;

/** The start of the minute of `nowMs`, epoch ms. */
function minuteOf(nowMs: number): number {
  return Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
}

/**
 * Whether a tick at `nowMs` writes a row: the first tick of each minute writes the minute before
 * it (complete by then). Returns that minute's start, or null.
 * @param lastAtMs the start of the last minute written (0: none yet)
 */
export function minuteToRecord(lastAtMs: number, nowMs: number): number | null {
  const previous = minuteOf(nowMs) - MINUTE_MS;
  return previous > lastAtMs ? previous : null;
}

/** The `p`-th percentile (0-1, nearest rank) of `values`; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * How long each admission waited, ms: from the arrival second its FIFO place names (a place's
 * bucket is its arrival second at the shard) to its admission. Pre-queue and passthrough
 * admissions name no arrival time and are left out.
 */
export function queueTimesMs(admissions: readonly { place: string; admittedAtMs: number }[]): number[] {
  const out: number[] = [];
  for (const a of admissions) {
    const place = parsePlaceKey(a.place);
    if (place && !('pre' in place)) out.push(Math.max(0, a.admittedAtMs - place.bucket * BUCKET_MS));
  }
  return out;
}

/**
 * The range an organizer asked for, checked: `from` before `to`, not before the 30 days kept, and
 * the step (whole minutes) that keeps it within HISTORY_MAX_POINTS.
 * @returns the range with its step, or a problem naming the parameter
 */
export function historyRange(
  fromMs: number,
  toMs: number,
  nowMs: number,
): { kind: 'ok'; fromMs: number; toMs: number; stepMs: number } | { kind: 'invalid'; detail: string } {
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) return { kind: 'invalid', detail: 'from and to must be ISO 8601 times' };
  if (toMs <= fromMs) return { kind: 'invalid', detail: 'to must be after from' };
  if (fromMs < nowMs - HISTORY_KEEP_MS) return { kind: 'invalid', detail: 'from is more than 30 days ago: history is kept 30 days' };
  const minutes = Math.ceil((toMs - fromMs) / MINUTE_MS);
  const stepMs = Math.max(1, Math.ceil(minutes / HISTORY_MAX_POINTS)) * MINUTE_MS;
  return { kind: 'ok', fromMs: minuteOf(fromMs), toMs, stepMs };
}

/** Most refusals one report may count per cause (far above what an isolate refuses in its 5 s window). */
const MAX_REFUSALS_PER_REPORT = 1_000_000;

/**
 * A gateway isolate's refusal report as the history stores it: a count that is not a whole number
 * from 0 to MAX_REFUSALS_PER_REPORT is taken as 0, so a bug in a report never writes nonsense
 * into 30 days of history.
 */
export function refusalCounts(report: RefusalCounts): RefusalCounts {
  const clean = (n: unknown) => (Number.isInteger(n) && (n as number) >= 0 && (n as number) <= MAX_REFUSALS_PER_REPORT ? (n as number) : 0);
  return Object.fromEntries(REFUSAL_CAUSES.map((k) => [k, clean(report[k])])) as RefusalCounts;
}
