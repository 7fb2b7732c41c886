// Organizer side of the release loop: fixed rate, event list, dashboard shell, gateway signals, no-shows.
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';

const admin = async (path: string, init: RequestInit = {}) => {
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin${path}`, {
      ...init,
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('organizer controls', () => {
  it('fixes the release rate, logs why, and hands control back', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { releaseRatePerMinute: 600, minReleaseRatePerMinute: 60 });
    await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":42}' })).status).toBe(200);
    await tick(eventId);
    const fixed = (await admin(`/events/${eventId}`)).body as {
      queue: { releaseRatePerMinute: number; fixedRatePerMinute: number; rateLog: { reason: string }[] };
    };
    expect(fixed.queue).toMatchObject({ releaseRatePerMinute: 42, fixedRatePerMinute: 42 });
    expect(fixed.queue.rateLog[0]!.reason).toContain('fixed by the organizer at 42/min');
    await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":null}' });
    await tick(eventId);
    const auto = (await admin(`/events/${eventId}`)).body as { queue: { fixedRatePerMinute: null; rateLog: { reason: string }[] } };
    expect(auto.queue.fixedRatePerMinute).toBeNull();
    expect(auto.queue.rateLog.map((e) => e.reason).join('\n')).toContain('organizer returned control to the controller');
    expect((await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":-1}' })).status).toBe(400);
  });

  it('applies a fixed rate and new bounds at once, even on an idle event, and refuses a fixed rate above the maximum', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { releaseRatePerMinute: 100, minReleaseRatePerMinute: 10 });
    await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":50}' });
    const stats = (await admin(`/events/${eventId}`)).body as { queue: { releaseRatePerMinute: number; rateLog: { reason: string }[] } };
    expect(stats.queue.releaseRatePerMinute).toBe(50);
    expect(stats.queue.rateLog[0]!.reason).toBe('fixed by the organizer at 50/min');
    expect((await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":500}' })).status).toBe(400);
    // Regression: lowering the maximum left a higher fixed rate in force.
    await createEvent(eventId, { releaseRatePerMinute: 40, minReleaseRatePerMinute: 10 });
    const lowered = (await admin(`/events/${eventId}`)).body as { queue: { releaseRatePerMinute: number; fixedRatePerMinute: number } };
    expect(lowered.queue).toMatchObject({ releaseRatePerMinute: 40, fixedRatePerMinute: 40 });
    await admin(`/events/${eventId}/rate`, { method: 'POST', body: '{"fixedPerMinute":null}' });
    await createEvent(eventId, { releaseRatePerMinute: 100, minReleaseRatePerMinute: 60 });
    const raised = (await admin(`/events/${eventId}`)).body as { queue: { releaseRatePerMinute: number; rateLog: { reason: string }[] } };
    expect(raised.queue.releaseRatePerMinute).toBe(60);
    expect(raised.queue.rateLog[0]!.reason).toBe('organizer bounds changed: 60-100/min');
  });

  it('lists configured events for the dashboard, and serves the dashboard shell without data', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Listed concert' });
    const list = (await admin('/events')).body as { events: { eventId: string; name: string }[] };
    expect(list.events).toContainEqual(expect.objectContaining({ eventId, name: 'Listed concert' }));
    const page = await exports.default.fetch(new Request(`${BASE}/_wr/admin/`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Regression: the page that holds the admin token allowed any inline script; only its own scripts run.
    expect(page.headers.get('content-security-policy')).toMatch(/script-src( 'sha256-[A-Za-z0-9+/]+=*')+;/);
    const html = await page.text();
    expect(html).toContain('Admin token');
    expect(html).not.toContain('Listed concert');
    expect((await exports.default.fetch(new Request(`${BASE}/_wr/admin/events`))).status).toBe(401);
  });
});

describe('gateway signals', () => {
  it('feeds seat-hold conflicts and latency to the waiting room', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const room = env.WAITING_ROOM.getByName(eventId);
    await room.recordHoldSignals({ holds: 10, conflicts: 9, p99Ms: 120 });
    await room.recordHoldSignals({ holds: 10, conflicts: 1, p99Ms: 480 });
    expect((await room.stats())!.gateway).toMatchObject({ holdP99Ms: 480, conflictRate: 0.5 });
  });

  it('counts released visitors who never claim their admission as no-shows', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const visitors = Array.from({ length: 12 }, () => new Visitor());
    for (const v of visitors) await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    // Three come back and are admitted; nine never poll again.
    for (const v of visitors.slice(0, 3)) expect((await v.json(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');
    const room = env.WAITING_ROOM.getByName(eventId);
    await runInDurableObject(room, (obj: WaitingRoom) => {
      const later = Date.now() + 2 * 60_000;
      obj.clock = () => later;
    });
    expect((await room.stats())!).toMatchObject({ admittedTotal: 12, active: 3 });
    expect((await room.stats())!.gateway.noShowRate).toBeCloseTo(9 / 12, 5);
  });
});

describe('sold out and closed', () => {
  it('tells waiting visitors at once when the last seat sells, stops releases, and reopens when a seat comes back', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { seats: 2, seatsPerRow: 2 });
    const buyer = await admittedVisitor(eventId);
    const waiting = new Visitor();
    await admin(`/events/${eventId}/pause`, { method: 'POST' });
    await waiting.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const held = await buyer.hold(eventId, ['A1', 'A2']);
    const origin = env.INVENTORY.getByName(eventId);
    // Held seats may still come back: not sold out yet.
    expect((await waiting.json(`/_wr/events/${eventId}/status`)).body.state).toBe('paused');
    await origin.startPayment(held.body.holdId as string, null);
    await expect.poll(async () => (await waiting.json(`/_wr/events/${eventId}/status`)).body.state).toBe('sold_out');
    await origin.release(held.body.holdId as string, null, true);
    await expect.poll(async () => (await waiting.json(`/_wr/events/${eventId}/status`)).body.state).toBe('paused');
  });

  it('closes a sale: waiting visitors see closed', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await admin(`/events/${eventId}/close`, { method: 'POST' })).body).toMatchObject({ mode: 'closed' });
    // A newcomer to a closed sale gets no place and no ticket (it used to get both).
    const late = await new Visitor().json<{ state: string; position: number | null; queueTicket?: string }>(`/_wr/events/${eventId}/join`, {
      method: 'POST',
    });
    expect(late.body).toMatchObject({ state: 'closed', position: null });
    expect(late.body.queueTicket).toBeUndefined();
    await tick(eventId);
    expect((await v.json(`/_wr/events/${eventId}/status`)).body.state).toBe('closed');
  });
});
