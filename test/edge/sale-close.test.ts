// Closing a sale: new holds stop at once, holds already made may still be paid
// or released until their own deadlines; resume opens holds again; a crash between the Inventory
// and the WaitingRoom is completed by sending close again.
import { env, exports } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { signOriginRequest } from '../../contracts/hmac';
import { BASE, admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { inventoryStats } from '../helpers/inventory';

async function call(path: string, init: RequestInit = {}, overrides: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const res = await (Object.keys(overrides).length
    ? createApp().fetch(new Request(BASE + path, init), { ...env, ...overrides }, ctx)
    : exports.default.fetch(new Request(BASE + path, init)));
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

const admin = (eventId: string, action: string, overrides: Partial<Env> = {}) =>
  call(`/_wr/admin/events/${eventId}/${action}`, { method: 'POST', headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }, overrides);

async function origin(eventId: string, holdId: string, action: string, body: Record<string, unknown>) {
  const path = `/_wr/origin/events/${eventId}/holds/${holdId}/${action}`;
  const text = JSON.stringify(body);
  return call(path, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json', ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, text, Date.now())) },
  });
}

describe('a closed sale', () => {
  it('refuses new holds with 409 SALE_CLOSED and holds nothing, while holds made before start payment, sell and release', async () => {
    const eventId = freshEventId('close');
    await createEvent(eventId, { seatPriceMinor: 5000 });
    const buyer = await admittedVisitor(eventId);
    const late = await admittedVisitor(eventId);
    const paid = await buyer.hold(eventId, ['A1'], 'k-paid');
    const dropped = await buyer.hold(eventId, ['A2'], 'k-dropped');
    expect([paid.status, dropped.status]).toEqual([201, 201]);

    expect(await admin(eventId, 'close')).toMatchObject({ status: 200, body: { mode: 'closed' } });
    // The failing input: an admitted visitor could still hold after close.
    const refused = await late.hold(eventId, ['B1']);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'SALE_CLOSED' });
    expect(await late.hold(eventId, ['B2'], 'k-second')).toMatchObject({ status: 409 });
    // A retry of a hold made before the close still answers with that hold.
    expect(await buyer.hold(eventId, ['A1'], 'k-paid')).toMatchObject({ status: 201, body: { holdId: paid.body.holdId } });
    const map = await late.json<{ salesClosed: boolean }>(`/_wr/events/${eventId}/seats`);
    expect(map.body.salesClosed).toBe(true);

    const holdId = paid.body.holdId as string;
    expect(await origin(eventId, holdId, 'payment-pending', {})).toMatchObject({ status: 200, body: { status: 'PAYMENT_PENDING' } });
    expect(await origin(eventId, holdId, 'confirm', { orderId: 'o-closed', amountMinor: 5000 })).toMatchObject({
      status: 200,
      body: { status: 'SOLD' },
    });
    const release = await buyer.json(`/_wr/events/${eventId}/holds/${dropped.body.holdId as string}`, { method: 'DELETE' });
    expect(release).toMatchObject({ status: 200, body: { status: 'RELEASED' } });

    const stats = await inventoryStats(env.INVENTORY.getByName(eventId));
    expect(stats).toMatchObject({ salesClosed: true, seats: { sold: 1, held: 0 }, holds: { SOLD: 1, RELEASED: 1 } });
    await checkInvariants(env.INVENTORY.getByName(eventId));
  });

  it('resume opens new holds again', async () => {
    const eventId = freshEventId('close');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    await admin(eventId, 'close');
    expect((await v.hold(eventId, ['A1'])).status).toBe(409);
    expect(await admin(eventId, 'resume')).toMatchObject({ status: 200, body: { mode: 'open' } });
    expect((await v.hold(eventId, ['A1'])).status).toBe(201);
  });

  it('a crash after the Inventory closed and before the WaitingRoom did: holds already stop, and close sent again completes it', async () => {
    const eventId = freshEventId('close');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const room = {
      getByName: (name: string) =>
        new Proxy(env.WAITING_ROOM.getByName(name), {
          get: (t, p) =>
            p === 'close'
              ? async () => {
                  throw new Error('injected crash before the WaitingRoom closed');
                }
              : Reflect.get(t, p),
        }),
    } as unknown as Env['WAITING_ROOM'];
    expect((await admin(eventId, 'close', { WAITING_ROOM: room })).status).toBe(500);
    expect((await v.hold(eventId, ['A1'])).body).toMatchObject({ code: 'SALE_CLOSED' });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.mode).toBe('open');
    expect(await admin(eventId, 'close')).toMatchObject({ status: 200, body: { mode: 'closed' } });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.mode).toBe('closed');
  });

  it('pause keeps holds open (it only stops releases)', async () => {
    const eventId = freshEventId('close');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    await admin(eventId, 'pause');
    expect((await v.hold(eventId, ['A1'])).status).toBe(201);
  });
});
