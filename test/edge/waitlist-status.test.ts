// The waitlist on a sold-out visitor's status and waiting page: the join form (a plain form post,
// same-origin only, answered with a 303 back to the page), the place, an offer with its seats,
// price, fee, deadline and the origin's page to take it, and the offer's lapse, counted by the
// report and the dashboard's event read.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { WaitlistStatus } from '../../src/lib/waitlist-status';
import { Visitor } from '../helpers/client';
import { RETURN_DEADLINE, soldOutEvent } from '../helpers/resale-events';
import { BASE, signedCall } from '../helpers/gateway';
import { organizer } from '../helpers/channels';

const RESALE = { returnDeadline: RETURN_DEADLINE, offerSeconds: 60, feeMinor: 250, offerPath: '/offers' };
const soldOut = (resale: Record<string, unknown> | null = RESALE) => soldOutEvent(resale, 'wl');

/** The visitor's status once the room knows the event sold out (the edge keeps the cursor a moment). */
async function soldOutStatus(visitor: Visitor, eventId: string) {
  for (let i = 0; i < 50; i++) {
    const s = await visitor.json<{ state: string; waitlist?: WaitlistStatus | null }>(`/_wr/events/${eventId}/status`);
    if (s.body.state === 'sold_out') return s.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the room never said sold out');
}

const form = (visitor: Visitor, eventId: string, body: string, headers: Record<string, string> = {}) =>
  visitor.fetch(`/_wr/events/${eventId}/waitlist`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: BASE,
      referer: `${BASE}/events/${eventId}/?lang=fr`,
      ...headers,
    },
    body,
  });

describe('the waitlist on the status and the waiting page', () => {
  it('join by form, the place, an offer with its price and deadline, its lapse', async () => {
    const { eventId, inv, ann } = await soldOut();
    const visitor = new Visitor();
    expect((await visitor.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
    expect((await soldOutStatus(visitor, eventId)).waitlist).toEqual({ open: true, state: null, place: null, quantity: null, offer: null });
    const page = await (await visitor.fetch(`/events/${eventId}/`)).text();
    expect(page.match(/<form id="wlForm"[^>]*>/)?.[0]).toBe(
      `<form id="wlForm" data-testid="wlForm" method="post" action="/_wr/events/${eventId}/waitlist">`,
    );

    // Refusals change nothing: a cross-site form, a quantity out of range.
    expect((await form(visitor, eventId, 'quantity=2', { origin: 'https://evil.example' })).status).toBe(403);
    const bad = await form(visitor, eventId, 'quantity=9');
    expect({ status: bad.status, code: ((await bad.json()) as { code: string }).code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect((await soldOutStatus(visitor, eventId)).waitlist).toMatchObject({ state: null });

    const joined = await form(visitor, eventId, 'quantity=2');
    expect({ status: joined.status, location: joined.headers.get('location') }).toEqual({
      status: 303,
      location: `/events/${eventId}/?lang=fr`,
    });
    // Joining again answers the same entry; a page from another host is never the way back.
    const replay = await form(visitor, eventId, 'quantity=2', { referer: 'https://elsewhere.example/events/x/' });
    expect({ status: replay.status, location: replay.headers.get('location') }).toEqual({ status: 303, location: '/' });
    expect(
      await signedCall('POST', `/_wr/origin/events/${eventId}/waitlist`, JSON.stringify({ account: 'cid', quantity: 2 })),
    ).toMatchObject({
      status: 200,
    });
    expect((await soldOutStatus(visitor, eventId)).waitlist).toEqual({ open: true, state: 'WAITING', place: 1, quantity: 2, offer: null });

    // Ann returns both seats: they are offered to the visitor, first in line, at face value plus the fee.
    const ret = await signedCall('POST', `/_wr/origin/events/${eventId}/holds/${ann}/return`, JSON.stringify({ idempotencyKey: 'r1' }));
    expect(ret.status).toBe(200);
    const offered = (await soldOutStatus(visitor, eventId)).waitlist!;
    expect(offered).toMatchObject({
      state: 'OFFERED',
      place: null,
      offer: { seatIds: ['A1', 'A2'], priceMinor: 10_500, feeMinor: 500, currency: 'EUR' },
    });
    expect(offered.offer!.takeUrl).toBe(`/offers?hold=${offered.offer!.holdId}`);
    expect(Date.parse(offered.offer!.expiresAt) - Date.now()).toBeGreaterThan(50_000);
    const html = await (await visitor.fetch(`/events/${eventId}/`)).text();
    expect(html).toContain(`href="/offers?hold=${offered.offer!.holdId}"`);

    // Not taken in time: the offer lapses, the seats go to cid, next in line; the visitor may join again.
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => Date.now() + 61_000));
    await runDurableObjectAlarm(inv);
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => Date.now()));
    expect((await soldOutStatus(visitor, eventId)).waitlist).toEqual({
      open: true,
      state: 'LAPSED',
      place: null,
      quantity: 2,
      offer: null,
    });
    const again = await (await visitor.fetch(`/events/${eventId}/`)).text();
    expect(again).toContain('data-testid="wlInfo">Your offer lapsed');
    expect(again.match(/<form id="wlForm"[^>]*>/)?.[0]).not.toContain('hidden');

    // The report and the dashboard's event read count the return, the offers made and the lapse.
    const counts = { returns: 1, returnedSeats: 2, offersMade: 2, offersTaken: 0, offersLapsed: 1, resoldSeats: 0 };
    expect((await organizer<{ resale: unknown }>('GET', `/events/${eventId}/report`)).body.resale).toMatchObject(counts);
    expect((await organizer<{ inventory: { resale: unknown } }>('GET', `/events/${eventId}`)).body.inventory.resale).toMatchObject(counts);
  });

  it('an event without resale has no waitlist on its status, and a forged entry cookie shows nothing', async () => {
    const { eventId } = await soldOut(null);
    const visitor = new Visitor();
    await visitor.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await soldOutStatus(visitor, eventId)).waitlist).toBeNull();

    const other = await soldOut();
    const v2 = new Visitor();
    await v2.json(`/_wr/events/${other.eventId}/join`, { method: 'POST' });
    await signedCall('POST', `/_wr/origin/events/${other.eventId}/waitlist`, JSON.stringify({ account: 'cid', quantity: 1 }));
    v2.cookies.set(`__Host-wr_w_${other.eventId}`, '1');
    expect((await soldOutStatus(v2, other.eventId)).waitlist).toEqual({
      open: true,
      state: null,
      place: null,
      quantity: null,
      offer: null,
    });
  });
});
