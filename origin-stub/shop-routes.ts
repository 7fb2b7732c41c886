// The Shop's HTTP routes: payment webhooks, the signed operator API (jobs, reconciliation, demo and
// fault switches), and the visitor's sale page, checkout and orders behind the admission check.
import { Hono, type Context } from 'hono';
import {
  AdmissionError,
  revokeSession,
  type HealthReport,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyAdmission,
  verifyOriginSignature,
  type ResaleClient,
} from '../origin-sdk/src/index';
import { resaleRoutes } from './resale-routes';
import type { JWTVerifyGetKey } from 'jose';
import type { CheckoutEngine } from './checkout';
import { parsePaymentFaults, parseSlowdown, PAYMENT_FAULTS_HELP, SLOWDOWN_HELP, type PaymentFaults, type Slowdown } from './faults';
import { parseWebhook, verifyWebhook, WEBHOOK_SIGNATURE_HEADER, type FakePaymentProvider } from './payment-provider';
import { eventNames, saleLang, salePage } from './sale-page';
import { RECONCILE_INTERVAL_MS, type ShopJobs } from './shop-jobs';
import type { SqlProviderLedger, SqlShopStore } from './shop-store';

type ShopEnv = { Bindings: OriginEnv; Variables: { account: string; eventId: string } };

/** What the routes act on: the Shop object's parts, and its switches (read and written here). */
export interface ShopParts {
  env: OriginEnv;
  store: SqlShopStore;
  ledger: SqlProviderLedger;
  provider: FakePaymentProvider;
  checkout: CheckoutEngine;
  jobs: ShopJobs;
  /** The gateway's keys (a remote JWKS over the GATEWAY binding). */
  keys: JWTVerifyGetKey;
  /** Marks an admitted visitor as an active buyer (health reports). */
  seen: (account: string) => void;
  /** The health report the stub would post now (null: no event or no ORIGIN_HMAC_SECRET yet). */
  health: () => HealthReport | null;
  /** Read here; the faults are written here, the capacity switch through `setSlowdown`. */
  switches: { faults: PaymentFaults; slowdown: Slowdown | null };
  /** Sets the capacity switch (null: back to the configured model), in force from now for the requests in service too. */
  setSlowdown: (slowdown: Slowdown | null) => void;
  /** The SDK's resale client of this event (returns, offers). */
  resale: () => ResaleClient;
}

const invalid = (detail: string) => ({ code: 'INVALID_REQUEST', detail });

/** Where the payment provider sends an event's webhooks (Hono route), outside the sale's room. */
const WEBHOOK_ROUTE = '/webhooks/events/:eventId/payments';
/** The webhook URL path of one event (as the provider is configured with it). */
export const webhookPath = (eventId: string) => `/webhooks/events/${eventId}/payments`;

/**
 * `res` (a checkout's answer), ending the buyer's admission when `view` says PAID (`X-WR-Command:
 * revoke`, docs/how-to/put-in-front-of-your-site.md): the gateway frees the active slot for the
 * next visitor in line at once instead of at the admission's `exp` (the stub kept every
 * finished buyer active for the whole admission TTL). Only the checkout's own answer: a later read
 * of the order (the confirmation page reloaded, after a new admission) must not end that session,
 * so a checkout answered PROCESSING and followed to PAID keeps its session until `exp`.
 */
function endOnPaid(res: Response, view: { status: string }): Response {
  if (view.status === 'PAID') revokeSession(res);
  return res;
}

/** Builds the Shop's Hono app. */
export function shopRoutes(s: ShopParts): Hono<ShopEnv> {
  const app = new Hono<ShopEnv>();
  // The payment provider's webhooks: signature checked, deduplicated and applied by the saga. Outside
  // the sale's room (`/events/{id}/*`): the provider has no admission, so a webhook under the room
  // would get the gateway's 401 ADMISSION_REQUIRED.
  app.post(WEBHOOK_ROUTE, async (c) => {
    const body = await c.req.text();
    if (!(await verifyWebhook(s.env.PAYMENT_WEBHOOK_SECRET, body, c.req.header(WEBHOOK_SIGNATURE_HEADER), Date.now())))
      return c.json({ code: 'SIGNATURE_INVALID', detail: 'webhook signature missing, wrong or stale' }, 401);
    const event = parseWebhook(body);
    if (!event) return c.json(invalid('not a payment webhook event'), 400);
    return c.json({ outcome: await s.checkout.webhook(event) });
  });

  // Operator API, signed like the gateway's origin API (ORIGIN_HMAC_SECRET over method, path, timestamp, body).
  app.use('/admin/events/:eventId/*', async (c, next) => {
    const body = c.req.method === 'GET' ? '' : await c.req.raw.clone().text();
    const request = { method: c.req.method, path: new URL(c.req.url).pathname, body };
    const ok = await verifyOriginSignature(
      s.env.ORIGIN_HMAC_SECRET,
      request,
      c.req.header(TIMESTAMP_HEADER),
      c.req.header(SIGNATURE_HEADER),
      Date.now(),
    );
    if (!ok) return c.json({ code: 'SIGNATURE_INVALID', detail: 'sign admin calls like origin API calls' }, 401);
    await next();
  });
  app.post('/admin/events/:eventId/reconcile', async (c) => c.json(await s.checkout.reconcile()));
  app.post('/admin/events/:eventId/jobs', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { all?: unknown };
    return c.json({ ran: await s.jobs.run(body.all === true) });
  });
  app.put('/admin/events/:eventId/payment-faults', async (c) => {
    const faults = parsePaymentFaults(await c.req.json().catch(() => null));
    if (!faults) return c.json(invalid(PAYMENT_FAULTS_HELP), 400);
    s.switches.faults = faults;
    return c.json(faults);
  });
  // Demo switch for the release controller (it was a visitor route, so any admitted
  // visitor could slow the origin for everyone): a slower or smaller origin until DELETE.
  app.get('/admin/events/:eventId/load', (c) => c.json({ slowdown: s.switches.slowdown }));
  app.put('/admin/events/:eventId/load', async (c) => {
    const slowdown = parseSlowdown(await c.req.json().catch(() => null));
    if (!slowdown) return c.json(invalid(SLOWDOWN_HELP), 400);
    s.setSlowdown(slowdown);
    return c.json({ slowdown });
  });
  app.delete('/admin/events/:eventId/load', (c) => (s.setSlowdown(null), c.json({ slowdown: null })));
  // What the next health report would say (also with HEALTH_REPORT_INTERVAL_MS 0, as in the tests).
  app.get('/admin/events/:eventId/health', (c) => c.json({ report: s.health() }));
  app.post('/admin/events/:eventId/payments/:paymentId/:event{settled|disputed}', async (c) => {
    const done = s.provider.providerEvent(c.req.param('paymentId'), c.req.param('event') as 'settled' | 'disputed');
    return done
      ? c.json({ ok: true })
      : c.json({ code: 'INVALID_STATE', detail: 'no such payment, or not in a state for this event' }, 409);
  });
  app.get('/admin/events/:eventId/orders', (c) =>
    c.json({
      orders: s.store.orders().map((o) => ({ ...o, payment: s.store.payment(o.orderId) })),
      provider: { payments: s.ledger.payments(), movements: s.ledger.movements() },
      webhookEvents: s.store.webhookEvents(100),
    }),
  );

  // Visitor pages: only with a valid admission token (the origin SDK applies the gateway's own rules).
  app.use('/events/:eventId/*', async (c, next) => {
    const eventId = c.req.param('eventId');
    try {
      const admission = await verifyAdmission(c.req.raw, { eventId, keys: s.keys, issuer: s.env.TOKEN_ISSUER || undefined });
      s.seen(admission.visitorId);
      c.set('account', admission.visitorId);
      c.set('eventId', eventId);
    } catch (err) {
      if (!(err instanceof AdmissionError)) throw err;
      if (err.code === 'JWKS_UNAVAILABLE') return c.json({ code: err.code, detail: err.message }, 503);
      return c.json({ code: 'ADMISSION_REQUIRED', detail: `the origin only serves admitted visitors (${err.code})` }, 401);
    }
    await next();
  });
  app.get('/events/:eventId/orders/:orderId', (c) => {
    const order = s.store.order(c.req.param('orderId'));
    return order && order.account === c.var.account ? c.json(s.checkout.view(order.orderId)) : c.json({ code: 'NOT_FOUND' }, 404);
  });
  app.post('/events/:eventId/checkout', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { holdId?: unknown; card?: unknown } | null;
    if (typeof body?.holdId !== 'string' || body.holdId.length < 1 || body.holdId.length > 64)
      return c.json(invalid('holdId is required'), 400);
    const card = typeof body.card === 'string' ? body.card.slice(0, 32) : '';
    const order = await s.checkout.checkout(c.var.account, body.holdId, card);
    s.store.schedule('reconcile', '', Date.now() + RECONCILE_INTERVAL_MS);
    const view = s.checkout.view(order.orderId)!;
    return endOnPaid(c.json(view, view.status === 'PAID' ? 200 : view.status === 'PROCESSING' ? 202 : 409), view);
  });
  // Returns from the confirmation page, and the offer page outside the room (resale-routes.ts).
  resaleRoutes(app, s);
  // The sale page (origin-stub/sale-page.ts): the event's name from the gateway, the visitor's language.
  const eventName = eventNames(s.env);
  const sale = async (c: Context<ShopEnv>) =>
    c.html(
      salePage({ eventId: c.var.eventId, account: c.var.account, eventName: await eventName(c.var.eventId), lang: saleLang(c.req.raw) }),
    );
  app.get('/events/:eventId/*', sale);
  app.get('/events/:eventId', sale);
  return app;
}
