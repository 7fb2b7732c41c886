// Shop Durable Object: the stub origin of one event (sale page, checkout, load and health reports).
import { DurableObject } from 'cloudflare:workers';
import { Hono } from 'hono';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { signOriginRequest } from '../src/lib/hmac';
import { quantile, simulatedLatencyMs } from './load-model';
import { FakePaymentProvider } from './payment-provider';
import { SEAT_PRICE_MINOR, salePage } from './sale-page';

/** Header in which the gateway forwards the admission token. */
const ADMISSION_HEADER = 'x-admission-token';
/** Health is reported over this trailing window, ms. */
const HEALTH_WINDOW_MS = 10_000;
/** A buyer counts as active this long after their last request, ms. */
const BUYER_ACTIVE_MS = 60_000;
/** The stub stops reporting after this long without traffic, ms. */
const IDLE_STOP_MS = 10 * 60_000;
const JWKS_TTL_MS = 60_000;

type ShopEnv = { Bindings: OriginEnv; Variables: { account: string; eventId: string } };

interface Order {
  orderId: string;
  account: string;
  holdId: string;
  status: 'INITIATED' | 'PAID' | 'FAILED';
  amountMinor: number;
  seatIds: string[];
  message: string;
}

export class Shop extends DurableObject<OriginEnv> {
  private readonly payments: FakePaymentProvider;
  private readonly app = new Hono<ShopEnv>();
  private inflight = 0;
  private samples: { at: number; ms: number; ok: boolean }[] = [];
  private buyers = new Map<string, number>();
  private lastTrafficAt = 0;
  private jwks: { at: number; set: ReturnType<typeof createLocalJWKSet> } | null = null;
  /** Demo switch (POST .../__stub/load): a slower or smaller origin, until reset. */
  private slowdown: { baseLatencyMs: number; capacityKnee: number } | null = null;

  constructor(ctx: DurableObjectState, env: OriginEnv) {
    super(ctx, env);
    this.payments = new FakePaymentProvider(ctx.storage.sql);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS shop_orders (order_id TEXT PRIMARY KEY, account TEXT NOT NULL, hold_id TEXT NOT NULL,
      status TEXT NOT NULL, amount_minor INTEGER NOT NULL, seat_ids TEXT NOT NULL, message TEXT NOT NULL, event_id TEXT NOT NULL)`);
    this.routes();
  }

  /** Every origin request of this event: simulated service time, then the route. */
  override async fetch(request: Request): Promise<Response> {
    const started = Date.now();
    this.inflight++;
    let ok = false;
    try {
      await new Promise((r) =>
        setTimeout(
          r,
          simulatedLatencyMs(
            this.inflight,
            this.slowdown?.baseLatencyMs ?? Number(this.env.BASE_LATENCY_MS),
            this.slowdown?.capacityKnee ?? Number(this.env.CAPACITY_KNEE),
          ),
        ),
      );
      const res = await this.app.fetch(request, this.env);
      ok = res.status < 500;
      return res;
    } finally {
      this.inflight--;
      this.samples.push({ at: Date.now(), ms: Date.now() - started, ok });
      this.lastTrafficAt = Date.now();
      await this.armHealthReports(new URL(request.url).pathname.split('/')[2] ?? '');
    }
  }

  /** Posts one signed health report to the gateway and re-arms while there is traffic. */
  override async alarm(): Promise<void> {
    const eventId = (await this.ctx.storage.get<string>('eventId')) ?? '';
    const now = Date.now();
    this.samples = this.samples.filter((s) => now - s.at <= HEALTH_WINDOW_MS);
    for (const [account, at] of this.buyers) if (now - at > BUYER_ACTIVE_MS) this.buyers.delete(account);
    const ms = this.samples.map((s) => s.ms);
    const body = JSON.stringify({
      p50LatencyMs: quantile(ms, 0.5),
      p99LatencyMs: quantile(ms, 0.99),
      errorRate: ms.length ? this.samples.filter((s) => !s.ok).length / ms.length : 0,
      activeBuyers: this.buyers.size,
      windowSeconds: HEALTH_WINDOW_MS / 1000,
    });
    const path = `/_wr/origin/events/${eventId}/health`;
    const headers = {
      'content-type': 'application/json',
      ...(await signOriginRequest(this.env.ORIGIN_HMAC_SECRET, 'POST', path, body, now)),
    };
    try {
      await this.env.GATEWAY.fetch(`https://gateway${path}`, { method: 'POST', headers, body });
    } catch (err) {
      console.warn('health report failed:', err instanceof Error ? err.message : err);
    }
    if (now - this.lastTrafficAt < IDLE_STOP_MS) await this.ctx.storage.setAlarm(now + Number(this.env.HEALTH_REPORT_INTERVAL_MS));
  }

  private async armHealthReports(eventId: string): Promise<void> {
    const interval = Number(this.env.HEALTH_REPORT_INTERVAL_MS);
    if (!(interval > 0) || (await this.ctx.storage.getAlarm()) !== null) return;
    await this.ctx.storage.put('eventId', eventId);
    await this.ctx.storage.setAlarm(Date.now() + interval);
  }

  private async verifyAdmission(token: string | undefined, eventId: string): Promise<string | null> {
    if (!token) return null;
    if (!this.jwks || Date.now() - this.jwks.at > JWKS_TTL_MS) {
      const res = await this.env.GATEWAY.fetch('https://gateway/.well-known/jwks.json');
      this.jwks = { at: Date.now(), set: createLocalJWKSet((await res.json()) as JSONWebKeySet) };
    }
    try {
      const { payload } = await jwtVerify(token, this.jwks.set, {
        algorithms: ['ES256'],
        audience: eventId,
        typ: 'wr-admission+jwt',
        requiredClaims: ['exp', 'sub'],
      });
      return payload.sub ?? null;
    } catch {
      return null;
    }
  }

  private routes(): void {
    const app = this.app;
    app.use('/events/:eventId/*', async (c, next) => {
      const eventId = c.req.param('eventId');
      const account = await this.verifyAdmission(c.req.header(ADMISSION_HEADER), eventId);
      if (!account) return c.json({ code: 'ADMISSION_REQUIRED', detail: 'the origin only serves admitted visitors' }, 401);
      this.buyers.set(account, Date.now());
      c.set('account', account);
      c.set('eventId', eventId);
      await next();
    });
    // Demo switch for the release controller: make this event's origin slow (or small), or reset it.
    app.post('/events/:eventId/__stub/load', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { baseLatencyMs?: unknown; capacityKnee?: unknown } | null;
      const ok = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 60_000;
      if (body && ok(body.baseLatencyMs) && ok(body.capacityKnee)) {
        this.slowdown = { baseLatencyMs: body.baseLatencyMs as number, capacityKnee: body.capacityKnee as number };
      } else this.slowdown = null;
      return c.json({ slowdown: this.slowdown });
    });
    app.get('/events/:eventId/orders/:orderId', (c) => {
      const order = this.order(c.req.param('orderId'));
      return order && order.account === c.var.account ? c.json(order) : c.json({ code: 'NOT_FOUND' }, 404);
    });
    app.post('/events/:eventId/checkout', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { holdId?: unknown; card?: unknown } | null;
      if (typeof body?.holdId !== 'string' || body.holdId.length > 64)
        return c.json({ code: 'INVALID_REQUEST', detail: 'holdId is required' }, 400);
      const card = typeof body.card === 'string' ? body.card : '';
      const order = await this.checkout(c.var.eventId, c.var.account, body.holdId, card);
      return c.json(order, order.status === 'PAID' ? 200 : 409);
    });
    app.get('/events/:eventId/*', (c) => c.html(salePage(c.var.eventId, c.var.account)));
    app.get('/events/:eventId', (c) => c.html(salePage(c.var.eventId, c.var.account)));
  }

  /**
   * Checkout, in the order the gateway's hold state machine expects: read the hold (the price
   * comes from the inventory, never from the browser), record the order, move the hold to
   * PAYMENT_PENDING, authorize with the provider, confirm the hold with the amount authorized, then
   * capture. A declined card releases the hold; a refused confirmation voids the authorization.
   * A paid hold returns its existing order.
   */
  private async checkout(eventId: string, account: string, holdId: string, card: string): Promise<Order> {
    const paid = this.ctx.storage.sql
      .exec<{ order_id: string }>(`SELECT order_id FROM shop_orders WHERE hold_id = ? AND status = 'PAID'`, holdId)
      .toArray()[0];
    if (paid) return this.order(paid.order_id)!;

    const base = `/_wr/origin/events/${eventId}/holds/${holdId}`;
    const hold = await this.gateway('GET', base);
    const orderId = crypto.randomUUID();
    const seatIds = Array.isArray(hold.data.seatIds) ? (hold.data.seatIds as string[]) : [];
    const amountMinor = typeof hold.data.priceMinor === 'number' ? hold.data.priceMinor : 0;
    const currency = typeof hold.data.currency === 'string' ? hold.data.currency : 'EUR';
    this.ctx.storage.sql.exec(
      `INSERT INTO shop_orders VALUES (?, ?, ?, 'INITIATED', ?, ?, 'processing', ?)`,
      orderId,
      account,
      holdId,
      amountMinor,
      JSON.stringify(seatIds),
      eventId,
    );
    if (hold.status !== 200 || hold.data.account !== account || hold.data.status !== 'HELD') {
      return this.update(orderId, 'FAILED', 'This hold is no longer active (it expired or was released). You were not charged.');
    }
    const pending = await this.gateway('POST', `${base}/payment-pending`, { account });
    if (pending.status !== 200) return this.update(orderId, 'FAILED', 'This hold expired before payment started. You were not charged.');

    const payment = this.payments.authorize(orderId, amountMinor, currency, card);
    if (payment.status === 'DECLINED') {
      await this.gateway('POST', `${base}/release`, { account });
      return this.update(orderId, 'FAILED', 'Your card was declined, so the seats were released. You were not charged.');
    }
    const confirm = await this.gateway('POST', `${base}/confirm`, { orderId, amountMinor, account });
    if (confirm.status !== 200) {
      this.payments.void(orderId);
      return this.update(orderId, 'FAILED', 'Your seats could not be confirmed. The authorization was voided; you were not charged.');
    }
    this.payments.capture(orderId);
    const label = seatIds.length > 0 ? seatIds.join(', ') : `${String(hold.data.quantity)} x ${String(hold.data.tier)}`;
    return this.update(orderId, 'PAID', `Paid ${currency} ${(amountMinor / 100).toFixed(2)} for ${label}. Order ${orderId.slice(0, 8)}.`);
  }

  /** A signed call to the gateway's origin API. */
  private async gateway(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = {
      'content-type': 'application/json',
      ...(await signOriginRequest(this.env.ORIGIN_HMAC_SECRET, method, path, text, Date.now())),
    };
    const res = await this.env.GATEWAY.fetch(`https://gateway${path}`, { method, headers, body: method === 'GET' ? undefined : text });
    return { status: res.status, data: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }

  private update(orderId: string, status: Order['status'], message: string): Order {
    this.ctx.storage.sql.exec('UPDATE shop_orders SET status = ?, message = ? WHERE order_id = ?', status, message, orderId);
    return this.order(orderId)!;
  }

  private order(orderId: string): Order | null {
    const row = this.ctx.storage.sql
      .exec<{
        order_id: string;
        account: string;
        hold_id: string;
        status: Order['status'];
        amount_minor: number;
        seat_ids: string;
        message: string;
      }>('SELECT * FROM shop_orders WHERE order_id = ?', orderId)
      .toArray()[0];
    return row
      ? {
          orderId: row.order_id,
          account: row.account,
          holdId: row.hold_id,
          status: row.status,
          amountMinor: row.amount_minor,
          seatIds: JSON.parse(row.seat_ids) as string[],
          message: row.message,
        }
      : null;
  }
}
