// Shop Durable Object: the stub origin of one event. Wires the checkout saga (checkout.ts) to its
// storage, the fake payment provider, the gateway (through the origin SDK), jobs and routes.
import { DurableObject } from 'cloudflare:workers';
import type { JWTVerifyGetKey } from 'jose';
import { migrate } from '../durable-objects/shared/sql';
import { gatewayKeys, JWKS_PATH, ResaleClient, type HealthReporter } from '../origin-sdk/src/index';
import { CheckoutEngine } from './checkout';
import { DEFAULT_TIMING } from './order';
import { DEFAULT_FAULTS, takeFault, type PaymentFaults, type Slowdown } from './faults';
import { inventoryClient } from './gateway';
import { SharedServer, type CapacityModel } from './load-model';
import { FakePaymentProvider, signWebhook, WEBHOOK_SIGNATURE_HEADER } from './payment-provider';
import { keepReporting, shopReporter } from './shop-health';
import { ShopJobs } from './shop-jobs';
import { shopRoutes, webhookPath } from './shop-routes';
import { SHOP_MIGRATIONS, SqlProviderLedger, SqlShopStore } from './shop-store';

/** The gateway as the stub reaches it: the GATEWAY service binding. */
const GATEWAY_URL = 'https://gateway';
/** Event ids in the stub's paths (sale pages, checkout, webhooks; the operator API under /admin). */
const EVENT_PATH = /^\/(?:admin\/|offers\/|orders\/)?events\/([a-z0-9][a-z0-9-]{0,63})/;
/** The answer to a request whose client gave up during its service (nginx's 499; nobody reads it). */
const CLIENT_GONE_STATUS = 499;

export class Shop extends DurableObject<OriginEnv> {
  private readonly store: SqlShopStore;
  private readonly ledger: SqlProviderLedger;
  private readonly jobs: ShopJobs;
  private readonly app: ReturnType<typeof shopRoutes>;
  private readonly keys: JWTVerifyGetKey;
  /** Demo and test switches, set through the operator API only (faults.ts). */
  private readonly switches: { faults: PaymentFaults; slowdown: Slowdown | null } = { faults: DEFAULT_FAULTS, slowdown: null };
  private eventId = '';
  private gateway: ResaleClient | null = null;
  private reporter: HealthReporter | null = null;
  /** The simulated capacity: visitor requests in service, each finishing by calling its key. */
  private readonly server: SharedServer<() => void>;
  /** The one timer of the server's next completion. */
  private serverTimer: ReturnType<typeof setTimeout> | null = null;
  private lastTrafficAt = 0;

  constructor(ctx: DurableObjectState, env: OriginEnv) {
    super(ctx, env);
    if (!env.PAYMENT_WEBHOOK_SECRET) throw new Error('PAYMENT_WEBHOOK_SECRET must be set (origin-stub/.dev.vars; npm start writes one)');
    this.server = new SharedServer(this.capacityModel(), Date.now());
    void ctx.blockConcurrencyWhile(async () => {
      migrate(ctx.storage, 'shop', SHOP_MIGRATIONS);
      this.eventId = (await ctx.storage.get<string>('eventId')) ?? '';
    });
    const clock = () => Date.now();
    const fetchGateway = (r: Request) => env.GATEWAY.fetch(r);
    this.keys = gatewayKeys(new URL(JWKS_PATH, GATEWAY_URL), { fetch: fetchGateway });
    this.store = new SqlShopStore(ctx.storage, clock);
    // Every provider change is a webhook event in the outbox; `immediate` delivers it by a job right away.
    this.ledger = new SqlProviderLedger(ctx.storage.sql, () => {
      if (this.switches.faults.webhooks === 'immediate') this.jobs.schedule('deliver_webhooks', '', Date.now());
    });
    const provider = new FakePaymentProvider(this.ledger, {
      fault: (call) => takeFault(this.switches.faults, call),
      latencyMs: 0,
      beforeAnswer: async () => {
        const { latencyMs, webhooks } = this.switches.faults;
        if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
        if (webhooks === 'before_response') await this.deliverWebhooks();
      },
    });
    const checkout = new CheckoutEngine({
      store: this.store,
      provider,
      inventory: inventoryClient(() => this.gatewayClient()),
      schedule: (kind, ref, at) => this.jobs.schedule(kind, ref, at),
      clock,
      newId: () => crypto.randomUUID(),
      timing: { ...DEFAULT_TIMING, authorizationWindowMs: Number(env.AUTHORIZATION_WINDOW_MS) || DEFAULT_TIMING.authorizationWindowMs },
    });
    this.jobs = new ShopJobs({
      store: this.store,
      checkout,
      storage: ctx.storage,
      alarms: env.JOB_ALARMS !== '0',
      deliverWebhooks: () => this.deliverWebhooks(),
      reportHealth: () => this.reportHealth(),
      clock,
    });
    this.app = shopRoutes({
      env,
      store: this.store,
      ledger: this.ledger,
      provider,
      checkout,
      jobs: this.jobs,
      keys: this.keys,
      seen: (account) => this.healthReporter()?.seen(account),
      health: () => this.healthReporter()?.snapshot() ?? null,
      switches: this.switches,
      setSlowdown: (slowdown) => this.setSlowdown(slowdown),
      resale: () => this.gatewayClient(),
    });
  }

  /**
   * Every origin request of this event: simulated service (the capacity model, shared with the
   * requests in service at the same time: `SharedServer`), then the route; measured for health
   * reports from its arrival (`HealthReporter.begin`), so a request still in service counts in
   * them with its age so far, and the health job is armed then (a crowd run: 234 requests in
   * service, some for 10+ s, and the reports read "p99 0 ms" because none had completed). A
   * request whose client gave up (the gateway's ORIGIN_TIMEOUT_MS) leaves the service
   * at once and gets no route (its real time is recorded, as a client's 4xx). The operator API
   * (`/admin/...`: the capacity model, faults) is answered at once and not measured: a switch is
   * not a visitor's page, and under a slow model it had waited past the gateway's
   * ORIGIN_TIMEOUT_MS, so bench:control's capacity change never arrived.
   */
  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const eventId = EVENT_PATH.exec(path)?.[1] ?? '';
    if (eventId && eventId !== this.eventId) {
      this.eventId = eventId;
      this.gateway = null;
      this.reporter = null;
      await this.ctx.storage.put('eventId', eventId);
    }
    if (path.startsWith('/admin/')) return this.app.fetch(request, this.env);
    const measured = this.healthReporter()?.begin();
    this.traffic();
    let ok = false;
    try {
      if (!(await this.serve(request.signal))) return ((ok = true), new Response(null, { status: CLIENT_GONE_STATUS }));
      const res = await this.app.fetch(request, this.env);
      ok = res.status < 500;
      return res;
    } finally {
      measured?.end(ok);
      this.traffic();
    }
  }

  /** Notes visitor traffic now, and arms the health job (reports go on while there is traffic). */
  private traffic(): void {
    this.lastTrafficAt = Date.now();
    const interval = Number(this.env.HEALTH_REPORT_INTERVAL_MS);
    if (interval > 0) this.jobs.scheduleUnlessPending('health', '', Date.now() + interval);
  }

  /** The capacity model in force: the operator's switch, else BASE_LATENCY_MS and CAPACITY_KNEE. */
  private capacityModel(): CapacityModel {
    return this.switches.slowdown ?? { baseLatencyMs: Number(this.env.BASE_LATENCY_MS), capacityKnee: Number(this.env.CAPACITY_KNEE) };
  }

  /** The operator's capacity switch (null: back to the configured model), in force from now for the requests in service too. */
  private setSlowdown(slowdown: Slowdown | null): void {
    this.switches.slowdown = slowdown;
    this.server.setModel(this.capacityModel(), Date.now());
    this.planServer();
  }

  /**
   * One request's simulated service: true when it is done, false when its client gave up first
   * (`signal` aborted: it left the service, the others speed up from then).
   */
  private serve(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', gone);
        resolve(true);
      };
      const gone = () => {
        if (!this.server.abandon(done, Date.now())) return;
        this.planServer();
        resolve(false);
      };
      signal.addEventListener('abort', gone, { once: true });
      this.server.arrive(done, Date.now());
      this.planServer();
    });
  }

  /** Finishes the requests done by now and re-arms the one timer for the next completion. */
  private planServer(): void {
    const now = Date.now();
    for (const { key: done } of this.server.takeFinished(now)) done();
    clearTimeout(this.serverTimer);
    const next = this.server.nextFinishAtMs();
    this.serverTimer = next === null ? null : setTimeout(() => this.planServer(), Math.max(0, Math.ceil(next - now)));
  }

  /** Runs the due jobs (saga steps, webhook delivery, reconciliation, health reports) and re-arms. */
  override async alarm(): Promise<void> {
    await this.jobs.run(false);
  }

  /** The SDK's hold and resale client for this event (signed calls over the GATEWAY binding, with retries). */
  private gatewayClient(): ResaleClient {
    this.gateway ??= new ResaleClient({
      gatewayUrl: GATEWAY_URL,
      eventId: this.eventId,
      secret: this.env.ORIGIN_HMAC_SECRET,
      fetch: (r) => this.env.GATEWAY.fetch(r),
      timeoutMs: 10_000,
    });
    return this.gateway;
  }

  private healthReporter(): HealthReporter | null {
    if (!this.eventId || !this.env.ORIGIN_HMAC_SECRET) return null;
    this.reporter ??= shopReporter(this.env, this.eventId);
    return this.reporter;
  }

  /** Posts one signed health report to the gateway; re-arms while there is traffic. */
  private async reportHealth(): Promise<void> {
    const outcome = await this.healthReporter()?.report();
    if (outcome && outcome.kind !== 'accepted') console.warn(`health report ${outcome.kind}${'code' in outcome ? ` ${outcome.code}` : ''}`);
    const now = Date.now();
    if (keepReporting(this.env, this.lastTrafficAt, now))
      this.store.schedule('health', '', now + Number(this.env.HEALTH_REPORT_INTERVAL_MS));
  }

  /** Posts the provider's undelivered webhook events to this shop's webhook endpoint, signed, in order. */
  private async deliverWebhooks(): Promise<void> {
    for (const { seq, event } of this.ledger.undelivered()) {
      const body = JSON.stringify(event);
      const signature = await signWebhook(this.env.PAYMENT_WEBHOOK_SECRET, body, Date.now());
      const res = await this.app.fetch(
        new Request(`https://origin${webhookPath(this.eventId)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signature },
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
}
