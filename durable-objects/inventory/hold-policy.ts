// Seat-hold rules: the pure state machine, request validation and seat naming.

/** Lifecycle of a seat hold: `HELD -> SOLD | RELEASED | EXPIRED`; the last three are final. */
export type HoldStatus = 'HELD' | 'SOLD' | 'RELEASED' | 'EXPIRED';

/** Most seats one hold may take. */
export const MAX_SEATS_PER_HOLD = 6;
/** Seat ids: row letters then seat number, e.g. `A1`, `AB25`; covers 100,000 rows of up to 1,000 seats. */
export const SEAT_ID_PATTERN = /^[A-Z]{1,4}[0-9]{1,4}$/;

/** The parts of a hold that decide transitions. */
export interface HoldFacts {
  account: string;
  status: HoldStatus;
  /** Deadline of a HELD hold, epoch ms (the inventory object's clock). */
  expiresAtMs: number;
  orderId: string | null;
}

/** What may happen to a hold. `account: null` = the origin acting for any account. */
export type HoldAction =
  { kind: 'confirm'; orderId: string; account: string | null } | { kind: 'release'; account: string | null } | { kind: 'expire' };

/** Why a transition was refused. */
export type HoldRefusal = 'NOT_HOLD_OWNER' | 'HOLD_EXPIRED' | 'HOLD_NOT_ACTIVE' | 'HOLD_ALREADY_CONFIRMED';

/** Outcome of `applyHoldAction`: the next state (`noop` for an idempotent repeat) or a refusal. */
export type HoldTransition = { ok: true; status: HoldStatus; noop: boolean } | { ok: false; code: HoldRefusal; detail: string };

/** A HELD hold past its deadline is expired even before any timer ran. */
export function effectiveStatus(hold: Pick<HoldFacts, 'status' | 'expiresAtMs'>, nowMs: number): HoldStatus {
  return hold.status === 'HELD' && hold.expiresAtMs <= nowMs ? 'EXPIRED' : hold.status;
}

/**
 * The hold state machine. Every action names the hold, and is checked against its current state,
 * owner and deadline, so a late timer or a stale retry can never act on someone else's seats.
 * Confirming a SOLD hold again with the same order id is an idempotent no-op; with another order
 * id it is refused. Confirming an expired or released hold is refused, never "already sold, so OK".
 *
 * @param hold the hold as stored
 * @param action what the caller wants
 * @param nowMs the inventory object's clock, epoch ms
 */
export function applyHoldAction(hold: HoldFacts, action: HoldAction, nowMs: number): HoldTransition {
  if (action.kind !== 'expire' && action.account !== null && action.account !== hold.account) {
    return { ok: false, code: 'NOT_HOLD_OWNER', detail: 'this hold belongs to another account' };
  }
  const status = effectiveStatus(hold, nowMs);
  switch (action.kind) {
    case 'expire':
      return status === 'EXPIRED' && hold.status === 'HELD'
        ? { ok: true, status: 'EXPIRED', noop: false }
        : { ok: false, code: 'HOLD_NOT_ACTIVE', detail: `hold is ${status}, not a HELD hold past its deadline` };
    case 'release':
      if (status === 'RELEASED') return { ok: true, status, noop: true };
      if (status === 'HELD') return { ok: true, status: 'RELEASED', noop: false };
      if (status === 'EXPIRED') return { ok: false, code: 'HOLD_EXPIRED', detail: 'the hold already expired; its seats are free' };
      return { ok: false, code: 'HOLD_NOT_ACTIVE', detail: `a ${status} hold cannot be released` };
    case 'confirm':
      if (status === 'SOLD') {
        return hold.orderId === action.orderId
          ? { ok: true, status, noop: true }
          : { ok: false, code: 'HOLD_ALREADY_CONFIRMED', detail: 'the hold was confirmed for another order' };
      }
      if (status === 'HELD') return { ok: true, status: 'SOLD', noop: false };
      if (status === 'EXPIRED') return { ok: false, code: 'HOLD_EXPIRED', detail: 'the hold expired before confirmation' };
      return { ok: false, code: 'HOLD_NOT_ACTIVE', detail: `a ${status} hold cannot be confirmed` };
  }
}

/**
 * Checks a hold request's seat list: 1..MAX_SEATS_PER_HOLD distinct well-formed ids.
 * @returns the ids sorted (the canonical form used for idempotency), or why they are invalid
 */
export function validateSeatIds(seatIds: readonly string[]): { ok: true; seatIds: string[] } | { ok: false; detail: string } {
  if (seatIds.length < 1 || seatIds.length > MAX_SEATS_PER_HOLD) {
    return { ok: false, detail: `a hold takes 1 to ${MAX_SEATS_PER_HOLD} seats, got ${seatIds.length}` };
  }
  const bad = seatIds.find((id) => !SEAT_ID_PATTERN.test(id));
  if (bad !== undefined) return { ok: false, detail: `malformed seat id ${JSON.stringify(bad.slice(0, 20))}` };
  if (new Set(seatIds).size !== seatIds.length) return { ok: false, detail: 'a seat is listed twice' };
  return { ok: true, seatIds: [...seatIds].sort() };
}

/** Row name for a 0-based row index: A..Z, then AA..ZZ (bijective base 26). */
export function rowName(index: number): string {
  let n = index + 1;
  let name = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    name = String.fromCharCode(65 + r) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

/** Seat ids of a seat plan: `count` seats, `perRow` to a row, e.g. A1..A25, B1.. */
export function seatIdsFor(count: number, perRow: number): string[] {
  return Array.from({ length: count }, (_, i) => `${rowName(Math.floor(i / perRow))}${(i % perRow) + 1}`);
}
