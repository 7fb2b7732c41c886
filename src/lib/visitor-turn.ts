// A visitor's turn in the waiting room, as one Context-free function over three ports (the cursor,
// the visitor's queue shard, the WaitingRoom's admit): the routes call it with the real objects,
// the RPC-level tests with the same objects under a test clock (DESIGN.md section 3, steps 2-3).
import { MAX_POLL_MS, lotteryKey } from '../../contracts/queue/queue-policy';
import { isPre, laneOf, viewPlace, type AdmissionCursor, type Place, type PlaceView } from '../../contracts/queue/cursor';
import { worthHandingOut } from '../../contracts/queue/lifetimes';
import type { AdmitAnswer, PassAnswer } from '../../contracts/room-answers';
import { MAINTENANCE_RETRY_AFTER_S } from '../../contracts/event-config';
import type { StatusBody } from './status-body';
import { GatewayError, assertNever } from './errors';

/** What a turn needs from the objects. Each may throw for a real failure (overloaded, rate limited). */
export interface TurnPorts {
  /** The event's admission cursor (cached at the edge), or null when the event does not exist. */
  cursor(eventId: string, nowMs: number): Promise<AdmissionCursor | null>;
  /**
   * A place at the visitor's queue shard (contracts/queue/shard-join.ts `shardJoin`): their place
   * again (`replaces` null), or a new one at the back instead of the spent or lapsed `replaces`.
   */
  join(cursor: AdmissionCursor, visitorId: string, replaces: Place | null): Promise<Place>;
  /** The WaitingRoom turns a released place into an admission (or says why not). */
  admit(eventId: string, visitorId: string, place: Place): Promise<AdmitAnswer>;
  /** The WaitingRoom admits a newcomer under the `passthrough` method, or says to queue them. */
  passThrough(eventId: string, visitorId: string): Promise<PassAnswer>;
}

/** One poll or join of a visitor. */
export interface TurnRequest {
  eventId: string;
  /** The verified queue ticket's visitor and place; null for a visitor without one (a join). */
  ticket: { visitorId: string; place: Place } | null;
  /** The id a visitor without a ticket gets (randomness is the caller's: `crypto.randomUUID()`). */
  newVisitorId: string;
  /** The edge's clock, epoch ms. */
  nowMs: number;
}

/**
 * A turn's outcome. `closed`: a closed sale takes nobody new (no place, no ticket). `waiting`:
 * the visitor's place and view (`requeued` when the turn replaced a spent or lapsed place with a
 * new one at the back). `admitted`: the WaitingRoom's admission, with at least
 * MIN_USEFUL_ADMISSION_MS left. `newTicket`: the place is new to the visitor (sign a ticket).
 */
export type Turn =
  | { kind: 'event_not_found' }
  | { kind: 'closed'; cursor: AdmissionCursor }
  /** The `reject` method: the maintenance page, no place handed out, any ticket kept as it is. */
  | { kind: 'maintenance'; cursor: AdmissionCursor }
  | { kind: 'waiting'; cursor: AdmissionCursor; visitorId: string; place: Place; newTicket: boolean; requeued: boolean; view: PlaceView }
  | {
      kind: 'admitted';
      cursor: AdmissionCursor;
      visitorId: string;
      place: Place;
      newTicket: boolean;
      admission: { admittedAtMs: number; expiresAtMs: number };
    };

/** A visitor's view of a place: from the cursor alone, with the lottery key once the draw's seed is public. */
async function view(cursor: AdmissionCursor, place: Place, visitorId: string, nowMs: number): Promise<PlaceView> {
  const key = isPre(place) && cursor.draw?.seed ? await lotteryKey(cursor.draw.seed, visitorId) : null;
  return viewPlace(cursor, place, key, nowMs);
}

/**
 * A visitor's turn. A visitor without a ticket gets a place from their queue shard. A visitor with
 * one is answered from the place and the cursor, with no object call, until the cursor passes the
 * place; then the WaitingRoom admits them once, or the place is spent or lapsed and the visitor
 * gets a new one at the back (and, if that one is already released, is admitted at once). A
 * closed sale hands out no place, not even a new one for a spent place.
 *
 * @returns the outcome (see Turn); throws only what a port throws
 */
export async function takeTurn(ports: TurnPorts, req: TurnRequest): Promise<Turn> {
  const cursor = await ports.cursor(req.eventId, req.nowMs);
  if (!cursor) return { kind: 'event_not_found' };
  if (!req.ticket && cursor.mode === 'closed') return { kind: 'closed', cursor };
  if (cursor.method === 'reject') return { kind: 'maintenance', cursor };
  const visitorId = req.ticket?.visitorId ?? req.newVisitorId;
  // Passthrough: a newcomer the room lets pass is admitted without a place in line (the pre-queue
  // marker stands in the ticket); one it does not (people wait, the room is full) queues below.
  if (!req.ticket && cursor.method === 'passthrough') {
    const pass = await ports.passThrough(req.eventId, visitorId);
    if (pass.kind === 'event_not_found') return pass;
    if (pass.kind === 'admitted' && worthHandingOut(req.nowMs, pass.expiresAtMs))
      return { kind: 'admitted', cursor, visitorId, place: { pre: true }, newTicket: true, admission: pass };
  }
  let place = req.ticket?.place ?? (await ports.join(cursor, visitorId, null));
  let newTicket = req.ticket === null;
  let requeued = false;
  let seen = await view(cursor, place, visitorId, req.nowMs);
  // At most twice: a re-join may hand back a place of this visitor's that is already released.
  for (let attempt = 0; attempt < 2 && seen.released; attempt++) {
    const answer = await ports.admit(req.eventId, visitorId, place);
    switch (answer.kind) {
      case 'admitted':
        // The room hands out no admission with less than MIN_USEFUL_ADMISSION_MS left by its clock;
        // by this clock it may be less: the next poll gets the room's requeue instead of a dead token.
        if (worthHandingOut(req.nowMs, answer.expiresAtMs)) {
          return { kind: 'admitted', cursor, visitorId, place, newTicket, admission: answer };
        }
        seen = { ...seen, released: false };
        break;
      case 'waiting':
        seen = { ...seen, released: false };
        break;
      case 'requeue':
        if (cursor.mode === 'closed') return { kind: 'closed', cursor };
        place = await ports.join(cursor, visitorId, place);
        newTicket = true;
        requeued = true;
        seen = await view(cursor, place, visitorId, req.nowMs);
        if (attempt === 1) seen = { ...seen, released: false };
        break;
      case 'event_not_found':
        return { kind: 'event_not_found' };
      default:
        assertNever(answer);
    }
  }
  return { kind: 'waiting', cursor, visitorId, place, newTicket, requeued, view: seen };
}

/**
 * Seconds until a maintenance page is worth asking again (`Retry-After`): until the scheduled
 * change that set the `reject` method ends (at least 1), else MAINTENANCE_RETRY_AFTER_S.
 */
function maintenanceRetryAfterS(cursor: AdmissionCursor, nowMs: number): number {
  const endsAt = cursor.methodEndsAtMs ?? null;
  return endsAt === null ? MAINTENANCE_RETRY_AFTER_S : Math.max(1, Math.ceil((endsAt - nowMs) / 1000));
}

/**
 * The `reject` method's answer to a visitor without an admission: 503 ROOM_MAINTENANCE with
 * `Retry-After` (maintenanceRetryAfterS), the page's message as the detail, and the event's name
 * and the message for the maintenance page (src/pages/maintenance-page.ts).
 */
export function maintenanceError(cursor: AdmissionCursor, nowMs: number): GatewayError {
  const message = cursor.page.message ?? null;
  return new GatewayError('ROOM_MAINTENANCE', {
    detail: message ?? 'the sale is down for maintenance',
    retryAfterS: maintenanceRetryAfterS(cursor, nowMs),
    extra: { eventName: cursor.eventName, message },
  });
}

/**
 * The JSON body of a turn (without the tokens, which the route adds), and the seconds until the
 * next poll for `Retry-After` (null once admitted).
 */
export function turnBody(turn: Exclude<Turn, { kind: 'event_not_found' } | { kind: 'maintenance' }>): {
  body: StatusBody;
  retryAfterS: number | null;
} {
  const cursor = turn.cursor;
  const visitor = turn.kind === 'closed' ? null : turn;
  // A presale lane is a first-come line of its own with its own sale start, on lottery events too
  // (a lane visitor was shown the public start and the draw, which they are not in).
  const lane = visitor ? laneOf(visitor.place) : null;
  const line = lane === null ? null : cursor.lanes?.find((l) => l.lane === lane);
  const startMs = line ? line.saleStartsAtMs : cursor.saleStartsAtMs;
  const lottery = cursor.policy === 'random' && lane === null;
  const body = (
    state: StatusBody['state'],
    v: Pick<StatusBody, 'position' | 'ahead' | 'estimatedWaitSeconds' | 'pollAfterMs'>,
  ): StatusBody => ({
    state,
    eventName: cursor.eventName,
    policy: lane === null ? cursor.policy : 'fifo',
    ...v,
    saleStartsAt: startMs > 0 ? new Date(startMs).toISOString() : null,
    commitment: lane === null ? cursor.commitment : null,
    entrantId: lottery && visitor ? visitor.visitorId : null,
    lane,
  });
  switch (turn.kind) {
    case 'closed':
      return {
        body: body('closed', { position: null, ahead: null, estimatedWaitSeconds: null, pollAfterMs: MAX_POLL_MS }),
        retryAfterS: MAX_POLL_MS / 1000,
      };
    case 'admitted':
      return { body: body('admitted', { position: null, ahead: null, estimatedWaitSeconds: 0, pollAfterMs: 0 }), retryAfterS: null };
    case 'waiting': {
      const { state, position, ahead, estimatedWaitSeconds, pollAfterMs } = turn.view;
      return { body: body(state, { position, ahead, estimatedWaitSeconds, pollAfterMs }), retryAfterS: Math.ceil(pollAfterMs / 1000) };
    }
    default:
      return assertNever(turn);
  }
}
