// What the AccountLedger object answers over RPC (the Inventory objects of an event with sections call it).

/** `reserve` outcome: the hold id to place the hold under, or why not (nothing was written). */
export type ReserveAnswer =
  | { kind: 'reserved'; holdId: string; reservedAtMs: number; replayed: boolean }
  | { kind: 'account_limit'; limit: number; owned: number }
  | { kind: 'idempotency_conflict' };

/**
 * What an Inventory object tells the ledger of a hold (`settle`): `sold`; `gone` (released or
 * expired); `unplaced` (this request reserved it and did not place the hold: it gives its claim back).
 */
export type HoldSettlement = 'sold' | 'gone' | 'unplaced';

/** What a hold asks of the ledger (`AccountLedger.reserve`; names: contracts/inventory-names.ts `ledgerObjectName`). Times ms. */
export interface ReserveRequest {
  account: string;
  idempotencyKey: string;
  request: string;
  quantity: number;
  /** The event's `maxSeatsPerAccount` as the asking Inventory object has it. */
  limit: number;
  /** The event's hold TTL, ms: the entry is reconciled after it (plus RECONCILE_MARGIN_MS). */
  holdTtlMs: number;
  object: string;
  /** The hold id to use if this is a new reservation. */
  proposedHoldId: string;
}
