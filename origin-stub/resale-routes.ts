// The stand-in site's side of returns and the waitlist (docs/how-to/returns-and-waitlist.md): the
// buyer's "return my tickets" on the confirmation page, and the page where a waitlisted buyer takes
// an offer (`resale.offerPath` = `/offers/events/{eventId}`). Both are outside the room: a paid
// checkout ends the buyer's admission, and the buyer on the sold-out page is not admitted. This
// site has no sign-in, so the order id (a random UUID, shown only to its buyer) and the offer's
// hold id (sent only to its account) stand for the buyer, as an emailed link would.
import type { Hono } from 'hono';
import type { ResaleClient } from '../origin-sdk/src/index';
import type { CheckoutEngine } from './checkout';
import type { SqlShopStore } from './shop-store';

type Env = { Bindings: OriginEnv; Variables: { account: string; eventId: string } };

/** What the resale routes act on. */
export interface ResaleParts {
  store: SqlShopStore;
  checkout: CheckoutEngine;
  /** The SDK's resale client of this event (signed calls over the GATEWAY binding, with retries). */
  resale: () => ResaleClient;
}

/** The test card the offer page pays with: the fake provider authorizes it at once. */
const OFFER_CARD = '4242 4242 4242 4242';
const KEY = /^[\x21-\x7e]{1,128}$/;
const SEAT = /^[A-Z0-9-]{1,24}$/;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The offer page: one form that takes the offer and pays it, then what came of it. */
function offerPage(eventId: string, holdId: string, result: string): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Your offer</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 34rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45">
<main>
<h1>Your offer</h1>
${
  result
    ? `<p role="status" data-testid="offer-result">${result}</p>`
    : `<p>Returned seats are held for you. Take them and pay with the demo card.</p>
<form method="post" action="/offers/events/${e(eventId)}"><input type="hidden" name="hold" value="${e(holdId)}">
<button type="submit" data-testid="take-offer" style="font: inherit; padding: .5rem 1rem">Take the offer and pay</button></form>`
}
</main></body></html>`;
}

/**
 * Registers `POST /orders/events/{eventId}/{orderId}/return` (an order of this event; body
 * `{ seatIds?, idempotencyKey }`, one key per intended return, so a retried click is not a second
 * return) and the offer page `GET|POST /offers/events/{eventId}?hold=`. A return answers
 * `{ return }` (its seats, face values, `refund` policy, each seat's `refunded`), or the gateway's
 * refusal `{ code, detail }` with its status (RETURN_DEADLINE_PASSED, ORDER_ALREADY_RETURNED,
 * PAYMENT_NOT_SETTLED...), or 503 `NO_ANSWER` when the gateway could not be reached (the same
 * key may be sent again). Taking an offer reads the offer's account from the gateway (the link is
 * the buyer's, as an emailed one would be), accepts it and pays it through the ordinary checkout.
 */
export function resaleRoutes(app: Hono<Env>, s: ResaleParts): void {
  app.post('/orders/events/:eventId/:orderId/return', async (c) => {
    const order = s.store.order(c.req.param('orderId'));
    if (!order) return c.json({ code: 'NOT_FOUND', detail: 'no such order' }, 404);
    const body = (await c.req.json().catch(() => null)) as { seatIds?: unknown; idempotencyKey?: unknown } | null;
    const seatIds = body?.seatIds;
    const seatsOk =
      seatIds === undefined ||
      (Array.isArray(seatIds) && seatIds.length >= 1 && seatIds.length <= 6 && seatIds.every((x) => typeof x === 'string' && SEAT.test(x)));
    if (!seatsOk || typeof body?.idempotencyKey !== 'string' || !KEY.test(body.idempotencyKey))
      return c.json({ code: 'INVALID_REQUEST', detail: 'seatIds: 1-6 seat ids or absent; idempotencyKey: 1-128 visible characters' }, 400);
    const r = await s
      .resale()
      .returnSeats(order.holdId, { idempotencyKey: body.idempotencyKey, ...(seatIds ? { seatIds: seatIds as string[] } : {}) });
    if (r.kind === 'ok') return c.json({ return: r.value });
    if (r.kind === 'refused') return c.json({ code: r.code, detail: r.detail }, r.status as 400 | 403 | 404 | 409 | 422);
    return c.json({ code: 'NO_ANSWER', detail: 'the gateway did not answer: try again' }, 503);
  });

  app.get('/offers/events/:eventId', (c) => {
    const hold = c.req.query('hold') ?? '';
    if (!KEY.test(hold)) return c.json({ code: 'INVALID_REQUEST', detail: 'hold: the offer’s hold id' }, 400);
    return c.html(offerPage(c.req.param('eventId'), hold, ''));
  });
  app.post('/offers/events/:eventId', async (c) => {
    const eventId = c.req.param('eventId');
    const hold = String((await c.req.parseBody())['hold'] ?? '');
    if (!KEY.test(hold)) return c.json({ code: 'INVALID_REQUEST', detail: 'hold: the offer’s hold id' }, 400);
    const read = await s.resale().getHold(hold);
    if (read.kind !== 'ok') return c.html(offerPage(eventId, hold, 'This offer does not exist.'), 404);
    const account = read.hold.account ?? '';
    const taken = await s.resale().acceptOffer(hold, account);
    if (taken.kind !== 'ok') {
      const why =
        taken.kind === 'refused' && taken.code === 'OFFER_LAPSED'
          ? 'This offer lapsed: the seats went to the next person.'
          : 'The offer could not be taken now.';
      return c.html(offerPage(eventId, hold, why), taken.kind === 'refused' ? 409 : 503);
    }
    const order = await s.checkout.checkout(account, hold, OFFER_CARD);
    const view = s.checkout.view(order.orderId)!;
    const seats = escapeHtml(view.seatIds.join(', '));
    return c.html(
      offerPage(
        eventId,
        hold,
        view.status === 'PAID' ? `Paid: order ${escapeHtml(view.orderId)}, seats ${seats}.` : escapeHtml(view.message),
      ),
    );
  });
}
