// SQLite storage of the Shop object: orders, payments, webhook events, jobs, and the fake provider's ledger.
import { Sql, type Migration } from '../durable-objects/shared/sql';
import type { JobKind, Order, ShopStore } from './order';
import type { Movement, OperationRecord, ProviderLedger, WebhookEvent } from './payment-provider';
import type { Payment } from './payment-state';

/** Append-only schema of the Shop object (never edit an applied entry). */
export const SHOP_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    description: 'orders, payments, webhook events, jobs; the fake provider ledger',
    sql: `
      DROP TABLE IF EXISTS shop_orders;
      DROP TABLE IF EXISTS pay_payments;
      CREATE TABLE shop_order (
        order_id TEXT PRIMARY KEY, hold_id TEXT NOT NULL, state TEXT NOT NULL, version INTEGER NOT NULL,
        created_at INTEGER NOT NULL, body TEXT NOT NULL
      );
      CREATE INDEX shop_order_hold ON shop_order (hold_id, created_at);
      CREATE TABLE shop_payment (payment_id TEXT PRIMARY KEY, state TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE shop_webhook_event (event_id TEXT PRIMARY KEY, type TEXT NOT NULL, outcome TEXT NOT NULL, received_at INTEGER NOT NULL);
      CREATE TABLE shop_job (kind TEXT NOT NULL, ref TEXT NOT NULL, due_at INTEGER NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (kind, ref));
      CREATE INDEX shop_job_due ON shop_job (due_at);
      CREATE TABLE psp_payment (payment_id TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE psp_operation (operation_id TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE psp_movement (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
      CREATE TABLE psp_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, body TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0);
    `,
  },
  {
    id: 2,
    description: 'jobs are leased while they run (kept until done), so an eviction mid-job does not lose them',
    sql: `ALTER TABLE shop_job ADD COLUMN running INTEGER NOT NULL DEFAULT 0;`,
  },
];

/** Jobs of the Shop object beyond the saga's: health reports, webhook delivery, reconciliation. */
export type ShopJobKind = JobKind | 'health' | 'deliver_webhooks' | 'reconcile';

/**
 * `ShopStore` over the object's SQLite. Orders and payments are JSON bodies with their state and
 * version in columns, and every update is `UPDATE ... WHERE id = ? AND state = ? AND version = ?`
 * (compare-and-set): a write decided on a stale read changes nothing and reports false.
 */
export class SqlShopStore implements ShopStore {
  private readonly sql: Sql;
  private readonly storage: DurableObjectStorage;
  private readonly clock: () => number;

  constructor(storage: DurableObjectStorage, clock: () => number) {
    this.storage = storage;
    this.sql = new Sql(storage.sql);
    this.clock = clock;
  }

  order(orderId: string): Order | null {
    const row = this.sql.one<{ body: string }>`SELECT body FROM shop_order WHERE order_id = ${orderId}`;
    return row ? (JSON.parse(row.body) as Order) : null;
  }
  ordersForHold(holdId: string): Order[] {
    if (holdId === '') return [];
    return this.sql.all<{ body: string }>`SELECT body FROM shop_order WHERE hold_id = ${holdId} ORDER BY created_at, rowid`.map(
      (r) => JSON.parse(r.body) as Order,
    );
  }
  orders(): Order[] {
    return this.sql.all<{ body: string }>`SELECT body FROM shop_order ORDER BY created_at`.map((r) => JSON.parse(r.body) as Order);
  }
  insertOrder(o: Order): void {
    this.sql
      .run`INSERT INTO shop_order VALUES (${o.orderId}, ${o.holdId}, ${o.state}, ${o.version}, ${o.createdAtMs}, ${JSON.stringify(o)})`;
  }
  casOrder(next: Order, expected: Pick<Order, 'state' | 'version'>): boolean {
    return (
      this.sql.all`UPDATE shop_order SET state = ${next.state}, version = ${next.version}, body = ${JSON.stringify(next)}
        WHERE order_id = ${next.orderId} AND state = ${expected.state} AND version = ${expected.version} RETURNING order_id`.length === 1
    );
  }
  payment(paymentId: string): Payment | null {
    const row = this.sql.one<{ body: string }>`SELECT body FROM shop_payment WHERE payment_id = ${paymentId}`;
    return row ? (JSON.parse(row.body) as Payment) : null;
  }
  insertPayment(p: Payment): void {
    this.sql.run`INSERT INTO shop_payment VALUES (${p.paymentId}, ${p.state}, ${p.version}, ${JSON.stringify(p)})`;
  }
  casPayment(next: Payment, expected: Pick<Payment, 'state' | 'version'>): boolean {
    return (
      this.sql.all`UPDATE shop_payment SET state = ${next.state}, version = ${next.version}, body = ${JSON.stringify(next)}
        WHERE payment_id = ${next.paymentId} AND state = ${expected.state} AND version = ${expected.version} RETURNING payment_id`
        .length === 1
    );
  }
  rememberWebhook(eventId: string, type: string, outcome: string): boolean {
    return (
      this.sql.all`INSERT INTO shop_webhook_event VALUES (${eventId}, ${type}, ${outcome}, ${this.clock()})
        ON CONFLICT (event_id) DO NOTHING RETURNING event_id`.length === 1
    );
  }
  atomically<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  /**
   * Schedules a job; an earlier due time already scheduled for the same job is kept. A job that
   * reschedules itself while it runs replaces its lease with the new due time (and so is kept when
   * it finishes); its attempt count carries over until the job finishes without rescheduling.
   */
  schedule(kind: ShopJobKind, ref: string, atMs: number): void {
    this.sql.run`INSERT INTO shop_job (kind, ref, due_at) VALUES (${kind}, ${ref}, ${atMs})
      ON CONFLICT (kind, ref) DO UPDATE SET due_at = CASE WHEN running = 1 THEN excluded.due_at ELSE MIN(due_at, excluded.due_at) END,
        running = 0`;
  }
  /**
   * Leases and returns the jobs due at `nowMs` (every job not running now with `all`): each stays
   * stored, due again at `nowMs + leaseMs`, so a job whose run is cut short (the object evicted or
   * reset mid-job) runs again after the lease instead of being lost. `attempt` counts the runs of
   * the job since it was last finished (1 on the first run). Call `finishJob` after each run.
   */
  takeDueJobs(nowMs: number, leaseMs: number, all = false): { kind: ShopJobKind; ref: string; attempt: number }[] {
    return this.sql.all<{
      kind: ShopJobKind;
      ref: string;
      attempt: number;
    }>`UPDATE shop_job SET running = 1, due_at = ${nowMs + leaseMs}, attempt = attempt + 1
      WHERE due_at <= ${nowMs} OR (${all ? 1 : 0} = 1 AND running = 0) RETURNING kind, ref, attempt`;
  }
  /** Ends a job's run: removes it unless it was scheduled again while it ran. */
  finishJob(kind: ShopJobKind, ref: string): void {
    this.sql.run`DELETE FROM shop_job WHERE kind = ${kind} AND ref = ${ref} AND running = 1`;
  }
  /** Due time of the earliest job, or null. */
  nextJobAt(): number | null {
    return this.sql.one<{ at: number | null }>`SELECT MIN(due_at) AS at FROM shop_job`?.at ?? null;
  }
  /** Webhook events received, newest first (for the admin view). */
  webhookEvents(limit: number) {
    return this.sql.all<{ event_id: string; type: string; outcome: string; received_at: number }>`
      SELECT * FROM shop_webhook_event ORDER BY received_at DESC LIMIT ${limit}`;
  }
}

/** The fake provider's ledger in the Shop object's SQLite, with an outbox of webhook events to deliver. */
export class SqlProviderLedger implements ProviderLedger {
  private readonly sql: Sql;
  private readonly onEmit: (e: WebhookEvent) => void;

  /** @param onEmit called after each event is written to the outbox (to schedule its delivery) */
  constructor(storage: SqlStorage, onEmit: (e: WebhookEvent) => void = () => {}) {
    this.sql = new Sql(storage);
    this.onEmit = onEmit;
  }

  payment(paymentId: string): Payment | null {
    const row = this.sql.one<{ body: string }>`SELECT body FROM psp_payment WHERE payment_id = ${paymentId}`;
    return row ? (JSON.parse(row.body) as Payment) : null;
  }
  savePayment(p: Payment): void {
    this.sql
      .run`INSERT INTO psp_payment VALUES (${p.paymentId}, ${JSON.stringify(p)}) ON CONFLICT (payment_id) DO UPDATE SET body = excluded.body`;
  }
  operation(operationId: string): OperationRecord | null {
    const row = this.sql.one<{ body: string }>`SELECT body FROM psp_operation WHERE operation_id = ${operationId}`;
    return row ? (JSON.parse(row.body) as OperationRecord) : null;
  }
  saveOperation(o: OperationRecord): void {
    this.sql.run`INSERT INTO psp_operation VALUES (${o.operationId}, ${JSON.stringify(o)})`;
  }
  addMovement(m: Movement): void {
    this.sql.run`INSERT INTO psp_movement (body) VALUES (${JSON.stringify(m)})`;
  }
  movements(): Movement[] {
    return this.sql.all<{ body: string }>`SELECT body FROM psp_movement ORDER BY id`.map((r) => JSON.parse(r.body) as Movement);
  }
  emit(e: WebhookEvent): void {
    this.sql.run`INSERT INTO psp_outbox (event_id, body) VALUES (${e.id}, ${JSON.stringify(e)})`;
    this.onEmit(e);
  }
  payments(): Payment[] {
    return this.sql.all<{ body: string }>`SELECT body FROM psp_payment`.map((r) => JSON.parse(r.body) as Payment);
  }
  /** Webhook events not yet delivered, oldest first. */
  undelivered(limit = 50): { seq: number; event: WebhookEvent }[] {
    return this.sql.all<{
      seq: number;
      body: string;
    }>`SELECT seq, body FROM psp_outbox WHERE delivered = 0 ORDER BY seq LIMIT ${limit}`.map((r) => ({
      seq: r.seq,
      event: JSON.parse(r.body) as WebhookEvent,
    }));
  }
  markDelivered(seq: number): void {
    this.sql.run`UPDATE psp_outbox SET delivered = 1 WHERE seq = ${seq}`;
  }
}
