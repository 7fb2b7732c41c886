// Seat-hold decisions: which hold to grant and whether a confirm may sell, as pure functions over facts read from storage.
import type { HoldRefusalAnswer, HoldView, SeatStatus } from '../../contracts/inventory-answers';
import type { HoldTarget } from './hold-policy';

export type { HoldRefusalAnswer, SeatStatus };

/** The event's hold rules a decision needs (a subset of the stored plan). */
export interface HoldRules {
  /** Price of one numbered seat, minor units of `currency`. */
  seatPriceMinor: number;
  /** ISO 4217 code the hold is priced in. */
  currency: string;
  /** Hold TTL, ms. */
  holdTtlMs: number;
  /** Seats (or tier places) one account may hold plus own. */
  maxSeatsPerAccount: number;
}

/** What storage knows about the places a target asks for. */
export type Availability =
  /** The requested seats that exist (missing ids are unknown seats), with their status after the sweep. */
  | { kind: 'seats'; found: { seatId: string; status: SeatStatus }[] }
  /** The requested tier's counters and price, or null when there is no such tier. */
  | { kind: 'tier'; tier: { capacity: number; held: number; sold: number; priceMinor: number } | null };

/** `decideHold` outcome: the terms of the new hold, or why not. */
export type HoldDecision =
  { kind: 'grant'; quantity: number; priceMinor: number; currency: string; expiresAtMs: number } | HoldRefusalAnswer;

/**
 * Decides a new seat hold (replays and the rate limit are settled before this is asked).
 * In order: every seat exists (or the tier does), every seat is AVAILABLE (or the tier has
 * `quantity` places left), and the account stays within `maxSeatsPerAccount` counting what it
 * already holds or owns. The hold is priced now (seat price x seats, or the tier's price x
 * quantity) and lasts until `nowMs + holdTtlMs`.
 *
 * @param facts.owned places the account holds or owns now (live holds and sales)
 * @param facts.nowMs the Inventory object's clock, epoch ms
 */
export function decideHold(facts: {
  target: HoldTarget;
  availability: Availability;
  owned: number;
  rules: HoldRules;
  nowMs: number;
}): HoldDecision {
  const { target, availability, owned, rules, nowMs } = facts;
  const unknown = unknownPlaces(target, availability);
  if (unknown) return unknown;
  let quantity: number;
  let priceMinor: number;
  if (target.kind === 'seats') {
    if (availability.kind !== 'seats') throw new Error('invariant: seat target needs seat availability');
    quantity = target.seatIds.length;
    const taken = availability.found.filter((s) => s.status !== 'AVAILABLE').map((s) => s.seatId);
    if (taken.length > 0) return { kind: 'unavailable', seatIds: taken };
    priceMinor = quantity * rules.seatPriceMinor;
  } else {
    if (availability.kind !== 'tier') throw new Error('invariant: tier target needs tier availability');
    quantity = target.quantity;
    const tier = availability.tier!;
    const remaining = tier.capacity - tier.held - tier.sold;
    if (remaining < quantity) return { kind: 'unavailable', seatIds: [], remaining };
    priceMinor = quantity * tier.priceMinor;
  }
  if (owned + quantity > rules.maxSeatsPerAccount) return { kind: 'account_limit', limit: rules.maxSeatsPerAccount, owned };
  return { kind: 'grant', quantity, priceMinor, currency: rules.currency, expiresAtMs: nowMs + rules.holdTtlMs };
}

/**
 * The refusal of a target that names places this object does not have: seats that do not exist
 * (`unknown_seats`, listing them) or no such tier (`unknown_tier`); null when all exist. Asked
 * first by `decideHold`, and before an account ledger reservation, so such a request never counts
 * against the account's limit, not even while in flight.
 * @throws Error when `availability` was read for the other kind of target (a bug)
 */
export function unknownPlaces(
  target: HoldTarget,
  availability: Availability,
): Extract<HoldRefusalAnswer, { kind: 'unknown_seats' | 'unknown_tier' }> | null {
  if (target.kind === 'seats') {
    if (availability.kind !== 'seats') throw new Error('invariant: seat target needs seat availability');
    if (availability.found.length === target.seatIds.length) return null;
    const known = new Set(availability.found.map((s) => s.seatId));
    return { kind: 'unknown_seats', seatIds: target.seatIds.filter((id) => !known.has(id)) };
  }
  if (availability.kind !== 'tier') throw new Error('invariant: tier target needs tier availability');
  return availability.tier ? null : { kind: 'unknown_tier', tier: target.tier };
}

/** The new hold a grant describes, as callers see it (HELD, no order yet). */
export function newHold(grant: Extract<HoldDecision, { kind: 'grant' }>, target: HoldTarget, account: string, holdId: string): HoldView {
  return {
    holdId,
    account,
    status: 'HELD',
    seatIds: target.kind === 'seats' ? target.seatIds : [],
    tier: target.kind === 'tier' ? target.tier : null,
    quantity: grant.quantity,
    priceMinor: grant.priceMinor,
    currency: grant.currency,
    expiresAtMs: grant.expiresAtMs,
    orderId: null,
  };
}

/** `checkConfirm` outcome. */
export type ConfirmCheck = { ok: true } | { ok: false; code: 'ORDER_ALREADY_USED' | 'ACCOUNT_LIMIT'; detail: string };

/**
 * The rules of a confirm that span holds (the hold's own state, owner, deadline and price are
 * `applyHoldAction`'s): an order id pays for one hold only, and the per-account limit holds again
 * at confirm, since the organizer may have lowered it after the hold was placed.
 *
 * @param facts.orderUsedElsewhere another hold already carries this order id
 * @param facts.ownedOther places the account holds or owns in its other holds
 * @param facts.quantity places of the hold being confirmed
 * @param facts.limit today's `maxSeatsPerAccount`
 */
export function checkConfirm(facts: { orderUsedElsewhere: boolean; ownedOther: number; quantity: number; limit: number }): ConfirmCheck {
  if (facts.orderUsedElsewhere) return { ok: false, code: 'ORDER_ALREADY_USED', detail: 'this order id already paid for another hold' };
  if (facts.ownedOther + facts.quantity > facts.limit) {
    return { ok: false, code: 'ACCOUNT_LIMIT', detail: `at most ${facts.limit} seats per account` };
  }
  return { ok: true };
}
