// What the Inventory object answers over RPC: the hold vocabulary and the answer unions the edge maps
// to HTTP (contracts/answers.ts says how every answer is shaped).
import type { EventNotFound } from './answers';
import type { InventoryConfig } from './event-config';

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

/**
 * A seat's status on the seat map (and in storage): AVAILABLE, HELD (by a live hold) or SOLD.
 * ALLOCATED appears on the public seat map only: an unheld seat reserved for a sales channel until
 * its allocation's release time (storage keeps it AVAILABLE; see allocation-policy.ts).
 */
export type SeatStatus = 'AVAILABLE' | 'HELD' | 'SOLD' | 'ALLOCATED';

/** A refusal of a hold that stores nothing; the edge maps each kind to one error code. */
export type HoldRefusalAnswer =
  | { kind: 'unknown_seats'; seatIds: string[] }
  | { kind: 'unknown_tier'; tier: string }
  | { kind: 'unavailable'; seatIds: string[]; remaining?: number }
  | { kind: 'account_limit'; limit: number; owned: number }
  /** A sales channel asked for seats (or a tier) outside its live allocations. */
  | { kind: 'not_allocated'; seatIds: string[]; tier?: string };

/** A request to start (or resume) a configuration change of the event (`beginChange`). */
export interface ChangeRequest {
  /** Chosen by the caller per request; names the owner of the change. */
  changeId: string;
  /** Digest of the whole event configuration the change writes (both objects' parts). */
  fingerprint: string;
  config: InventoryConfig;
}

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

/**
 * `hold` outcome. `replayed` = same idempotency key and request as an earlier success.
 * `sales_closed`: the organizer closed the sale; holds made before still complete.
 */
export type HoldAnswer =
  /**
   * `paymentGraceMs`: the event's payment grace, how far past the hold's deadline a payment started
   * at its last moment may run (the edge's admission cover); absent from older objects.
   * `extension`: the hold's extensions, only in an event that allows them.
   */
  | { kind: 'held'; hold: HoldView; replayed: boolean; paymentGraceMs?: number; extension?: HoldExtensionView }
  | EventNotFound
  | { kind: 'invalid'; detail: string }
  | { kind: 'idempotency_conflict' }
  | { kind: 'sales_closed' }
  | { kind: 'rate_limited'; retryAfterS: number }
  /** The hold could not be placed in time after its account-ledger reservation (an event with sections): retry. */
  | { kind: 'retry_later'; retryAfterS: number }
  | HoldRefusalAnswer;

/** Most holds in one `Inventory.holdMany` call (the edge's batch cap). */
export const HOLD_BATCH_MAX = 32;

/** One caller's hold in a coalesced batch (`Inventory.holdMany`): the arguments of `hold`. */
export interface HoldBatchItem {
  /** The admission token's subject. */
  account: string;
  request: HoldRequest;
  /** Client-chosen key, unique per intended hold, scoped to the account. */
  idempotencyKey: string;
}

/** Why an extension was refused, beyond the refusals every hold change shares. */
export type HoldExtensionRefusal = 'HOLD_EXTENSIONS_OFF' | 'HOLD_EXTENSION_LIMIT' | 'HOLD_AT_LONGEST';

/** A hold's extensions as callers see them. Times are epoch ms. */
export interface HoldExtensionView {
  /** Extensions granted so far. */
  used: number;
  /** Extensions the event allows one hold (0: none). */
  max: number;
  /** The latest deadline any extension may give this hold (its placement plus the event's total cap); null without extensions. */
  latestExpiresAtMs: number | null;
}

/**
 * `extendHold` outcome. `replayed` = the same idempotency key as an earlier extension of this hold
 * (nothing changed). `paymentGraceMs` is the event's, for the edge's admission cover.
 */
export type HoldExtendAnswer =
  | { kind: 'extended'; hold: HoldView; extension: HoldExtensionView; replayed: boolean; paymentGraceMs: number }
  | { kind: 'not_found' }
  | { kind: 'refused'; code: HoldRefusal | HoldExtensionRefusal; detail: string; hold: HoldView; extension: HoldExtensionView };

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
  /** Places reserved for sales channels' live allocations and not held or sold by them (not in `available`). */
  allocated: number;
}

/**
 * Seat map: a full snapshot, or only the seats changed after version `since` (each with its
 * latest status). `since` is the version the answer starts from, which may be lower than the one
 * asked for (a superset of the changes is still right) or the current version when asked for more.
 */
export type SeatMap = (
  | { kind: 'snapshot'; version: number; seats: { id: string; status: SeatStatus }[]; tiers: TierView[] }
  | { kind: 'delta'; version: number; since: number; changes: { id: string; status: SeatStatus }[]; tiers: TierView[] }
) & {
  /** Price of one numbered seat today, minor units of `currency` (a hold keeps the price it got). */
  seatPriceMinor: number;
  currency: string;
  /** The organizer closed the sale: no new holds (holds already made may still be paid). */
  salesClosed: boolean;
  /**
   * An event with sections: each section's map version, seat price and number of seats. The merged
   * snapshot lists every section's seats; readers follow each section with
   * `?section=<name>&since=<its version>`. In a summary (`sectionsOnly`) versions are 0.
   */
  sections?: { section: string; version: number; seatPriceMinor: number; seats?: number }[];
  /**
   * Set on the map of an event with sections whose seats together exceed MAX_MAP_SEATS: `seats` is
   * empty and each section's seats are read with `?section=<name>` (each at most MAX_MAP_SEATS).
   */
  sectionsOnly?: true;
};

/**
 * Most seats one seat-map answer lists: a section's own map (the configuration caps a section at
 * this) and a map merged over sections; an event with more seats in all is answered per section.
 * About 3.6 MB of JSON, under the edge's seat-map cache limit, so every map answer is cacheable.
 */
export const MAX_MAP_SEATS = 100_000;

/**
 * `seatMap` outcome: `json` is a `SeatMap` serialized once in the object (one string copy per
 * reader), `version` its version, `sections` the event's section names (empty without sections;
 * with them the edge merges their snapshots, `eventSeatMap`).
 */
export type SeatMapAnswer = { kind: 'map'; json: string; version: number; sections: string[] } | EventNotFound;

/** One line of the append-only audit log. */
export interface AuditEntry {
  id: number;
  at: number;
  holdId: string;
  from: HoldStatus | null;
  to: HoldStatus;
  /** `channel:<channelId>` for a sales channel's holds and their transitions. */
  actor: 'visitor' | 'origin' | 'timer' | `channel:${string}`;
  reason: string;
}

/** The consistency checks behind "a seat is never sold twice"; every count must be 0. */
export interface ConsistencyCounts {
  /** Seats claimed by more than one SOLD hold. */
  seatsWithMultipleOrders: number;
  /** SOLD seats whose order is not the one of a SOLD hold owning them. */
  soldSeatsWithoutMatchingOrder: number;
  /** Tiers whose counters disagree with their holds, or exceed capacity. */
  tiersInconsistent: number;
  /** Seats with more than one live hold (an offer is a hold like any other). */
  seatsWithMultipleLiveHolds: number;
  /** Refunds that match no returned seat (or more than one, or at another amount than its face value), and refunded seats without their refund. */
  refundsUnmatched: number;
  /** Returns, offers, resales and refunds missing from the resale feed. */
  resaleFeedGaps: number;
  /** Waitlist entries still waiting behind a later entry that was offered seats. */
  waitlistSkips: number;
  /** Refunds of `on_resale` returns whose seat has no confirmed resale (a refund for a seat nobody bought). */
  refundsBeforeResale: number;
  /** Returned seats not recorded as resold that are sold (an unrecorded resale), or free while an account waits. */
  returnedSeatsAdrift: number;
}

/** Consistency counts with no violation (what every check expects). */
export const CONSISTENT: ConsistencyCounts = {
  seatsWithMultipleOrders: 0,
  soldSeatsWithoutMatchingOrder: 0,
  tiersInconsistent: 0,
  seatsWithMultipleLiveHolds: 0,
  refundsUnmatched: 0,
  resaleFeedGaps: 0,
  waitlistSkips: 0,
  refundsBeforeResale: 0,
  returnedSeatsAdrift: 0,
};

/** Counts of the resale: returns, offers made / taken / lapsed, seats resold, refunds (and their sum, minor units). */
export interface ResaleCounts {
  returns: number;
  returnedSeats: number;
  offersMade: number;
  offersTaken: number;
  offersLapsed: number;
  resoldSeats: number;
  refunds: number;
  refundedMinor: number;
  waiting: number;
}

/** Counts and the consistency checks behind "a seat is never sold twice". */
export interface InventoryStats {
  config: InventoryConfig;
  version: number;
  /** Numbered seats by state; PAYMENT_PENDING and NEEDS_RECONCILIATION seats are out of sale too. */
  seats: { available: number; held: number; paymentPending: number; needsReconciliation: number; sold: number };
  tiers: TierView[];
  holds: Record<HoldStatus, number>;
  consistency: ConsistencyCounts;
  /** The organizer closed the sale to new holds. */
  salesClosed: boolean;
  /** An event with sections: counts are summed over its sections' objects; `missing` sections had no plan (none may be). */
  sections?: { count: number; missing: number };
  /** Returns, offers and resales (an event with `resale`; absent otherwise). */
  resale?: ResaleCounts;
  /** A configuration change that started and has not finished (a crash cut it short, or it is running). Epoch ms. */
  pendingChange: { startedAtMs: number; leaseUntilMs: number; createdPlan: boolean } | null;
}

/**
 * What is left to sell (`Inventory.stock`): places on sale now, held by buyers (they may come back
 * when a hold ends), sold or in payment, and the confirmed orders (seats per buyer = sold / orders).
 */
export interface InventoryStock {
  left: number;
  held: number;
  sold: number;
  orders: number;
}

/** `stats` outcome. */
export type StatsAnswer = { kind: 'stats'; stats: InventoryStats } | EventNotFound;

/** `beginChange` outcome: `created` = the change made a new seat plan; `resumed` = it took over a change in flight. */
export type BeginChangeAnswer =
  { kind: 'ok'; created: boolean; resumed: boolean } | { kind: 'busy'; retryAfterS: number } | { kind: 'conflict'; detail: string };

/** `finishChange` / `abortChange` outcome: `superseded` = another change took this one over (its lease had run out). */
export type EndChangeAnswer = { kind: 'ok' } | { kind: 'superseded' };

/** `configure` outcome (a one-step change, for callers with no other object to configure). */
export type ConfigureAnswer =
  { kind: 'ok'; created: boolean } | { kind: 'busy'; retryAfterS: number } | { kind: 'conflict'; detail: string };
