// The WaitingRoom's report after the sale, read from its stores through the pure rules
// (report-policy.ts, history-policy.ts). Reads only.
import { seedCommitment } from '../../contracts/queue/queue-policy';
import type { RoomReport } from '../../contracts/report';
import { HISTORY_KEEP_MS, historyRange, queueTimesMs } from './history-policy';
import type { HistoryStore } from './history-store';
import { incidents, queueTimeDistribution } from './report-policy';
import { roomWaiting, type Room } from './room-reads';
import type { RoomStore } from './room-store';
import type { ScheduleStore } from './schedule-store';

/** The rate log entries a report lists at most (newest kept). */
const REPORT_RATE_CHANGES = 10_000;

/**
 * The report of the room at `nowMs`: its counts, every admission's time in queue, the history of
 * the last 30 days, the rate log, the schedule, paused and origin-trouble minutes, the lottery record.
 * @param room the room with its stored config (the event's own maximum error rate)
 */
export async function roomReport(
  stores: { store: RoomStore; history: HistoryStore; schedule: ScheduleStore },
  room: Room,
  nowMs: number,
): Promise<RoomReport> {
  const { store, history, schedule } = stores;
  const range = historyRange(nowMs - HISTORY_KEEP_MS, nowMs, nowMs);
  const step = range.kind === 'ok' ? range : { fromMs: nowMs - HISTORY_KEEP_MS, toMs: nowMs, stepMs: 30 * 60_000 };
  const minutes = history.range(step.fromMs, step.toMs, step.stepMs);
  const waiting = roomWaiting(store, room);
  const { row, config } = room;
  return {
    eventId: config.eventId,
    eventName: config.name,
    generatedAtMs: nowMs,
    visitors: row.admitted_total + waiting,
    admitted: row.admitted_total,
    waitingAtEnd: waiting,
    queueTime: queueTimeDistribution(queueTimesMs(history.admissionsBetween(0, nowMs + 1))),
    minutes,
    rateChanges: store
      .rateLog(REPORT_RATE_CHANGES)
      .reverse()
      .map((l) => ({ atMs: l.at, rate: l.rate, reason: l.reason })),
    schedule: [...schedule.list()],
    pauses: incidents(minutes, step.stepMs, (p) => p.binds === 'paused'),
    originIncidents: incidents(
      minutes,
      step.stepMs,
      (p) => p.binds === 'origin_silent' || (p.originErrorRate !== null && p.originErrorRate > config.maxErrorRate),
    ),
    lottery:
      config.policy === 'random'
        ? { commitment: await seedCommitment(row.seed), drawn: row.drawn === 1, seed: row.drawn === 1 ? row.seed : null }
        : null,
  };
}
