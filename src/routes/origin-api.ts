// Origin API: health reports and hold confirm/release, authenticated by an HMAC signature.
import { Hono } from 'hono';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import * as z from 'zod/mini';
import { boundedNumber, visibleId, wholeNumber } from '../../contracts/zod';
import type { HoldChangeAnswer, HoldExtendAnswer } from '../../contracts/inventory-answers';
import { callDurableObject } from '../lib/do-call';
import { eventPaymentHolds, inventoryFor, refuseUnknownSection } from '../lib/inventory-router';
import { GatewayError } from '../lib/errors';
import { logDecision } from '../../contracts/log';
import { originSignature } from '../middleware/origin-signature';
import { resaleOriginRoutes } from './resale';
import { parseJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';
import { extensionBody, healthResult, holdBody, holdChangeResult, holdExtendResult } from '../lib/object-answers';

/**
 * Body of `POST /_wr/origin/events/:eventId/health`. Latencies in ms (0-600,000; p50 <= p99), error
 * rate 0..1, buyers a whole number >= 0, and optionally the requests measured in the window
 * (`sampleCount`, whole; with 0 the p99 must be 0) and, of those, the ones still running, counted
 * with their age so far (`inFlight`, whole, at most `sampleCount`, which it needs). Anything else is
 * refused with 400 INVALID_REQUEST naming the field, and nothing is stored. A p99 of 0 or a report
 * of fewer than 8 completed requests (an idle window) is accepted: it keeps the origin alive but
 * never makes the loop climb (health-signals.ts noGrowthEvidence).
 */
export const healthReport = z
  .strictObject({
    p50LatencyMs: z.optional(boundedNumber(0, 600_000)),
    p99LatencyMs: boundedNumber(0, 600_000),
    errorRate: boundedNumber(0, 1),
    activeBuyers: wholeNumber(0, 100_000_000),
    capacityHint: z.optional(wholeNumber(0, 100_000_000)),
    windowSeconds: z.optional(boundedNumber(1, 3_600)),
    sampleCount: z.optional(wholeNumber(0, 1_000_000_000)),
    inFlight: z.optional(wholeNumber(0, 1_000_000_000)),
  })
  .check(
    z.refine((r) => r.p50LatencyMs === undefined || r.p50LatencyMs <= r.p99LatencyMs, {
      path: ['p50LatencyMs'],
      message: 'must not exceed p99LatencyMs',
    }),
    z.refine((r) => r.sampleCount !== 0 || r.p99LatencyMs === 0, {
      path: ['p99LatencyMs'],
      message: 'must be 0 when sampleCount is 0 (nothing was measured)',
    }),
    z.refine((r) => r.inFlight === undefined || r.inFlight <= (r.sampleCount ?? -1), {
      path: ['inFlight'],
      message: 'must come with a sampleCount at least as large (it counts some of those samples)',
    }),
  );

export const confirmRequest = z.strictObject({
  orderId: visibleId(1, 128),
  amountMinor: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  account: z.optional(visibleId(1, 128)),
});
/** Body of release and payment-pending: optionally the account the origin vouches for. */
export const accountRequest = z.strictObject({ account: z.optional(visibleId(1, 128)) });

/**
 * Body of extend: the extension's idempotency key (1-128 visible ASCII characters, chosen per
 * intended extension, scoped to the hold; inside the signed body, so the signature covers it) and
 * optionally the account the origin vouches for.
 */
export const extendRequest = z.strictObject({
  idempotencyKey: visibleId(1, 128),
  account: z.optional(visibleId(1, 128)),
});

/** `/_wr/origin/events/...`. */
export const originApi = new Hono<AppEnv>();

originApi.use('*', originSignature());
// Returns, the waitlist and resale (src/routes/resale.ts), under the same signature.
resaleOriginRoutes(originApi);

/** `GET /_wr/origin/events/{eventId}`: what the origin's pages show of the event (its name, policy, sale start). */
originApi.get('/events/:eventId', async (c) => {
  const cursor = (await c.env.WAITING_ROOM.getByName(eventIdParam(c)).cursor()) as AdmissionCursor | null;
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND');
  return c.json({
    eventId: cursor.eventId,
    name: cursor.eventName,
    policy: cursor.policy,
    saleStartsAt: cursor.saleStartsAtMs > 0 ? new Date(cursor.saleStartsAtMs).toISOString() : null,
  });
});

originApi.post('/events/:eventId/health', async (c) => {
  const report = parseJsonBody(c.var.rawBody, healthReport);
  const eventId = eventIdParam(c);
  const health = {
    p99LatencyMs: report.p99LatencyMs,
    errorRate: report.errorRate,
    activeBuyers: report.activeBuyers,
    ...(report.sampleCount !== undefined ? { sampleCount: report.sampleCount } : {}),
    ...(report.inFlight ? { inFlight: report.inFlight } : {}),
    ...(report.capacityHint !== undefined ? { capacityHint: report.capacityHint } : {}),
  };
  // Idempotent: a report signed before the last one is refused as out of order, one sent again is
  // acknowledged (204) and changes nothing (health-intake.ts acceptHealthReport).
  const answer = await callDurableObject(async () => c.env.WAITING_ROOM.getByName(eventId).recordHealth(health, c.var.signedAtMs), {
    idempotent: true,
    name: 'waitingRoom.recordHealth',
    eventId,
  });
  healthResult(answer, eventId);
  return c.body(null, 204);
});

/**
 * One origin action on a hold, retried on transient object errors (each is idempotent: confirm by
 * order id, release and payment-pending are no-ops when repeated), and logged with its outcome.
 */
async function holdAction(eventId: string, action: string, call: () => Promise<HoldChangeAnswer>) {
  const answer = await callDurableObject<HoldChangeAnswer>(call, { idempotent: true, name: `inventory.${action}`, eventId });
  logDecision(answer.kind === 'ok' ? `hold.${action}` : `hold.${action}_refused`, {
    eventId,
    actor: 'origin',
    holdId: answer.kind === 'not_found' ? null : answer.hold.holdId,
    code: answer.kind === 'ok' ? null : answer.kind === 'refused' ? answer.code : 'HOLD_NOT_FOUND',
    status: answer.kind === 'ok' ? answer.hold.status : null,
  });
  return holdBody(holdChangeResult(answer));
}

/** Query of `GET .../holds`: page after a hold id, 1-500 holds per page (default 100). */
const holdListQuery = z.object({
  after: z._default(visibleId(0, 128), ''),
  limit: z._default(z.pipe(z.coerce.number(), wholeNumber(1, 500)), 100),
});

originApi.get('/events/:eventId/holds', async (c) => {
  const q = holdListQuery.safeParse(c.req.query());
  if (!q.success) throw new GatewayError('INVALID_REQUEST', { detail: 'after: a hold id; limit: 1-500' });
  const eventId = eventIdParam(c);
  const holds = await callDurableObject(async () => eventPaymentHolds(c.env, eventId, q.data.after, q.data.limit), {
    idempotent: true,
    name: 'inventory.paymentHolds',
    eventId,
  });
  return c.json({
    holds: holds.map((h) => ({ ...holdBody(h), account: h.account })),
    next: holds.length === q.data.limit ? holds[holds.length - 1]!.holdId : null,
  });
});

originApi.get('/events/:eventId/holds/:holdId', async (c) => {
  const eventId = eventIdParam(c);
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }, Date.now());
  const answer = await callDurableObject<HoldChangeAnswer>(
    () => inventoryFor(c.env, eventId, { kind: 'hold', holdId: c.req.param('holdId') }).getHold(c.req.param('holdId'), null),
    {
      idempotent: true,
      name: 'inventory.getHold',
      eventId,
    },
  );
  const hold = holdChangeResult(answer);
  return c.json({ ...holdBody(hold), account: hold.account });
});

originApi.post('/events/:eventId/holds/:holdId/confirm', async (c) => {
  const { orderId, amountMinor, account } = parseJsonBody(c.var.rawBody, confirmRequest);
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId');
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  return c.json(
    await holdAction(eventId, 'confirm', () =>
      inventoryFor(c.env, eventId, { kind: 'hold', holdId }).confirm(holdId, orderId, amountMinor, account ?? null),
    ),
  );
});

originApi.post('/events/:eventId/holds/:holdId/release', async (c) => {
  const { account } = parseJsonBody(c.var.rawBody, accountRequest);
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId');
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  return c.json(
    await holdAction(eventId, 'release', () =>
      inventoryFor(c.env, eventId, { kind: 'hold', holdId }).release(holdId, account ?? null, true),
    ),
  );
});

originApi.post('/events/:eventId/holds/:holdId/payment-pending', async (c) => {
  const { account } = parseJsonBody(c.var.rawBody, accountRequest);
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId');
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  return c.json(
    await holdAction(eventId, 'payment_pending', () =>
      inventoryFor(c.env, eventId, { kind: 'hold', holdId }).startPayment(holdId, account ?? null),
    ),
  );
});

originApi.post('/events/:eventId/holds/:holdId/extend', async (c) => {
  const { idempotencyKey, account } = parseJsonBody(c.var.rawBody, extendRequest);
  const eventId = eventIdParam(c);
  const holdId = c.req.param('holdId');
  await refuseUnknownSection(c.env, eventId, { kind: 'hold', holdId }, Date.now());
  // Idempotent by its key: retried on transient object errors like the other hold actions.
  const answer = await callDurableObject<HoldExtendAnswer>(
    () => inventoryFor(c.env, eventId, { kind: 'hold', holdId }).extendHold(holdId, account ?? null, idempotencyKey, true),
    { idempotent: true, name: 'inventory.extendHold', eventId },
  );
  logDecision(answer.kind === 'extended' ? 'hold.extend' : 'hold.extend_refused', {
    eventId,
    actor: 'origin',
    holdId: answer.kind === 'not_found' ? null : answer.hold.holdId,
    code: answer.kind === 'refused' ? answer.code : answer.kind === 'not_found' ? 'HOLD_NOT_FOUND' : null,
    status: answer.kind === 'not_found' ? null : answer.hold.status,
  });
  const { hold, extension, replayed } = holdExtendResult(answer);
  if (replayed) c.header('idempotent-replayed', 'true');
  return c.json({ ...holdBody(hold), extension: extensionBody(extension) });
});
