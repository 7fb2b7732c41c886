// The Inventory's hold calls end to end: the account ledger's reservation around the object's
// transaction (events with sections), the ledger's check at confirm and its settlement after a change.
import type { InventoryConfig } from '../../contracts/event-config';
import type { HoldAnswer, HoldBatchItem, HoldChangeAnswer, HoldRequest } from '../../contracts/inventory-answers';
import type { BatchOutcome } from '../../contracts/batch';
import type { ChannelHoldAction, ChannelHoldChangeAnswer } from '../../contracts/channel-answers';
import { holdIdFor } from '../../contracts/inventory-names';
import { RESERVATION_WINDOW_MS } from '../account-ledger/ledger-policy';
import type { AccountLimit } from './account-limit';
import type { Holder } from './allocation-policy';
import { unknownPlaces } from './decide-hold';
import type { HoldDesk } from './hold-desk';
import { validateHoldTarget, type HoldAction } from './hold-policy';
import type { PlanStore } from './plan-store';
import type { Actor, InventoryStore } from './store';

/** What the flow needs of its object: stores, the hold desk, the ledger (if any) and one write transaction. */
export interface HoldFlowPorts {
  plans: PlanStore;
  store: InventoryStore;
  holds: HoldDesk;
  /** The ledger calls of an event with sections; null for an event whose limit is this object's own. */
  accountLimit: (config: InventoryConfig) => AccountLimit | null;
  /** Runs `decide` at the object's clock inside one transaction, after the sweep (`Inventory.write`). */
  write: <T>(decide: (nowMs: number) => T) => Promise<T>;
  /** Runs each `decide` in its own transaction, in order, after one sweep, with one after-write (`Inventory.writeEach`). */
  writeEach: (decides: readonly ((nowMs: number) => HoldAnswer)[]) => Promise<BatchOutcome<HoldAnswer>[]>;
  /** The object's clock, epoch ms. */
  clock: () => number;
  /** A fresh uuid (the new hold's id, unless the ledger names one). */
  uuid: () => string;
}

/** Hold placement and transitions of one Inventory object, with the account ledger around them. */
export class HoldFlow {
  constructor(private readonly p: HoldFlowPorts) {}

  /**
   * Places a hold for `holder` (the public or a sales channel): validates the target, then, in an
   * event with sections, reserves the account's places in its ledger first (a replay needs no
   * ledger call); the transaction is `HoldDesk.place`. A reservation older than the ledger's
   * RESERVATION_WINDOW_MS when the transaction runs is refused `retry_later` (the ledger may have
   * dropped it), so the ledger never undercounts. Seats or a tier the object does not have are
   * refused before the ledger is asked (`unknownPlaces`), so they never count against the account.
   * @returns the hold answer; `event_not_found` without a plan, `invalid` for a bad target (nothing stored)
   */
  async place(holder: Holder, account: string, request: HoldRequest, idempotencyKey: string): Promise<HoldAnswer> {
    const config = this.p.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const valid = validateHoldTarget(request);
    if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
    const place = (holdId: string, reservedAtMs: number | null) =>
      this.p.write((now): HoldAnswer =>
        reservedAtMs !== null && now > reservedAtMs + RESERVATION_WINDOW_MS
          ? { kind: 'retry_later', retryAfterS: 1 }
          : this.p.holds.place(holder, account, valid.target, idempotencyKey, now, { holdId }),
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
   * @returns one outcome per item, in order: its answer, or the error its own decision threw
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
    return this.p.writeEach(
      items.map((item) => (now: number): HoldAnswer => {
        const valid = validateHoldTarget(item.request);
        if (!valid.ok) return { kind: 'invalid', detail: valid.detail };
        const holdId = holdIdFor(config.section ?? null, this.p.uuid());
        return this.p.holds.place(holder, item.account, valid.target, item.idempotencyKey, now, { holdId });
      }),
    );
  }

  /**
   * Applies `action` to hold `holdId` (`HoldDesk.change`). Across sections the per-account limit at
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
    const answer = await this.p.write((now) => this.p.holds.change(holdId, action, actor, reason, now));
    if (ledger && answer.kind === 'ok') await ledger.settleView(answer.hold);
    return answer;
  }

  /**
   * A sales channel's hold (`place` for the channel): its customer's account is scoped to the
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
}
