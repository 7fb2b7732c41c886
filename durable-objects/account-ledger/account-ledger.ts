// AccountLedger Durable Object: the per-account seat limit of an event whose seats span several
// Inventory objects (one shard per account hash). A thin adapter over ledger-policy.ts and its
// store (ledger-store.ts).
import { DurableObject } from 'cloudflare:workers';
import type { HoldSettlement, ReserveAnswer, ReserveRequest } from '../../contracts/ledger-answers';
import { Sql } from '../shared/sql';
import { migrateSchema, SCHEMAS } from '../shared/schemas';
import { confirmAllowed, decideReserve, fateOf, reconcile, type HoldFate } from './ledger-policy';
import { LedgerStore } from './ledger-store';

/** Due entries reconciled per alarm run (the rest re-arm the alarm at once). */
const RECONCILE_BATCH = 50;

export class AccountLedger extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  private readonly store: LedgerStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new LedgerStore(new Sql(ctx.storage.sql));
    void ctx.blockConcurrencyWhile(async () => {
      migrateSchema(ctx.storage, SCHEMAS.accountLedger);
    });
  }

  /**
   * Counts a hold against its account before the Inventory places it: refused past the limit
   * (every entry of the account counts until reconciled: briefly too strict, never too loose).
   * The same idempotency key and request answer the first hold id again; another request with that
   * key is refused. The entry is reconciled with its Inventory object after the hold TTL, so a
   * crash before the hold, or a lost `settle`, never keeps the places counted for good.
   * @returns `reserved` (the hold id to use; `replayed` for a repeat), `account_limit` or `idempotency_conflict`
   */
  async reserve(req: ReserveRequest): Promise<ReserveAnswer> {
    const now = this.clock();
    const answer = this.ctx.storage.transactionSync((): ReserveAnswer => {
      const decision = decideReserve(this.store.entriesOf(req.account), req, now);
      if (decision.kind === 'account_limit' || decision.kind === 'idempotency_conflict') return decision;
      const e = decision.entry;
      if (decision.kind === 'reserve') this.store.reserve(e);
      else if (e.state === 'reserved') this.store.claimAgain(e.holdId);
      return { kind: 'reserved', holdId: e.holdId, reservedAtMs: e.reservedAtMs, replayed: decision.kind === 'replay' };
    });
    await this.armAlarm();
    return answer;
  }

  /**
   * At confirm: may the account own this hold's `quantity` more under today's `limit` (it may
   * have been lowered)? Reads only.
   */
  async confirmAllowed(account: string, holdId: string, quantity: number, limit: number): Promise<boolean> {
    return confirmAllowed(this.store.entriesOf(account), holdId, quantity, limit);
  }

  /**
   * The Inventory tells what became of a hold: `sold` counts it for good, `gone` (released,
   * expired) frees its places, `unplaced` gives back one request's claim (the places go with the
   * last claim). An unknown hold id is a no-op (settled before, or never reserved).
   */
  async settle(holdId: string, how: HoldSettlement): Promise<void> {
    if (how === 'sold') this.store.own(holdId);
    else if (how === 'gone') this.store.drop(holdId);
    else this.store.unclaim(holdId);
    await this.armAlarm();
  }

  /** Places the account holds or owns by the ledger (for tests and the organizer). */
  async countedFor(account: string): Promise<number> {
    return this.store.entriesOf(account).reduce((n, e) => n + e.quantity, 0);
  }

  /**
   * Reconciles due reserved entries with their Inventory objects (a `getHold` each): sold ->
   * owned, gone -> dropped, live -> asked again after its deadline. An object that cannot be
   * reached keeps the entry (retried on the next alarm). Re-arms for the earliest due entry.
   */
  override async alarm(): Promise<void> {
    const now = this.clock();
    const due = this.store.due(now, RECONCILE_BATCH);
    for (const entry of due) {
      let fate: HoldFate;
      try {
        fate = fateOf(await this.env.INVENTORY.getByName(entry.object).getHold(entry.holdId, null));
      } catch (err) {
        console.warn('ledger reconcile: Inventory not reached; retried on the next alarm:', err instanceof Error ? err.message : err);
        continue;
      }
      const step = reconcile(entry, fate, this.clock());
      if (step.kind === 'own') this.store.own(entry.holdId);
      else if (step.kind === 'drop') this.store.drop(entry.holdId);
      else this.store.checkAgainAt(entry.holdId, step.checkAtMs);
    }
    await this.armAlarm(due.length === RECONCILE_BATCH ? this.clock() : null);
  }

  /** Keeps the one alarm at the earliest reconcile time (or at `soon`, when a batch was left over). */
  private async armAlarm(soon: number | null = null): Promise<void> {
    const next = soon ?? this.store.nextCheck();
    const current = await this.ctx.storage.getAlarm();
    if (next === null) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== next) {
      await this.ctx.storage.setAlarm(next);
    }
  }
}
