// A small ticketing site behind the waiting room gateway, on Hono and Node: a home page and static
// assets (no room covers them: the gateway passes them through), an event page and a checkout
// (inside the event's room: admitted visitors only), all measured for the gateway's health reports.
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
// In your own project: `from '@waiting-room/origin-sdk'` and `'@waiting-room/origin-sdk/hono'`.
import { HealthReporter, ORIGIN_PULL_HEADER, ResaleClient, fromGateway, revokeSession, type Hold } from '../origin-sdk/src/index.ts';
import { admissionMiddleware, healthMiddleware, type AdmissionVariables } from '../origin-sdk/src/hono.ts';

/** Settings of the example origin (from the environment in server.ts). */
export interface ExampleOriginConfig {
  /** The gateway's public base URL: JWKS, origin API (e.g. `http://127.0.0.1:8787`). */
  gatewayUrl: string;
  /** The gateway's ORIGIN_HMAC_SECRET. */
  secret: string;
  /** The event whose pages this origin serves under `/events/{eventId}/`. */
  eventId: string;
  /** The gateway's TOKEN_ISSUER (default `waiting-room-gateway`). */
  issuer?: string;
  /** Health report interval, ms (default 2,000). */
  reportIntervalMs?: number;
  /** Extra service time of every event page and checkout, ms (a slow origin, to watch the rate fall; default 0). */
  slowMs?: number;
  /**
   * Refuse (403) every request without the gateway's origin-pull key (`X-WR-Origin-Pull`, origin
   * SDK `fromGateway`): on when the site is reachable other than through the gateway. Default off,
   * so the benches can time the origin directly.
   */
  requireGateway?: boolean;
}

const CSS = readFileSync(new URL('./static/site.css', import.meta.url), 'utf8');
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${esc(title)}</title><link rel="stylesheet" href="/static/site.css"></head><body><main>${body}</main></body></html>`;

/** A time as people read it: `14:05 UTC (in 10 min)`, inside a <time> carrying the exact instant. */
function readableTime(atMs: number, nowMs: number): string {
  const clock = new Date(atMs).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
  const min = Math.max(0, Math.round((atMs - nowMs) / 60_000));
  return `<time datetime="${new Date(atMs).toISOString()}">${clock} UTC (in ${min} min)</time>`;
}

/** What a buyer reads for a gateway code the checkout can meet (never the raw code). */
const CHECKOUT_WORDS: Record<string, string> = {
  HOLD_ALREADY_CONFIRMED: 'These seats were already paid for in another order. You were not charged again.',
  HOLD_NOT_ACTIVE: 'Your hold ran out before the payment: hold the seat again.',
  HOLD_EXPIRED: 'Your hold ran out before the payment: hold the seat again.',
  PRICE_MISMATCH: 'The price changed; nothing was charged. Hold the seat again.',
  ORDER_ALREADY_USED: 'This order was already used for other seats; nothing was charged.',
};

/** The site's Hono app and its health reporter (call `health.start()` to report, `health.stop()` to end). */
export function exampleOrigin(cfg: ExampleOriginConfig): { app: Hono<{ Variables: AdmissionVariables }>; health: HealthReporter } {
  const health = new HealthReporter({
    gatewayUrl: cfg.gatewayUrl,
    eventId: cfg.eventId,
    secret: cfg.secret,
    ...(cfg.reportIntervalMs ? { intervalMs: cfg.reportIntervalMs } : {}),
  });
  // The hold calls and, for returns, the resale calls (ResaleClient extends the hold client).
  const gateway = new ResaleClient({ gatewayUrl: cfg.gatewayUrl, eventId: cfg.eventId, secret: cfg.secret });
  const slow = async () => {
    if (cfg.slowMs) await new Promise((r) => setTimeout(r, cfg.slowMs));
  };
  const app = new Hono<{ Variables: AdmissionVariables }>();
  // Requests that skipped the gateway (a bot that found the origin's address) get nothing.
  if (cfg.requireGateway) {
    app.use('*', async (c, next) => {
      if (await fromGateway(c.req.header(ORIGIN_PULL_HEADER), [cfg.secret])) return next();
      return c.text('Please use the ticket site through its public address.', 403);
    });
  }
  // Every request counts towards the origin's latency percentiles and error rate.
  app.use('*', healthMiddleware(health));

  app.get('/', (c) =>
    c.html(
      page(
        'Example Tickets',
        `<h1>Example Tickets</h1><p>Our home page: the gateway passes it through, with no cookie of its own.</p>` +
          `<p><a id="event" href="/events/${cfg.eventId}/">Tickets for ${esc(cfg.eventId)}</a></p>`,
      ),
    ),
  );
  app.get('/static/site.css', (c) =>
    c.body(CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' }),
  );

  // The event's room: only visitors the gateway admitted (the token it forwards, checked against its JWKS).
  const room = `/events/${cfg.eventId}`;
  app.use(`${room}/*`, admissionMiddleware({ eventId: cfg.eventId, gatewayUrl: cfg.gatewayUrl, issuer: cfg.issuer, reporter: health }));
  app.get(`${room}/`, async (c) => {
    await slow();
    const who = c.var.admission.visitorId;
    return c.html(
      page(
        `Tickets: ${cfg.eventId}`,
        `<h1>Choose your seat</h1><p id="who" data-visitor="${esc(who)}">You are in. Your session ends at ` +
          `${readableTime(c.var.admission.expiresAtMs, Date.now())}.</p>` +
          `<button id="hold" data-seat="A1">Hold seat A1</button> <button id="buy" disabled>Buy</button>` +
          ` <span id="left"></span> <button id="more" hidden>More time</button>` +
          `<p id="warning" aria-live="assertive"></p>` +
          `<p id="message" data-status=""></p>` +
          `<button id="return" hidden>Return my tickets</button> <span id="returned" role="status"></span>` +
          `<script type="module">${EVENT_SCRIPT.replaceAll('__EVENT__', cfg.eventId)}</script>`,
      ),
      200,
      { 'cache-control': 'private, no-store' },
    );
  });
  // Checkout with the SDK's hold client: read the hold, payment pending, (your payment provider
  // here, with the order id as its idempotency key), confirm with the order id and the price.
  // One order per hold (docs/reference/origin-contract.md): the order id is derived from the hold id, so a
  // double-clicked Buy or a retried request is the same order, authorized once, with one answer.
  app.post(`${room}/checkout`, async (c) => {
    await slow();
    const body = (await c.req.json().catch(() => null)) as { holdId?: unknown } | null;
    if (typeof body?.holdId !== 'string' || !body.holdId || body.holdId.length > 128)
      return c.json({ status: 'FAILED', message: 'holdId is required' }, 400);
    const account = c.var.admission.visitorId;
    const orderId = await orderIdOf(body.holdId);
    const read = await gateway.getHold(body.holdId);
    if (read.kind === 'no_answer') return c.json({ status: 'FAILED', message: 'The ticket system did not answer. Try again.' }, 503);
    const { hold } = read.kind === 'ok' && read.hold.account === account ? read : { hold: null };
    const open = hold?.status === 'HELD' || hold?.status === 'PAYMENT_PENDING';
    if (!hold || (!open && !(hold.status === 'SOLD' && hold.orderId === orderId)))
      return c.json({ status: 'FAILED', message: 'This hold is not active for you.' }, 409);
    if (open) {
      const pending = await gateway.paymentPending(body.holdId, { account });
      if (pending.kind === 'no_answer') return c.json({ status: 'FAILED', message: 'The ticket system did not answer. Try again.' }, 503);
      // A double click: between our read and this call, another checkout of the same hold (the
      // same order) may have moved it on and sold it. Ask again: sold to our order is our sale.
      if (pending.kind === 'refused' && !(await soldTo(body.holdId, orderId)))
        return c.json({ status: 'FAILED', message: 'The hold could not be moved to payment.' }, 409);
    }
    // A real site authorizes the card here (docs/reference/origin-contract.md); this example takes it as paid.
    // Confirming again with the same order id and amount answers the same SOLD hold.
    const sold = await gateway.confirm(body.holdId, { orderId, amountMinor: hold.priceMinor, account });
    if (sold.kind === 'no_answer')
      return c.json({ status: 'PROCESSING', orderId, message: 'Confirming your seats; do not pay again.' }, 202);
    if (sold.kind === 'refused')
      return c.json(
        {
          status: 'FAILED',
          orderId,
          code: sold.code,
          message: CHECKOUT_WORDS[sold.code] ?? 'The seats could not be confirmed. You were not charged.',
        },
        409,
      );
    // Done: free this visitor's slot for the next one in line (X-WR-Command: revoke).
    revokeSession(c.res.headers);
    return c.json({
      status: 'PAID',
      orderId,
      message: `Paid for ${label(sold.hold)}. Order ${orderId.slice(4, 12)}.`,
      tickets: sold.hold.seatIds,
    });
  });
  // "Return my tickets" (docs/how-to/returns-and-waitlist.md): the buyer's own sold hold, returned
  // through the SDK with the page's key for this return (a retried click is the same return).
  app.post(`${room}/return`, async (c) => {
    const body = (await c.req.json().catch(() => null)) as { holdId?: unknown; idempotencyKey?: unknown } | null;
    if (typeof body?.holdId !== 'string' || !body.holdId || body.holdId.length > 128 || typeof body.idempotencyKey !== 'string')
      return c.json({ code: 'INVALID_REQUEST', message: 'holdId and idempotencyKey are required' }, 400);
    const read = await gateway.getHold(body.holdId);
    if (read.kind === 'no_answer') return c.json({ code: 'NO_ANSWER', message: 'The ticket system did not answer. Try again.' }, 503);
    if (read.kind !== 'ok' || read.hold.account !== c.var.admission.visitorId)
      return c.json({ code: 'NOT_FOUND', message: 'This is not an order of yours.' }, 404);
    const r = await gateway.returnSeats(body.holdId, { idempotencyKey: body.idempotencyKey });
    if (r.kind === 'no_answer') return c.json({ code: 'NO_ANSWER', message: 'The ticket system did not answer. Try again.' }, 503);
    if (r.kind === 'refused') return c.json({ code: r.code, message: RETURN_WORDS[r.code] ?? 'The return was refused.' }, 409);
    const seats = r.value.seats.map((x) => x.seatId).join(', ');
    const when = r.value.refund === 'at_once' ? 'You are refunded now.' : 'You are refunded when they are resold.';
    return c.json({ code: 'RETURNED', message: `Returned ${seats}. ${when}`, return: r.value });
  });
  /** True when the hold is SOLD to `orderId` now (read again from the gateway). */
  async function soldTo(holdId: string, orderId: string): Promise<boolean> {
    const again = await gateway.getHold(holdId);
    return again.kind === 'ok' && again.hold.status === 'SOLD' && again.hold.orderId === orderId;
  }
  return { app, health };
}

/** What a buyer reads for each refusal of a return. */
const RETURN_WORDS: Record<string, string> = {
  RETURN_DEADLINE_PASSED: 'Returns for this event have closed.',
  ORDER_ALREADY_RETURNED: 'These tickets were already returned.',
  PAYMENT_NOT_SETTLED: 'Your payment is not settled yet: try again in a moment.',
  RESALE_OFF: 'This event does not take returns.',
};

/** The order of a hold: `ord-` and the first 32 hex digits of the hold id's SHA-256 (one order per hold, within the 128 characters an order id may have). */
async function orderIdOf(holdId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(holdId)));
  return 'ord-' + Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
}

function label(h: Hold): string {
  return h.seatIds.length > 0 ? h.seatIds.join(', ') : `${h.quantity} x ${h.tier ?? 'ticket'}`;
}

/**
 * The event page's script: a hold through the gateway's visitor API with its countdown, a warning
 * (in an assertive live region) 20-60 s before it ends and "More time" where the event allows
 * extensions, then the origin's checkout, during which no countdown runs.
 */
const EVENT_SCRIPT = `
const msg = document.getElementById('message');
const words = {
  SEATS_UNAVAILABLE: 'Seat A1 was just taken by someone else.',
  ACCOUNT_LIMIT: 'You already hold as many seats as one buyer may.',
  SALE_CLOSED: 'The sale has ended.',
  SESSION_ENDED: 'Your turn has ended: go back to the waiting room.',
  ADMISSION_REQUIRED: 'Your turn has ended: go back to the waiting room.',
  RATE_LIMITED: 'Too many tries at once: wait a moment and try again.',
  OVERLOADED: 'The ticket system is busy: try again in a few seconds.',
};
const show = (status, text) => { msg.dataset.status = status; msg.textContent = text; };
const $ = (id) => document.getElementById(id);
const refused = {
  HOLD_EXTENSIONS_OFF: 'This sale does not allow more time on a hold.',
  HOLD_EXTENSION_LIMIT: 'You have had all the extra time this sale allows.',
  HOLD_AT_LONGEST: 'Your hold already lasts as long as this sale allows.',
  HOLD_EXPIRED: 'Your hold has already ended, so it cannot be extended.',
  PAYMENT_IN_PROGRESS: 'Your payment has started, so your seat is kept while it is confirmed.',
};
let holdId = null, hold = null, clock = null, warned = false, warnAt = 60, paying = false, moreKey = null;
const secondsLeft = () => Math.max(0, Math.round((Date.parse(hold.expiresAt) - Date.now()) / 1000));
const mmss = (s) => Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
function tick() {
  if (paying) { $('left').textContent = 'Your payment is being confirmed: your seat stays yours and this page will not time out.'; return; }
  const left = secondsLeft();
  $('left').textContent = mmss(left) + ' left to pay';
  if (left === 0) { clearInterval(clock); $('more').hidden = true; $('buy').disabled = true; show('EXPIRED', 'Your hold ran out and the seat is back on sale.'); return; }
  if (!warned && left <= warnAt) { warned = true; $('warning').textContent = 'Your hold ends in ' + mmss(left) + '.' + ($('more').hidden ? ' Pay now to keep your seat.' : ' Press "More time" if you need longer.'); }
}
function startClock() {
  warned = false; warnAt = Math.min(60, Math.max(20, Math.round(secondsLeft() / 5)));
  $('more').hidden = !(hold.extension && hold.extension.used < hold.extension.max);
  clearInterval(clock); clock = setInterval(tick, 1000); tick();
}
$('more').onclick = async () => {
  // One key per intended extension, kept until answered, so a retry never extends twice.
  moreKey = moreKey || crypto.randomUUID();
  const res = await fetch('/_wr/events/__EVENT__/holds/' + holdId + '/extend', { method: 'POST', headers: { 'idempotency-key': moreKey } });
  const body = await res.json().catch(() => ({}));
  if (res.status < 500) moreKey = null;
  if (res.ok) { hold = body; startClock(); $('warning').textContent = 'Your hold was extended: ' + mmss(secondsLeft()) + ' left.'; return; }
  if (refused[body.code]) $('more').hidden = true;
  $('warning').textContent = refused[body.code] || 'Could not extend the hold. Please try again.';
};
document.getElementById('hold').onclick = async () => {
  const res = await fetch('/_wr/events/__EVENT__/holds', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ seatIds: ['A1'] }) });
  const body = await res.json();
  if (res.status !== 201) return show('FAILED', words[body.code] || 'Could not hold seat A1. Please try again.');
  holdId = body.holdId;
  hold = body;
  document.getElementById('buy').disabled = false;
  show('HELD', 'Held A1');
  startClock();
};
document.getElementById('buy').onclick = async () => {
  paying = true; $('more').hidden = true; $('warning').textContent = ''; tick();
  const res = await fetch('/events/__EVENT__/checkout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ holdId }) });
  const body = await res.json();
  if (body.status !== 'PROCESSING') { paying = false; clearInterval(clock); $('left').textContent = ''; }
  show(body.status, body.message);
  $('return').hidden = body.status !== 'PAID';
};
// One key per intended return, kept until answered, so a retried click is the same return.
let returnKey = null;
$('return').onclick = async () => {
  returnKey = returnKey || crypto.randomUUID();
  const res = await fetch('/events/__EVENT__/return', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ holdId, idempotencyKey: returnKey }) });
  const body = await res.json().catch(() => ({}));
  if (res.status < 500) returnKey = null;
  if (res.ok) $('return').hidden = true;
  $('returned').textContent = body.message || 'The return did not go through. Try again.';
};
`;
