// Refusals on the way into the line, counted by cause in the event's per-minute history: a missing
// proof of work, a forged entry token, an IP over its join limit; and their totals in the report.
import { env } from 'cloudflare:workers';
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HistoryAnswer, MinuteFigures } from '../../contracts/history';
import { MINUTE_MS } from '../../durable-objects/waiting-room/history-policy';
import { createApp } from '../../src/app';
import { organizer } from '../helpers/channels';
import { BASE, createEvent, freshEventId } from '../helpers/client';
import { QueueHarness } from '../helpers/queue';

/** An IP limiter that refuses every key: this IP is over its join limit. */
const limitedEnv = { ...env, IP_RATE_LIMITER: { limit: async () => ({ success: false }) } } as unknown as Env;

/** One app request through the gateway, its after-response work (the room's refusal report) awaited. */
async function send(path: string, init: RequestInit = {}, bindings: Env = env): Promise<Response> {
  const ctx = createExecutionContext();
  const headers = { accept: 'application/json', 'cf-connecting-ip': '203.0.113.9', ...(init.headers as Record<string, string>) };
  const res = await createApp().fetch(new Request(BASE + path, { ...init, headers }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** Writes the minute of now through the room's next-minute tick, and returns its history point. */
async function minuteRow(eventId: string): Promise<MinuteFigures> {
  const minute = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
  const q = new QueueHarness(eventId);
  // The history counts from the last minute written: start it just before this one.
  await runInDurableObject(q.room, (_o, s) =>
    s.storage.sql.exec(
      `INSERT INTO wr_history (at, waiting, admitted, active, released, departures, rate, active_limit, binds) VALUES (?, 0, 0, 0, 0, 0, 1, 1, 'x')`,
      minute - MINUTE_MS,
    ),
  );
  await q.tick(minute + MINUTE_MS + 1_000);
  const answer = (await q.room.historyBetween(minute, minute + MINUTE_MS)) as HistoryAnswer;
  if (answer?.kind !== 'ok') throw new Error('no history');
  const point = answer.points.find((p) => p.atMs === minute);
  if (!point) throw new Error('the minute has no row');
  return point;
}

const causes = (p: MinuteFigures) => [p.refusedProofOfWork, p.refusedEntryToken, p.refusedRateLimit, p.refusedOther];

describe('refusals by cause in the per-minute history', () => {
  it('counts a join without a proof of work under proofOfWork', async () => {
    const eventId = freshEventId('ref');
    expect((await createEvent(eventId, { proofOfWork: { difficultyBits: 8 } })).status).toBe(201);
    expect((await send(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(401);
    expect(causes(await minuteRow(eventId))).toEqual([1, 0, 0, 0]);
  });

  it('counts a forged entry token under entryToken', async () => {
    const eventId = freshEventId('ref');
    expect((await createEvent(eventId, { entry: { require: 'account', signInUrl: '/login' } })).status).toBe(201);
    const res = await send(`/_wr/events/${eventId}/join`, { method: 'POST', headers: { 'x-entry-token': 'eyJhbGciOiJIUzI1NiJ9.e30' } });
    expect(((await res.json()) as { code: string }).code).toBe('ENTRY_TOKEN_INVALID');
    expect(causes(await minuteRow(eventId))).toEqual([0, 1, 0, 0]);
  });

  it('does not count a browser sent to sign in for want of any entry token', async () => {
    const eventId = freshEventId('ref');
    expect((await createEvent(eventId, { entry: { require: 'account', signInUrl: '/login' } })).status).toBe(201);
    const page = await send(`/events/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(causes(await minuteRow(eventId))).toEqual([0, 0, 0, 0]);
  });

  it('counts a join refused by the IP limit under rateLimit, and the report totals every cause', async () => {
    const eventId = freshEventId('ref');
    expect((await createEvent(eventId)).status).toBe(201);
    // The limiter answers after the first join (it is asked in the background); the second is refused.
    expect((await send(`/events/${eventId}/`, {}, limitedEnv)).status).toBe(200);
    expect((await send(`/events/${eventId}/`, {}, limitedEnv)).status).toBe(429);
    expect(causes(await minuteRow(eventId))).toEqual([0, 0, 1, 0]);

    const report = await organizer<{ botsRefused: number; refusals: Record<string, number>; minutes: MinuteFigures[] }>(
      'GET',
      `/events/${eventId}/report`,
    );
    expect(report.body.refusals).toEqual({ proofOfWork: 0, entryToken: 0, rateLimit: 1, other: 0 });
    expect(report.body.botsRefused).toBe(1);
    const csv = await send(`/_wr/admin/events/${eventId}/report?format=csv`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
    const [head, ...rows] = (await csv.text()).trim().split('\r\n');
    expect(head).toMatch(/,refusedProofOfWork,refusedEntryToken,refusedRateLimit,refusedOther$/);
    expect(rows.some((r) => r.endsWith(',0,0,1,0'))).toBe(true);
  });
});
