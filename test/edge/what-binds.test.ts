// GET /_wr/admin/events/{id} says what limits admissions now (issue #13): the organizer's pause and
// fixed rate, a silent origin, the controller's active limit, with the numbers behind it.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { BASE, Visitor, createEvent, freshEventId, tick } from '../helpers/client';

async function admin(method: string, path: string, body?: unknown) {
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return (await res.json()) as { queue: { binding: Record<string, unknown>; rateLog: { reason: string }[] } };
}

async function report(eventId: string, p99LatencyMs: number) {
  const path = `/_wr/origin/events/${eventId}/health`;
  const body = JSON.stringify({ p99LatencyMs, errorRate: 0, activeBuyers: 1 });
  const headers = {
    'content-type': 'application/json',
    ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, body, Date.now())),
  };
  return exports.default.fetch(new Request(BASE + path, { method: 'POST', headers, body }));
}

describe('what binds admissions', () => {
  it('names a silent origin, the pause and a fixed rate with the numbers behind each, and logs the limit slow start begins from', async () => {
    const eventId = freshEventId('binds');
    await createEvent(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 60, maxActiveVisitors: 500 });
    for (let i = 0; i < 3; i++) await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const silent = (await admin('GET', `/events/${eventId}`)).queue.binding;
    expect(silent).toMatchObject({
      binds: 'origin_silent',
      detail: 'no health report yet: the rate is held at 60/min',
      releaseRatePerMinute: 60,
      activeLimit: 500,
      maxActiveVisitors: 500,
      unclaimed: 0,
      paused: false,
      originSilent: 'no health report yet',
    });

    await admin('POST', `/events/${eventId}/pause`);
    expect((await admin('GET', `/events/${eventId}`)).queue.binding).toMatchObject({ binds: 'paused', paused: true });
    await admin('POST', `/events/${eventId}/resume`);

    // The first report starts slow start at INITIAL_LIMIT: the controller's limit is logged, with the drop.
    expect((await report(eventId, 100)).status).toBe(204);
    await tick(eventId);
    const after = (await admin('GET', `/events/${eventId}`)).queue;
    expect(after.rateLog[0]!.reason).toMatch(/^first health report, slow start from 10 active; .*active limit 500 -> 10$/);
    expect(after.binding).toMatchObject({ activeLimit: 10, originSilent: null, unclaimed: 3 });

    await admin('POST', `/events/${eventId}/rate`, { fixedPerMinute: 30 });
    for (let i = 0; i < 3; i++) await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await admin('GET', `/events/${eventId}`)).queue.binding).toMatchObject({ binds: 'fixed_rate' });
  });
});
