// What the Inventory answers about returns, the waitlist and resale (durable-objects/inventory/resale-desk.ts).
import type { EventNotFound } from './answers';
import type { HoldView, ResaleCounts } from './inventory-answers';

export type { ResaleCounts };

/** Machine-readable refusals of the resale rules (each a 4xx at the edge; a refusal changes nothing). */
export type ResaleRefusalCode =
  | 'RESALE_OFF'
  | 'RETURN_DEADLINE_PASSED'
  | 'SEATS_NOT_IN_ORDER'
  | 'ORDER_ALREADY_RETURNED'
  | 'RETURN_IN_PROGRESS'
  | 'PAYMENT_NOT_SETTLED'
  | 'HOLD_NOT_ACTIVE'
  | 'OFFER_LAPSED'
  | 'NOT_OFFER_OWNER'
  | 'WAITLIST_NOT_OPEN'
  | 'ACCOUNT_LIMIT';

/** Where a waitlist entry stands: waiting, offered seats (a live hold), took them, or let the offer lapse. */
export type EntryState = 'WAITING' | 'OFFERED' | 'TAKEN' | 'LAPSED';

/** One returned seat: its face value (minor units), whether its original order was refunded, and its new hold once resold. */
interface ReturnedSeatView {
  seatId: string;
  faceMinor: number;
  refunded: boolean;
  resoldHoldId: string | null;
}

/** A return of some or all seats of a sold hold's order. Times epoch ms. */
export interface ReturnView {
  returnId: string;
  holdId: string;
  orderId: string;
  refund: 'on_resale' | 'at_once';
  createdAtMs: number;
  seats: ReturnedSeatView[];
}

/** A refusal of a resale call, with the hold or entry left as it was. */
export type ResaleRefused = { kind: 'refused'; code: ResaleRefusalCode | 'IDEMPOTENCY_KEY_REUSED'; detail: string };

/** `returnSeats` outcome. */
export type ReturnAnswer = { kind: 'ok'; return: ReturnView; replayed: boolean } | { kind: 'not_found' } | ResaleRefused | EventNotFound;

/** A waitlist entry; its offer (a hold) while OFFERED, TAKEN or LAPSED. Times epoch ms. */
export interface WaitlistEntryView {
  entryId: number;
  account: string;
  quantity: number;
  state: EntryState;
  joinedAtMs: number;
  offerHoldId: string | null;
}

/** `joinWaitlist` outcome: the account's live entry (`replayed`: it was there already). */
export type JoinAnswer = { kind: 'ok'; entry: WaitlistEntryView; replayed: boolean } | ResaleRefused | EventNotFound;

/** `acceptOffer` outcome: the offer's hold, now with a hold's TTL, to be paid as any hold. */
export type AcceptAnswer = { kind: 'ok'; hold: HoldView } | { kind: 'not_found' } | ResaleRefused;

/** `waitlist` outcome: the entries after `after` in arrival order (at most `limit`) and the counts. */
export type WaitlistAnswer = { kind: 'ok'; entries: WaitlistEntryView[]; counts: ResaleCounts } | EventNotFound;

/** One entry of the resale feed (also the body of an offer's webhook). `at` epoch ms. */
export interface ResaleEvent {
  id: number;
  at: number;
  kind: 'return' | 'offer' | 'offer_lapsed' | 'offer_taken' | 'resold' | 'refund';
  /** What the entry is about: the return id, the offer's hold id, `<seat>:<hold>` of a resale, `<return>:<seat>` of a refund. */
  ref: string;
  data: Record<string, ResaleDatum>;
}

/** A value in a resale feed entry's data. */
export type ResaleDatum = string | number | boolean | null | string[];

/** `resaleRead` outcome: the waitlist page, or the resale feed page (`feed`). */
export type ResaleReadAnswer = WaitlistAnswer | { kind: 'feed'; events: ResaleEvent[] };

/** An offer as its account sees it: the held seats, the total price (face values plus fees), the fees, the deadline (epoch ms). */
export interface OfferView {
  holdId: string;
  seatIds: string[];
  priceMinor: number;
  feeMinor: number;
  currency: string;
  expiresAtMs: number;
}

/**
 * `waitlistPlace` outcome: whether the waitlist takes entries now (`open`: nothing on sale), the
 * origin's page for taking an offer (`offerPath`), where the waiting entries start and end
 * (`waitingFrom`: the lowest entry id still WAITING, or `nextEntryId` when none; offers go in
 * entry order, so every entry from `waitingFrom` up is WAITING and an entry's place is its id
 * minus `waitingFrom` plus 1), and the asked entry: its state, its place among the accounts still
 * waiting (1 = next; null unless WAITING), and its offer while OFFERED. `off`: the event has no
 * resale (or no own Inventory).
 */
export type WaitlistPlaceAnswer =
  | { kind: 'off' }
  | {
      kind: 'ok';
      open: boolean;
      offerPath: string | null;
      waitingFrom: number;
      nextEntryId: number;
      entry: { entryId: number; state: EntryState; quantity: number; place: number | null; offer: OfferView | null } | null;
    };
