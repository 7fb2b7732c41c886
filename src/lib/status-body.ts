// The JSON answer of join and status: shared by the queue routes and the waiting page they render.
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import type { PlaceView } from '../../contracts/queue/place-view';
import type { QueueState } from '../../contracts/queue/queue-policy';
import type { StockView } from '../../contracts/queue/stock-view';
import type { WaitlistStatus } from './waitlist-status';

/**
 * JSON body of join / status (and of the sale URL for `Accept: application/json`). The place
 * fields are the visitor's PlaceView: a position never rises while the visitor waits and does
 * nothing (between answers of increasing `asOf`).
 */
export interface StatusBody extends Pick<
  PlaceView,
  'position' | 'positionRange' | 'counting' | 'ahead' | 'estimatedWaitSeconds' | 'pollAfterMs'
> {
  state: QueueState;
  eventName: string;
  /** The policy of the visitor's line: the event's, but `fifo` for a presale lane (first come, first served, on lottery events too). */
  policy: AdmissionCursor['policy'];
  /** When the visitor's line opens (the event's sale start, or their presale lane's), ISO 8601; null when the sale was open from creation. */
  saleStartsAt: string | null;
  /** Lottery events: the draw's commitment (SHA-256 of the secret seed); null otherwise, and for presale lane places. */
  commitment: string | null;
  /**
   * Lottery events: the visitor's own entrant id, as the published draw lists it (a random id, or
   * the keyed hash of the account on entry events), so they can find their rank in it
   * (`GET /_wr/events/{id}/draw?entrant=`); null otherwise, for presale lane places (not in the
   * draw), for later arrivals of a lottery event (first come, first served behind the draw), and when a closed sale took nobody.
   */
  entrantId: string | null;
  /** The presale lane the visitor's place is in line in; null for the public queue. */
  lane: string | null;
  /**
   * What is left to sell against the people ahead (contracts/queue/stock-view.ts); null when the
   * organizer turned it off, the room has not read it yet, for an event with sections, and once admitted.
   */
  stock: StockView | null;
  /** When the room published the cursor this answer was read from, ISO 8601: of two answers, the later `asOf` is the newer. */
  asOf: string;
  /**
   * The event's waitlist and the visitor's entry in it (src/lib/waitlist-status.ts), on a sold-out
   * event with resale; absent or null otherwise.
   */
  waitlist?: WaitlistStatus | null;
  /** The queue ticket, for cookie-less clients; present when newly issued. */
  queueTicket?: string;
  /** The admission token, for cookie-less clients; present when `state` is `admitted`. */
  admissionToken?: string;
}
