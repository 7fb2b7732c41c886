// Origin API: health reports and hold confirm/release, authenticated by an HMAC signature.
import { Hono } from 'hono';
import { z } from 'zod';
import { GatewayError } from '../lib/errors';
import { originSignature } from '../middleware/origin-signature';
import { parseJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';
import { holdBody, holdChangeResult } from './holds';

/** Body of `POST /_wr/origin/events/:eventId/health`. Latencies in ms, error rate 0..1. */
export const healthReport = z
  .object({
    p50LatencyMs: z.number().finite().min(0).max(600_000).optional(),
    p99LatencyMs: z.number().finite().min(0).max(600_000),
    errorRate: z.number().finite().min(0).max(1),
    activeBuyers: z.number().int().min(0).max(100_000_000),
    capacityHint: z.number().int().min(0).max(100_000_000).optional(),
    windowSeconds: z.number().finite().min(1).max(3_600).optional(),
  })
  .strict();

const confirmRequest = z
  .object({ orderId: z.string().min(1).max(128), amountMinor: z.number().int().min(0), account: z.string().min(1).max(128).optional() })
  .strict();
/** Body of release and payment-pending: optionally the account the origin vouches for. */
const accountRequest = z.object({ account: z.string().min(1).max(128).optional() }).strict();

/** `/_wr/origin/events/...`. */
export const originApi = new Hono<AppEnv>();

originApi.use('*', originSignature());

originApi.post('/events/:eventId/health', async (c) => {
  const report = parseJsonBody(c.var.rawBody, healthReport);
  const result = await c.env.WAITING_ROOM.getByName(eventIdParam(c)).recordHealth(
    {
      p99LatencyMs: report.p99LatencyMs,
      errorRate: report.errorRate,
      activeBuyers: report.activeBuyers,
      ...(report.capacityHint !== undefined ? { capacityHint: report.capacityHint } : {}),
    },
    c.var.signedAtMs,
  );
  if (result === 'event_not_found') throw new GatewayError('EVENT_NOT_FOUND');
  if (result === 'out_of_order') throw new GatewayError('STALE_REPORT', 'a health report signed later was already accepted');
  return c.body(null, 204);
});

originApi.get('/events/:eventId/holds/:holdId', async (c) => {
  const hold = holdChangeResult(await c.env.INVENTORY.getByName(eventIdParam(c)).getHold(c.req.param('holdId'), null));
  return c.json({ ...holdBody(hold), account: hold.account });
});

originApi.post('/events/:eventId/holds/:holdId/confirm', async (c) => {
  const { orderId, amountMinor, account } = parseJsonBody(c.var.rawBody, confirmRequest);
  const answer = await c.env.INVENTORY.getByName(eventIdParam(c)).confirm(c.req.param('holdId'), orderId, amountMinor, account ?? null);
  return c.json(holdBody(holdChangeResult(answer)));
});

originApi.post('/events/:eventId/holds/:holdId/release', async (c) => {
  const { account } = parseJsonBody(c.var.rawBody, accountRequest);
  const answer = await c.env.INVENTORY.getByName(eventIdParam(c)).release(c.req.param('holdId'), account ?? null, true);
  return c.json(holdBody(holdChangeResult(answer)));
});

originApi.post('/events/:eventId/holds/:holdId/payment-pending', async (c) => {
  const { account } = parseJsonBody(c.var.rawBody, accountRequest);
  const answer = await c.env.INVENTORY.getByName(eventIdParam(c)).startPayment(c.req.param('holdId'), account ?? null);
  return c.json(holdBody(holdChangeResult(answer)));
});
