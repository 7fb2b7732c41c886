// A visitor's turn at the edge (the pure turn is src/lib/visitor-turn.ts): its ports over the
// request's bindings (the edge-cached cursor, the queue shard's join, the WaitingRoom's admit), the
// entry and proof-of-work checks before it, and its answer signed into cookies. The queue API
// (src/routes/queue.ts) and the room at its URLs (src/routes/room.ts) both answer with it.
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AdmissionCursor, Place } from '../../contracts/queue/cursor';
import { cookieMaxAgeS, numericDate } from '../../contracts/queue/lifetimes';
import { shardJoin, type ShardJoinAnswer, type ShardJoinItem } from '../../contracts/queue/shard-join';
import { joinAtShard } from '../lib/shard-joins';
import { PROOF_HEADER, shardName } from '../../contracts/names';
import type { AdmitAnswer, PassAnswer } from '../../contracts/room-answers';
import { readCursor } from '../lib/cursor-cache';
import { callDurableObject } from '../lib/do-call';
import { recordDecision } from '../lib/decision-tally';
import { clientIp, enforceRateLimit } from '../middleware/rate-limit';
import { readTicket } from '../middleware/credentials';
import { admissionCookie, cookieOptions, isSecure, ticketCookie, waitlistCookie } from '../lib/cookies';
import { waitlistEntryOf, waitlistStatus } from '../lib/waitlist-status';
import { GatewayError, assertNever } from '../lib/errors';
import { ENTRY_JWKS_TIMEOUT_MS, accountSecrets, decideEntry, originEntryKeys, type EntryDecision } from '../lib/entry-token';
import { fetchFromOrigin } from '../lib/proxy';
import { ENTRY_HEADER, ENTRY_QUERY_PARAM } from '../../contracts/entry';
import {
  CLOCK_TOLERANCE_S,
  TICKET_TTL_S,
  signAdmission,
  signQueueTicket,
  ticketNeedsRenewal,
  tokenSettings,
  type VisitorClaims,
} from '../lib/token';
import { preferredType } from '../lib/negotiate';
import type { AppEnv } from '../types';
import type { StatusBody } from '../lib/status-body';
import { maintenanceError, takeTurn, turnBody, type TurnPorts } from '../lib/visitor-turn';
import { challengeKeyRing, verifyProof } from '../lib/proof-of-work';
import { recordRefusal, refusalCause } from '../lib/refusal-tally';
import type { ProofOfWorkConfig } from '../../contracts/proof-of-work';

/** The event's admission cursor, cached at the edge (src/lib/cursor-cache.ts); null when the event does not exist. */
export function edgeCursor(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<AdmissionCursor | null> {
  return readCursor(
    eventId,
    nowMs,
    async () => (await c.env.WAITING_ROOM.getByName(eventId).cursor()) as AdmissionCursor | null,
    (p) => c.executionCtx.waitUntil(p),
  );
}

/** What the routes answer a visitor with, once the turn's credentials are set as cookies. */
export interface TurnAnswer {
  /** The visitor the turn was for ('' when a closed sale took nobody new). */
  visitorId: string;
  body: StatusBody;
  /** Seconds until the next poll; null once admitted. */
  retryAfterS: number | null;
  pageStatus: 200 | 202 | 429;
  page: AdmissionCursor['page'];
  /** The admission token minted on this very request, if the visitor was admitted. */
  admissionToken: string | null;
}

/**
 * The turn's ports over this request's bindings: the edge-cached cursor; the visitor's queue
 * shard, where creating a place counts against the client IP's join limit; the WaitingRoom's admit.
 * Both object calls are idempotent (the same visitor gets the same place; a repeated re-join of
 * the same replaced place gets the place the first one handed out; admit returns the same admission).
 * The join goes with this isolate's other concurrent joins to the same shard as one call
 * (src/lib/shard-joins.ts), decided there in arrival order as if alone.
 *
 * The first join of `provenVisitorId` (the visitor id of a solved proof-of-work challenge) is a
 * `once` join, which refuses an id that ever had a place, and an entry token's first join an
 * `enter`, which refuses a token seen before; neither is retried.
 *
 * @throws GatewayError RATE_LIMITED (429) over the join limit; OVERLOADED (503) when an object is;
 *   PROOF_OF_WORK_USED (409) when the proven visitor id already had a place; ENTRY_TOKEN_USED (409)
 */
function turnPorts(c: Context<AppEnv>, entry: EntryDecision, provenVisitorId: string | null): TurnPorts {
  return {
    cursor: (eventId, nowMs) => edgeCursor(c, eventId, nowMs),
    join: async (cursor, visitorId, replaces) => {
      const ip = clientIp(c);
      const waitUntil = (p: Promise<unknown>) => c.executionCtx.waitUntil(p);
      if (ip) enforceRateLimit(c.env, waitUntil, 'join', 'ip', cursor.eventId, ip, Date.now());
      const req = shardJoin(cursor, visitorId, replaces, { lane: entry.kind === 'account' ? entry.lane : null });
      const item: ShardJoinItem =
        entry.kind === 'account' && !replaces
          ? { kind: 'enter', req, token: { id: entry.tokenId, expiresAtMs: entry.expiresAtMs + CLOCK_TOLERANCE_S * 1000 } }
          : provenVisitorId !== null && visitorId === provenVisitorId && !replaces
            ? { kind: 'once', req }
            : { kind: 'join', req };
      // Only a plain join is retried: a retried entry token or proof of work would meet itself as used.
      const answer = await callDurableObject(() => joinAtShard(c.env, shardName(cursor.eventId, req.shard), item, waitUntil), {
        idempotent: item.kind === 'join',
        name: JOIN_CALL_NAMES[item.kind],
        eventId: cursor.eventId,
      });
      const place = placeOrRefusal(answer, cursor);
      recordDecision(cursor.eventId, replaces ? 'requeued' : 'joined');
      return place;
    },
    passThrough: (eventId, visitorId) =>
      callDurableObject<PassAnswer>(async () => c.env.WAITING_ROOM.getByName(eventId).passThrough(visitorId), {
        // A retry after a lost answer admits the same visitor id again: one more counted admission at most.
        idempotent: true,
        name: 'waitingRoom.passThrough',
        eventId,
      }),
    admit: (eventId, visitorId, place) =>
      callDurableObject<AdmitAnswer>(async () => c.env.WAITING_ROOM.getByName(eventId).admit(visitorId, place), {
        idempotent: true,
        name: 'waitingRoom.admit',
        eventId,
      }),
  };
}

/** Each join's name in the decision log, as the shard's single-join methods are named. */
const JOIN_CALL_NAMES = { join: 'queueShard.join', enter: 'queueShard.enter', once: 'queueShard.joinOnce' } as const;

/**
 * The place a shard's join answer gives, or its refusal as the visitor's error.
 * @throws GatewayError ENTRY_TOKEN_USED (409, with the sign-in URL) or PROOF_OF_WORK_USED (409)
 */
function placeOrRefusal(answer: ShardJoinAnswer, cursor: AdmissionCursor): Place {
  switch (answer.kind) {
    case 'place':
      return answer.place;
    case 'entry_token_used':
      throw new GatewayError('ENTRY_TOKEN_USED', {
        detail: 'this entry token already gave its place; sign in again (your account keeps the same place)',
        extra: { signInUrl: cursor.entry?.signInUrl },
      });
    case 'used':
      throw new GatewayError('PROOF_OF_WORK_USED', { detail: 'this solution already got its place: get a new challenge' });
    default:
      return assertNever(answer);
  }
}

/**
 * A visitor's turn (src/lib/visitor-turn.ts) answered: a new place's queue ticket (or the same
 * place's, when the visitor's ticket is past half its life: `ticketNeedsRenewal`) and an
 * admission's token are signed and set as cookies, each cookie's Max-Age the whole seconds its
 * token has left (never longer).
 * @throws GatewayError EVENT_NOT_FOUND, and what the ports throw
 */
export async function answerTurn(c: Context<AppEnv>, eventId: string, ticket: VisitorClaims | null): Promise<TurnAnswer> {
  try {
    return await takeAndSign(c, eventId, ticket);
  } catch (err) {
    if (err instanceof GatewayError) countRefusal(c, eventId, err);
    throw err;
  }
}

/**
 * Counts a refusal of the visitor's turn in the event's history (src/lib/refusal-tally.ts),
 * reporting to its WaitingRoom after the response. A browser with no entry token at all is on its
 * way to sign in (the sign-in page), as one without a proof of work is on its way to the check
 * step: neither is counted.
 */
function countRefusal(c: Context<AppEnv>, eventId: string, err: GatewayError): void {
  const cause = refusalCause(err.code);
  if (!cause || (err.code === 'ENTRY_REQUIRED' && !wantsJson(c))) return;
  const counts = recordRefusal(eventId, cause, Date.now());
  if (!counts) return;
  c.executionCtx.waitUntil(
    callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).recordRefusals(counts), {
      idempotent: false,
      name: 'waitingRoom.recordRefusals',
      eventId,
    }).catch(() => undefined),
  );
}

/** The turn of answerTurn, without the refusal count. */
async function takeAndSign(c: Context<AppEnv>, eventId: string, ticket: VisitorClaims | null): Promise<TurnAnswer> {
  const now = Date.now();
  const entry = await entryDecision(c, eventId, ticket, now);
  // Entry-token events bound places by account; the proof of work is for open events.
  const proven = entry.kind === 'open' && !ticket?.place ? await provenNewcomer(c, eventId, now) : null;
  const turn = await takeTurn(turnPorts(c, entry, proven), {
    eventId,
    ticket: entry.kind !== 'account' && ticket?.place ? { visitorId: ticket.visitorId, place: ticket.place } : null,
    newVisitorId: entry.kind === 'account' ? entry.visitorId : (proven ?? crypto.randomUUID()),
    nowMs: now,
  });
  if (turn.kind === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  if (turn.kind === 'maintenance') throw maintenanceError(turn.cursor, now);
  const { body, retryAfterS } = turnBody(turn);
  if (body.state === 'sold_out' && turn.kind !== 'closed') {
    const entry = waitlistEntryOf(getCookie(c, waitlistCookie(eventId, isSecure(c.req.url))));
    body.waitlist = await waitlistStatus(c.env, eventId, turn.visitorId, entry, now);
  }
  let admissionToken: string | null = null;
  if (turn.kind !== 'closed') {
    const settings = tokenSettings(c.env);
    const secure = isSecure(c.req.url);
    // A poll past half the ticket's life gets the same place in a new ticket.
    if (turn.newTicket || (ticket !== null && ticketNeedsRenewal(ticket.expiresAtMs, now))) {
      body.queueTicket = await signQueueTicket(settings, eventId, turn.visitorId, turn.place, now);
      const expS = numericDate(now + TICKET_TTL_S * 1000);
      setCookie(c, ticketCookie(eventId, secure), body.queueTicket, cookieOptions(c.req.url, cookieMaxAgeS(now, expS)));
    }
    if (turn.kind === 'admitted') {
      const { admittedAtMs, expiresAtMs } = turn.admission;
      admissionToken = await signAdmission(
        settings,
        { eventId, visitorId: turn.visitorId, expiresAtMs, sessionId: String(admittedAtMs) },
        now,
      );
      body.admissionToken = admissionToken;
      const expS = numericDate(expiresAtMs);
      setCookie(c, admissionCookie(eventId, secure), admissionToken, cookieOptions(c.req.url, cookieMaxAgeS(now, expS)));
      recordDecision(eventId, 'admitted');
    }
  }
  const visitorId = turn.kind === 'closed' ? '' : turn.visitorId;
  return { visitorId, body, retryAfterS, pageStatus: turn.cursor.pageStatus, page: turn.cursor.page, admissionToken };
}

/**
 * The entry check of a turn (src/lib/entry-token.ts): the entry token comes as `X-Entry-Token`
 * (apps) or `?wr_entry=` (browsers back from signing in); the rule from the edge-cached cursor.
 * @throws GatewayError ENTRY_REQUIRED and the ENTRY_TOKEN_* / LANE_NOT_CONFIGURED codes, with the sign-in URL
 */
async function entryDecision(c: Context<AppEnv>, eventId: string, ticket: VisitorClaims | null, nowMs: number): Promise<EntryDecision> {
  const cursor = await edgeCursor(c, eventId, nowMs);
  return decideEntry({
    entry: cursor?.entry,
    closed: cursor?.mode === 'closed',
    eventId,
    ticketVisitorId: ticket?.visitorId ?? null,
    token: entryTokenOf(c),
    keys: (rule) =>
      rule.jwksPath
        ? {
            kind: 'jwks',
            keys: originEntryKeys(new URL(rule.jwksPath, c.req.url), (url) => fetchFromOrigin(url, c.env, ENTRY_JWKS_TIMEOUT_MS)),
          }
        : { kind: 'hmac', secret: c.env.ORIGIN_HMAC_SECRET ?? '' },
    accountSecrets: accountSecrets(c.env),
    nowMs,
  });
}

/** The entry token of a request: `X-Entry-Token` (apps), else `?wr_entry=` (browsers back from signing in); null when none. */
function entryTokenOf(c: Context<AppEnv>): string | null {
  return c.req.header(ENTRY_HEADER) || new URL(c.req.url).searchParams.get(ENTRY_QUERY_PARAM) || null;
}

/**
 * The event's edge-cached cursor when it asks new visitors for a proof of work, else null: none
 * asked, no such event, a closed sale (which hands out no place anyway), or an event that requires
 * entry tokens (an account bounds its places already).
 */
export async function proofCursor(
  c: Context<AppEnv>,
  eventId: string,
  nowMs: number,
): Promise<(AdmissionCursor & { proofOfWork: ProofOfWorkConfig }) | null> {
  const cursor = await edgeCursor(c, eventId, nowMs);
  return cursor && cursor.mode !== 'closed' && !cursor.entry && cursor.proofOfWork ? { ...cursor, proofOfWork: cursor.proofOfWork } : null;
}

/**
 * The visitor id a new visitor joins under when the event asks for a proof of work: the one their
 * solved challenge names (src/lib/proof-of-work.ts `verifyProof`); null when none is asked.
 * @throws GatewayError PROOF_OF_WORK_* (4xx) as `verifyProof` does; nothing is changed
 */
async function provenNewcomer(c: Context<AppEnv>, eventId: string, nowMs: number): Promise<string | null> {
  const cursor = await proofCursor(c, eventId, nowMs);
  if (!cursor) return null;
  return verifyProof(await challengeKeyRing(c.env), c.req.header(PROOF_HEADER), { eventId, proofOfWork: cursor.proofOfWork, nowMs });
}

/** A ticket that fails to verify on the sale URL starts the visitor afresh instead of erroring. */
export async function ticketOrNull(c: Context<AppEnv>, eventId: string): Promise<VisitorClaims | null> {
  try {
    return await readTicket(c, eventId, Date.now());
  } catch (err) {
    if (err instanceof GatewayError) return null;
    throw err;
  }
}

/** True when the client prefers JSON (apps) to a page (RFC 9110 q-values: `application/json;q=0` gets the page). */
export function wantsJson(c: Context<AppEnv>): boolean {
  return preferredType(c.req.header('accept'), ['text/html', 'application/json'], 'text/html') === 'application/json';
}

/** No-store and the poll's Retry-After on a queue answer. */
export function statusHeaders(c: Context<AppEnv>, turn: TurnAnswer): void {
  c.header('cache-control', 'no-store');
  if (turn.retryAfterS !== null) c.header('retry-after', String(turn.retryAfterS));
}
