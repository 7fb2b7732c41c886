// The waitlist part of a sold-out visitor's status: read from the event's Inventory, the
// event-wide half (is the waitlist open, resale on) kept a few seconds per isolate so a crowd on
// the sold-out page does not poll the one Inventory; only visitors who joined ask it each time.
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

/** How long an isolate keeps an event's waitlist-open answer for visitors who have not joined, ms. */
const EVENT_VIEW_TTL_MS = 5_000;
const eventViews = new Map<string, { atMs: number; answer: Promise<WaitlistPlaceAnswer> }>();

/**
 * The waitlist status of visitor `visitorId` of sold-out event `eventId`: their entry `entryId`
 * (from the waitlist cookie) read fresh, or, without one, the event's cached open flag.
 * @returns null when the event has no resale, or when the Inventory cannot be asked (the page then shows no waitlist)
 */
export async function waitlistStatus(
  env: Env,
  eventId: string,
  visitorId: string,
  entryId: number | null,
  nowMs: number,
): Promise<WaitlistStatus | null> {
  const ask = (account: string | null, entry: number | null) =>
    callDurableObject<WaitlistPlaceAnswer>(() => inventoryFor(env, eventId, { kind: 'event' }).waitlistPlace(account, entry), {
      idempotent: true,
      name: 'inventory.waitlistPlace',
      eventId,
    });
  let answer: Promise<WaitlistPlaceAnswer>;
  if (entryId !== null) answer = ask(visitorId, entryId);
  else {
    const kept = eventViews.get(eventId);
    if (kept && nowMs - kept.atMs < EVENT_VIEW_TTL_MS) answer = kept.answer;
    else {
      answer = ask(null, null);
      eventViews.set(eventId, { atMs: nowMs, answer });
      answer.catch(() => eventViews.delete(eventId));
    }
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

/** The entry id a waitlist cookie holds, or null for none or a malformed one. */
export function entryIdOf(cookie: string | undefined): number | null {
  return cookie && /^[1-9][0-9]{0,15}$/.test(cookie) ? Number(cookie) : null;
}
