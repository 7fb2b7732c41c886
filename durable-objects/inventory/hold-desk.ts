// The Inventory's hold work inside one transaction: place a hold (for the public or a sales channel)
// and apply a transition, each a sequence of reads, pure decisions and writes with nothing between.
import type { HoldAnswer, HoldChangeAnswer, HoldView } from '../../contracts/inventory-answers';
import { FixedWindowLimiter } from '../shared/fixed-window';
import type { Holder } from './allocation-policy';
import type { ChannelDesk } from './channel-desk';
import { checkConfirm, decideHold, newHold } from './decide-hold';
import { applyHoldAction, targetKey, type HoldAction, type HoldTarget } from './hold-policy';
import { extensionView } from './hold-extension';
import type { PlanStore } from './plan-store';
import type { Actor, InventoryStore } from './store';

/** Hold attempts one account may make per HOLD_WINDOW_MS; more get `rate_limited` (429 at the edge). */
export const HOLDS_PER_WINDOW = 20;
const HOLD_WINDOW_MS = 10_000;

/** Places holds and applies transitions. Every method runs inside the caller's `transactionSync`, after the sweep. */
export class HoldDesk {
  /** Hold attempts per account: HOLDS_PER_WINDOW per HOLD_WINDOW_MS (in memory, see FixedWindowLimiter). */
  private readonly limiter = new FixedWindowLimiter(HOLDS_PER_WINDOW, HOLD_WINDOW_MS);

  constructor(
    private readonly store: InventoryStore,
    private readonly plans: PlanStore,
    private readonly channels: ChannelDesk,
  ) {}

  /**
   * Places a hold of a validated target: a replay of the same idempotency key answers the hold
   * the first call made, with its status now (HELD, PAYMENT_PENDING, SOLD, RELEASED or EXPIRED); then the sale must be open, the account within its rate, `decideHold` must grant and
   * the allocation gate let the holder through (`gateHold`). A refusal writes nothing.
   * @param placement.holdId the new hold's id (it names the object's section; in an event with
   *   sections the account ledger chose it)
   */
  place(
    holder: Holder,
    account: string,
    target: HoldTarget,
    idempotencyKey: string,
    nowMs: number,
    placement: { holdId: string },
  ): HoldAnswer {
    const config = this.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const earlier = this.store.holdByKey(account, idempotencyKey);
    if (earlier) {
      // The same hold as the first answer, as it is now (a replay after a release or
      // the TTL said HELD, so a client retrying after a lost answer showed seats it no longer had).
      return earlier.request === targetKey(target)
        ? {
            kind: 'held',
            hold: this.store.view(earlier.hold_id, nowMs) ?? (JSON.parse(earlier.first_result) as HoldView),
            replayed: true,
            paymentGraceMs: config.paymentGraceMs,
            ...(config.holdExtension ? { extension: extensionView(config.holdExtension, earlier.extensions, earlier.created_at) } : {}),
          }
        : { kind: 'idempotency_conflict' };
    }
    if (this.plans.head()!.salesClosed) return { kind: 'sales_closed' };
    // One account cannot hammer the seats: counted here, where the request already is, at no
    // cost; a retry of a hold already made (above) replays whatever the count.
    if (!this.limiter.take(account, nowMs)) return { kind: 'rate_limited', retryAfterS: HOLD_WINDOW_MS / 1000 };
    const decision = decideHold({
      target,
      availability: this.store.availability(target),
      owned: this.store.ownedBy(account, nowMs, null),
      rules: config,
      nowMs,
    });
    if (decision.kind !== 'grant') return decision;
    const gate = this.channels.gate(holder, target, nowMs);
    if (!gate.ok) return gate.refusal;
    const hold = newHold(decision, target, account, placement.holdId);
    const channelId = holder.kind === 'channel' ? holder.channelId : null;
    const actor: Actor = channelId ? `channel:${channelId}` : 'visitor';
    this.store.insertHold(hold, target, idempotencyKey, nowMs, { actor, channelId, allocationId: gate.allocationId });
    return {
      kind: 'held',
      hold,
      replayed: false,
      paymentGraceMs: config.paymentGraceMs,
      // Only where the event allows extensions: the sale page offers "more time" from the start.
      ...(config.holdExtension ? { extension: extensionView(config.holdExtension, 0, nowMs) } : {}),
    };
  }

  /** Applies `action` to a hold if the state machine (`applyHoldAction`) and, for a confirm, `checkConfirm` allow it. */
  change(holdId: string, action: HoldAction, actor: Actor, reason: string, nowMs: number): HoldChangeAnswer {
    const row = this.store.holdRow(holdId);
    if (!row) return { kind: 'not_found' };
    const refused = (code: Extract<HoldChangeAnswer, { kind: 'refused' }>['code'], detail: string): HoldChangeAnswer => ({
      kind: 'refused',
      code,
      detail,
      hold: this.store.view(holdId, nowMs)!,
    });
    const t = applyHoldAction(
      { account: row.account, status: row.status, expiresAtMs: row.expires_at, orderId: row.order_id, priceMinor: row.price_minor },
      action,
      nowMs,
    );
    if (!t.ok) return refused(t.code, t.detail);
    if (t.noop) return { kind: 'ok', hold: this.store.view(holdId, nowMs)! };
    if (action.kind === 'confirm') {
      const check = checkConfirm({
        orderUsedElsewhere: this.store.orderUsedElsewhere(action.orderId, holdId),
        ownedOther: this.store.ownedBy(row.account, nowMs, holdId),
        quantity: row.quantity,
        limit: this.plans.plan()!.maxSeatsPerAccount,
      });
      if (!check.ok) return refused(check.code, check.detail);
    }
    this.store.applyTransition(row, t.status, t.expiresAtMs, action.kind === 'confirm' ? action.orderId : null, nowMs, actor, reason);
    return { kind: 'ok', hold: this.store.view(holdId, nowMs)! };
  }
}
