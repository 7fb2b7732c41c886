// Timestamps a client signs are checked against the gateway's clock with a bounded skew: a
// report signed ahead of the clock never locks out correctly timed ones.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_FUTURE_SKEW_S, SIGNATURE_WINDOW_S, signOriginRequest } from '../../contracts/hmac';
import { createEvent, freshEventId } from '../helpers/client';

const BASE = 'https://gateway.test';

async function signedCall(method: string, path: string, body: string, signedAtMs: number) {
  const headers = {
    'content-type': 'application/json',
    ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, method, path, body, signedAtMs)),
  };
  const res = await exports.default.fetch(new Request(BASE + path, { method, headers, body: method === 'GET' ? undefined : body }));
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const health = (p99LatencyMs = 100) => JSON.stringify({ p99LatencyMs, errorRate: 0, activeBuyers: 1 });

describe('signed timestamps against the gateway clock', () => {
  // Failing input: one report signed 300 s ahead was accepted, and every correctly
  // timed report after it answered 409 STALE_REPORT until that time came.
  it('refuses a health report signed 300 s ahead, and correctly timed reports keep being accepted', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const path = `/_wr/origin/events/${eventId}/health`;
    const ahead = await signedCall('POST', path, health(), Date.now() + 300_000);
    expect(ahead.status).toBe(401);
    expect(ahead.body).toMatchObject({ code: 'SIGNATURE_INVALID', detail: expect.stringMatching(/ahead of the gateway's clock/) });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.lastHealth).toBeNull();
    expect((await signedCall('POST', path, health(), Date.now())).status).toBe(204);
    expect((await signedCall('POST', path, health(), Date.now())).status).toBe(204);
  });

  // Failing input: a report signed within the skew (4 s ahead) locked out the
  // correctly timed report that followed it (ordered by its raw signed time).
  it('accepts a report signed a little ahead without locking out the next correctly timed one', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const path = `/_wr/origin/events/${eventId}/health`;
    expect((await signedCall('POST', path, health(100), Date.now() + (MAX_FUTURE_SKEW_S - 1) * 1000)).status).toBe(204);
    const corrected = await signedCall('POST', path, health(200), Date.now() + 1000);
    expect(corrected.status).toBe(204);
    const stats = (await env.WAITING_ROOM.getByName(eventId).stats())!;
    expect(stats.lastHealth!.p99LatencyMs).toBe(200);
    expect(stats.lastHealth!.reportedAtMs).toBeLessThanOrEqual(Date.now());
    // Replays stay out: a report signed before the last accepted one is refused.
    const replay = await signedCall('POST', path, health(100), Date.now() - 60_000);
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('STALE_REPORT');
  });

  // Failing input: one report signed 5 s ahead, posted again 1.1 s
  // apart, counted as a new report each time and moved the loop each time (660 -> 6,000/min).
  it('a report sent again as the clock moves is acknowledged and neither stored nor acted on again', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const path = `/_wr/origin/events/${eventId}/health`;
    const signedAt = Math.floor(Date.now() / 1000) * 1000 + (MAX_FUTURE_SKEW_S - 1) * 1000;
    expect((await signedCall('POST', path, health(100), signedAt)).status).toBe(204);
    const first = (await env.WAITING_ROOM.getByName(eventId).stats())!.lastHealth!;
    expect(first).not.toHaveProperty('recent');
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await signedCall('POST', path, health(100), signedAt)).status).toBe(204);
      expect((await env.WAITING_ROOM.getByName(eventId).stats())!.lastHealth).toEqual(first);
    }
  });

  // The class: every origin API route takes the same window (past: the replay window; future: the skew).
  const routes = (eventId: string): [string, string, string][] => [
    ['POST', `/_wr/origin/events/${eventId}/health`, health()],
    ['GET', `/_wr/origin/events/${eventId}/holds`, ''],
    ['GET', `/_wr/origin/events/${eventId}/holds/h-none`, ''],
    ['POST', `/_wr/origin/events/${eventId}/holds/h-none/confirm`, JSON.stringify({ orderId: 'o1', amountMinor: 0 })],
    ['POST', `/_wr/origin/events/${eventId}/holds/h-none/release`, '{}'],
    ['POST', `/_wr/origin/events/${eventId}/holds/h-none/payment-pending`, '{}'],
  ];

  it.each<[string, number, 'accepted' | 'refused']>([
    ['signed the skew + 2 s ahead', (MAX_FUTURE_SKEW_S + 2) * 1000, 'refused'],
    ['signed 300 s ahead', 300_000, 'refused'],
    ['signed past the replay window', -(SIGNATURE_WINDOW_S + 2) * 1000, 'refused'],
    ['signed within the skew ahead', (MAX_FUTURE_SKEW_S - 2) * 1000, 'accepted'],
    ['signed 60 s ago', -60_000, 'accepted'],
  ])('every origin API route: %s is %s', async (_name, offsetMs, outcome) => {
    const eventId = freshEventId();
    await createEvent(eventId);
    for (const [method, path, body] of routes(eventId)) {
      const res = await signedCall(method, path, body, Date.now() + offsetMs);
      if (outcome === 'accepted') expect(res.status, `${method} ${path}`).not.toBe(401);
      else expect(res.status, `${method} ${path}`).toBe(401);
    }
  });
});
