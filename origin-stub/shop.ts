// Shop Durable Object: the stub origin of one event (sale page, checkout saga, fake payment
// provider, webhooks, reconciliation, load and health reports). A thin adapter around checkout.ts.
import { DurableObject } from 'cloudflare:workers';
import { Hono } from 'hono';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { migrate } from '../durable-objects/shared/sql';
import { signOriginRequest, verifyOriginSignature } from '../contracts/hmac';
import { ADMISSION_HEADER, ADMISSION_TYP, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../contracts/names';
import { CheckoutEngine, DEFAULT_TIMING, type HoldAnswer, type HoldInfo, type InventoryClient } from './checkout';
import { quantile, simulatedLatencyMs } from './load-model';
import {
  FakePaymentProvider,
  signWebhook,
  verifyWebhook,
  WEBHOOK_SIGNATURE_HEADER,
  type Fault,
  type ProviderCall,
  type WebhookEvent,
} from './payment-provider';
import { salePage } from './sale-page';
import { SHOP_MIGRATIONS, SqlProviderLedger, SqlShopStore, type ShopJobKind } from './shop-store';

/** Header in which the gateway forwards the admission token. */
/** Health is reported over this trailing window, ms. */
const HEALTH_WINDOW_MS = 10_000;
/** A buyer counts as active this long after their last request, ms. */
const BUYER_ACTIVE_MS = 60_000;
/** The stub stops reporting after this long without traffic, ms. */
const IDLE_STOP_MS = 10 * 60_000;
const JWKS_TTL_MS = 60_000;
/** Gateway calls without an answer within this long count as no answer, ms. */
const GATEWAY_TIMEOUT_MS = 10_000;
/** Reconciliation runs this often while any order or payment is still open, ms. */
const RECONCILE_INTERVAL_MS = 60_000;
/** A job that is running is due again after this long, ms (so a run cut short by an eviction is retried, not lost). */
const JOB_LEASE_MS = 60_000;

type ShopEnv = { Bindings: OriginEnv; Variables: { account: string; eventId: string } };

/**
 * Fault injection of the fake provider (demo and test switch, `PUT /admin/events/{id}/payment-faults`):
 * `latencyMs` per provider call; `webhooks`: `immediate` (delivered by a job right after the
 * change), `before_response` (delivered before the API answer returns), `manual` (kept in the
 * outbox, never delivered: only queries and reconciliation find out); `next`: faults for the next calls of an operation, in order.
 */
interface PaymentFaults {
  latencyMs: number;
  webhooks: 'immediate' | 'before_response' | 'manual';
  next: { op: ProviderCall['op']; fault: Exclude<Fault, 'none'> }[];
}

const DEFAULT_FAULTS: PaymentFaults = { latencyMs: 0, webhooks: 'immediate', next: [] };

export class Shop extends DurableObject<OriginEnv> {
  private readonly app = new Hono<ShopEnv>();
  private readonly store: SqlShopStore;
  private readonly ledger: SqlProviderLedger;
  private readonly provider: FakePaymentProvider;
  private readonly checkout: CheckoutEngine;
  private faults: PaymentFaults = DEFAULT_FAULTS;
  private eventId = '';
  private inflight = 0;
  private samples: { at: number; ms: number; ok: boolean }[] = [];
  private buyers = new Map<string, number>();
  private lastTrafficAt = 0;
  private jwks: { at: number; set: ReturnType<typeof createLocalJWKSet> } | null = null;
  /** Demo switch (POST .../__stub/load): a slower or smaller origin, until reset. */
  private slowdown: { baseLatencyMs: number; capacityKnee: number } | null = null;

  constructor(ctx: DurableObjectState, env: OriginEnv) {
    super(ctx, env);
    if (!env.PAYMENT_WEBHOOK_SECRET) throw new Error('PAYMENT_WEBHOOK_SECRET must be set (origin-stub/.dev.vars; npm start writes one)');
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, 'shop', SHOP_MIGRATIONS);
      this.eventId = (await ctx.storage.get<string>('eventId')) ?? '';
    });
    const clock = () => Date.now();
    this.store = new SqlShopStore(ctx.storage, clock);
    // Every provider change is a webhook event in the outbox; `immediate` delivers it by a job right away.
    this.ledger = new SqlProviderLedger(ctx.storage.sql, () => {
      if (this.faults.webhooks === 'immediate') this.schedule('deliver_webhooks', '', Date.now());
    });
    this.provider = new FakePaymentProvider(this.ledger, {
      fault: (call) => this.nextFault(call),
      latencyMs: 0,
      beforeAnswer: async () => {
        if (this.faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.faults.latencyMs));
        if (this.faults.webhooks === 'before_response') await this.deliverWebhooks();
      },
    });
    this.checkout = new CheckoutEngine({
      store: this.store,
      provider: this.provider,
      inventory: this.inventoryClient(),
      schedule: (kind, ref, at) => this.schedule(kind, ref, at),
      clock,
      newId: () => crypto.randomUUID(),
      timing: { ...DEFAULT_TIMING, authorizationWindowMs: Number(env.AUTHORIZATION_WINDOW_MS) || DEFAULT_TIMING.authorizationWindowMs },
    });
    this.routes();
  }

  /** Every origin request of this event: simulated service time, then the route. */
  override async fetch(request: Request): Promise<Response> {
    const started = Date.now();
    const eventId = /^\/(?:admin\/)?events\/([a-z0-9][a-z0-9-]{0,63})/.exec(new URL(request.url).pathname)?.[1] ?? '';
    if (eventId && eventId !== this.eventId) {
      this.eventId = eventId;
      await this.ctx.storage.put('eventId', eventId);
    }
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
      const interval = Number(this.env.HEALTH_REPORT_INTERVAL_MS);
      if (interval > 0) this.schedule('health', '', Date.now() + interval, true);
    }
  }

  /** Runs the due jobs (saga steps, webhook delivery, reconciliation, health reports) and re-arms. */
  override async alarm(): Promise<void> {
    await this.runJobs(false);
  }

  /**
   * Schedules a job and keeps the alarm at the earliest one (`JOB_ALARMS = "0"` leaves jobs to the
   * admin API, so tests decide when they run). `keep`: leave an already scheduled job alone.
   */
  private schedule(kind: ShopJobKind, ref: string, atMs: number, keep = false): void {
    if (keep && this.hasJob(kind, ref)) return;
    this.store.schedule(kind, ref, atMs);
    void this.armAlarm();
  }

  private hasJob(kind: ShopJobKind, ref: string): boolean {
    return this.ctx.storage.sql.exec('SELECT 1 FROM shop_job WHERE kind = ? AND ref = ?', kind, ref).toArray().length > 0;
  }

  private async armAlarm(): Promise<void> {
    if (this.env.JOB_ALARMS === '0') return;
    const next = this.store.nextJobAt();
    if (next === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }

  /**
   * Runs due jobs (every job with `all`); a failing job is retried later. Jobs are leased, not
   * removed, while they run (`takeDueJobs`), so one cut short by an eviction runs again. Returns how many ran.
   */
  private async runJobs(all: boolean): Promise<number> {
    const jobs = this.store.takeDueJobs(Date.now(), JOB_LEASE_MS, all);
    await this.armAlarm();
    for (const job of jobs) {
      try {
        await this.runJob(job.kind, job.ref, job.attempt - 1);
      } catch (err) {
        console.warn(`job ${job.kind} ${job.ref} failed; retried:`, err instanceof Error ? err.message : err);
        this.store.schedule(job.kind, job.ref, Date.now() + DEFAULT_TIMING.retryAfterMs);
      }
      this.store.finishJob(job.kind, job.ref);
    }
    await this.armAlarm();
    return jobs.length;
  }

  /** Runs one job; `attempt` counts its earlier runs since it last finished (the resolve job's backoff grows with it). */
  private async runJob(kind: ShopJobKind, ref: string, attempt: number): Promise<void> {
    switch (kind) {
      case 'advance':
        return this.checkout.advance(ref);
      case 'resolve':
        return this.checkout.resolve(ref, attempt);
      case 'expire_authorization':
        return this.checkout.expireAuthorization(ref);
      case 'deliver_webhooks':
        return this.deliverWebhooks();
      case 'reconcile': {
        const report = await this.checkout.reconcile();
        if (report.differences.length > 0)
          console.warn(`reconciliation: ${report.differences.length} differences`, JSON.stringify(report.differences));
        const open = this.store.orders().some((o) => o.state === 'INITIATED' || o.state === 'CANCELLING');
        if (open) this.store.schedule('reconcile', '', Date.now() + RECONCILE_INTERVAL_MS);
        return;
      }
      case 'health':
        return this.reportHealth();
    }
  }

  /** Posts the provider's undelivered webhook events to this shop's webhook endpoint, signed, in order. */
  private async deliverWebhooks(): Promise<void> {
    for (const { seq, event } of this.ledger.undelivered()) {
      const body = JSON.stringify(event);
      const res = await this.app.fetch(
        new Request(`https://origin/events/${this.eventId}/webhooks/payments`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [WEBHOOK_SIGNATURE_HEADER]: await signWebhook(this.env.PAYMENT_WEBHOOK_SECRET, body, Date.now()),
          },
          body,
        }),
        this.env,
      );
      if (!res.ok) {
        this.store.schedule('deliver_webhooks', '', Date.now() + DEFAULT_TIMING.retryAfterMs);
        return;
      }
      this.ledger.markDelivered(seq);
    }
  }

  /** Posts one signed health report to the gateway; re-arms while there is traffic. */
  private async reportHealth(): Promise<void> {
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
    const path = `/_wr/origin/events/${this.eventId}/health`;
    const headers = {
      'content-type': 'application/json',
      ...(await signOriginRequest(this.env.ORIGIN_HMAC_SECRET, 'POST', path, body, now)),
    };
    try {
      await this.env.GATEWAY.fetch(`https://gateway${path}`, { method: 'POST', headers, body });
    } catch (err) {
      console.warn('health report failed:', err instanceof Error ? err.message : err);
    }
    if (now - this.lastTrafficAt < IDLE_STOP_MS) this.store.schedule('health', '', now + Number(this.env.HEALTH_REPORT_INTERVAL_MS));
  }

  private nextFault(call: ProviderCall): Fault {
    const i = this.faults.next.findIndex((f) => f.op === call.op);
    if (i < 0) return 'none';
    const [f] = this.faults.next.splice(i, 1);
    return f!.fault;
  }

  private inventoryClient(): InventoryClient {
    const call = async (method: 'GET' | 'POST', holdId: string, action: string, body?: unknown): Promise<HoldAnswer> => {
      const path = `/_wr/origin/events/${this.eventId}/holds/${encodeURIComponent(holdId)}${action}`;
      const text = body === undefined ? '' : JSON.stringify(body);
      try {
        const headers = {
          'content-type': 'application/json',
          ...(await signOriginRequest(this.env.ORIGIN_HMAC_SECRET, method, path, text, Date.now())),
        };
        const res = await this.env.GATEWAY.fetch(`https://gateway${path}`, {
          method,
          headers,
          body: method === 'GET' ? undefined : text,
          signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
        });
        const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
        if (res.status >= 500) return { kind: 'no_answer' };
        if (res.ok) return { kind: 'ok', hold: holdInfo(data) };
        return {
          kind: 'refused',
          code: String(data.code ?? res.status),
          hold: data.hold ? holdInfo(data.hold as Record<string, unknown>) : null,
        };
      } catch {
        return { kind: 'no_answer' };
      }
    };
    return {
      getHold: (holdId) => call('GET', holdId, ''),
      startPayment: (holdId, account) => call('POST', holdId, '/payment-pending', { account }),
      confirm: (holdId, orderId, amountMinor, account) => call('POST', holdId, '/confirm', { orderId, amountMinor, account }),
      release: (holdId, account) => call('POST', holdId, '/release', { account }),
      paymentHolds: async (after) => {
        const path = `/_wr/origin/events/${this.eventId}/holds`;
        try {
          const headers = await signOriginRequest(this.env.ORIGIN_HMAC_SECRET, 'GET', path, '', Date.now());
          const res = await this.env.GATEWAY.fetch(`https://gateway${path}?limit=500&after=${encodeURIComponent(after)}`, {
            headers,
            signal: AbortSignal.timeout(GATEWAY_TIMEOUT_MS),
          });
          if (!res.ok) return { kind: 'no_answer' };
          const data = (await res.json()) as { holds: Record<string, unknown>[]; next: string | null };
          return { kind: 'ok', holds: data.holds.map(holdInfo), next: data.next };
        } catch {
          return { kind: 'no_answer' };
        }
      },
    };
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
        typ: ADMISSION_TYP,
        requiredClaims: ['exp', 'sub'],
      });
      return payload.sub ?? null;
    } catch {
      return null;
    }
  }

  private routes(): void {
    const app = this.app;
    // The payment provider's webhooks: signature checked, deduplicated and applied by the saga.
    app.post('/events/:eventId/webhooks/payments', async (c) => {
      const body = await c.req.text();
      if (!(await verifyWebhook(this.env.PAYMENT_WEBHOOK_SECRET, body, c.req.header(WEBHOOK_SIGNATURE_HEADER), Date.now())))
        return c.json({ code: 'SIGNATURE_INVALID', detail: 'webhook signature missing, wrong or stale' }, 401);
      const event = parseWebhook(body);
      if (!event) return c.json({ code: 'INVALID_REQUEST', detail: 'not a payment webhook event' }, 400);
      return c.json({ outcome: await this.checkout.webhook(event) });
    });
    // Operator API of the stub, signed like the gateway's origin API (ORIGIN_HMAC_SECRET over method, path, timestamp, body).
    app.use('/admin/events/:eventId/*', async (c, next) => {
      const body = c.req.method === 'GET' ? '' : await c.req.raw.clone().text();
      const path = new URL(c.req.url).pathname;
      const ok = await verifyOriginSignature(
        this.env.ORIGIN_HMAC_SECRET,
        { method: c.req.method, path, body },
        c.req.header(TIMESTAMP_HEADER),
        c.req.header(SIGNATURE_HEADER),
        Date.now(),
      );
      if (!ok) return c.json({ code: 'SIGNATURE_INVALID', detail: 'sign admin calls like origin API calls' }, 401);
      await next();
    });
    app.post('/admin/events/:eventId/reconcile', async (c) => c.json(await this.checkout.reconcile()));
    app.post('/admin/events/:eventId/jobs', async (c) => {
      const body = (await c.req.json().catch(() => ({}))) as { all?: unknown };
      return c.json({ ran: await this.runJobs(body.all === true) });
    });
    app.put('/admin/events/:eventId/payment-faults', async (c) => {
      const body = (await c.req.json().catch(() => null)) as Partial<PaymentFaults> | null;
      const ops = ['authorize', 'capture', 'void', 'refund', 'query'];
      const faults = ['timeout', 'lost_response', 'technical'];
      const next = Array.isArray(body?.next) ? body.next : [];
      if (
        !body ||
        (body.latencyMs !== undefined && !(typeof body.latencyMs === 'number' && body.latencyMs >= 0 && body.latencyMs <= 30_000)) ||
        (body.webhooks !== undefined && !['immediate', 'before_response', 'manual'].includes(body.webhooks)) ||
        !next.every((f) => ops.includes(f?.op) && faults.includes(f?.fault))
      )
        return c.json(
          { code: 'INVALID_REQUEST', detail: 'latencyMs 0-30000, webhooks immediate|before_response|manual, next [{op, fault}]' },
          400,
        );
      this.faults = {
        latencyMs: body.latencyMs ?? 0,
        webhooks: body.webhooks ?? 'immediate',
        next: next.map((f) => ({ op: f.op, fault: f.fault })),
      };
      return c.json(this.faults);
    });
    app.post('/admin/events/:eventId/payments/:paymentId/:event{settled|disputed}', async (c) => {
      const done = this.provider.providerEvent(c.req.param('paymentId'), c.req.param('event') as 'settled' | 'disputed');
      return done
        ? c.json({ ok: true })
        : c.json({ code: 'INVALID_STATE', detail: 'no such payment, or not in a state for this event' }, 409);
    });
    app.get('/admin/events/:eventId/orders', (c) =>
      c.json({
        orders: this.store.orders().map((o) => ({ ...o, payment: this.store.payment(o.orderId) })),
        provider: { payments: this.ledger.payments(), movements: this.ledger.movements() },
        webhookEvents: this.store.webhookEvents(100),
      }),
    );

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
      const order = this.store.order(c.req.param('orderId'));
      return order && order.account === c.var.account ? c.json(this.checkout.view(order.orderId)) : c.json({ code: 'NOT_FOUND' }, 404);
    });
    app.post('/events/:eventId/checkout', async (c) => {
      const body = (await c.req.json().catch(() => null)) as { holdId?: unknown; card?: unknown } | null;
      if (typeof body?.holdId !== 'string' || body.holdId.length < 1 || body.holdId.length > 64)
        return c.json({ code: 'INVALID_REQUEST', detail: 'holdId is required' }, 400);
      const card = typeof body.card === 'string' ? body.card.slice(0, 32) : '';
      const order = await this.checkout.checkout(c.var.account, body.holdId, card);
      this.store.schedule('reconcile', '', Date.now() + RECONCILE_INTERVAL_MS);
      const view = this.checkout.view(order.orderId)!;
      return c.json(view, view.status === 'PAID' ? 200 : view.status === 'PROCESSING' ? 202 : 409);
    });
    app.get('/events/:eventId/*', (c) => c.html(salePage(c.var.eventId, c.var.account)));
    app.get('/events/:eventId', (c) => c.html(salePage(c.var.eventId, c.var.account)));
  }
}

/** A hold from the gateway's JSON (docs/api.md); unknown fields are ignored. */
function holdInfo(d: Record<string, unknown>): HoldInfo {
  return {
    holdId: String(d.holdId ?? ''),
    status: String(d.status ?? ''),
    account: typeof d.account === 'string' ? d.account : '',
    seatIds: Array.isArray(d.seatIds) ? d.seatIds.map(String) : [],
    tier: typeof d.tier === 'string' ? d.tier : null,
    quantity: typeof d.quantity === 'number' ? d.quantity : 0,
    priceMinor: typeof d.priceMinor === 'number' ? d.priceMinor : 0,
    currency: typeof d.currency === 'string' ? d.currency : 'EUR',
    orderId: typeof d.orderId === 'string' ? d.orderId : null,
  };
}

/** A webhook event from its JSON body, or null when it does not have the expected shape. */
function parseWebhook(body: string): WebhookEvent | null {
  try {
    const e = JSON.parse(body) as WebhookEvent;
    const p = e?.payment;
    const int = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
    if (typeof e.id !== 'string' || typeof e.type !== 'string' || !p || typeof p.paymentId !== 'string' || typeof p.state !== 'string')
      return null;
    if (!int(p.amountMinor) || !int(p.authorizedMinor) || !int(p.capturedMinor) || !int(p.refundedMinor) || typeof p.settled !== 'boolean')
      return null;
    return e;
  } catch {
    return null;
  }
}
