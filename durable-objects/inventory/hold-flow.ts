// A hold's whole path through the Inventory: the account ledger's reservation around the object's
// transaction (events with sections), then inside that one transaction the replay, sale, rate and
// `decideHold` checks, the allocation gate and the writes; for a transition, the state machine, the
// confirm checks and the ledger's settlement after it. Pure rules: decide-hold.ts, hold-policy.ts.
import type { InventoryConfig } from '../../contracts/event-config';
import type { HoldAnswer, HoldBatchItem, HoldChangeAnswer, HoldRequest, HoldView } from '../../contracts/inventory-answers';
import type { BatchOutcome } from '../../contracts/batch';
import type { ChannelHoldAction, ChannelHoldChangeAnswer } from '../../contracts/channel-answers';
import { holdIdFor } from '../../contracts/inventory-names';
import { DEFAULT_PAYMENT_GRACE_S } from '../../contracts/event-input';
import { RESERVATION_WINDOW_MS } from '../account-ledger/ledger-policy';
import { FixedWindowLimiter } from '../shared/fixed-window';
import type { AccountLimit } from './account-limit';
import type { Holder } from './allocation-policy';
import type { ChannelDesk } from './channel-desk';
import { checkConfirm, decideHold, newHold, unknownPlaces } from './decide-hold';
import { extensionView } from './hold-extension';
import { applyHoldAction, targetKey, validateHoldTarget, type HoldAction, type HoldTarget } from './hold-policy';
import type { PlanStore } from './plan-store';
import type { Actor, InventoryStore } from './store';
import type { WriteRun } from './write-run';

/** Hold attempts one account may make per HOLD_WINDOW_MS; more get `rate_limited` (429 at the edge). */
export const HOLDS_PER_WINDOW = 20;
const HOLD_WINDOW_MS = 10_000;

/** What the flow works with: the object's stores, its allocation gate, its write runs and the ledger (if any). */
export interface HoldFlowParts {
  plans: PlanStore;
  store: InventoryStore;
  /** The allocation gate every hold passes (channel-desk.ts `gate`). */
  channels: ChannelDesk;
  /** The object's writes: the sweep, the transaction(s), the after-write (write-run.ts). */
  writes: WriteRun;
  /** The ledger calls of an event with sections; null for an event whose limit is this object's own. */
  accountLimit: (config: InventoryConfig) => AccountLimit | null;
  /** The price of a granted hold: a returned seat costs its face value plus fee (resale-desk.ts `openSalePrice`). */
  price: (config: InventoryConfig, target: HoldTarget, grantedMinor: number) => number;
  /** The object's clock, epoch ms. */
  clock: () => number;
  /** A fresh uuid (the new hold's id, unless the ledger names one). */
  uuid: () => string;
}

/** Hold placement and transitions of one Inventory object, with the account ledger around them. */
export class HoldFlow {
  /** Hold attempts per account: HOLDS_PER_WINDOW per HOLD_WINDOW_MS (in memory, see FixedWindowLimiter). */
  private readonly limiter = new FixedWindowLimiter(HOLDS_PER_WINDOW, HOLD_WINDOW_MS);

  constructor(private readonly p: HoldFlowParts) {}

  /**
   * Places a hold for `holder` (the public or a sales channel) of 1-6 numbered seats, or 1-6 places
   * of a tier, for an account: all or nothing, until `now + holdTtl`. Expired holds are swept first,
   * so their seats count as available. The checks and the writes (hold, seats or tier counter,
   * idempotency record, audit, deltas) are one synchronous SQLite transaction: nothing interleaves,
   * and a crash leaves all or none of it. Retrying with the same idempotency key and request returns
   * the first success (even after the sale closed); the same key with another request is refused. A
   * refused request stores nothing.
   *
   * The target is validated first; then, in an event with sections, reserves the account's places in its ledger first (a replay needs no
   * ledger call); the transaction is `placeNow`. A reservation older than the ledger's
   * RESERVATION_WINDOW_MS when the transaction runs is refused `retry_later` (the ledger may have
   * dropped it), so the ledger never undercounts. Seats or a tier the object does not have are
   * refused before the ledger is asked (`unknownPlaces`), so they never count against the account.
   * @param account the admission token's subject (a channel's customer: see `channelHold`)
   * @param idempotencyKey client-chosen key, unique per intended hold, scoped to the account
   * @returns the hold answer; `event_not_found` without a plan, `invalid` for a bad target (nothing stored)
   */
  async place(holder: Holder, account: string, request: HoldRequest, idempotencyKey: string): Promise<HoldAnswer> {
    const config = this.p.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const valid = validateHoldTarget(request);
    if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
    const place = (holdId: string, reservedAtMs: number | null) =>
      this.p.writes.one((now): HoldAnswer =>
        reservedAtMs !== null && now > reservedAtMs + RESERVATION_WINDOW_MS
          ? { kind: 'retry_later', retryAfterS: 1 }
          : this.placeNow(holder, account, valid.target, idempotencyKey, now, holdId),
      );
    const ledger = this.p.accountLimit(config);
    const newId = holdIdFor(config.section ?? null, this.p.uuid());
    if (!ledger || this.p.store.holdByKey(account, idempotencyKey)) return place(newId, null);
    // Seats (or a tier) this object does not have could never be held: refused before the ledger
    // counts them (concurrent ones answered ACCOUNT_LIMIT or IDEMPOTENCY_KEY_REUSED).
    const unknown = unknownPlaces(valid.target, this.p.store.availability(valid.target));
    if (unknown) return unknown;
    return ledger.placeReserved({ account, idempotencyKey, target: valid.target, config, proposedHoldId: newId }, place);
  }

  /**
   * Places a coalesced batch of public holds (`Inventory.holdMany`): each item is decided exactly as
   * `place` decides it, one at a time in the items' order, each in its own transaction (a later
   * item sees what an earlier one wrote: the same seats twice give one hold and one `unavailable`,
   * the same key twice gives the first result replayed), and the batch shares one sweep, one commit
   * and one after-write. In an event with sections every hold awaits its own ledger reservation, so
   * the items are placed as that many concurrent `hold` calls would be.
   * @returns one outcome per item, in order: its answer, or the error its own decision threw (it stored nothing)
   */
  async placeMany(items: readonly HoldBatchItem[]): Promise<BatchOutcome<HoldAnswer>[]> {
    const config = this.p.plans.plan();
    if (!config) return items.map(() => ({ ok: true, value: { kind: 'event_not_found' } }));
    const holder: Holder = { kind: 'public' };
    if (this.p.accountLimit(config)) {
      return Promise.all(
        items.map((item) =>
          this.place(holder, item.account, item.request, item.idempotencyKey).then(
            (answer): BatchOutcome<HoldAnswer> => ({ ok: true, value: answer }),
            (err: unknown): BatchOutcome<HoldAnswer> => ({ ok: false, error: err instanceof Error ? err.message : String(err) }),
          ),
        ),
      );
    }
    return this.p.writes.each(
      items.map((item) => (now: number): HoldAnswer => {
        const valid = validateHoldTarget(item.request);
        if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
        const holdId = holdIdFor(config.section ?? null, this.p.uuid());
        return this.placeNow(holder, item.account, valid.target, item.idempotencyKey, now, holdId);
      }),
    );
  }

  /**
   * Applies `action` to hold `holdId` (`changeNow`). Across sections the per-account limit at
   * confirm is the ledger's (asked first; the transaction still checks this object's own), and the
   * ledger learns a sale or a release after it.
   */
  async change(holdId: string, action: HoldAction, actor: Actor, reason: string): Promise<HoldChangeAnswer> {
    const config = this.p.plans.plan();
    const ledger = config && this.p.accountLimit(config);
    if (ledger && action.kind === 'confirm') {
      const refused = await ledger.refuseConfirm(this.p.store.holdRow(holdId), config.maxSeatsPerAccount, () =>
        this.p.store.view(holdId, this.p.clock())!,
      );
      if (refused) return refused;
    }
    const answer = await this.p.writes.one((now) => this.changeNow(holdId, action, actor, reason, now));
    if (ledger && answer.kind === 'ok') await ledger.settleView(answer.hold);
    return answer;
  }

  /**
   * The origin starts payment: HELD -> PAYMENT_PENDING, with the deadline moved once to
   * `now + paymentGrace`. Past it the hold NEEDS_RECONCILIATION and its seats stay out of sale.
   */
  startPayment(holdId: string, account: string | null): Promise<HoldChangeAnswer> {
    const graceMs = this.p.plans.plan()?.paymentGraceMs ?? DEFAULT_PAYMENT_GRACE_S * 1000;
    return this.change(holdId, { kind: 'payment_pending', account, graceMs }, 'origin', 'payment started');
  }

  /**
   * Sells the hold to `orderId` after the origin authorized `amountMinor`: from HELD (unexpired),
   * PAYMENT_PENDING or NEEDS_RECONCILIATION. Re-checks the price and the per-account limit.
   * Confirming again with the same order id returns the same result.
   */
  confirm(holdId: string, orderId: string, amountMinor: number, account: string | null): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'confirm', orderId, amountMinor, account }, 'origin', `confirmed for order ${orderId}`);
  }

  /**
   * Releases a hold and frees its seats. A visitor may release only a HELD hold of theirs; the
   * origin (`byOrigin`) may also release one whose payment is pending or needs reconciliation.
   * Releasing a released hold again is a no-op.
   */
  release(holdId: string, account: string | null, byOrigin: boolean): Promise<HoldChangeAnswer> {
    return this.change(holdId, { kind: 'release', account, byOrigin }, byOrigin ? 'origin' : 'visitor', 'released');
  }

  /**
   * A sales channel's hold (`place` for the channel, under the same rules: all or nothing,
   * idempotency, the per-account limit for `account` within the channel), of seats or places of its
   * live allocations only; the audit log names `channel:<id>`. Its customer's account is scoped to the
   * channel, so the per-account limit never mixes with visitors' or other channels'.
   */
  channelHold(channelId: string, account: string, request: HoldRequest, idempotencyKey: string): Promise<HoldAnswer> {
    return this.place({ kind: 'channel', channelId }, `channel/${channelId}/${account}`, request, idempotencyKey);
  }

  /** A sales channel reads, confirms or releases one of its own holds (another's answers `not_found`); the audit names `channel:<id>`. */
  async channelAct(channelId: string, holdId: string, action: ChannelHoldAction): Promise<ChannelHoldChangeAnswer> {
    if (this.p.store.holdRow(holdId)?.channel_id !== channelId) return { kind: 'not_found' };
    const actor: Actor = `channel:${channelId}`;
    if (action.kind === 'get') {
      const hold = this.p.store.view(holdId, this.p.clock());
      return hold ? { kind: 'ok', hold } : { kind: 'not_found' };
    }
    if (action.kind === 'release') return this.change(holdId, { kind: 'release', account: null, byOrigin: true }, actor, 'released');
    const confirm: HoldAction = { kind: 'confirm', orderId: action.orderId, amountMinor: action.amountMinor, account: null };
    return this.change(holdId, confirm, actor, `confirmed for order ${action.orderId}`);
  }

  /**
   * The transaction of `place` (inside the write run, after the sweep), for a validated target: a
   * replay of the same idempotency key answers the hold the first call made, with its status now
   * (HELD, PAYMENT_PENDING, SOLD, RELEASED or EXPIRED); then the sale must be open, the account
   * within its rate, `decideHold` must grant and the allocation gate let the holder through
   * (`gateHold`). A refusal writes nothing.
   * @param holdId the new hold's id (it names the object's section; in an event with sections the
   *   account ledger chose it)
   */
  private placeNow(holder: Holder, account: string, target: HoldTarget, idempotencyKey: string, nowMs: number, holdId: string): HoldAnswer {
    const config = this.p.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const earlier = this.p.store.holdByKey(account, idempotencyKey);
    if (earlier) {
      // The same hold as the first answer, as it is now (a replay after a release or
      // the TTL said HELD, so a client retrying after a lost answer showed seats it no longer had).
      return earlier.request === targetKey(target)
        ? {
            kind: 'held',
            hold: this.p.store.view(earlier.hold_id, nowMs) ?? (JSON.parse(earlier.first_result) as HoldView),
            replayed: true,
            paymentGraceMs: config.paymentGraceMs,
            ...(config.holdExtension ? { extension: extensionView(config.holdExtension, earlier.extensions, earlier.created_at) } : {}),
          }
        : { kind: 'idempotency_conflict' };
    }
    if (this.p.plans.head()!.salesClosed) return { kind: 'sales_closed' };
    // One account cannot hammer the seats: counted here, where the request already is, at no
    // cost; a retry of a hold already made (above) replays whatever the count.
    if (!this.limiter.take(account, nowMs)) return { kind: 'rate_limited', retryAfterS: HOLD_WINDOW_MS / 1000 };
    const decision = decideHold({
      target,
      availability: this.p.store.availability(target),
      owned: this.p.store.ownedBy(account, nowMs, null),
      rules: config,
      nowMs,
    });
    if (decision.kind !== 'grant') return decision;
    decision.priceMinor = this.p.price(config, target, decision.priceMinor);
    const gate = this.p.channels.gate(holder, target, nowMs);
    if (!gate.ok) return gate.refusal;
    const hold = newHold(decision, target, account, holdId);
    const channelId = holder.kind === 'channel' ? holder.channelId : null;
    const actor: Actor = channelId ? `channel:${channelId}` : 'visitor';
    this.p.store.insertHold(hold, target, idempotencyKey, nowMs, { actor, channelId, allocationId: gate.allocationId });
    return {
      kind: 'held',
      hold,
      replayed: false,
      paymentGraceMs: config.paymentGraceMs,
      // Only where the event allows extensions: the sale page offers "more time" from the start.
      ...(config.holdExtension ? { extension: extensionView(config.holdExtension, 0, nowMs) } : {}),
    };
  }

  /** The transaction of `change`: applies `action` if the state machine (`applyHoldAction`) and, for a confirm, `checkConfirm` allow it. */
  private changeNow(holdId: string, action: HoldAction, actor: Actor, reason: string, nowMs: number): HoldChangeAnswer {
    const row = this.p.store.holdRow(holdId);
    if (!row) return { kind: 'not_found' };
    const refused = (code: Extract<HoldChangeAnswer, { kind: 'refused' }>['code'], detail: string): HoldChangeAnswer => ({
      kind: 'refused',
      code,
      detail,
      hold: this.p.store.view(holdId, nowMs)!,
    });
    const t = applyHoldAction(
      { account: row.account, status: row.status, expiresAtMs: row.expires_at, orderId: row.order_id, priceMinor: row.price_minor },
      action,
      nowMs,
    );
    if (!t.ok) return refused(t.code, t.detail);
    if (t.noop) return { kind: 'ok', hold: this.p.store.view(holdId, nowMs)! };
    if (action.kind === 'confirm') {
      const check = checkConfirm({
        orderUsedElsewhere: this.p.store.orderUsedElsewhere(action.orderId, holdId),
        ownedOther: this.p.store.ownedBy(row.account, nowMs, holdId),
        quantity: row.quantity,
        limit: this.p.plans.plan()!.maxSeatsPerAccount,
      });
      if (!check.ok) return refused(check.code, check.detail);
    }
    this.p.store.applyTransition(row, t.status, t.expiresAtMs, action.kind === 'confirm' ? action.orderId : null, nowMs, actor, reason);
    return { kind: 'ok', hold: this.p.store.view(holdId, nowMs)! };
  }
}
