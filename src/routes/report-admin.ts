// Organizer API for the report after the sale: per event, JSON (everything) or CSV (the minutes),
// with the Inventory's sold count beside the WaitingRoom's record.
import { Hono } from 'hono';
import type { RoomReport } from '../../contracts/report';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { eventStats } from '../lib/inventory-router';
import { eventIdParam, type AppEnv } from '../types';

/** `/_wr/admin/events/{eventId}/report[?format=csv]`, mounted behind the organizer API's bearer token. */
export const reportAdmin = new Hono<AppEnv>();

const iso = (ms: number) => new Date(ms).toISOString();

/** The CSV's columns, one row per point of the report's history (RFC 4180: quoted where needed). */
const CSV_COLUMNS = [
  'at',
  'waiting',
  'admitted',
  'active',
  'released',
  'departures',
  'queueP50Ms',
  'queueP90Ms',
  'originP99Ms',
  'originErrorRate',
  'releaseRatePerMinute',
  'activeLimit',
  'binds',
  'refusedProofOfWork',
  'refusedEntryToken',
  'refusedRateLimit',
  'refusedOther',
] as const;

const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

reportAdmin.get('/events/:eventId/report', async (c) => {
  const eventId = eventIdParam(c);
  const format = c.req.query('format') ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new GatewayError('INVALID_REQUEST', { detail: 'format must be json or csv' });
  const [report, seats] = await Promise.all([
    callDurableObject(async () => (await c.env.WAITING_ROOM.getByName(eventId).report()) as RoomReport | null, {
      idempotent: true,
      name: 'waitingRoom.report',
      eventId,
    }),
    callDurableObject(async () => eventStats(c.env, eventId), { idempotent: true, name: 'inventory.stats', eventId }),
  ]);
  if (!report) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  c.header('cache-control', 'no-store');
  const minutes = report.minutes.map(({ atMs, ...p }) => ({ at: iso(atMs), ...p }));
  if (format === 'csv') {
    const lines = [CSV_COLUMNS.join(','), ...minutes.map((m) => CSV_COLUMNS.map((k) => csvCell(m[k])).join(','))];
    c.header('content-disposition', `attachment; filename="${eventId}-minutes.csv"`);
    return c.body(lines.join('\r\n') + '\r\n', 200, { 'content-type': 'text/csv; charset=utf-8' });
  }
  // Summed over the minutes written (the minute under way is counted by the next row).
  const refusals = {
    proofOfWork: sum(report.minutes, (m) => m.refusedProofOfWork),
    entryToken: sum(report.minutes, (m) => m.refusedEntryToken),
    rateLimit: sum(report.minutes, (m) => m.refusedRateLimit),
    other: sum(report.minutes, (m) => m.refusedOther),
  };
  const sold = seats.kind === 'stats' ? seats.stats.seats.sold + seats.stats.tiers.reduce((a, t) => a + t.sold, 0) : null;
  return c.json({
    eventId,
    eventName: report.eventName,
    generatedAt: iso(report.generatedAtMs),
    visitors: report.visitors,
    admitted: report.admitted,
    waitingAtEnd: report.waitingAtEnd,
    sold,
    resale: seats.kind === 'stats' ? (seats.stats.resale ?? null) : null,
    queueTime: report.queueTime,
    rateChanges: report.rateChanges.map(({ atMs, ...r }) => ({ at: iso(atMs), ...r })),
    schedule: report.schedule.map((o) => ({
      id: o.id,
      state: o.state,
      reason: o.reason,
      startsAt: iso(o.startsAtMs),
      endsAt: iso(o.endsAtMs),
      settings: o.settings,
    })),
    pauses: report.pauses.map((p) => ({ from: iso(p.fromMs), to: iso(p.toMs) })),
    originIncidents: report.originIncidents.map((p) => ({
      from: iso(p.fromMs),
      to: iso(p.toMs),
      worstP99Ms: p.worstP99Ms,
      worstErrorRate: p.worstErrorRate,
    })),
    refusals,
    botsRefused: refusals.proofOfWork + refusals.entryToken + refusals.rateLimit + refusals.other,
    lottery: report.lottery,
    minutes,
  });
});
