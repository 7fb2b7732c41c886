// The stub's "return my tickets" route through the gateway (outside the room, as the confirmation
// page calls it after the paid checkout ended the admission): a return, its replay by key, and
// each refusal with the gateway's code and nothing returned (deadline passed, already returned,
// payment not settled, bad input, unknown order).
import { describe, expect, it } from 'vitest';
import { TIMEOUT_CARD } from '../../origin-stub/payment-provider';
import { admittedVisitor, createEvent, freshEventId, type Visitor } from '../helpers/client';

const CARD = '4242 4242 4242 4242';
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();

async function paidOrder(resale: Record<string, unknown>, seats: string[], card = CARD) {
  const eventId = freshEventId('ret');
  await createEvent(eventId, { seats: 4, seatsPerRow: 4, seatPriceMinor: 5000, resale });
  const v = await admittedVisitor(eventId);
  const held = await v.hold(eventId, seats);
  const paid = await v.json<{ orderId: string; status: string }>(`/events/${eventId}/checkout`, {
    method: 'POST',
    body: JSON.stringify({ holdId: held.body.holdId, card }),
  });
  return { eventId, v, orderId: paid.body.orderId, status: paid.body.status };
}

const giveBack = (v: Visitor, eventId: string, orderId: string, body: unknown) =>
  v.json<{ code?: string; return?: { returnId: string; refund: string; seats: { seatId: string; faceMinor: number }[] } }>(
    `/orders/events/${eventId}/${orderId}/return`,
    { method: 'POST', body: JSON.stringify(body) },
  );

describe('the stub returns tickets through the gateway', () => {
  it('returns chosen seats, replays the same key, refuses a second return of them and bad input', async () => {
    const { eventId, v, orderId, status } = await paidOrder({ returnDeadline: FUTURE }, ['A1', 'A2']);
    expect(status).toBe('PAID');
    const first = await giveBack(v, eventId, orderId, { seatIds: ['A2'], idempotencyKey: 'k1' });
    expect(first).toMatchObject({ status: 200, body: { return: { refund: 'on_resale', seats: [{ seatId: 'A2', faceMinor: 5000 }] } } });
    const replay = await giveBack(v, eventId, orderId, { seatIds: ['A2'], idempotencyKey: 'k1' });
    expect(replay.body.return?.returnId).toBe(first.body.return?.returnId);
    // Nobody waits, so A2 is back on open sale and its return waits for its resale: returning A2 again
    // is refused, while the order's other seat can still be returned.
    expect((await giveBack(v, eventId, orderId, { seatIds: ['A2'], idempotencyKey: 'k2' })).body.code).toBe('RETURN_IN_PROGRESS');
    expect((await giveBack(v, eventId, orderId, { seatIds: ['A1'] })).status).toBe(400);
    expect((await giveBack(v, eventId, orderId, { seatIds: [], idempotencyKey: 'k3' })).status).toBe(400);
    expect((await giveBack(v, eventId, 'no-such-order', { idempotencyKey: 'k4' })).status).toBe(404);
    expect(await giveBack(v, eventId, orderId, { seatIds: ['A1'], idempotencyKey: 'k5' })).toMatchObject({
      status: 200,
      body: { return: { seats: [{ seatId: 'A1' }] } },
    });
  });

  it('says ORDER_ALREADY_RETURNED when refunded at once, RETURN_DEADLINE_PASSED after the deadline, PAYMENT_NOT_SETTLED while paying', async () => {
    const now = await paidOrder({ returnDeadline: FUTURE, refund: 'at_once' }, ['A1']);
    expect((await giveBack(now.v, now.eventId, now.orderId, { idempotencyKey: 'a' })).status).toBe(200);
    expect(await giveBack(now.v, now.eventId, now.orderId, { idempotencyKey: 'b' })).toMatchObject({
      status: 409,
      body: { code: 'ORDER_ALREADY_RETURNED' },
    });
    const late = await paidOrder({ returnDeadline: '2020-01-01T00:00:00.000Z' }, ['A1']);
    expect((await giveBack(late.v, late.eventId, late.orderId, { idempotencyKey: 'a' })).body.code).toBe('RETURN_DEADLINE_PASSED');
    const paying = await paidOrder({ returnDeadline: FUTURE }, ['A1'], TIMEOUT_CARD);
    expect(paying.status).toBe('PROCESSING');
    expect((await giveBack(paying.v, paying.eventId, paying.orderId, { idempotencyKey: 'a' })).body.code).toBe('PAYMENT_NOT_SETTLED');
  });
});
