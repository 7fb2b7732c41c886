// Seat-hold rules: the pure state machine, request validation and seat naming.

import type { HoldRefusal, HoldStatus } from '../../contracts/inventory-answers';
import { SEAT_ID_PATTERN, TIER_PATTERN } from '../../contracts/names';

// The hold vocabulary is part of the Inventory's answers, so it lives in contracts/; re-exported
// here for the object's own modules.
export type { HoldStatus };

/** Most seats (or general-admission places) one hold may take. */
const MAX_SEATS_PER_HOLD = 6;

/** The parts of a hold that decide transitions. */
export interface HoldFacts {
  account: string;
  status: HoldStatus;
  /** Deadline, epoch ms (the inventory object's clock): of the hold while HELD, of the payment grace while PAYMENT_PENDING. */
  expiresAtMs: number;
  orderId: string | null;
  /** Total price of the hold in minor units, fixed when it was placed. */
  priceMinor: number;
}

/**
 * What may happen to a hold. `account: null` = the origin acting without naming an account;
 * `byOrigin` = the signed origin API (which may release a hold whose payment is pending).
 */
export type HoldAction =
  | { kind: 'payment_pending'; account: string | null; graceMs: number }
  | { kind: 'confirm'; orderId: string; amountMinor: number; account: string | null }
  | { kind: 'release'; account: string | null; byOrigin: boolean }
  | { kind: 'expire' };

/** Outcome of `applyHoldAction`: the next status and deadline (`noop` for an idempotent repeat), or a refusal. */
export type HoldTransition =
  { ok: true; status: HoldStatus; expiresAtMs: number; noop: boolean } | { ok: false; code: HoldRefusal; detail: string };

/**
 * The status a hold has now, deadlines included: a HELD hold past its deadline is EXPIRED and a
 * PAYMENT_PENDING hold past its grace NEEDS_RECONCILIATION, even before any timer ran. The deadline
 * itself counts as passed (`expiresAtMs <= nowMs`).
 */
export function effectiveStatus(hold: Pick<HoldFacts, 'status' | 'expiresAtMs'>, nowMs: number): HoldStatus {
  if (hold.expiresAtMs > nowMs) return hold.status;
  if (hold.status === 'HELD') return 'EXPIRED';
  if (hold.status === 'PAYMENT_PENDING') return 'NEEDS_RECONCILIATION';
  return hold.status;
}

const ok = (status: HoldStatus, expiresAtMs: number, noop = false): HoldTransition => ({ ok: true, status, expiresAtMs, noop });
const no = (code: HoldRefusal, detail: string): HoldTransition => ({ ok: false, code, detail });

/**
 * The hold state machine. Every action names the hold and is checked against its current
 * (effective) status, owner and deadline, so a late timer or a stale retry never acts on anyone
 * else's seats. Rules beyond the arrows of `HoldStatus`:
 * - PAYMENT_PENDING moves the deadline to `now + graceMs` once; asking again is a no-op.
 * - Confirm needs the amount the origin charged to equal the hold's price; confirming a SOLD hold
 *   again with the same order id and amount is a no-op, with another order id it is refused; an
 *   expired or released hold is never confirmed ("already sold, so success" does not exist). That
 *   an order id pays for one hold only is checked by the inventory (it spans holds).
 * - A visitor may release only a HELD hold; once payment started only the origin may release it.
 * - The timer (`expire`) acts only on a hold still HELD or PAYMENT_PENDING and past its own deadline.
 *
 * @param hold the hold as stored
 * @param action what the caller wants
 * @param nowMs the inventory object's clock, epoch ms
 */
export function applyHoldAction(hold: HoldFacts, action: HoldAction, nowMs: number): HoldTransition {
  if (action.kind !== 'expire' && action.account !== null && action.account !== hold.account) {
    return no('NOT_HOLD_OWNER', 'this hold belongs to another account');
  }
  const status = effectiveStatus(hold, nowMs);
  switch (action.kind) {
    case 'expire':
      if (hold.status === 'HELD' && status === 'EXPIRED') return ok('EXPIRED', hold.expiresAtMs);
      if (hold.status === 'PAYMENT_PENDING' && status === 'NEEDS_RECONCILIATION') return ok('NEEDS_RECONCILIATION', hold.expiresAtMs);
      return no('HOLD_NOT_ACTIVE', `hold is ${status}, with no deadline passed to act on`);
    case 'payment_pending':
      if (status === 'HELD') return ok('PAYMENT_PENDING', nowMs + action.graceMs);
      if (status === 'PAYMENT_PENDING') return ok(status, hold.expiresAtMs, true);
      if (status === 'EXPIRED') return no('HOLD_EXPIRED', 'the hold expired before payment started');
      return no('HOLD_NOT_ACTIVE', `payment cannot start on a ${status} hold`);
    case 'confirm':
      if (status === 'SOLD') {
        if (hold.orderId !== action.orderId) return no('HOLD_ALREADY_CONFIRMED', 'the hold was confirmed for another order');
        if (action.amountMinor !== hold.priceMinor)
          return no('PRICE_MISMATCH', `the hold costs ${hold.priceMinor} minor units, not ${action.amountMinor}`);
        return ok(status, hold.expiresAtMs, true);
      }
      if (status === 'EXPIRED') return no('HOLD_EXPIRED', 'the hold expired before confirmation');
      if (status === 'RELEASED') return no('HOLD_NOT_ACTIVE', 'a released hold cannot be confirmed');
      if (action.amountMinor !== hold.priceMinor) {
        return no('PRICE_MISMATCH', `the hold costs ${hold.priceMinor} minor units, not ${action.amountMinor}`);
      }
      return ok('SOLD', hold.expiresAtMs);
    case 'release':
      if (status === 'RELEASED') return ok(status, hold.expiresAtMs, true);
      if (status === 'HELD') return ok('RELEASED', hold.expiresAtMs);
      if (status === 'PAYMENT_PENDING' || status === 'NEEDS_RECONCILIATION') {
        return action.byOrigin
          ? ok('RELEASED', hold.expiresAtMs)
          : no('PAYMENT_IN_PROGRESS', 'payment has started; only the ticketing site can release this hold now');
      }
      if (status === 'EXPIRED') return no('HOLD_EXPIRED', 'the hold already expired; its seats are free');
      return no('HOLD_NOT_ACTIVE', `a ${status} hold cannot be released`);
  }
}

/** A hold request, validated: seats by id, or a quantity of a general-admission tier. */
export type HoldTarget = { kind: 'seats'; seatIds: string[] } | { kind: 'tier'; tier: string; quantity: number };

/**
 * Checks a hold request: 1..MAX_SEATS_PER_HOLD distinct well-formed seat ids, or a tier name with
 * an integer quantity in 1..MAX_SEATS_PER_HOLD.
 * @returns the canonical target (seat ids sorted), or why it is invalid
 */
export function validateHoldTarget(
  target: { seatIds: readonly string[] } | { tier: string; quantity: number },
): { ok: true; target: HoldTarget } | { ok: false; detail: string } {
  if ('tier' in target) {
    if (!TIER_PATTERN.test(target.tier)) return { ok: false, detail: 'tier must be a lower-case slug' };
    if (!Number.isInteger(target.quantity) || target.quantity < 1 || target.quantity > MAX_SEATS_PER_HOLD) {
      return { ok: false, detail: `quantity must be a whole number from 1 to ${MAX_SEATS_PER_HOLD}` };
    }
    return { ok: true, target: { kind: 'tier', tier: target.tier, quantity: target.quantity } };
  }
  const seatIds = target.seatIds;
  if (seatIds.length < 1 || seatIds.length > MAX_SEATS_PER_HOLD) {
    return { ok: false, detail: `a hold takes 1 to ${MAX_SEATS_PER_HOLD} seats, got ${seatIds.length}` };
  }
  const bad = seatIds.find((id) => !SEAT_ID_PATTERN.test(id));
  if (bad !== undefined) return { ok: false, detail: `malformed seat id ${JSON.stringify(bad.slice(0, 20))}` };
  if (new Set(seatIds).size !== seatIds.length) return { ok: false, detail: 'a seat is listed twice' };
  return { ok: true, target: { kind: 'seats', seatIds: [...seatIds].sort() } };
}

/** The canonical text of a target, compared for idempotent retries. */
export function targetKey(target: HoldTarget): string {
  return target.kind === 'seats' ? `seats:${target.seatIds.join(',')}` : `tier:${target.tier}:${target.quantity}`;
}

/** How many places a target takes. */
export function targetQuantity(target: HoldTarget): number {
  return target.kind === 'seats' ? target.seatIds.length : target.quantity;
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

/** Seat ids of a seat plan: `count` seats, `perRow` to a row, e.g. A1..A25, B1..; with a section, `S2-A1`.. */
export function seatIdsFor(count: number, perRow: number, section?: string): string[] {
  const prefix = section === undefined ? '' : `${section}-`;
  return Array.from({ length: count }, (_, i) => `${prefix}${rowName(Math.floor(i / perRow))}${(i % perRow) + 1}`);
}
