// Seat map and seat holds for admitted visitors: the account is the admission token's subject.
import { Hono } from 'hono';
import { z } from 'zod';
import type { HoldAnswer, HoldChangeAnswer, HoldView, SeatMapAnswer } from '../../contracts/inventory-answers';
import { requireAdmission } from '../middleware/credentials';
import { callDurableObject } from '../lib/do-call';
import { GatewayError, assertNever } from '../lib/errors';
import { recordHold } from '../lib/hold-signals';
import { SNAPSHOT_CACHE_MS, cachedSeatMap } from '../lib/seat-map-cache';
import { logDecision } from '../../contracts/log';
import { readJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/** Idempotency keys: 1-128 visible ASCII characters (draft-ietf-httpapi-idempotency-key-header). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

const seatHold = z.object({ seatIds: z.array(z.string().max(16)).max(6, 'a hold takes 1 to 6 seats') }).strict();
const tierHold = z.object({ tier: z.string().max(32), quantity: z.number() }).strict();
/** Numbered seats or a tier quantity; the body's own keys pick which, so an error names the field. */
const holdRequest = z.unknown().transform((body, ctx) => {
  const tier = typeof body === 'object' && body !== null && 'tier' in body;
  const parsed = (tier ? tierHold : seatHold).safeParse(body);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});
const SINCE = /^\d{1,15}$/;

/** The JSON shape of a hold in responses; times as ISO 8601, prices in minor units. */
export function holdBody(hold: HoldView) {
  return {
    holdId: hold.holdId,
    status: hold.status,
    seatIds: hold.seatIds,
    tier: hold.tier,
    quantity: hold.quantity,
    priceMinor: hold.priceMinor,
    currency: hold.currency,
    expiresAt: new Date(hold.expiresAtMs).toISOString(),
    orderId: hold.orderId,
  };
}

/** Maps a hold change outcome to the hold or a GatewayError. */
export function holdChangeResult(answer: HoldChangeAnswer): HoldView {
  switch (answer.kind) {
    case 'ok':
      return answer.hold;
    case 'not_found':
      throw new GatewayError('HOLD_NOT_FOUND');
    case 'refused':
      throw new GatewayError(answer.code, answer.detail, { hold: holdBody(answer.hold) });
    default:
      return assertNever(answer);
  }
}

function holdResult(answer: HoldAnswer): { hold: HoldView; replayed: boolean } {
  switch (answer.kind) {
    case 'held':
      return answer;
    case 'event_not_found':
      throw new GatewayError('EVENT_NOT_FOUND');
    case 'invalid':
      throw new GatewayError('INVALID_REQUEST', answer.detail);
    case 'unknown_seats':
      throw new GatewayError('SEAT_NOT_FOUND', `no such seats: ${answer.seatIds.join(', ')}`, { seatIds: answer.seatIds });
    case 'unknown_tier':
      throw new GatewayError('TIER_NOT_FOUND', `no tier "${answer.tier}"`);
    case 'unavailable':
      throw answer.remaining !== undefined
        ? new GatewayError('SEATS_UNAVAILABLE', `only ${answer.remaining} left in this tier; nothing was held`, {
            remaining: answer.remaining,
          })
        : new GatewayError('SEATS_UNAVAILABLE', `not available: ${answer.seatIds.join(', ')}; nothing was held`, {
            seatIds: answer.seatIds,
          });
    case 'account_limit':
      throw new GatewayError('ACCOUNT_LIMIT', `at most ${answer.limit} seats per account; you have ${answer.owned}`);
    case 'sales_closed':
      throw new GatewayError('SALE_CLOSED', 'the organizer closed this sale: no new holds; holds already made can still be paid');
    case 'idempotency_conflict':
      throw new GatewayError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with another request');
    case 'rate_limited':
      throw new GatewayError('RATE_LIMITED', 'too many hold requests from this account; slow down', undefined, answer.retryAfterS);
    default:
      return assertNever(answer);
  }
}

/** `/_wr/events/:eventId/seats` and `/_wr/events/:eventId/holds...`. */
export const holdsApi = new Hono<AppEnv>();

holdsApi.use('/:eventId/seats', requireAdmission());
holdsApi.use('/:eventId/holds', requireAdmission());
holdsApi.use('/:eventId/holds/*', requireAdmission());

holdsApi.get('/:eventId/seats', async (c) => {
  const eventId = eventIdParam(c);
  const rawSince = c.req.query('since');
  if (rawSince !== undefined && !SINCE.test(rawSince))
    throw new GatewayError('INVALID_REQUEST', 'since must be a map version (a whole number)');
  const since = rawSince === undefined ? undefined : Number(rawSince);
  const body = await cachedSeatMap(
    eventId,
    since,
    (normalized) =>
      callDurableObject<SeatMapAnswer>(() => c.env.INVENTORY.getByName(eventId).seatMap(normalized), {
        idempotent: true,
        name: 'inventory.seatMap',
        eventId,
      }),
    Date.now(),
  );
  if (body === null) throw new GatewayError('EVENT_NOT_FOUND');
  c.header('cache-control', `private, max-age=${SNAPSHOT_CACHE_MS / 1000}`);
  c.header('content-type', 'application/json');
  return c.body(body);
});

holdsApi.post('/:eventId/holds', async (c) => {
  const eventId = eventIdParam(c);
  const key = c.req.header('idempotency-key');
  if (!key) throw new GatewayError('IDEMPOTENCY_KEY_REQUIRED');
  if (!IDEMPOTENCY_KEY.test(key)) throw new GatewayError('INVALID_REQUEST', 'Idempotency-Key must be 1-128 visible ASCII characters');
  const request = await readJsonBody(c.req.raw, holdRequest);
  const started = Date.now();
  // Idempotent by its key: a retry after a transient failure returns the first result.
  const answer = await callDurableObject<HoldAnswer>(
    () => c.env.INVENTORY.getByName(eventId).hold(c.var.admission.visitorId, request, key),
    {
      idempotent: true,
      name: 'inventory.hold',
      eventId,
    },
  );
  const ms = Date.now() - started;
  // Feed the release controller: hold latency and conflicts, batched per isolate.
  const signals = recordHold(eventId, c.var.admission.visitorId, ms, answer.kind === 'unavailable', Date.now());
  if (signals) c.executionCtx.waitUntil(c.env.WAITING_ROOM.getByName(eventId).recordHoldSignals(signals));
  let result: { hold: HoldView; replayed: boolean };
  try {
    result = holdResult(answer);
  } catch (err) {
    if (err instanceof GatewayError) logDecision('hold.refused', { eventId, code: err.code, ms });
    throw err;
  }
  const { hold, replayed } = result;
  logDecision('hold.granted', { eventId, holdId: hold.holdId, quantity: hold.quantity, replayed, ms });
  if (replayed) c.header('idempotent-replayed', 'true');
  c.header('cache-control', 'no-store');
  return c.json(holdBody(hold), 201);
});

holdsApi.get('/:eventId/holds/:holdId', async (c) => {
  const eventId = eventIdParam(c);
  const answer = await callDurableObject<HoldChangeAnswer>(
    () => c.env.INVENTORY.getByName(eventId).getHold(c.req.param('holdId'), c.var.admission.visitorId),
    { idempotent: true, name: 'inventory.getHold', eventId },
  );
  c.header('cache-control', 'no-store');
  return c.json(holdBody(holdChangeResult(answer)));
});

holdsApi.delete('/:eventId/holds/:holdId', async (c) => {
  const eventId = eventIdParam(c);
  // Releasing twice is a no-op, so a retry is safe.
  const answer = await callDurableObject<HoldChangeAnswer>(
    () => c.env.INVENTORY.getByName(eventId).release(c.req.param('holdId'), c.var.admission.visitorId, false),
    { idempotent: true, name: 'inventory.release', eventId },
  );
  logDecision(answer.kind === 'ok' ? 'hold.release' : 'hold.release_refused', {
    eventId,
    actor: 'visitor',
    code: answer.kind === 'refused' ? answer.code : answer.kind === 'not_found' ? 'HOLD_NOT_FOUND' : null,
  });
  // Someone else's hold: as unknown as on GET, with none of its details.
  if (answer.kind === 'refused' && answer.code === 'NOT_HOLD_OWNER') throw new GatewayError('HOLD_NOT_FOUND');
  return c.json(holdBody(holdChangeResult(answer)));
});
