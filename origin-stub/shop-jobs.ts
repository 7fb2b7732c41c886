// The Shop's jobs: scheduling on the object's alarm, leased runs, and what each job does.
import type { CheckoutEngine } from './checkout';
import { DEFAULT_TIMING } from './order';
import type { SqlShopStore, ShopJobKind } from './shop-store';

/** Reconciliation runs this often while any order or payment is still open, ms. */
export const RECONCILE_INTERVAL_MS = 60_000;
/** A job that is running is due again after this long, ms (so a run cut short by an eviction is retried, not lost). */
const JOB_LEASE_MS = 60_000;

/** What the jobs act on. */
export interface JobDeps {
  store: SqlShopStore;
  checkout: CheckoutEngine;
  storage: DurableObjectStorage;
  /** False when jobs run only through the operator API (`JOB_ALARMS = "0"`: tests decide when they run). */
  alarms: boolean;
  deliverWebhooks: () => Promise<void>;
  reportHealth: () => Promise<void>;
  clock: () => number;
}

/** Schedules and runs the Shop's jobs over its job table and alarm. */
export class ShopJobs {
  private readonly d: JobDeps;
  constructor(deps: JobDeps) {
    this.d = deps;
  }

  /** Schedules a job (an earlier time already set for it wins) and keeps the alarm at the earliest job. */
  schedule(kind: ShopJobKind, ref: string, atMs: number): void {
    this.d.store.schedule(kind, ref, atMs);
    void this.armAlarm();
  }

  /** Like `schedule`, but leaves an already scheduled job alone (the health report while traffic flows). */
  scheduleUnlessPending(kind: ShopJobKind, ref: string, atMs: number): void {
    const pending = this.d.storage.sql.exec('SELECT 1 FROM shop_job WHERE kind = ? AND ref = ?', kind, ref).toArray().length > 0;
    if (!pending) this.schedule(kind, ref, atMs);
  }

  private async armAlarm(): Promise<void> {
    if (!this.d.alarms) return;
    const next = this.d.store.nextJobAt();
    if (next === null) return;
    const current = await this.d.storage.getAlarm();
    if (current === null || current > next) await this.d.storage.setAlarm(next);
  }

  /**
   * Runs due jobs (every job with `all`); a failing job is retried later. Jobs are leased, not
   * removed, while they run (`takeDueJobs`), so one cut short by an eviction runs again.
   * @returns how many ran
   */
  async run(all: boolean): Promise<number> {
    const jobs = this.d.store.takeDueJobs(this.d.clock(), JOB_LEASE_MS, all);
    await this.armAlarm();
    for (const job of jobs) {
      try {
        await this.runOne(job.kind, job.ref, job.attempt - 1);
      } catch (err) {
        console.warn(`job ${job.kind} ${job.ref} failed; retried:`, err instanceof Error ? err.message : err);
        this.d.store.schedule(job.kind, job.ref, this.d.clock() + DEFAULT_TIMING.retryAfterMs);
      }
      this.d.store.finishJob(job.kind, job.ref);
    }
    await this.armAlarm();
    return jobs.length;
  }

  /** Runs one job; `attempt` counts its earlier runs since it last finished (the resolve job's backoff grows with it). */
  private async runOne(kind: ShopJobKind, ref: string, attempt: number): Promise<void> {
    const { checkout, store } = this.d;
    switch (kind) {
      case 'advance':
        return checkout.advance(ref);
      case 'resolve':
        return checkout.resolve(ref, attempt);
      case 'expire_authorization':
        return checkout.expireAuthorization(ref);
      case 'deliver_webhooks':
        return this.d.deliverWebhooks();
      case 'reconcile': {
        const report = await checkout.reconcile();
        if (report.differences.length > 0)
          console.warn(`reconciliation: ${report.differences.length} differences`, JSON.stringify(report.differences));
        const open = store.orders().some((o) => o.state === 'INITIATED' || o.state === 'CANCELLING');
        if (open) store.schedule('reconcile', '', this.d.clock() + RECONCILE_INTERVAL_MS);
        return;
      }
      case 'health':
        return this.d.reportHealth();
    }
  }
}
