// Per-isolate tallies of the decisions every request makes (joins, admissions, holds, limiter
// refusals), written as a few summary lines per event every TALLY_EVERY_MS instead of one line each.
import { logDecision } from '../../contracts/log';
import { quantile } from '../../contracts/stats';

/** A tally covers at most this long before it is written, ms. */
export const TALLY_EVERY_MS = 10_000;
/** Latencies kept per line at most (a uniform reservoir beyond this). */
const MAX_SAMPLES = 1_000;
/** Events tallied at once per isolate; past this, every tally is written and started afresh. */
const MAX_EVENTS = 1_000;

/** The decisions counted rather than written one by one. */
export type TalliedDecision =
  | 'joined'
  | 'requeued'
  | 'admitted'
  | 'hold.granted'
  | 'hold.replayed'
  | 'hold.refused'
  | 'channel.hold.granted'
  | 'channel.hold.replayed'
  | 'channel.hold.refused'
  | 'ratelimit.refused';

interface Line {
  decision: TalliedDecision;
  code: string | null;
  count: number;
  seen: number;
  ms: number[];
}

interface Tally {
  sinceMs: number;
  lines: Map<string, Line>;
}

const tallies = new Map<string, Tally>();

/**
 * Counts one decision for an event. When the event's tally is TALLY_EVERY_MS old, it is written
 * first: one `{"decision":"tally","of":<decision>,"code":<error code or null>,"count":n,
 * "windowMs":..,"p50Ms","p99Ms","maxMs"}` line per decision and code seen (latencies only where
 * `ms` was given). An isolate's last window is written by its next decision for that event, so an
 * isolate that goes quiet (or is evicted) holds back at most TALLY_EVERY_MS of counts: the objects'
 * own counters (admin stats) stay the totals of record.
 *
 * @param opts.code the error code of a refusal
 * @param opts.ms the decision's latency, ms (e.g. the hold's Inventory round trip)
 * @param opts.nowMs epoch ms; default now
 */
export function recordDecision(
  eventId: string,
  decision: TalliedDecision,
  opts: { code?: string; ms?: number; nowMs?: number } = {},
): void {
  const nowMs = opts.nowMs ?? Date.now();
  let tally = tallies.get(eventId);
  if (tally && (nowMs - tally.sinceMs >= TALLY_EVERY_MS || nowMs < tally.sinceMs)) {
    writeTally(eventId, tally, nowMs);
    tally = undefined;
  }
  if (!tally) {
    if (tallies.size >= MAX_EVENTS) flushTallies(nowMs);
    tally = { sinceMs: nowMs, lines: new Map() };
    tallies.set(eventId, tally);
  }
  const code = opts.code ?? null;
  const key = `${decision}\n${code ?? ''}`;
  let line = tally.lines.get(key);
  if (!line) {
    line = { decision, code, count: 0, seen: 0, ms: [] };
    tally.lines.set(key, line);
  }
  line.count++;
  if (opts.ms !== undefined) {
    // Reservoir sampling (Vitter's algorithm R): every latency has the same chance to be kept.
    line.seen++;
    if (line.ms.length < MAX_SAMPLES) line.ms.push(opts.ms);
    else {
      const j = Math.floor(Math.random() * line.seen);
      if (j < MAX_SAMPLES) line.ms[j] = opts.ms;
    }
  }
}

/** Writes every open tally now (tests, and an isolate tallying too many events). */
export function flushTallies(nowMs: number = Date.now()): void {
  for (const [eventId, tally] of tallies) writeTally(eventId, tally, nowMs);
}

function writeTally(eventId: string, tally: Tally, nowMs: number): void {
  tallies.delete(eventId);
  const windowMs = Math.max(0, nowMs - tally.sinceMs);
  for (const line of tally.lines.values()) {
    const latency =
      line.ms.length > 0
        ? { p50Ms: quantile(line.ms, 0.5), p99Ms: quantile(line.ms, 0.99), maxMs: Math.max(...line.ms) }
        : { p50Ms: null, p99Ms: null, maxMs: null };
    logDecision('tally', { eventId, of: line.decision, code: line.code, count: line.count, windowMs, ...latency });
  }
}
