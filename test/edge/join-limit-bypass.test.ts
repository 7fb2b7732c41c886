// Regression: landing on the sale URL without a ticket is a join, counted per IP. The limiter is skipped
// whenever the request carries *any* Authorization header or *any* ticket-named cookie
// (carriesNoTicket in src/app.ts), but the route then treats an unverifiable ticket as none
// (ticketOrNull in src/routes/turn.ts) and joins a brand-new visitor: unlimited new places per IP.
// The limiter is asked in the background (src/middleware/rate-limit.ts): the first join of this IP
// is let through and counted, and its refusal stops every later one in this isolate.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { BASE, createEvent, freshEventId } from '../helpers/client';

// A limiter that refuses everything: this IP is over its join limit.
let limiterCalls = 0;
const limitedEnv = {
  ...env,
  IP_RATE_LIMITER: {
    limit: async () => {
      limiterCalls++;
      return { success: false };
    },
  },
} as unknown as Env;

async function land(eventId: string, headers: Record<string, string>): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${BASE}/events/${eventId}/`, { headers: { accept: 'application/json', 'cf-connecting-ip': '203.0.113.7', ...headers } }),
    limitedEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

it('an IP over its join limit cannot join new visitors by adding a junk Authorization header or ticket cookie', async () => {
  const eventId = freshEventId();
  expect((await createEvent(eventId)).status).toBe(201);
  expect((await land(eventId, {})).status).toBe(200); // counted; the limiter's refusal arrives after it
  expect((await land(eventId, {})).status).toBe(429);
  const results: { status: number; newTicket: boolean }[] = [];
  const junk: Record<string, string>[] = [{ authorization: 'Basic Zm9vOmJhcg==' }, { cookie: `__Host-wr_t_${eventId}=junk` }];
  for (const headers of junk) {
    const res = await land(eventId, headers);
    const body = (await res.json()) as { queueTicket?: string };
    results.push({ status: res.status, newTicket: typeof body.queueTicket === 'string' });
  }
  // Expected: both refused (429), no new place. Observed: 200 with a freshly issued queue ticket each.
  expect(results).toEqual([
    { status: 429, newTicket: false },
    { status: 429, newTicket: false },
  ]);
  expect(limiterCalls).toBeGreaterThan(0);
});
