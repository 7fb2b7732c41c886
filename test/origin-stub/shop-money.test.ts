// The Shop through the gateway (workerd): the price and currency shown are the money charged,
// whatever changes between the hold and the payment.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../origin-stub/money';
import { signOriginRequest } from '../../contracts/hmac';
import { admittedVisitor, createEvent, freshEventId } from '../helpers/client';

const CARD = '4242 4242 4242 4242';

async function operator<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  Object.assign(headers, await signOriginRequest(env.ORIGIN_HMAC_SECRET, method, path, text, Date.now()));
  const res = await env.ORIGIN.fetch(`https://origin${path}`, { method, headers, body: method === 'GET' ? undefined : text });
  return { status: res.status, body: (await res.json()) as T };
}

interface OrdersView {
  orders: { orderId: string; amountMinor: number; currency: string; state: string }[];
  provider: { payments: { paymentId: string; state: string; currency: string; amountMinor: number }[] };
}

describe('money shown vs money charged', () => {
  it('a hold placed at EUR 50.00 is charged USD 50.00 after the event currency is changed (hold currency not fixed, confirm does not check it)', async () => {
    const eventId = freshEventId('rvcur');
    expect((await createEvent(eventId, { currency: 'EUR' })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    const held = await v.hold(eventId, ['A1']);
    expect(held.body).toMatchObject({ priceMinor: 5000, currency: 'EUR' }); // what the visitor agreed to
    expect((await createEvent(eventId, { currency: 'USD' })).status).toBe(200); // operator edits the event
    const r = await v.json<{ status: string; currency: string; amountMinor: number }>(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: CARD }),
    });
    const view = (await operator<OrdersView>('GET', `/admin/events/${eventId}/orders`)).body;
    expect({
      status: r.body.status,
      orderCurrency: r.body.currency,
      charged: view.provider.payments.map((p) => `${p.currency} ${p.amountMinor} ${p.state}`),
    }).toEqual({ status: 'PAID', orderCurrency: 'EUR', charged: ['EUR 5000 AUTHORIZED'] });
  });

  it('the sale page quotes EUR 50.00 a seat whatever the event charges (seatPriceMinor / currency of the event)', async () => {
    const eventId = freshEventId('rvprice');
    expect((await createEvent(eventId, { seatPriceMinor: 12_000, currency: 'USD' })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    const page = await (await v.fetch(`/events/${eventId}`, { headers: { accept: 'text/html' } })).text();
    const held = await v.hold(eventId, ['B1']);
    const r = await v.json<{ status: string; currency: string; amountMinor: number; message: string }>(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: CARD }),
    });
    expect(held.body).toMatchObject({ priceMinor: 12_000, currency: 'USD' }); // what the page shows once held
    expect(r.body).toMatchObject({ status: 'PAID', currency: 'USD', amountMinor: 12_000 });
    expect(r.body.message).toMatch(/^Paid USD 120\.00 for B1\./);
    // The stub cannot know the seat price before a hold (the seat map carries none), so the page
    // states no price of its own: no amount in the page as served, only the hold's, formatted in the browser.
    expect(page).toContain('Choose up to 6 seats');
    expect(page).not.toMatch(/\b[A-Z]{3} [0-9]+\.[0-9]{2}\b/);
    expect(page).toContain('formatMoney(hold.priceMinor, hold.currency)');
  });

  it('JPY (no minor unit): the PAID message states the amount divided by 100', async () => {
    const eventId = freshEventId('rvjpy');
    expect((await createEvent(eventId, { seatPriceMinor: 5000, currency: 'JPY' })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    const held = await v.hold(eventId, ['C1']);
    const r = await v.json<{ status: string; message: string }>(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: CARD }),
    });
    expect(r.body.status).toBe('PAID');
    expect(r.body.message).toMatch(/^Paid JPY 5000 /); // ISO 4217: JPY has 0 decimals; 5000 minor units = JPY 5000
  });

  it('a free event (seatPriceMinor 0) cannot be checked out and the visitor is told the hold expired', async () => {
    const eventId = freshEventId('rvfree');
    expect((await createEvent(eventId, { seatPriceMinor: 0 })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    const held = await v.hold(eventId, ['D1']);
    expect(held.status).toBe(201);
    const r = await v.json<{ status: string; message: string }>(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: CARD }),
    });
    expect(r.body.message).not.toMatch(/no longer active \(it expired or was released\)/);
    // Nothing to pay: the hold is confirmed with amount 0 and the tickets issued, with no provider call.
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'PAID', amountMinor: 0, payment: null, tickets: [expect.stringMatching(/-D1$/)] });
    expect(r.body.message).toMatch(/^Confirmed D1 \(free\)/);
    // The PAID answer ended the admission (revoke): the order, not the visitor's hold read, shows it sold.
    const view = (await operator<OrdersView>('GET', `/admin/events/${eventId}/orders`)).body;
    expect(view.orders.map((o) => o.state)).toEqual(['PAID']);
    expect(view.provider.payments).toEqual([]);
  });
});

describe("formatMoney: amounts with the currency's ISO 4217 minor unit (Intl in workerd)", () => {
  it('two decimals for EUR and USD, none for JPY and KRW, three for BHD; a code Intl refuses gets two', () => {
    expect(
      [
        [5000, 'EUR'],
        [12_000, 'USD'],
        [5000, 'JPY'],
        [1_234_567, 'KRW'],
        [1500, 'BHD'],
        [5, 'EUR'],
        [0, 'USD'],
        [1234, 'not a code'],
      ].map(([a, c]) => formatMoney(a as number, c as string)),
    ).toEqual(['EUR 50.00', 'USD 120.00', 'JPY 5000', 'KRW 1234567', 'BHD 1.500', 'EUR 0.05', 'USD 0.00', 'not a code 12.34']);
  });
});
