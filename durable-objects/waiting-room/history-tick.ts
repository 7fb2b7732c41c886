// Writes the room's per-minute history at its alarm: the first tick of each minute records the
// minute before (history-policy.ts minuteToRecord), with the figures read from the stores, and
// drops rows older than 30 days. Runs inside the tick's transaction.
import { parseStoredHealth } from './health-intake';
import { HISTORY_KEEP_MS, MINUTE_MS, minuteToRecord, percentile, queueTimesMs } from './history-policy';
import type { HistoryStore } from './history-store';
import { roomBinding, roomWaiting, type Room } from './room-reads';
import type { RoomStore } from './room-store';

/**
 * Records the last complete minute if no row has it yet. Events are counted from the end of the
 * last minute written (so minutes the room slept through, when nothing was released, are folded
 * into the next row rather than lost), levels as of `nowMs`.
 * @param tickMs the room's release tick, ms (what binds)
 * @returns whether a row was written
 */
export function recordHistory(store: RoomStore, history: HistoryStore, room: Room, nowMs: number, tickMs: number): boolean {
  const lastAt = history.lastAtMs();
  const minute = minuteToRecord(lastAt, nowMs);
  if (minute === null) return false;
  const fromMs = lastAt > 0 ? lastAt + MINUTE_MS : minute;
  const toMs = minute + MINUTE_MS;
  const admissions = history.admissionsBetween(fromMs, toMs);
  const waits = queueTimesMs(admissions);
  const active = store.activeCount(nowMs);
  const health = parseStoredHealth(room.row.health);
  const refused = history.takeRefusalsBefore(toMs);
  history.write(
    {
      atMs: minute,
      waiting: roomWaiting(store, room),
      admitted: admissions.length,
      active,
      released: history.releasedBetween(fromMs, toMs),
      departures: Math.max(0, history.lastActive() + admissions.length - active),
      queueP50Ms: percentile(waits, 0.5),
      queueP90Ms: percentile(waits, 0.9),
      originP99Ms: health?.p99LatencyMs ?? null,
      originErrorRate: health?.errorRate ?? null,
      releaseRatePerMinute: room.row.rate,
      activeLimit: Math.min(room.row.active_limit ?? room.config.maxActiveVisitors, room.config.maxActiveVisitors),
      binds: roomBinding(store, room, nowMs, tickMs).binds,
      refusedProofOfWork: refused.proofOfWork,
      refusedEntryToken: refused.entryToken,
      refusedRateLimit: refused.rateLimit,
      refusedOther: refused.other,
    },
    nowMs - HISTORY_KEEP_MS,
  );
  return true;
}
