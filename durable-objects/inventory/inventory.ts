// Inventory Durable Object: one per event (or venue section), the single authority over its seats and holds. A thin
// adapter (RPC, transactions, alarm) over the hold path (hold-flow.ts), the sales channels (channel-desk.ts), the resale
// (resale-desk.ts), the write run (write-run.ts, after-write.ts), the stores and the pure rules beside them.
import { DurableObject } from 'cloudflare:workers';
import { usesAccountLedger, type InventoryConfig } from '../../contracts/event-config';
import { parseInventoryName } from '../../contracts/inventory-names';
import { AccountLimit } from './account-limit';
import { AfterWrite, type InventoryIdentity } from './after-write';
import { SeatMapReader } from './seat-map-read';
import { Sql } from '../shared/sql';
import { migrateSchema, SCHEMAS } from '../shared/schemas';
import { readStock } from './stock-read';
import { readStats } from './stats-read';
import { HoldFlow } from './hold-flow';
import { PlanStore } from './plan-store';
import { InventoryStore } from './store';
import { ChannelDesk } from './channel-desk';
import { ChannelStore } from './channel-store';
import { ExtensionDesk } from './extension-desk';
import { WriteRun } from './write-run';
import { ResaleDesk } from './resale-desk';
import type * as Ch from '../../contracts/channel-answers';
import type { BatchOutcome } from '../../contracts/batch';
import * as Ans from '../../contracts/inventory-answers';
import type * as Re from '../../contracts/resale-answers';

export { HOLDS_PER_WINDOW } from './hold-flow';

export class Inventory extends DurableObject<Env> {
  /** The object's clock, epoch ms; tests replace it inside `runInDurableObject`. */
  clock: () => number = () => Date.now();
  /** Seat-map reads this instance has served since it started (the edge cache keeps them few). */
  mapReads = 0;
  /** `holdMany` calls this instance has served, and the holds they carried (the bench's mean batch size). */
  holdBatches = { calls: 0, holds: 0 };
  private readonly sql: Sql;
  /** All SQL of this object (tests reach it through `runInDurableObject` to inject faults). */
  readonly store: InventoryStore;
  private readonly plans: PlanStore;
  private readonly desk: ChannelDesk;
  private readonly extensions: ExtensionDesk;
  private readonly identity: InventoryIdentity | null;
  private readonly followUps: AfterWrite;
  private readonly maps: SeatMapReader;
  private readonly flow: HoldFlow;
  private readonly writes: WriteRun;
  private readonly resale: ResaleDesk;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    this.store = new InventoryStore(this.sql);
    this.plans = new PlanStore(this.sql);
    this.desk = new ChannelDesk(this.store, new ChannelStore(this.sql), this.plans);
    this.extensions = new ExtensionDesk(this.store, this.plans);
    this.identity = parseInventoryName(ctx.id.name ?? '');
    this.resale = new ResaleDesk(this.sql, this.plans, this.store, (fn) => ctx.storage.transactionSync(fn));
    this.followUps = new AfterWrite({
      plans: this.plans,
      store: this.store,
      channels: this.desk,
      resale: this.resale.store,
      identity: this.identity,
      storage: ctx.storage,
    });
    this.maps = new SeatMapReader(this.store);
    this.writes = new WriteRun({
      transactionSync: (fn) => ctx.storage.transactionSync(fn),
      clock: () => this.clock(),
      sweep: (now) => this.sweep(now),
      settle: (now) => this.resale.settle(now),
      afterWrite: () => this.followUps.run(this.env),
    });
    this.flow = new HoldFlow({
      plans: this.plans,
      store: this.store,
      channels: this.desk,
      writes: this.writes,
      accountLimit: (config) => this.accountLimit(config),
      price: (config, target, granted) => this.resale.openSalePrice(config, target, granted),
      clock: () => this.clock(),
      uuid: () => crypto.randomUUID(),
    });
    void ctx.blockConcurrencyWhile(async () => {
      migrateSchema(ctx.storage, SCHEMAS.inventory);
      // A reset between a committed change and its setAlarm (the write is durable, the alarm call
      // never ran) would leave a deadline with no timer: every start re-arms from the table.
      await this.followUps.armAlarm();
    });
  }

  /**
   * Starts (or resumes) a configuration change of the event: writes the seat plan (new), or the
   * prices and hold rules (existing), and records the change as in flight until `finishChange` or
   * `abortChange`. See `decideChange` for who may start a change while another is in flight.
   * @returns `ok` (`created`: a new plan was written), `busy` (another change owns the event for
   *   `retryAfterS` more seconds) or `conflict` (the plan is fixed); the last two change nothing
   */
  async beginChange(request: Ans.ChangeRequest): Promise<Ans.BeginChangeAnswer> {
    return this.ctx.storage.transactionSync(() => this.plans.begin(request, this.clock(), this.identity?.eventId ?? null));
  }

  /** Ends the change `changeId` started: the configuration is now the event's. A retried finish answers `ok` again. */
  async finishChange(changeId: string): Promise<Ans.EndChangeAnswer> {
    return this.ctx.storage.transactionSync(() => this.plans.finish(changeId));
  }

  /** Undoes the change `changeId` started (another object refused its part): see `decideAbort`. */
  async abortChange(changeId: string): Promise<Ans.EndChangeAnswer> {
    return this.ctx.storage.transactionSync(() => this.plans.abort(changeId));
  }

  /** Creates or updates the plan in one step (`beginChange` + `finishChange`), for tests and benchmarks. */
  async configure(config: InventoryConfig): Promise<Ans.ConfigureAnswer> {
    const changeId = crypto.randomUUID();
    const begun = await this.beginChange({ changeId, fingerprint: `direct:${changeId}`, config });
    if (begun.kind !== 'ok') return begun;
    await this.finishChange(changeId);
    return { kind: 'ok', created: begun.created };
  }

  /**
   * Closes the sale to new holds (`closed`) or opens it again (`open`). Holds made before keep their terms:
   * they may still start payment, be confirmed or released; their deadlines still run.
   * @returns false when the event does not exist
   */
  async setSales(state: 'open' | 'closed'): Promise<boolean> {
    if (!this.plans.head()) return false;
    this.plans.setSalesClosed(state === 'closed');
    return true;
  }

  /** Holds seats or tier places for an account, all or nothing, idempotent by key (hold-flow.ts HoldFlow.place). */
  async hold(account: string, request: Ans.HoldRequest, idempotencyKey: string): Promise<Ans.HoldAnswer> {
    return this.flow.place({ kind: 'public' }, account, request, idempotencyKey);
  }

  /**
   * Several visitors' holds in one call, as the edge coalesces them (src/lib/hold-batch.ts), each
   * decided as `hold` decides it, with one outcome per item in order (hold-flow.ts HoldFlow.placeMany).
   * @throws Error when `items` is empty or longer than Ans.HOLD_BATCH_MAX (nothing stored)
   */
  async holdMany(items: Ans.HoldBatchItem[]): Promise<BatchOutcome<Ans.HoldAnswer>[]> {
    if (!Array.isArray(items) || items.length < 1 || items.length > Ans.HOLD_BATCH_MAX)
      throw new Error(`holdMany takes 1 to ${Ans.HOLD_BATCH_MAX} holds`);
    this.holdBatches.calls++;
    this.holdBatches.holds += items.length;
    return this.flow.placeMany(items);
  }

  /** A hold by id. With `account` set, only its owner may read it. */
  async getHold(holdId: string, account: string | null): Promise<Ans.HoldChangeAnswer> {
    const hold = this.store.view(holdId, this.clock());
    if (!hold || (account !== null && hold.account !== account)) return { kind: 'not_found' };
    return { kind: 'ok', hold };
  }

  /** The origin starts payment: HELD -> PAYMENT_PENDING (hold-flow.ts HoldFlow.startPayment). */
  async startPayment(holdId: string, account: string | null): Promise<Ans.HoldChangeAnswer> {
    return this.flow.startPayment(holdId, account);
  }

  /** Sells the hold to `orderId` after the origin authorized `amountMinor` (hold-flow.ts HoldFlow.confirm). */
  async confirm(holdId: string, orderId: string, amountMinor: number, account: string | null): Promise<Ans.HoldChangeAnswer> {
    return this.flow.confirm(holdId, orderId, amountMinor, account);
  }

  /** Releases a hold and frees its seats (hold-flow.ts HoldFlow.release). */
  async release(holdId: string, account: string | null, byOrigin: boolean): Promise<Ans.HoldChangeAnswer> {
    return this.flow.release(holdId, account, byOrigin);
  }

  /**
   * Gives a HELD hold more time within the event's `holdExtension` bounds (`decideExtension`), in
   * one transaction after the sweep, so a hold whose deadline passed is expired first and never
   * extended; the alarm then follows the new earliest deadline. Idempotent by `idempotencyKey`
   * (per hold): a retry replays the first extension and changes nothing.
   * @param account the buyer; null when the origin acts without naming one (`byOrigin`)
   */
  async extendHold(holdId: string, account: string | null, idempotencyKey: string, byOrigin: boolean): Promise<Ans.HoldExtendAnswer> {
    return this.writes.one((now) => this.extensions.extend(holdId, account, idempotencyKey, byOrigin ? 'origin' : 'visitor', now));
  }

  /**
   * Holds whose payment has started or ended in a sale (PAYMENT_PENDING, NEEDS_RECONCILIATION,
   * SOLD; deadlines applied), for the origin's reconciliation: in hold-id order after
   * `afterHoldId`, at most `limit`.
   */
  async paymentHolds(afterHoldId: string, limit: number): Promise<Ans.HoldView[]> {
    const now = this.clock();
    return this.store.paymentHoldIds(afterHoldId, limit).map((id) => this.store.view(id, now)!);
  }

  /**
   * The seat map, as JSON built once a second (`SeatMapReader`). Without `since` (or with a version
   * older than the kept deltas): every seat, expired holds shown as available. With `since`: the
   * seats changed after a version at or below it, each with its latest status (a `since` above the
   * current version gets the delta up to the current one: see `planSeatMap`). Tier counters come
   * whole with both.
   */
  async seatMap(since?: number): Promise<Ans.SeatMapAnswer> {
    this.mapReads++;
    const now = this.clock();
    // An allocation whose release time passed is written to the deltas before anyone reads them.
    if ((this.desk.nextRelease() ?? Infinity) <= now) this.ctx.storage.transactionSync(() => this.sweep(now));
    const head = this.plans.head();
    const config = this.plans.plan();
    if (!head || !config) return { kind: 'event_not_found' };
    return { kind: 'map', ...this.maps.read(head, config, since, now), sections: (config.sections ?? []).map((x) => x.section) };
  }

  /** Full seat maps (snapshots) this instance has built from storage since it started. */
  get snapshotsServed(): number {
    return this.maps.snapshotsBuilt;
  }

  /** Pages through the audit log: entries with id > `afterId`, oldest first, at most `limit` (1-1000). */
  async auditLog(afterId: number, limit: number): Promise<Ans.AuditEntry[]> {
    return this.store.auditLog(afterId, Math.min(Math.max(limit, 1), 1000));
  }

  /** Counts and consistency checks for the organizer and the crowd run. */
  async stats(): Promise<Ans.StatsAnswer> {
    return readStats(this.sql, this.store, this.plans, this.clock());
  }

  /** What is left to sell, for the waiting room's cursor (stock-read.ts); null when there is no event. */
  async stock(): Promise<Ans.InventoryStock | null> {
    return readStock(this.store, this.plans, this.clock());
  }

  /**
   * Acts on every passed deadline (HELD -> EXPIRED, freeing exactly its seats; PAYMENT_PENDING ->
   * NEEDS_RECONCILIATION, keeping them), then re-arms for the earliest remaining deadline. Safe
   * to run late or twice: each step re-checks the hold's id, state and deadline.
   */
  override async alarm(): Promise<void> {
    this.followUps.alarmFiring();
    const now = this.clock();
    const config = this.plans.plan();
    const ledger = config && this.accountLimit(config);
    // Expired holds free their places in the ledger too (else it learns it when it reconciles).
    const expiring = ledger ? this.store.dueHolds(now).filter((h) => h.status === 'HELD') : [];
    this.ctx.storage.transactionSync(() => this.sweep(now));
    for (const h of expiring) await ledger!.settle(h.account, h.hold_id, 'gone');
    await this.resale.deliver(this.env, () => this.clock());
    await this.followUps.run(this.env);
  }

  /** A section's object reports whether it is sold out (the event's object then announces the event's own state). Idempotent. */
  async sectionSoldOut(section: string, soldOut: boolean): Promise<void> {
    if (!this.plans.head()) return;
    this.plans.setSectionFlag(section, soldOut);
    await this.followUps.announceSoldOut(this.env);
  }

  /** The event's sections (names, in plan order), [] for an event with one block of seats; null when there is no event. */
  async sections(): Promise<string[] | null> {
    const config = this.plans.plan();
    return config ? (config.sections ?? []).map((s) => s.section) : null;
  }

  /** Creates or re-activates a sales channel: see `ChannelDesk.putChannel`. The key is derived at the edge, never stored. */
  async putChannel(channelId: string, name: string): Promise<Ch.PutChannelAnswer> {
    return this.ctx.storage.transactionSync(() => this.desk.putChannel(channelId, name, this.clock()));
  }

  /** Revokes a sales channel: its key is refused from the next call on. */
  async revokeChannel(channelId: string): Promise<Ch.RevokeChannelAnswer> {
    return this.ctx.storage.transactionSync(() => this.desk.revokeChannel(channelId, this.clock()));
  }

  /** The event's sales channels and allocations for the organizer (`caller` null), or one channel's own allocations. */
  async channelList(caller: Ch.ChannelCaller | null): Promise<Ch.ChannelListAnswer> {
    const refused = caller && this.desk.admit(caller);
    if (refused) return refused;
    const allocations = this.desk.allocations(this.clock(), caller?.channelId ?? null);
    return { kind: 'ok', channels: caller ? [] : this.desk.channels(), allocations };
  }

  /** Creates or changes an allocation (`decideAllocation`); a refusal changes nothing. */
  async allocate(request: Ch.AllocationRequest): Promise<Ch.AllocationAnswer> {
    return this.writes.one((now) => this.desk.allocate(request, now));
  }

  /** Ends an allocation now: its unsold rest returns to general sale. */
  async endAllocation(allocationId: string): Promise<Ch.EndAllocationAnswer> {
    return this.writes.one((now) => this.desk.endAllocation(allocationId, now));
  }

  /** A sales channel's hold of its live allocations, under the rules of `hold` (hold-flow.ts HoldFlow.channelHold). */
  async channelHold(
    caller: Ch.ChannelCaller,
    account: string,
    request: Ans.HoldRequest,
    idempotencyKey: string,
  ): Promise<Ch.ChannelHoldAnswer> {
    return this.desk.admit(caller) ?? this.flow.channelHold(caller.channelId, account, request, idempotencyKey);
  }

  /** A sales channel reads, confirms or releases one of its holds (another's answers `not_found`). */
  async channelAct(caller: Ch.ChannelCaller, holdId: string, action: Ch.ChannelHoldAction): Promise<Ch.ChannelHoldChangeAnswer> {
    return this.desk.admit(caller) ?? this.flow.channelAct(caller.channelId, holdId, action);
  }

  /** The change feed for a sales channel: entries after cursor `after`, at most `limit`, or the snapshot to start from. */
  async readFeed(caller: Ch.ChannelCaller, after: number | 'snapshot', limit: number): Promise<Ch.FeedAnswer> {
    return this.desk.admit(caller) ?? this.writes.one(() => this.desk.feed(after, limit));
  }

  /** Returns some or all seats of a sold hold's order, idempotent by key (resale-desk.ts ResaleDesk.returnSeats). */
  async returnSeats(holdId: string, seatIds: string[] | null, idempotencyKey: string): Promise<Re.ReturnAnswer> {
    return this.writes.one((now) => this.resale.returnSeats(holdId, seatIds, idempotencyKey, now));
  }

  /** An account joins the waitlist for 1-6 seats (ResaleDesk.join). */
  async joinWaitlist(account: string, quantity: number): Promise<Re.JoinAnswer> {
    return this.writes.one((now) => this.resale.join(account, quantity, now));
  }

  /** The offered account takes its offer: a hold's TTL from now, paid as any hold (ResaleDesk.accept). */
  async acceptOffer(holdId: string, account: string): Promise<Re.AcceptAnswer> {
    return this.writes.one((now) => this.resale.accept(holdId, account, now));
  }

  /** The waitlist (entries after `after`, and the counts) or the resale feed (entries after id `after`); at most `limit`. */
  async resaleRead(what: 'waitlist' | 'feed', after: number, limit: number): Promise<Re.ResaleReadAnswer> {
    return what === 'waitlist' ? this.resale.waitlist(after, limit) : this.resale.feed(after, limit);
  }

  /** The waiting page's view of the waitlist and of `account`'s entry `entryId` (ResaleDesk.place); read after the sweep. */
  async waitlistPlace(account: string | null, entryId: number | null): Promise<Re.WaitlistPlaceAnswer> {
    return this.writes.one((now) => this.resale.place(account, entryId, now));
  }

  /** Every passed deadline (holds) and release time (allocations) at `nowMs`, written before any decision; then what they mean for the resale. */
  private sweep(nowMs: number): void {
    this.store.sweep(nowMs);
    if (this.desk.settle(nowMs)) this.maps.forget();
    this.resale.settle(nowMs);
  }

  /** The ledger calls of an event with sections (its per-account limit spans objects); null otherwise. */
  private accountLimit(config: InventoryConfig): AccountLimit | null {
    if (!usesAccountLedger(config) || !this.identity) return null;
    return new AccountLimit(this.env.ACCOUNT_LEDGER, this.identity.eventId, this.ctx.id.name!);
  }
}
