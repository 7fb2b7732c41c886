// Returns, the waitlist and resale inside one Inventory: reads the facts, asks the pure rules
// (resale-policy.ts) and writes what they decide, always inside the object's write run (after the
// sweep, in one transaction), so a return, an offer or a resale is all written or not at all.
// Offers are ordinary holds (store.ts insertHold): the hold rules, deadlines, alarm, payment and
// confirm are the ones of every hold; `settle` follows what happened to them after every write.
import type { InventoryConfig } from '../../contracts/event-config';
import type { HoldView } from '../../contracts/inventory-answers';
import { holdIdFor } from '../../contracts/inventory-names';
import type {
  AcceptAnswer,
  JoinAnswer,
  OfferView,
  ResaleEvent,
  ResaleRefused,
  ReturnAnswer,
  WaitlistAnswer,
  WaitlistPlaceAnswer,
} from '../../contracts/resale-answers';
import type { HoldTarget } from './hold-policy';
import { effectiveStatus } from './hold-policy';
import type { PlanStore } from './plan-store';
import { decideAccept, decideJoin, decideReturn, entryAfterHold, planOffers, seatPrice } from './resale-policy';
import { ResaleStore } from './resale-store';
import { deliverWebhooks, originSender } from './resale-webhook';
import type { Sql } from '../shared/sql';
import type { InventoryStore } from './store';

const refused = (code: ResaleRefused['code'], detail: string): ResaleRefused => ({ kind: 'refused', code, detail });

/** The resale side of one Inventory (see the file comment). Call every writer inside the write run. */
export class ResaleDesk {
  /** The resale's SQL (the after-write reads its next webhook delivery). */
  readonly store: ResaleStore;
  private readonly p: { plans: PlanStore; store: InventoryStore; resale: ResaleStore; uuid: () => string };

  /** @param transactionSync `ctx.storage.transactionSync`: each webhook outcome is its own transaction */
  constructor(
    sql: Sql,
    plans: PlanStore,
    store: InventoryStore,
    private readonly transactionSync: <T>(fn: () => T) => T,
  ) {
    this.store = new ResaleStore(sql);
    this.p = { plans, store, resale: this.store, uuid: () => crypto.randomUUID() };
  }

  /**
   * From the alarm: sends the due offer webhooks of an event with a `webhookPath` (resale-webhook.ts),
   * through the gateway's connection to the origin; without one, drops the deliveries still due.
   */
  async deliver(env: Env, clock: () => number): Promise<void> {
    const path = this.p.plans.plan()?.resale?.webhookPath;
    // Webhooks left from before the organizer removed the path are left to the feed (else they
    // would stay due, and the alarm would fire for them again and again).
    if (!path) return void (this.p.resale.nextDelivery() !== null && this.transactionSync(() => this.p.resale.dropDeliveries()));
    await deliverWebhooks({ resale: this.store, path, send: originSender(env), clock, transactionSync: this.transactionSync });
  }

  /**
   * Returns some or all seats of the order of sold hold `holdId` (`decideReturn`): the seats leave
   * the order and go to the waitlist's next accounts as offers, or back on open sale when nobody
   * waits; under `at_once` each is refunded now, else when its new buyer's purchase confirms.
   * Idempotent by `key`: the same key and request answer the return as it is now, the same key
   * with another request is refused `IDEMPOTENCY_KEY_REUSED`. A refusal writes nothing.
   * @param asked seat ids to return; null returns every seat not returned yet
   */
  returnSeats(holdId: string, asked: string[] | null, key: string, nowMs: number): ReturnAnswer {
    const config = this.p.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const request = JSON.stringify([holdId, asked && [...asked].sort()]);
    const earlier = this.p.resale.returnByKey(key);
    if (earlier) {
      return earlier.request === request
        ? { kind: 'ok', return: this.p.resale.returnView(earlier.return_id)!, replayed: true }
        : refused('IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used for another return');
    }
    const row = this.p.store.holdRow(holdId);
    if (!row) return { kind: 'not_found' };
    const status = effectiveStatus({ status: row.status, expiresAtMs: row.expires_at }, nowMs);
    const seatIds = row.kind === 'seats' ? this.p.store.view(holdId, nowMs)!.seatIds : [];
    const d = decideReturn({
      rules: config.resale ?? null,
      hold: { status, kind: row.kind, seatIds },
      returned: this.p.resale.returnedOf(holdId),
      asked,
      nowMs,
    });
    if (!d.ok) return refused(d.code, d.detail);
    const returnId = this.p.uuid();
    const refund = config.resale!.refund;
    this.p.resale.insertReturn(
      { returnId, holdId, orderId: row.order_id!, key, request, refund },
      d.seatIds,
      nowMs,
      this.p.store.bumpVersion(),
    );
    this.p.store.audit(nowMs, holdId, 'SOLD', 'SOLD', 'origin', `returned ${d.seatIds.join(', ')}`);
    this.p.resale.event('return', returnId, { holdId, orderId: row.order_id, seatIds: d.seatIds, refund }, nowMs);
    if (d.refundNow) for (const seatId of d.seatIds) this.refund(returnId, holdId, seatId, nowMs, config);
    // The freed seats are offered by `settle`, which runs after this in the same transaction.
    return { kind: 'ok', return: this.p.resale.returnView(returnId)!, replayed: false };
  }

  /**
   * An account joins the waitlist for `quantity` seats (`decideJoin`): one live entry per account,
   * only while nothing is on sale. With entry tokens, the account is the token's, as for holds.
   */
  join(account: string, quantity: number, nowMs: number): JoinAnswer {
    const config = this.p.plans.plan();
    if (!config) return { kind: 'event_not_found' };
    const live = this.p.resale.liveEntry(account);
    const d = decideJoin({
      rules: config.resale ?? null,
      onSale: this.p.resale.anythingOnSale(),
      live: live?.state ?? null,
      quantity,
      owned: this.p.store.ownedBy(account, nowMs, null),
      limit: config.maxSeatsPerAccount,
    });
    if (!d.ok) return refused(d.code, d.detail);
    if (d.replay) return { kind: 'ok', entry: live!, replayed: true };
    return { kind: 'ok', entry: this.p.resale.insertEntry(account, quantity, nowMs), replayed: false };
  }

  /**
   * The offered account takes its offer (`decideAccept`): the offer's hold gets a hold's TTL from
   * now, then the origin starts payment and confirms it as any hold. Accepting again changes nothing.
   */
  accept(holdId: string, account: string, nowMs: number): AcceptAnswer {
    const config = this.p.plans.plan();
    const entry = this.p.resale.entryOfHold(holdId);
    const row = this.p.store.holdRow(holdId);
    if (!config || !entry || !row) return { kind: 'not_found' };
    const hold = {
      account: row.account,
      status: effectiveStatus({ status: row.status, expiresAtMs: row.expires_at }, nowMs),
      expiresAtMs: row.expires_at,
    };
    const d = decideAccept(hold, account, entry.accepted, config.holdTtlMs, nowMs);
    if (!d.ok) return refused(d.code, d.detail);
    if (!d.noop) {
      this.p.resale.moveOfferDeadline(row.hold_id, row.expires_at, d.expiresAtMs, nowMs);
      this.p.resale.setAccepted(entry.entryId);
      this.p.store.audit(nowMs, holdId, 'HELD', 'HELD', 'origin', 'offer accepted');
    }
    return { kind: 'ok', hold: this.p.store.view(holdId, nowMs)! };
  }

  /**
   * After every write (and every sweep), in its transaction: returned seats whose new buyer
   * confirmed are resold (and refunded, unless that was done at the return); offers whose hold was
   * sold, released or expired are taken or lapse; free returned seats go to the next waiting
   * accounts. Costs nothing on an event without resale.
   */
  settle(nowMs: number): void {
    const config = this.p.plans.plan();
    if (!config?.resale) return;
    const dirty = this.p.resale.takeDirty();
    if (dirty.seats.length === 0 && dirty.offers.length === 0) return;
    for (const s of this.p.resale.newlySold(dirty.seats)) {
      this.p.resale.markResold(s.holdId, s.seatId, s.newHoldId);
      this.p.resale.event('resold', `${s.seatId}:${s.newHoldId}`, { seatId: s.seatId, returnId: s.returnId, orderId: s.newOrderId }, nowMs);
      if (!s.refunded) this.refund(s.returnId, s.holdId, s.seatId, nowMs, config);
    }
    for (const o of this.p.resale.endedOffers(dirty.offers)) {
      const state = entryAfterHold(o.status);
      this.p.resale.setEntryState(o.entryId, state);
      this.p.resale.event(state === 'TAKEN' ? 'offer_taken' : 'offer_lapsed', o.holdId, { entryId: o.entryId, status: o.status }, nowMs);
    }
    this.offerFree(config, nowMs, this.p.resale.freeReturned(dirty.seats));
  }

  /**
   * The price of an open-sale hold of numbered seats: a returned seat costs its face value plus the
   * organizer's fee (`seatPrice`), the others the plan's price the grant used.
   */
  openSalePrice(config: InventoryConfig, target: HoldTarget, grantedMinor: number): number {
    if (!config.resale || target.kind !== 'seats') return grantedMinor;
    const faces = this.p.resale.openFaces(target.seatIds);
    if (faces.size === 0) return grantedMinor;
    return target.seatIds.reduce((sum, id) => sum + seatPrice(faces.get(id) ?? null, config.seatPriceMinor, config.resale!), 0);
  }

  /** The waitlist after entry `after` (at most `limit`, arrival order) and the resale counts. */
  waitlist(after: number, limit: number): WaitlistAnswer {
    if (!this.p.plans.plan()) return { kind: 'event_not_found' };
    return { kind: 'ok', entries: this.p.resale.entries(after, limit), counts: this.p.resale.counts() };
  }

  /**
   * What the waiting page shows a visitor of a sold-out event: whether the waitlist is open, and
   * their entry `entryId` (when it is `account`'s) with its place and its live offer's seats,
   * price and deadline.
   */
  place(account: string | null, entryId: number | null, nowMs: number): WaitlistPlaceAnswer {
    const config = this.p.plans.plan();
    if (!config?.resale) return { kind: 'off' };
    const found = account !== null && entryId !== null ? this.p.resale.entryOf(entryId, account) : null;
    const hold = found?.entry.state === 'OFFERED' && found.entry.offerHoldId ? this.p.store.view(found.entry.offerHoldId, nowMs) : null;
    const offer: OfferView | null =
      hold && hold.status === 'HELD' && hold.seatIds
        ? {
            holdId: hold.holdId,
            seatIds: hold.seatIds,
            priceMinor: hold.priceMinor,
            feeMinor: config.resale.feeMinor * hold.seatIds.length,
            currency: hold.currency,
            expiresAtMs: hold.expiresAtMs,
          }
        : null;
    return {
      kind: 'ok',
      open: !this.p.resale.anythingOnSale(),
      offerPath: config.resale.offerPath ?? null,
      ...this.p.resale.waitingRange(),
      entry: found && { entryId: found.entry.entryId, state: found.entry.state, quantity: found.entry.quantity, place: found.place, offer },
    };
  }

  /** The resale feed after id `after`, oldest first, at most `limit`. */
  feed(after: number, limit: number): { kind: 'feed'; events: ResaleEvent[] } {
    return { kind: 'feed', events: this.p.resale.events(after, limit) };
  }

  /**
   * Offers free returned seats to the waiting accounts in order (`planOffers`), each as a hold. Its
   * idempotency key has a space, which no client's key may have, so it never meets a visitor's.
   */
  private offerFree(config: InventoryConfig, nowMs: number, free: { seatId: string; faceMinor: number }[]): void {
    if (free.length === 0) return;
    const waiting = this.p.resale.waiting(free.length);
    if (waiting.length === 0) return;
    for (const o of planOffers({ free, waiting, rules: config.resale!, nowMs })) {
      const holdId = holdIdFor(config.section ?? null, this.p.uuid());
      const hold: HoldView = {
        holdId,
        account: o.account,
        status: 'HELD',
        seatIds: o.seatIds,
        tier: null,
        quantity: o.seatIds.length,
        priceMinor: o.priceMinor,
        currency: config.currency,
        expiresAtMs: o.expiresAtMs,
        orderId: null,
      };
      this.p.store.insertHold(hold, { kind: 'seats', seatIds: o.seatIds }, `offer ${o.entryId}`, nowMs, {
        actor: 'timer',
        channelId: null,
        allocationId: null,
      });
      this.p.resale.setOffered(o.entryId, holdId);
      const data = {
        entryId: o.entryId,
        account: o.account,
        holdId,
        seatIds: o.seatIds,
        priceMinor: o.priceMinor,
        currency: config.currency,
        expiresAtMs: o.expiresAtMs,
      };
      this.p.resale.event('offer', holdId, data, nowMs, config.resale!.webhookPath !== undefined);
    }
  }

  private refund(returnId: string, holdId: string, seatId: string, nowMs: number, config: InventoryConfig): void {
    const r = this.p.resale.refund(returnId, holdId, seatId, nowMs, config.currency);
    this.p.resale.event(
      'refund',
      `${returnId}:${seatId}`,
      { returnId, seatId, orderId: r.orderId, amountMinor: r.amountMinor, currency: config.currency },
      nowMs,
    );
  }
}
