// The queueing methods at the gateway: under `reject` every visitor without an admission gets the
// maintenance page (503, Retry-After until the window ends, no cookie, no place); under
// `passthrough` a newcomer goes straight to the origin with an admission while nobody waits.
import { describe, expect, it } from 'vitest';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { organizer } from '../helpers/channels';
import { Visitor, createEvent, freshEventId } from '../helpers/client';

const iso = (ms: number) => new Date(ms).toISOString();

describe('reject: a maintenance window', () => {
  it('answers browsers with the maintenance page and apps with 503 ROOM_MAINTENANCE, both with Retry-After, and hands out no place', async () => {
    const eventId = freshEventId('maint');
    expect((await createEvent(eventId)).status).toBe(201);
    const endsAt = Date.now() + 3_600_000;
    const put = await organizer('PUT', `/events/${eventId}/schedule/upgrade`, {
      reason: 'payment provider upgrade',
      endsAt: iso(endsAt),
      method: 'reject',
      page: { message: 'Back within the hour' },
    });
    expect(put.status).toBe(201);
    await forgetCursor(eventId);

    const browser = new Visitor();
    const page = await browser.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(503);
    const retry = Number(page.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(3_500);
    expect(retry).toBeLessThanOrEqual(3_600);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const body = await page.text();
    expect(body).toContain('Down for maintenance');
    expect(body).toContain('Back within the hour');
    expect(page.headers.getSetCookie()).toEqual([]);

    const app = new Visitor();
    const join = await app.json<{ code: string; message: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect([join.status, join.body.code, join.body.message]).toEqual([503, 'ROOM_MAINTENANCE', 'Back within the hour']);
    expect(Number(join.res.headers.get('retry-after'))).toBeGreaterThan(3_500);
    expect(join.res.headers.getSetCookie()).toEqual([]);
    expect((await organizer<{ queue: { waiting: number } }>('GET', `/events/${eventId}`)).body.queue.waiting).toBe(0);

    // Cancelled early: the room queues again at once.
    expect((await organizer('DELETE', `/events/${eventId}/schedule/upgrade`)).status).toBe(200);
    await forgetCursor(eventId);
    expect((await app.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
  });
});

describe('passthrough', () => {
  it('sends a newcomer straight to the origin with an admission cookie, counted as admitted', async () => {
    const eventId = freshEventId('pass');
    expect((await createEvent(eventId, { method: 'passthrough' })).status).toBe(201);
    const v = new Visitor();
    const res = await v.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`__Host-wr_a_${eventId}=`))).toBe(true);
    const stats = await organizer<{ queue: { admittedTotal: number; active: number } }>('GET', `/events/${eventId}`);
    expect([stats.body.queue.admittedTotal, stats.body.queue.active]).toEqual([1, 1]);
    // The next page of the same visitor goes through on the admission, with no new one.
    expect((await v.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect((await organizer<{ queue: { admittedTotal: number } }>('GET', `/events/${eventId}`)).body.queue.admittedTotal).toBe(1);
  });

  it('is refused on a lottery event with the schema’s message', async () => {
    const res = await createEvent(freshEventId('pass'), {
      method: 'passthrough',
      policy: 'random',
      saleStartsAt: iso(Date.now() + 3_600_000),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('passthrough lets newcomers straight in');
  });
});
