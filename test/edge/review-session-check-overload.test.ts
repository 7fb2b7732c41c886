// Regression (review finding): the admitted visitor's session check (WaitingRoom.isActive, src/middleware/credentials.ts)
// and the public lottery record (WaitingRoom.drawRecord, src/routes/queue.ts) call the object
// directly, not through callDurableObject: an overloaded WaitingRoom turns into 500 INTERNAL
// instead of the deliberate 503 OVERLOADED ("no 5xx except deliberate 503").
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { signAdmission, signQueueTicket, tokenSettings } from '../../src/lib/token';
import { BASE, freshEventId } from '../helpers/client';

const overloaded = async (): Promise<never> => {
  throw Object.assign(new Error('Durable Object is overloaded. Requests queued for too long.'), { overloaded: true });
};
const busyEnv = {
  ...env,
  WAITING_ROOM: { getByName: () => ({ cursor: overloaded, admit: overloaded, isActive: overloaded, drawRecord: overloaded }) },
} as unknown as Env;

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(BASE + path, init), busyEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

it('an overloaded WaitingRoom during the session check answers 503 OVERLOADED, not 500', async () => {
  const eventId = freshEventId('review');
  const settings = tokenSettings(env);
  const now = Date.now();
  const visitorId = crypto.randomUUID();
  const ticket = await signQueueTicket(settings, eventId, visitorId, { bucket: 1, idx: 0, shard: 0 }, now);
  const admission = await signAdmission(settings, { eventId, visitorId, expiresAtMs: now + 600_000, sessionId: String(now) }, now);
  const headers = { accept: 'application/json', authorization: `Bearer ${ticket}`, 'x-admission-token': admission };
  const seats = await send(`/_wr/events/${eventId}/seats`, { headers });
  const sale = await send(`/events/${eventId}/`, { headers });
  const draw = await send(`/_wr/events/${eventId}/draw`, { headers: { accept: 'application/json' } });
  expect({ seats: seats.status, sale: sale.status, draw: draw.status }).toEqual({ seats: 503, sale: 503, draw: 503 });
});
