// An overloaded Durable Object answers 503 OVERLOADED (with Retry-After) on every route, never 500:
// every stub call of the edge goes through callDurableObject (src/lib/do-call.ts).
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { createApp } from '../../src/app';
import { signAdmission, signQueueTicket, tokenSettings } from '../../src/lib/token';
import { BASE, freshEventId } from '../helpers/client';
import { adminHeaders } from '../helpers/gateway';

const overloaded = async (): Promise<never> => {
  throw Object.assign(new Error('Durable Object is overloaded. Requests queued for too long.'), { overloaded: true });
};
/** Every method of every object stub throws the runtime's overload error. */
const busyStub = new Proxy({}, { get: () => overloaded });
const busyEnv = {
  ...env,
  WAITING_ROOM: { getByName: () => busyStub },
  INVENTORY: { getByName: () => busyStub },
  DIRECTORY: { getByName: () => busyStub },
  QUEUE_SHARD: { getByName: () => busyStub },
} as unknown as Env;

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(BASE + path, init), busyEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const admin = { ...adminHeaders(), accept: 'application/json' };

describe('an overloaded object', () => {
  // Regression: the session check (WaitingRoom.isActive) and the lottery record
  // (WaitingRoom.drawRecord) called the object directly, so overload turned into 500 INTERNAL.
  it('answers 503 OVERLOADED during the session check and for the lottery record, not 500', async () => {
    const eventId = freshEventId('busy');
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

  // Regression: the admin API and the origin's health report called the objects directly:
  // an overloaded object gave 500 INTERNAL there.
  it.each([
    ['PUT event', 'PUT', '', JSON.stringify({ releaseRatePerMinute: 60, maxActiveVisitors: 10, seats: 10 })],
    ['GET event', 'GET', '', undefined],
    ['GET events', 'GET', 'LIST', undefined],
    ['pause', 'POST', '/pause', undefined],
    ['resume', 'POST', '/resume', undefined],
    ['close', 'POST', '/close', undefined],
    ['rate', 'POST', '/rate', JSON.stringify({ fixedPerMinute: 10 })],
    ['audit', 'GET', '/audit', undefined],
    ['preview', 'GET', '/preview?phase=waiting', undefined],
    [
      'preview of a page not saved',
      'POST',
      '/preview?phase=waiting',
      JSON.stringify({ page: { template: '<h1>{{headline}}</h1>{{position}}' } }),
    ],
  ])('answers 503 OVERLOADED with Retry-After on the admin API: %s', async (_name, method, suffix, body) => {
    const eventId = freshEventId('busy');
    const path = suffix === 'LIST' ? '/_wr/admin/events' : `/_wr/admin/events/${eventId}${suffix}`;
    const res = await send(path, { method, headers: admin, ...(body ? { body } : {}) });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
    expect(await res.json()).toMatchObject({ code: 'OVERLOADED' });
  });

  it('answers 503 OVERLOADED to a signed health report', async () => {
    const eventId = freshEventId('busy');
    const path = `/_wr/origin/events/${eventId}/health`;
    const body = JSON.stringify({ p99LatencyMs: 100, errorRate: 0, activeBuyers: 1 });
    const signed = await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, body, Date.now());
    const res = await send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...signed }, body });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'OVERLOADED' });
  });
});
