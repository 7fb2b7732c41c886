// What the Inventory object answers over RPC: the hold vocabulary and the answer unions the edge maps to HTTP.

/**
 * Lifecycle of a seat hold:
 * `HELD -> PAYMENT_PENDING -> SOLD`, `HELD -> RELEASED | EXPIRED | SOLD`,
 * `PAYMENT_PENDING -> SOLD | RELEASED | NEEDS_RECONCILIATION`, `NEEDS_RECONCILIATION -> SOLD | RELEASED`.
 * SOLD, RELEASED and EXPIRED are final.
 */
export type HoldStatus = 'HELD' | 'PAYMENT_PENDING' | 'NEEDS_RECONCILIATION' | 'SOLD' | 'RELEASED' | 'EXPIRED';

/** Why a transition was refused. */
export type HoldRefusal =
  | 'NOT_HOLD_OWNER'
  | 'HOLD_EXPIRED'
  | 'HOLD_NOT_ACTIVE'
  | 'HOLD_ALREADY_CONFIRMED'
  | 'PRICE_MISMATCH'
  | 'PAYMENT_IN_PROGRESS'
  | 'ORDER_ALREADY_USED';

/** A hold as callers see it. Times are epoch ms; prices minor units of `currency`. */
export interface HoldView {
  holdId: string;
  account: string;
  status: HoldStatus;
  /** Numbered seats; empty for a general-admission hold. */
  seatIds: string[];
  /** General-admission tier; null for numbered seats. */
  tier: string | null;
  quantity: number;
  priceMinor: number;
  currency: string;
  /** Deadline of the hold (HELD) or of the payment grace (PAYMENT_PENDING). */
  expiresAtMs: number;
  orderId: string | null;
}

/** What a hold asks for: numbered seats, or a quantity of a tier. */
export type HoldRequest = { seatIds: string[] } | { tier: string; quantity: number };

/** `hold` outcome. `replayed` = same idempotency key and request as an earlier success. */
export type HoldAnswer =
  | { kind: 'held'; hold: HoldView; replayed: boolean }
  | { kind: 'event_not_found' }
  | { kind: 'invalid'; detail: string }
  | { kind: 'unknown_seats'; seatIds: string[] }
  | { kind: 'unknown_tier'; tier: string }
  | { kind: 'unavailable'; seatIds: string[]; remaining?: number }
  | { kind: 'account_limit'; limit: number; owned: number }
  | { kind: 'idempotency_conflict' }
  | { kind: 'rate_limited'; retryAfterS: number };

/** Outcome of reading or changing one hold. */
export type HoldChangeAnswer =
  | { kind: 'ok'; hold: HoldView }
  | { kind: 'not_found' }
  | { kind: 'refused'; code: HoldRefusal | 'ACCOUNT_LIMIT'; detail: string; hold: HoldView };

/** Places left in a general-admission tier. */
export interface TierView {
  tier: string;
  capacity: number;
  priceMinor: number;
  available: number;
  held: number;
  sold: number;
}

/** Seat map: a full snapshot, or (with `since`) only the seats changed after that version. */
export type SeatMap = (
  | { kind: 'snapshot'; version: number; seats: { id: string; status: SeatStatus }[]; tiers: TierView[] }
  | { kind: 'delta'; version: number; since: number; changes: { id: string; status: SeatStatus }[]; tiers: TierView[] }
) & {
  /** Price of one numbered seat today, minor units of `currency` (a hold keeps the price it got). */
  seatPriceMinor: number;
  currency: string;
};

/** A seat's status on the seat map. */
export type SeatStatus = 'AVAILABLE' | 'HELD' | 'SOLD';
