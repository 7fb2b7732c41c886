// The Inventory's hold extensions inside one transaction: read the hold and any earlier extension
// under the same key, ask the pure rule (hold-extension.ts), write the new deadline with its audit line.
import type { HoldExtendAnswer } from '../../contracts/inventory-answers';
import { decideExtension, extensionView } from './hold-extension';
import type { PlanStore } from './plan-store';
import type { Actor, InventoryStore } from './store';

/** Extends holds. `extend` runs inside the caller's `transactionSync`, after the sweep. */
export class ExtensionDesk {
  constructor(
    private readonly store: InventoryStore,
    private readonly plans: PlanStore,
  ) {}

  /**
   * Gives hold `holdId` more time if `decideExtension` allows it: the hold's deadline, its seats'
   * deadline, its extension count, the extension's idempotency record and an audit line, all in the
   * caller's transaction. A replay or a refusal writes nothing. The seat map and the change feed do
   * not change: a seat stays HELD by the same hold, only later.
   * @param account the buyer (null: the origin acting without naming an account)
   * @param idempotencyKey chosen by the caller per intended extension, scoped to the hold
   * @param nowMs the object's clock, epoch ms
   * @returns `extended` (`replayed` for a key used before), `refused` with its code, or `not_found`
   */
  extend(holdId: string, account: string | null, idempotencyKey: string, actor: Actor, nowMs: number): HoldExtendAnswer {
    const row = this.store.holdRow(holdId);
    const config = this.plans.plan();
    if (!row || !config) return { kind: 'not_found' };
    const rules = config.holdExtension ?? null;
    const decision = decideExtension(
      {
        account: row.account,
        status: row.status,
        expiresAtMs: row.expires_at,
        createdAtMs: row.created_at,
        extensions: row.extensions,
        replayOfMs: this.store.extensionReplay(holdId, idempotencyKey),
      },
      account,
      rules,
      nowMs,
    );
    const view = (used: number) => extensionView(rules, used, row.created_at);
    const extended = (used: number, replayed: boolean): HoldExtendAnswer => ({
      kind: 'extended',
      hold: this.store.view(holdId, nowMs)!,
      extension: view(used),
      replayed,
      paymentGraceMs: config.paymentGraceMs,
    });
    switch (decision.kind) {
      case 'replay':
        return extended(row.extensions, true);
      case 'refused':
        return { ...decision, hold: this.store.view(holdId, nowMs)!, extension: view(row.extensions) };
      case 'extend':
        this.store.extendHold(row, decision.expiresAtMs, idempotencyKey, nowMs);
        this.store.audit(
          nowMs,
          holdId,
          'HELD',
          'HELD',
          actor,
          `extended to ${new Date(decision.expiresAtMs).toISOString()} (${decision.extensions} of ${rules!.maxExtensions})`,
        );
        return extended(decision.extensions, false);
    }
  }
}
