// GET /_wr/admin/events/{id} says what limits admissions now: the organizer's pause and
// fixed rate, a silent origin, the controller's active limit, with the numbers behind it.
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';

async function admin(method: string, path: string, body?: unknown) {
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return (await res.json()) as { queue: { waiting: number; binding: Record<string, unknown>; rateLog: { reason: string }[] } };
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

  // Failing input (npm start, the demo): 10 of 10 active and nobody in line yet, the
  // dashboard said "Nobody waiting: nobody is waiting: arrivals are let in at the release rate",
  // and the 11th visitor then waited minutes behind the full limit. The counts did not lag (the
  // waiting count is fresh from the shards): queue_empty was answered before the slots were checked.
  it('a room with limit 1 and 1 active binds active_limit, with nobody waiting and with 1 waiting', async () => {
    const eventId = freshEventId('full');
    await createEvent(eventId, { maxActiveVisitors: 20 });
    await admittedVisitor(eventId);
    // The controller's limit at 1 (as a cut would leave it), below the organizer's 20.
    await runInDurableObject(env.WAITING_ROOM.getByName(eventId), (_room, state) => {
      state.storage.sql.exec('UPDATE wr_room SET active_limit = 1');
    });
    const empty = (await admin('GET', `/events/${eventId}`)).queue;
    expect(empty.waiting).toBe(0);
    expect(empty.binding).toMatchObject({
      binds: 'active_limit',
      detail:
        "the controller's active limit (1) is full: 1 active + 0 expected of 0 unclaimed; nobody waits now, the next arrival waits for a slot",
    });
    const second = await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(second.body).toMatchObject({ state: 'waiting' });
    const one = (await admin('GET', `/events/${eventId}`)).queue;
    expect(one.waiting).toBe(1);
    expect(one.binding).toMatchObject({
      binds: 'active_limit',
      detail: "the controller's active limit (1) is full: 1 active + 0 expected of 0 unclaimed",
    });
  });
});
