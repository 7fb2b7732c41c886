// Writes to the shop's payment records: provider answers, snapshots and events applied through the
// payment state machine by compare-and-set, with the jobs a new state needs (expiry, resolve).
import type { CheckoutDeps } from './order';
import type { ProviderAnswer, WebhookEvent } from './payment-provider';
import { catchUp, transition, type Payment, type PaymentEvent, type PaymentOp, type ProviderSnapshot } from './payment-state';

/** The saga's payment writes. Every write re-reads, decides and compares-and-sets; a lost race decides again. */
export class PaymentRecords {
  private readonly d: Pick<CheckoutDeps, 'store' | 'schedule' | 'clock' | 'timing'>;
  constructor(deps: Pick<CheckoutDeps, 'store' | 'schedule' | 'clock' | 'timing'>) {
    this.d = deps;
  }

  /** Applies a provider answer to a call on `paymentId`; true when the payment changed. */
  applyAnswer(paymentId: string, op: PaymentOp, a: ProviderAnswer): boolean {
    if (a.kind === 'ok') return this.catchUpWith(paymentId, a.payment, true);
    if (a.kind === 'no_answer') {
      const changed = this.updatePayment(paymentId, () => ({ kind: 'no_answer', op }));
      this.d.schedule('resolve', paymentId, this.d.clock() + this.d.timing.resolveAfterMs);
      return changed;
    }
    if (a.payment) return this.catchUpWith(paymentId, a.payment, true);
    // A refusal that processed nothing (technical error): an authorization fails, other calls are retried.
    if (op === 'authorize') return this.updatePayment(paymentId, () => ({ kind: 'declined', reason: `provider error: ${a.code}` }));
    return false;
  }

  /** Brings the stored payment up to a provider snapshot; true when it changed. */
  catchUpWith(paymentId: string, snap: ProviderSnapshot, authoritative: boolean): boolean {
    return this.casLoop(paymentId, (p) => {
      const c = catchUp(p, snap, authoritative);
      return c.ok && c.facts.length > 0 ? c.next : null;
    });
  }

  /** Applies one event to the stored payment if the state machine allows it; true when it changed. */
  updatePayment(paymentId: string, event: (p: Payment) => PaymentEvent): boolean {
    return this.casLoop(paymentId, (p) => {
      const t = transition(p, event(p));
      return t.ok ? t.next : null;
    });
  }

  /** Read, decide, compare-and-set; a lost race re-reads and decides again. */
  casLoop(paymentId: string, decide: (p: Payment) => Payment | null): boolean {
    for (let i = 0; i < 4; i++) {
      const p = this.d.store.payment(paymentId);
      if (!p) return false;
      const next = decide(p);
      if (!next) return false;
      if (this.writePayment(p, next)) return true;
    }
    return false;
  }

  /** Writes `next` over `p` by compare-and-set and schedules what the new state needs; false when `p` is stale. */
  writePayment(p: Payment, next: Payment): boolean {
    if (!this.d.store.casPayment(next, p)) return false;
    if (next.state === 'AUTHORIZED' && p.state !== 'AUTHORIZED')
      this.d.schedule('expire_authorization', next.paymentId, this.d.clock() + this.d.timing.authorizationWindowMs);
    if (next.state === 'UNKNOWN') this.d.schedule('resolve', next.paymentId, this.d.clock() + this.d.timing.resolveAfterMs);
    return true;
  }

  /**
   * Applies a verified webhook event in one transaction with its deduplication record: only the
   * legal transitions that bring the payment up to the event's snapshot.
   * @returns `applied`, `stale` (nothing new), `duplicate`, `unknown_payment` or `refused` (conflicts with the payment)
   */
  applyWebhook(event: WebhookEvent): 'applied' | 'stale' | 'duplicate' | 'unknown_payment' | 'refused' {
    const { store } = this.d;
    return store.atomically(() => {
      const p = store.payment(event.payment.paymentId);
      if (!p) return store.rememberWebhook(event.id, event.type, 'unknown_payment') ? 'unknown_payment' : 'duplicate';
      const c = catchUp(p, event.payment, false);
      const result = !c.ok ? 'refused' : c.facts.length === 0 ? 'stale' : 'applied';
      if (!store.rememberWebhook(event.id, event.type, result)) return 'duplicate';
      if (c.ok && c.facts.length > 0) this.writePayment(p, c.next);
      return result;
    });
  }
}
