// A pure, in-memory model of returns, the waitlist and resale over numbered seats, built on the
// pure rules (resale-policy.ts, hold-policy.ts): the property tests run random interleavings on it
// and check the resale invariants after every step.
import { effectiveStatus, type HoldStatus } from '../../durable-objects/inventory/hold-policy';
import {
  decideAccept,
  decideJoin,
  decideReturn,
  entryAfterHold,
  planOffers,
  seatPrice,
  type EntryState,
  type ResaleRules,
} from '../../durable-objects/inventory/resale-policy';

export interface MHold {
  id: string;
  account: string;
  status: HoldStatus;
  seatIds: string[];
  expiresAtMs: number;
  priceMinor: number;
  orderId: string | null;
  /** The waitlist entry this hold is the offer of, or null for an open-sale hold. */
  entryId: number | null;
  accepted: boolean;
}

export interface MReturnSeat {
  returnId: string;
  holdId: string;
  orderId: string;
  seatId: string;
  faceMinor: number;
  refunded: boolean;
  resoldTo: string | null;
}

export type MFeed = { kind: 'return' | 'offer' | 'offer_lapsed' | 'offer_taken' | 'resold' | 'refund'; ref: string };

/** The answer kinds the model gives, for replays and assertions. */
export type MAnswer = { ok: true; ref?: string } | { ok: false; code: string };

export class ResaleModel {
  now = 1_800_000_000_000;
  readonly seats = new Map<string, { status: 'AVAILABLE' | 'HELD' | 'SOLD'; holdId: string | null; faceMinor: number | null }>();
  readonly holds = new Map<string, MHold>();
  readonly returnSeats: MReturnSeat[] = [];
  readonly returns = new Map<string, { key: string; body: string; answer: MAnswer }>();
  readonly waitlist: { entryId: number; account: string; quantity: number; state: EntryState; holdId: string | null }[] = [];
  readonly refunds: { returnId: string; seatId: string; amountMinor: number }[] = [];
  readonly feed: MFeed[] = [];
  /** Entry ids in the order offers were made to them. */
  readonly offered: number[] = [];
  private seq = 0;

  constructor(
    seatIds: string[],
    readonly rules: ResaleRules,
    readonly planPriceMinor = 5000,
    readonly holdTtlMs = 60_000,
    readonly limit = 6,
  ) {
    for (const id of seatIds) this.seats.set(id, { status: 'AVAILABLE', holdId: null, faceMinor: null });
  }

  /** An open-sale hold of free seats, priced as the Inventory prices it (face value plus fee for a resold seat). */
  hold(account: string, seatIds: string[]): MAnswer {
    this.sweep();
    if (seatIds.some((s) => this.seats.get(s)?.status !== 'AVAILABLE')) return { ok: false, code: 'SEATS_UNAVAILABLE' };
    const price = seatIds.reduce((sum, s) => sum + seatPrice(this.openFace(s), this.planPriceMinor, this.rules), 0);
    return { ok: true, ref: this.place(account, seatIds, price, this.now + this.holdTtlMs, null).id };
  }

  confirm(holdId: string): MAnswer {
    this.sweep();
    const h = this.holds.get(holdId);
    if (!h || effectiveStatus(h, this.now) !== 'HELD') return { ok: false, code: 'HOLD_NOT_ACTIVE' };
    h.status = 'SOLD';
    h.orderId = `order-${holdId}`;
    for (const s of h.seatIds) {
      const seat = this.seats.get(s)!;
      seat.status = 'SOLD';
      seat.faceMinor ??= h.priceMinor / h.seatIds.length;
      const open = this.returnSeats.find((r) => r.seatId === s && r.resoldTo === null);
      if (open) {
        open.resoldTo = h.orderId;
        this.feed.push({ kind: 'resold', ref: `${s}:${holdId}` });
        if (!open.refunded) this.refund(open);
      }
    }
    if (h.entryId !== null) this.settleEntry(h);
    return { ok: true };
  }

  release(holdId: string): MAnswer {
    this.sweep();
    const h = this.holds.get(holdId);
    if (!h || effectiveStatus(h, this.now) !== 'HELD') return { ok: false, code: 'HOLD_NOT_ACTIVE' };
    this.free(h, 'RELEASED');
    this.reoffer();
    return { ok: true };
  }

  advance(ms: number): void {
    this.now += ms;
    this.sweep();
  }

  /** A return by the origin, idempotent by key: the same key and body answer the first answer. */
  returnSeatsOf(holdId: string, asked: string[] | null, key: string): MAnswer {
    this.sweep();
    const body = JSON.stringify([holdId, asked]);
    const earlier = this.returns.get(key);
    if (earlier) return earlier.body === body ? earlier.answer : { ok: false, code: 'IDEMPOTENCY_KEY_REUSED' };
    const h = this.holds.get(holdId);
    if (!h) return { ok: false, code: 'HOLD_NOT_FOUND' };
    const d = decideReturn({
      rules: this.rules,
      hold: { status: effectiveStatus(h, this.now), kind: 'seats', seatIds: h.seatIds },
      returned: this.returnSeats.filter((r) => r.holdId === holdId).map((r) => ({ seatId: r.seatId, settled: r.refunded })),
      asked,
      nowMs: this.now,
    });
    if (!d.ok) return { ok: false, code: d.code };
    const returnId = `r${++this.seq}`;
    for (const s of d.seatIds) {
      const seat = this.seats.get(s)!;
      const r: MReturnSeat = {
        returnId,
        holdId,
        orderId: h.orderId!,
        seatId: s,
        faceMinor: seat.faceMinor!,
        refunded: false,
        resoldTo: null,
      };
      this.returnSeats.push(r);
      Object.assign(seat, { status: 'AVAILABLE', holdId: null });
      if (d.refundNow) this.refund(r);
    }
    this.feed.push({ kind: 'return', ref: returnId });
    const answer: MAnswer = { ok: true, ref: returnId };
    this.returns.set(key, { key, body, answer });
    this.reoffer();
    return answer;
  }

  join(account: string, quantity: number): MAnswer {
    this.sweep();
    const live = this.waitlist.find((e) => e.account === account && (e.state === 'WAITING' || e.state === 'OFFERED'));
    const owned = [...this.holds.values()]
      .filter((h) => h.account === account && ['HELD', 'SOLD'].includes(effectiveStatus(h, this.now)))
      .reduce((n, h) => n + h.seatIds.length, 0);
    const onSale = [...this.seats.values()].some((s) => s.status === 'AVAILABLE');
    const d = decideJoin({ rules: this.rules, onSale, live: live?.state ?? null, quantity, owned, limit: this.limit });
    if (!d.ok) return { ok: false, code: d.code };
    if (!d.replay) this.waitlist.push({ entryId: ++this.seq, account, quantity, state: 'WAITING', holdId: null });
    return { ok: true };
  }

  accept(holdId: string, account: string): MAnswer {
    this.sweep();
    const h = this.holds.get(holdId);
    if (!h || h.entryId === null) return { ok: false, code: 'OFFER_NOT_FOUND' };
    const d = decideAccept({ ...h, status: effectiveStatus(h, this.now) }, account, h.accepted, this.holdTtlMs, this.now);
    if (!d.ok) return { ok: false, code: d.code };
    h.accepted = true;
    h.expiresAtMs = d.expiresAtMs;
    return { ok: true };
  }

  /** The face value a free seat sells at now: its own once it was sold and returned, else none. */
  private openFace(seatId: string): number | null {
    return this.returnSeats.some((r) => r.seatId === seatId && r.resoldTo === null) ? this.seats.get(seatId)!.faceMinor : null;
  }

  private place(account: string, seatIds: string[], priceMinor: number, expiresAtMs: number, entryId: number | null): MHold {
    const h: MHold = {
      id: `h${++this.seq}`,
      account,
      status: 'HELD',
      seatIds,
      expiresAtMs,
      priceMinor,
      orderId: null,
      entryId,
      accepted: false,
    };
    this.holds.set(h.id, h);
    for (const s of seatIds) Object.assign(this.seats.get(s)!, { status: 'HELD', holdId: h.id });
    return h;
  }

  private free(h: MHold, to: 'RELEASED' | 'EXPIRED'): void {
    h.status = to;
    for (const s of h.seatIds) Object.assign(this.seats.get(s)!, { status: 'AVAILABLE', holdId: null });
    if (h.entryId !== null) this.settleEntry(h);
  }

  private settleEntry(h: MHold): void {
    const entry = this.waitlist.find((e) => e.entryId === h.entryId)!;
    entry.state = entryAfterHold(h.status);
    this.feed.push({ kind: entry.state === 'TAKEN' ? 'offer_taken' : 'offer_lapsed', ref: h.id });
  }

  private refund(r: MReturnSeat): void {
    r.refunded = true;
    this.refunds.push({ returnId: r.returnId, seatId: r.seatId, amountMinor: r.faceMinor });
    this.feed.push({ kind: 'refund', ref: `${r.returnId}:${r.seatId}` });
  }

  private sweep(): void {
    let expired = false;
    for (const h of this.holds.values())
      if (h.status === 'HELD' && h.expiresAtMs <= this.now) {
        this.free(h, 'EXPIRED');
        expired = true;
      }
    if (expired) this.reoffer();
  }

  /** Free returned seats go to the waitlist in order (planOffers); what nobody waits for stays on open sale. */
  private reoffer(): void {
    const free = [...this.seats.keys()]
      .sort()
      .filter((s) => this.seats.get(s)!.status === 'AVAILABLE' && this.openFace(s) !== null)
      .map((s) => ({ seatId: s, faceMinor: this.seats.get(s)!.faceMinor! }));
    const waiting = this.waitlist.filter((e) => e.state === 'WAITING');
    for (const o of planOffers({ free, waiting, rules: this.rules, nowMs: this.now })) {
      const h = this.place(o.account, o.seatIds, o.priceMinor, o.expiresAtMs, o.entryId);
      const entry = this.waitlist.find((e) => e.entryId === o.entryId)!;
      Object.assign(entry, { state: 'OFFERED', holdId: h.id });
      this.offered.push(o.entryId);
      this.feed.push({ kind: 'offer', ref: h.id });
    }
  }
}
