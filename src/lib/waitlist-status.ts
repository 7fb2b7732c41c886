// The waitlist part of a sold-out visitor's status. Each isolate keeps the event's waitlist board
// (is it open, where the waiting entries start and end) for BOARD_TTL_MS, so a crowd on the
// sold-out page, joined or not, does not poll the one Inventory: offers go in entry order, so a
// waiting visitor's place is their entry id minus the first waiting one. Only a visitor whose entry
// is no longer waiting (offered, taken, lapsed), or newer than the board, asks the Inventory itself:
// as many as there are offers, not as many as there are visitors.
import type { EntryState, WaitlistPlaceAnswer } from '../../contracts/resale-answers';
import { callDurableObject } from './do-call';
import { inventoryFor } from './inventory-router';

/** The waitlist on a sold-out visitor's status body. Money in minor units of `currency`. */
export interface WaitlistStatus {
  /** The waitlist takes entries now (nothing left on open sale). */
  open: boolean;
  /** The visitor's entry: WAITING, OFFERED, TAKEN or LAPSED; null when they have not joined. */
  state: EntryState | null;
  /** Their place among the accounts still waiting (1 = next); null unless WAITING. */
  place: number | null;
  /** Seats the entry asked for; null when not joined. */
  quantity: number | null;
  /** The live offer while OFFERED: seats, total price (face values plus fees), the fees, the deadline (ISO 8601), where to take it. */
  offer: {
    holdId: string;
    seatIds: string[];
    priceMinor: number;
    feeMinor: number;
    currency: string;
    expiresAt: string;
    /** The origin's page for taking the offer (`resale.offerPath?hold=<holdId>`); null when the organizer set none. */
    takeUrl: string | null;
  } | null;
}

/** How long an isolate keeps an event's waitlist board, ms: about one poll, so an offer shows within two. */
const BOARD_TTL_MS = 2_000;
const boards = new Map<string, { atMs: number; answer: Promise<WaitlistPlaceAnswer> }>();

/** A visitor's waitlist entry as their waitlist cookie holds it; `quantity` is null in a cookie without it. */
export interface WaitlistCookie {
  entryId: number;
  quantity: number | null;
}

/**
 * What the board alone says about `entry`: WAITING at `place` (1 = next) when its id is between
 * the first waiting entry and the board's next id; null when the Inventory must be asked (the entry
 * was offered, taken or lapsed, is newer than the board, or the cookie has no quantity).
 */
export function placeOnBoard(board: { waitingFrom: number; nextEntryId: number }, entry: WaitlistCookie): { place: number } | null {
  if (entry.quantity === null || entry.entryId < board.waitingFrom || entry.entryId >= board.nextEntryId) return null;
  return { place: entry.entryId - board.waitingFrom + 1 };
}

/**
 * The waitlist status of visitor `visitorId` of sold-out event `eventId` with the entry their
 * waitlist cookie names (or none): from the isolate's board (placeOnBoard), else their entry read
 * from the Inventory, which checks that it is theirs.
 * @returns null when the event has no resale, or when the Inventory cannot be asked (the page then shows no waitlist)
 */
export async function waitlistStatus(
  env: Env,
  eventId: string,
  visitorId: string,
  entry: WaitlistCookie | null,
  nowMs: number,
): Promise<WaitlistStatus | null> {
  const ask = (account: string | null, entryId: number | null) =>
    callDurableObject<WaitlistPlaceAnswer>(() => inventoryFor(env, eventId, { kind: 'event' }).waitlistPlace(account, entryId), {
      idempotent: true,
      name: 'inventory.waitlistPlace',
      eventId,
    });
  let answer: Promise<WaitlistPlaceAnswer>;
  const kept = boards.get(eventId);
  if (kept && nowMs - kept.atMs < BOARD_TTL_MS) answer = kept.answer;
  else {
    answer = ask(null, null);
    boards.set(eventId, { atMs: nowMs, answer });
    answer.catch(() => boards.delete(eventId));
  }
  const board = await answer.catch(() => null);
  if (board && board.kind === 'ok' && entry) {
    const on = placeOnBoard(board, entry);
    if (on) return { open: board.open, state: 'WAITING', place: on.place, quantity: entry.quantity, offer: null };
    answer = ask(visitorId, entry.entryId);
  }
  const a = await answer.catch(() => null);
  if (!a || a.kind !== 'ok') return null;
  const e = a.entry;
  const o = e?.offer ?? null;
  return {
    open: a.open,
    state: e?.state ?? null,
    place: e?.place ?? null,
    quantity: e?.quantity ?? null,
    offer: o && {
      holdId: o.holdId,
      seatIds: o.seatIds,
      priceMinor: o.priceMinor,
      feeMinor: o.feeMinor,
      currency: o.currency,
      expiresAt: new Date(o.expiresAtMs).toISOString(),
      takeUrl: a.offerPath ? `${a.offerPath}?hold=${encodeURIComponent(o.holdId)}` : null,
    },
  };
}

/** The waitlist cookie's value for an entry: `<entryId>.<quantity>`. */
export const waitlistCookieValue = (entryId: number, quantity: number) => `${entryId}.${quantity}`;

/** The entry a waitlist cookie names (`<entryId>.<quantity>`, or `<entryId>` alone), or null for none or a malformed one. */
export function waitlistEntryOf(cookie: string | undefined): WaitlistCookie | null {
  const m = cookie ? /^([1-9][0-9]{0,15})(?:\.([1-6]))?$/.exec(cookie) : null;
  return m ? { entryId: Number(m[1]), quantity: m[2] ? Number(m[2]) : null } : null;
}
