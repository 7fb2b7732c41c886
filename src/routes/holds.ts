// Seat map and seat holds for admitted visitors: the account is the admission token's subject.
import { Hono } from 'hono';
import { z } from 'zod';
import type { HoldAnswer, HoldChangeAnswer, HoldView } from '../../durable-objects/inventory/inventory';
import { requireAdmission } from '../middleware/credentials';
import { GatewayError, assertNever } from '../lib/errors';
import { parseJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';

/** Idempotency keys: 1-128 visible ASCII characters (draft-ietf-httpapi-idempotency-key-header). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

const holdRequest = z.object({ seatIds: z.array(z.string().max(16)).min(1).max(6) }).strict();

/** The JSON shape of a hold in responses; times as ISO 8601. */
export function holdBody(hold: HoldView) {
  return {
    holdId: hold.holdId,
    status: hold.status,
    seatIds: hold.seatIds,
    expiresAt: new Date(hold.expiresAtMs).toISOString(),
    orderId: hold.orderId,
  };
}

/** Maps a hold change outcome to a body or a GatewayError. */
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
    case 'unavailable':
      throw new GatewayError('SEATS_UNAVAILABLE', `not available: ${answer.seatIds.join(', ')}; nothing was held`, {
        seatIds: answer.seatIds,
      });
    case 'account_limit':
      throw new GatewayError('ACCOUNT_LIMIT', `at most ${answer.limit} seats per account; you have ${answer.owned}`);
    case 'idempotency_conflict':
      throw new GatewayError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with other seats');
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
  const map = await c.env.INVENTORY.getByName(eventIdParam(c)).seatMap();
  if (!map) throw new GatewayError('EVENT_NOT_FOUND');
  c.header('cache-control', 'private, max-age=1');
  return c.json(map);
});

holdsApi.post('/:eventId/holds', async (c) => {
  const eventId = eventIdParam(c);
  const key = c.req.header('idempotency-key');
  if (!key) throw new GatewayError('IDEMPOTENCY_KEY_REQUIRED');
  if (!IDEMPOTENCY_KEY.test(key)) throw new GatewayError('INVALID_REQUEST', 'Idempotency-Key must be 1-128 visible ASCII characters');
  const { seatIds } = parseJsonBody(await c.req.text(), holdRequest);
  const { hold, replayed } = holdResult(await c.env.INVENTORY.getByName(eventId).hold(c.var.admission.visitorId, seatIds, key));
  if (replayed) c.header('idempotent-replayed', 'true');
  c.header('cache-control', 'no-store');
  return c.json(holdBody(hold), 201);
});

holdsApi.get('/:eventId/holds/:holdId', async (c) => {
  const answer = await c.env.INVENTORY.getByName(eventIdParam(c)).getHold(c.req.param('holdId'), c.var.admission.visitorId);
  c.header('cache-control', 'no-store');
  return c.json(holdBody(holdChangeResult(answer)));
});

holdsApi.delete('/:eventId/holds/:holdId', async (c) => {
  const answer = await c.env.INVENTORY.getByName(eventIdParam(c)).release(c.req.param('holdId'), c.var.admission.visitorId);
  // Someone else's hold: as unknown as on GET, with none of its details.
  if (answer.kind === 'refused' && answer.code === 'NOT_HOLD_OWNER') throw new GatewayError('HOLD_NOT_FOUND');
  return c.json(holdBody(holdChangeResult(answer)));
});
