// The Inventory's hold extensions inside one transaction: read the hold and any earlier extension
// under the same key, ask the pure rule (hold-extension.ts), write the new deadline with its audit line.
import type { HoldExtendAnswer } from '../../contracts/inventory-answers';
import type { Sql } from '../shared/sql';
import { decideExtension, extensionView } from './hold-extension';
import type { PlanStore } from './plan-store';
import type { Actor, HoldRow, InventoryStore } from './store';

/** Extends holds. `extend` runs inside the caller's `transactionSync`, after the sweep. */
export class ExtensionDesk {
  constructor(
    private readonly sql: Sql,
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
    const earlier = this.sql.one<{ expires_at: number }>`
      SELECT expires_at FROM inv_hold_extensions WHERE hold_id = ${holdId} AND idempotency_key = ${idempotencyKey}`;
    const decision = decideExtension(
      {
        account: row.account,
        status: row.status,
        expiresAtMs: row.expires_at,
        createdAtMs: row.created_at,
        extensions: row.extensions,
        replayOfMs: earlier?.expires_at ?? null,
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
        this.write(row, decision.expiresAtMs, idempotencyKey, nowMs);
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

  /**
   * Moves a HELD hold's deadline to `expiresAtMs`, with its seats' and its extension record. The
   * guarded update finds the hold exactly as it was read (HELD, same deadline, not yet passed), so a
   * hold changed in between is never extended: the throw rolls the transaction back.
   */
  private write(row: HoldRow, expiresAtMs: number, idempotencyKey: string, nowMs: number): void {
    const updated = this.sql.all`UPDATE inv_holds SET expires_at = ${expiresAtMs}, extensions = extensions + 1
      WHERE hold_id = ${row.hold_id} AND status = 'HELD' AND expires_at = ${row.expires_at} AND expires_at > ${nowMs} RETURNING hold_id`;
    if (updated.length !== 1) throw new Error(`invariant: hold ${row.hold_id} changed under an extension`);
    // `+status`: found by the hold's id, never by the status index (see InventoryStore.applyTransition).
    if (row.kind === 'seats') {
      this.sql.run`UPDATE inv_seats SET hold_expires_at = ${expiresAtMs} WHERE hold_id = ${row.hold_id} AND +status = 'HELD'`;
    }
    this.sql.run`INSERT INTO inv_hold_extensions (hold_id, idempotency_key, at, expires_at)
      VALUES (${row.hold_id}, ${idempotencyKey}, ${nowMs}, ${expiresAtMs})`;
  }
}
