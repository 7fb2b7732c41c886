// Returns, the waitlist and face-value resale: pure rules over plain data read from storage. The
// Inventory's resale desk (resale-desk.ts) reads the facts, asks these functions and writes what
// they decide in one transaction; the property tests drive the same functions through a model.
import type { ResaleRules } from '../../contracts/event-config';
import type { EntryState, ResaleRefusalCode } from '../../contracts/resale-answers';
import type { HoldStatus } from './hold-policy';

export type { EntryState, ResaleRules };

/** A refusal with its code and one sentence for the problem's `detail`. */
interface ResaleRefusal {
  ok: false;
  code: ResaleRefusalCode;
  detail: string;
}

const no = (code: ResaleRefusalCode, detail: string): ResaleRefusal => ({ ok: false, code, detail });

/** What `decideReturn` reads: the rules, the sold hold and what of it was returned before. */
export interface ReturnFacts {
  /** The event's resale rules; null when the event has none. */
  rules: ResaleRules | null;
  /** The hold whose order is returned: its status with deadlines applied, its kind and its seats. */
  hold: { status: HoldStatus; kind: 'seats' | 'tier'; seatIds: readonly string[] };
  /** Seats of this hold returned before, each with whether its refund was paid (`settled`). */
  returned: readonly { seatId: string; settled: boolean }[];
  /** The seats asked for; null asks for every seat not yet returned. */
  asked: readonly string[] | null;
  /** The Inventory's clock, epoch ms. */
  nowMs: number;
}

/** `decideReturn` outcome: the seats to return (sorted) and whether they are refunded now. */
export type ReturnDecision = { ok: true; seatIds: string[]; refundNow: boolean } | ResaleRefusal;

/**
 * Decides a return of some or all seats of a sold order. In order: the event has resale rules
 * (`RESALE_OFF`); the hold is SOLD (`PAYMENT_NOT_SETTLED` while payment may still go either way,
 * `HOLD_NOT_ACTIVE` for a released or expired hold); the clock is before the return deadline
 * (`RETURN_DEADLINE_PASSED`); every asked seat is one of the order's numbered seats
 * (`SEATS_NOT_IN_ORDER`; tier places cannot be returned); no asked seat is in an earlier return
 * still waiting for its refund (`RETURN_IN_PROGRESS`: the same seats returned twice, as two
 * requests at once with different keys do) or refunded (`ORDER_ALREADY_RETURNED`). Other seats of
 * the order may be returned while an earlier return waits for its resale. Replays of the same
 * idempotency key are settled before this is asked.
 */
export function decideReturn(f: ReturnFacts): ReturnDecision {
  if (!f.rules) return no('RESALE_OFF', 'this event takes no returns');
  if (f.hold.status === 'RELEASED' || f.hold.status === 'EXPIRED') return no('HOLD_NOT_ACTIVE', `a ${f.hold.status} hold was never paid`);
  if (f.hold.status !== 'SOLD') return no('PAYMENT_NOT_SETTLED', `the order's payment is not settled (the hold is ${f.hold.status})`);
  if (f.nowMs >= f.rules.returnDeadlineMs) return no('RETURN_DEADLINE_PASSED', "the organizer's return deadline has passed");
  if (f.hold.kind !== 'seats') return no('SEATS_NOT_IN_ORDER', 'general-admission places cannot be returned');
  const own = new Set(f.hold.seatIds);
  const asked = f.asked ?? f.hold.seatIds.filter((s) => !f.returned.some((r) => r.seatId === s));
  const foreign = asked.filter((s) => !own.has(s));
  if (foreign.length > 0 || new Set(asked).size !== asked.length)
    return no('SEATS_NOT_IN_ORDER', `seats not in this order (or listed twice): ${foreign.join(', ') || 'a duplicate'}`);
  const waiting = f.returned.filter((r) => !r.settled && (asked.length === 0 || asked.includes(r.seatId)));
  if (waiting.length > 0)
    return no('RETURN_IN_PROGRESS', `already returned, waiting for the refund: ${waiting.map((r) => r.seatId).join(', ')}`);
  if (asked.length === 0 || asked.some((s) => f.returned.some((r) => r.seatId === s)))
    return no('ORDER_ALREADY_RETURNED', 'these seats were already returned');
  return { ok: true, seatIds: [...asked].sort(), refundNow: f.rules.refund === 'at_once' };
}

/**
 * The price of one resold seat: its face value (what its first buyer paid for it) plus the
 * organizer's fee, never more. A seat with no face value (never sold) keeps the plan's price.
 * @param faceMinor the seat's face value, minor units; null when it was never sold
 */
export function seatPrice(faceMinor: number | null, planPriceMinor: number, rules: Pick<ResaleRules, 'feeMinor'> | null): number {
  return faceMinor === null ? planPriceMinor : faceMinor + (rules?.feeMinor ?? 0);
}

/** A waitlist entry as `planOffers` and `decideJoin` read it. */
export interface WaitingEntry {
  entryId: number;
  account: string;
  /** Seats wanted, 1-6. */
  quantity: number;
}

/** An offer `planOffers` decided: a hold of `seatIds` for the entry's account until `expiresAtMs`. */
export interface PlannedOffer {
  entryId: number;
  account: string;
  seatIds: string[];
  /** Total price of the offer's hold, minor units (face value plus fee per seat). */
  priceMinor: number;
  expiresAtMs: number;
}

/**
 * Offers returned seats that are free now to the waitlist, first come first served: each waiting
 * account in order gets as many of the free seats (in seat order) as it asked for, or what is
 * left; nobody is skipped while seats remain. Seats left when the waitlist is empty stay on open sale.
 * @param free returned seats not sold, held or offered, in seat order, with their face values
 * @param waiting entries still waiting, in their order (arrival)
 */
export function planOffers(f: {
  free: readonly { seatId: string; faceMinor: number }[];
  waiting: readonly WaitingEntry[];
  rules: ResaleRules;
  nowMs: number;
}): PlannedOffer[] {
  const offers: PlannedOffer[] = [];
  let next = 0;
  for (const entry of f.waiting) {
    if (next >= f.free.length) break;
    const seats = f.free.slice(next, next + entry.quantity);
    next += seats.length;
    offers.push({
      entryId: entry.entryId,
      account: entry.account,
      seatIds: seats.map((s) => s.seatId),
      priceMinor: seats.reduce((sum, s) => sum + seatPrice(s.faceMinor, 0, f.rules), 0),
      expiresAtMs: f.nowMs + f.rules.offerTtlMs,
    });
  }
  return offers;
}

/** `decideJoin` outcome: a new entry, the account's live entry again (one per account), or a refusal. */
export type JoinDecision = { ok: true; replay: boolean } | ResaleRefusal;

/**
 * Decides a waitlist join. The waitlist opens when nothing is on open sale (`WAITLIST_NOT_OPEN`
 * while a seat can still be bought); an account has one live entry (joining again while WAITING or
 * OFFERED answers that entry); the wanted seats must fit the per-account limit with what the
 * account holds or owns (`ACCOUNT_LIMIT`). An account whose offer lapsed or was taken may join
 * again, at the back.
 */
export function decideJoin(f: {
  rules: ResaleRules | null;
  onSale: boolean;
  live: EntryState | null;
  quantity: number;
  owned: number;
  limit: number;
}): JoinDecision {
  if (!f.rules) return no('RESALE_OFF', 'this event has no waitlist');
  if (f.live === 'WAITING' || f.live === 'OFFERED') return { ok: true, replay: true };
  if (f.onSale) return no('WAITLIST_NOT_OPEN', 'seats are still on sale; the waitlist opens when the event is sold out');
  if (f.owned + f.quantity > f.limit) return no('ACCOUNT_LIMIT', `at most ${f.limit} seats per account`);
  return { ok: true, replay: false };
}

/**
 * What an offer's hold becoming `status` means for its waitlist entry: SOLD takes the offer,
 * RELEASED or EXPIRED lets it lapse (the seats go to the next account), anything else leaves it OFFERED.
 */
export function entryAfterHold(status: HoldStatus): EntryState {
  if (status === 'SOLD') return 'TAKEN';
  if (status === 'RELEASED' || status === 'EXPIRED') return 'LAPSED';
  return 'OFFERED';
}

/** `decideAccept` outcome: the offer's hold with its new deadline (payment time from now), or a refusal. */
export type AcceptDecision = { ok: true; expiresAtMs: number; noop: boolean } | ResaleRefusal;

/**
 * Decides that the offered account takes its offer: the offer's hold stays the same hold and gets
 * a hold's TTL from now (never less time than it had), then the origin charges and confirms it as
 * any hold. Only the offered account may accept (`NOT_OFFER_OWNER`); an offer whose hold expired
 * or was released has lapsed (`OFFER_LAPSED`); accepting again, or a hold already paying, changes nothing.
 * @param hold the offer's hold: owner, status with deadlines applied, deadline (epoch ms)
 * @param accepted whether the offer was accepted before
 */
export function decideAccept(
  hold: { account: string; status: HoldStatus; expiresAtMs: number },
  account: string,
  accepted: boolean,
  holdTtlMs: number,
  nowMs: number,
): AcceptDecision {
  if (hold.account !== account) return no('NOT_OFFER_OWNER', 'this offer was made to another account');
  if (hold.status === 'EXPIRED' || hold.status === 'RELEASED')
    return no('OFFER_LAPSED', 'the offer lapsed; its seats went to the next account');
  if (hold.status !== 'HELD' || accepted) return { ok: true, expiresAtMs: hold.expiresAtMs, noop: true };
  return { ok: true, expiresAtMs: Math.max(hold.expiresAtMs, nowMs + holdTtlMs), noop: false };
}
