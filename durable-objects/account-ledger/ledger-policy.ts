// The account ledger's rules: the per-account seat limit of an event whose seats span several
// Inventory objects, as pure functions over the account's entries (docs/explanation/scaling.md, "account ledger").
import type { HoldChangeAnswer } from '../../contracts/inventory-answers';
import type { ReserveRequest } from '../../contracts/ledger-answers';

export type { ReserveRequest };

/**
 * One hold's claim on an account's limit. `reserved`: counted from before the hold is placed until
 * the ledger learns how it ended; `owned`: the hold was sold (counted for good).
 */
export interface LedgerEntry {
  /** The hold's id, chosen here before the Inventory places it (so both name the same hold). */
  holdId: string;
  account: string;
  /** The visitor's idempotency key: the same key and request get the same hold id back. */
  idempotencyKey: string;
  /** Canonical text of the hold request (`targetKey`), compared for retries. */
  request: string;
  quantity: number;
  state: 'reserved' | 'owned';
  /** Ledger clock when reserved, epoch ms; the Inventory refuses to place the hold after `reservedAtMs + RESERVATION_WINDOW_MS`. */
  reservedAtMs: number;
  /** When a `reserved` entry is next reconciled with its Inventory object, epoch ms. */
  checkAtMs: number;
  /** The Inventory object (its name) that places the hold: the one reconcile asks. */
  object: string;
  /**
   * Requests that reserved this entry and have not said yet whether they placed the hold: a retry
   * with the same key, while the first is in flight, shares the entry. A request that did not
   * place the hold gives its claim back (`unplaced`); the entry goes only when no claim is left,
   * so one refused copy never drops the places another copy is about to hold.
   */
  claims: number;
}

/**
 * How long after its reservation an Inventory object may still place the hold, ms (by the
 * object's clock). Reconcile never runs before this has passed (see RECONCILE_MARGIN_MS), so a
 * hold request still in flight can never land after its reservation was dropped.
 */
export const RESERVATION_WINDOW_MS = 30_000;
/** A reserved entry is first reconciled this long after the hold's TTL would end, ms (covers the window and clock skew). */
export const RECONCILE_MARGIN_MS = 60_000;
/** A hold whose payment is unresolved (NEEDS_RECONCILIATION, no deadline) is asked about again after this long, ms. */
const RECHECK_UNRESOLVED_MS = 60_000;

/** `decideReserve` outcome. */
export type ReserveDecision =
  | { kind: 'reserve'; entry: LedgerEntry }
  /** The same key and request were reserved before: the same hold id, nothing new is written. */
  | { kind: 'replay'; entry: LedgerEntry }
  | { kind: 'account_limit'; limit: number; owned: number }
  | { kind: 'idempotency_conflict' };

/** Places an account holds or owns by the ledger: every entry counts, reconciled or not (never too loose). */
function counted(entries: readonly LedgerEntry[]): number {
  return entries.reduce((n, e) => n + e.quantity, 0);
}

/**
 * Decides a reservation. The same idempotency key with the same request replays the first
 * reservation (its hold id), with another request it is refused; otherwise the account's entries
 * plus `quantity` must stay within `limit`.
 *
 * @param accountEntries every entry of the account (reserved and owned)
 * @param nowMs the ledger's clock, epoch ms
 */
export function decideReserve(accountEntries: readonly LedgerEntry[], req: ReserveRequest, nowMs: number): ReserveDecision {
  const earlier = accountEntries.find((e) => e.idempotencyKey === req.idempotencyKey);
  if (earlier) return earlier.request === req.request ? { kind: 'replay', entry: earlier } : { kind: 'idempotency_conflict' };
  const owned = counted(accountEntries);
  if (owned + req.quantity > req.limit) return { kind: 'account_limit', limit: req.limit, owned };
  return {
    kind: 'reserve',
    entry: {
      holdId: req.proposedHoldId,
      account: req.account,
      idempotencyKey: req.idempotencyKey,
      request: req.request,
      quantity: req.quantity,
      state: 'reserved',
      reservedAtMs: nowMs,
      checkAtMs: nowMs + req.holdTtlMs + RECONCILE_MARGIN_MS,
      object: req.object,
      claims: 1,
    },
  };
}

/**
 * At confirm: may this hold be sold under today's `limit`? Counts every entry of the account (the
 * hold's own included, or added when the ledger lost it), so two holds confirmed at once in two
 * sections are checked against the same total.
 */
export function confirmAllowed(accountEntries: readonly LedgerEntry[], holdId: string, quantity: number, limit: number): boolean {
  const own = accountEntries.some((e) => e.holdId === holdId);
  return counted(accountEntries) + (own ? 0 : quantity) <= limit;
}

/** What the Inventory object says of a hold when the ledger reconciles (from `getHold`). */
export type HoldFate =
  /** Still holding seats: HELD or PAYMENT_PENDING until `untilMs`, or NEEDS_RECONCILIATION (`untilMs` null). */
  | { kind: 'live'; untilMs: number | null }
  | { kind: 'sold' }
  /** Released, expired, or never placed. */
  | { kind: 'gone' };

/** `reconcile` outcome for one entry. */
export type ReconcileStep = { kind: 'keep'; checkAtMs: number } | { kind: 'own' } | { kind: 'drop' };

/**
 * What a due `reserved` entry becomes once its Inventory object said what became of the hold: a
 * sold hold is owned for good, a gone one frees its places, a live one is asked about again after
 * its deadline. A hold never placed is dropped only once RESERVATION_WINDOW_MS has passed since
 * the reservation (before, it may still land).
 *
 * @param nowMs the ledger's clock, epoch ms
 */
export function reconcile(entry: LedgerEntry, fate: HoldFate, nowMs: number): ReconcileStep {
  switch (fate.kind) {
    case 'sold':
      return { kind: 'own' };
    case 'gone':
      return nowMs >= entry.reservedAtMs + RESERVATION_WINDOW_MS
        ? { kind: 'drop' }
        : { kind: 'keep', checkAtMs: entry.reservedAtMs + RESERVATION_WINDOW_MS + RECONCILE_MARGIN_MS };
    case 'live':
      return { kind: 'keep', checkAtMs: Math.max(fate.untilMs ?? nowMs + RECHECK_UNRESOLVED_MS, nowMs) + RECONCILE_MARGIN_MS };
  }
}

/** What an Inventory's `getHold` answer says of the hold's fate (deadlines already applied by the object). */
export function fateOf(answer: HoldChangeAnswer): HoldFate {
  if (answer.kind === 'not_found') return { kind: 'gone' };
  const hold = answer.hold;
  switch (hold.status) {
    case 'SOLD':
      return { kind: 'sold' };
    case 'RELEASED':
    case 'EXPIRED':
      return { kind: 'gone' };
    case 'HELD':
    case 'PAYMENT_PENDING':
      return { kind: 'live', untilMs: hold.expiresAtMs };
    case 'NEEDS_RECONCILIATION':
      return { kind: 'live', untilMs: null };
  }
}
