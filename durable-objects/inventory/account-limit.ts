// The Inventory's side of the account ledger: in an event with sections, each hold is counted
// against its account in the AccountLedger before it is placed, and the ledger is told how it ended.
import { ledgerObjectName } from '../../contracts/inventory-names';
import type { InventoryConfig } from '../../contracts/event-config';
import type { HoldAnswer, HoldChangeAnswer, HoldView } from '../../contracts/inventory-answers';
import type { HoldRow } from './store';
import type { HoldSettlement, ReserveAnswer } from '../../contracts/ledger-answers';
import { targetKey, targetQuantity, type HoldTarget } from './hold-policy';

/** The ledger calls of one Inventory object (its event id and object name fixed). */
export class AccountLimit {
  constructor(
    private readonly ledgers: Env['ACCOUNT_LEDGER'],
    private readonly eventId: string,
    private readonly objectName: string,
  ) {}

  /**
   * Reserves the target's places for `account` before the hold is placed (the ledger refuses past
   * `limit`). The ledger names the hold id, so a retry with the same key gets the same one.
   * @returns `reserved` with the hold id and the ledger's time, the refusal as a hold answer, or
   *   null when the ledger could not be reached (nothing is placed; a reservation it may have
   *   written lapses when it reconciles)
   */
  private async reserve(
    account: string,
    idempotencyKey: string,
    target: HoldTarget,
    rules: { limit: number; holdTtlMs: number; proposedHoldId: string },
  ): Promise<
    Extract<ReserveAnswer, { kind: 'reserved' }> | Extract<HoldAnswer, { kind: 'account_limit' | 'idempotency_conflict' }> | null
  > {
    const call = this.ledger(account).reserve({
      account,
      idempotencyKey,
      request: targetKey(target),
      quantity: targetQuantity(target),
      limit: rules.limit,
      holdTtlMs: rules.holdTtlMs,
      object: this.objectName,
      proposedHoldId: rules.proposedHoldId,
    });
    try {
      return await call;
    } catch (err) {
      console.warn('account ledger not reached; the hold is refused for a retry:', err instanceof Error ? err.message : err);
      return null;
    }
  }

  /**
   * Places a hold under a ledger reservation: reserve (refused past the limit, or when the ledger
   * cannot be reached: `retry_later`), then `place` under the hold id the ledger named, then give
   * the claim back when this request did not place that hold.
   * @param place runs the object's transaction; `reservedAtMs` is the ledger's time of the reservation
   */
  async placeReserved(
    req: { account: string; idempotencyKey: string; target: HoldTarget; config: InventoryConfig; proposedHoldId: string },
    place: (holdId: string, reservedAtMs: number) => Promise<HoldAnswer>,
  ): Promise<HoldAnswer> {
    const r = await this.reserve(req.account, req.idempotencyKey, req.target, {
      limit: req.config.maxSeatsPerAccount,
      holdTtlMs: req.config.holdTtlMs,
      proposedHoldId: req.proposedHoldId,
    });
    if (r === null) return { kind: 'retry_later', retryAfterS: 1 };
    if (r.kind !== 'reserved') return r;
    const answer = await place(r.holdId, r.reservedAtMs);
    if (!(answer.kind === 'held' && answer.hold.holdId === r.holdId)) await this.settle(req.account, r.holdId, 'unplaced');
    return answer;
  }

  /**
   * At confirm: refuses (ACCOUNT_LIMIT) when the hold's account may not own its places under
   * `limit` now, by every entry of the account in the ledger (the limit may have been lowered).
   * A sold hold (a repeat) or an unknown one is left to the object's own rules (null).
   */
  async refuseConfirm(
    hold: Pick<HoldRow, 'hold_id' | 'account' | 'quantity' | 'status'> | null,
    limit: number,
    view: () => HoldView,
  ): Promise<Extract<HoldChangeAnswer, { kind: 'refused' }> | null> {
    if (!hold || hold.status === 'SOLD') return null;
    if (await this.ledger(hold.account).confirmAllowed(hold.account, hold.hold_id, hold.quantity, limit)) return null;
    return { kind: 'refused', code: 'ACCOUNT_LIMIT', detail: `at most ${limit} seats per account`, hold: view() };
  }

  /** After a change: a sold hold is owned for good, a released or expired one frees its places (see `settle`). */
  async settleView(hold: HoldView): Promise<void> {
    if (hold.status === 'SOLD') await this.settle(hold.account, hold.holdId, 'sold');
    else if (hold.status === 'RELEASED' || hold.status === 'EXPIRED') await this.settle(hold.account, hold.holdId, 'gone');
  }

  /**
   * Tells the ledger how a hold ended. Best effort: a lost call only keeps the places counted until
   * the ledger reconciles the entry with this object (after the hold TTL), never loosens the limit.
   */
  async settle(account: string, holdId: string, how: HoldSettlement): Promise<void> {
    try {
      await this.ledger(account).settle(holdId, how);
    } catch (err) {
      console.warn('ledger settle not delivered; the ledger reconciles it later:', err instanceof Error ? err.message : err);
    }
  }

  private ledger(account: string) {
    return this.ledgers.getByName(ledgerObjectName(this.eventId, account));
  }
}
