// Returns, the waitlist and resale through the gateway: the origin's signed routes and the
// visitor's waitlist join. Each bad input is a 4xx with its code that changes nothing (the resale
// feed and the counts stay as they were); a sell-out, returns, offers to the waitlist, an offer
// lapsing to the next account, resale at face value plus fee and the refund, all over HTTP.
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { Visitor } from '../helpers/client';
import { signedCall, type Answer } from '../helpers/gateway';
import { checkInvariants } from '../helpers/inventory-invariants';
import { RETURN_DEADLINE, soldOutEvent } from '../helpers/resale-events';

const RESALE = { returnDeadline: RETURN_DEADLINE, offerSeconds: 60, feeMinor: 250 };
const soldOut = (resale: Record<string, unknown> | null = RESALE) => soldOutEvent(resale);

const post = (path: string, body: unknown) => signedCall('POST', path, JSON.stringify(body));
const get = (path: string) => signedCall('GET', path, '');

/** What a refusal must leave alone: the resale feed and the waitlist with its counts. */
async function state(eventId: string): Promise<unknown> {
  const feed = await get(`/_wr/origin/events/${eventId}/resale/feed`);
  const waitlist = await get(`/_wr/origin/events/${eventId}/waitlist`);
  return [feed.body, waitlist.body];
}

function expectProblem(a: Answer, status: number, code: string): void {
  expect({ status: a.status, code: a.body.code }).toEqual({ status, code });
  expect(a.headers.get('content-type')).toContain('application/problem+json');
}

describe('resale over HTTP', () => {
  it('answers each bad input with its 4xx and code, and changes nothing', async () => {
    const { eventId, inv, ann, bob } = await soldOut();
    const ret = (holdId: string, body: unknown) => post(`/_wr/origin/events/${eventId}/holds/${holdId}/return`, body);
    expect((await ret(bob, { seatIds: ['A4'], idempotencyKey: 'first' })).status).toBe(200);
    const before = await state(eventId);

    expectProblem(await ret(ann, { seatIds: ['A3'], idempotencyKey: 'k1' }), 422, 'SEATS_NOT_IN_ORDER');
    expectProblem(await ret(bob, { seatIds: ['A4'], idempotencyKey: 'k2' }), 409, 'RETURN_IN_PROGRESS');
    expectProblem(await ret(bob, { seatIds: ['A3'], idempotencyKey: 'first' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectProblem(await ret('no-such-hold', { idempotencyKey: 'k3' }), 404, 'HOLD_NOT_FOUND');
    expectProblem(await ret(ann, { seatIds: [], idempotencyKey: 'k4' }), 400, 'INVALID_REQUEST');
    expectProblem(await ret(ann, { seatIds: ['A1'] }), 400, 'INVALID_REQUEST');
    expect(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'cid', quantity: 7 })).toMatchObject({ status: 400 });
    // The returned seat A4 is on open sale: the waitlist is not open.
    expectProblem(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'cid', quantity: 1 }), 409, 'WAITLIST_NOT_OPEN');
    expectProblem(await post(`/_wr/origin/events/${eventId}/offers/nope/accept`, { account: 'cid' }), 404, 'OFFER_NOT_FOUND');
    expect(await state(eventId)).toEqual(before);

    // A returned seat bought on open sale costs its face value plus the fee; a hold still paying is not returned.
    const held = await inv.hold('dee', { seatIds: ['A4'] }, 'k-dee');
    expect(held).toMatchObject({ kind: 'held', hold: { priceMinor: 5250 } });
    const a = held.kind === 'held' ? held.hold.holdId : '';
    await inv.startPayment(a, null);
    expectProblem(await ret(a, { idempotencyKey: 'k5' }), 409, 'PAYMENT_NOT_SETTLED');

    const off = await soldOut(null);
    expectProblem(await post(`/_wr/origin/events/${off.eventId}/holds/${off.ann}/return`, { idempotencyKey: 'k' }), 409, 'RESALE_OFF');
    const past = await soldOut({ returnDeadline: '2020-01-01T00:00:00.000Z' });
    expectProblem(
      await post(`/_wr/origin/events/${past.eventId}/holds/${past.ann}/return`, { idempotencyKey: 'k' }),
      409,
      'RETURN_DEADLINE_PASSED',
    );
    await checkInvariants(inv);
  });

  it('sell-out, a visitor and accounts on the waitlist, a return, offers in arrival order, lapsed offers passed to the next account', async () => {
    const { eventId, inv, ann } = await soldOut();
    // A visitor on the sold-out page joins with their queue ticket; the origin adds a signed-in account.
    const visitor = new Visitor();
    expect((await visitor.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
    const joined = await visitor.json<{ entry: { account: string; state: string } }>(`/_wr/events/${eventId}/waitlist`, {
      method: 'POST',
      body: JSON.stringify({ quantity: 1 }),
    });
    expect(joined).toMatchObject({ status: 200, body: { entry: { state: 'WAITING' } } });
    expect((await new Visitor().json(`/_wr/events/${eventId}/waitlist`, { method: 'POST', body: '{"quantity":1}' })).body).toMatchObject({
      code: 'TICKET_REQUIRED',
    });
    expect(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'cid', quantity: 1 })).toMatchObject({ status: 200 });
    expect(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'dee', quantity: 1 })).toMatchObject({ status: 200 });

    const ret = await post(`/_wr/origin/events/${eventId}/holds/${ann}/return`, { seatIds: ['A2', 'A1'], idempotencyKey: 'r1' });
    expect(ret).toMatchObject({
      status: 200,
      body: {
        seats: [
          { seatId: 'A1', faceMinor: 5000 },
          { seatId: 'A2', faceMinor: 5000 },
        ],
      },
    });
    const again = await post(`/_wr/origin/events/${eventId}/holds/${ann}/return`, { seatIds: ['A1', 'A2'], idempotencyKey: 'r1' });
    expect(again).toMatchObject({ status: 200, body: { returnId: ret.body.returnId } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    type Entry = { state: string; offerHoldId: string | null; account: string };
    const entries = async () => (await get(`/_wr/origin/events/${eventId}/waitlist`)).body.entries as Entry[];
    let list = await entries();
    expect(list.map((e) => e.state)).toEqual(['OFFERED', 'OFFERED', 'WAITING']);
    const [visitorOffer, cidOffer] = [list[0]!.offerHoldId!, list[1]!.offerHoldId!];
    expect(await get(`/_wr/origin/events/${eventId}/holds/${cidOffer}`)).toMatchObject({ body: { seatIds: ['A2'], priceMinor: 5250 } });
    expectProblem(await post(`/_wr/origin/events/${eventId}/offers/${cidOffer}/accept`, { account: 'ann' }), 403, 'NOT_OFFER_OWNER');

    // Both offers lapse unanswered: the next waiting account gets the first seat, the other goes back on open sale.
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => Date.now() + 61_000));
    await runDurableObjectAlarm(inv);
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => Date.now()));
    expectProblem(
      await post(`/_wr/origin/events/${eventId}/offers/${visitorOffer}/accept`, { account: list[0]!.account }),
      409,
      'OFFER_LAPSED',
    );
    list = await entries();
    expect(list.map((e) => e.state)).toEqual(['LAPSED', 'LAPSED', 'OFFERED']);
    expect(await get(`/_wr/origin/events/${eventId}/holds/${list[2]!.offerHoldId}`)).toMatchObject({
      body: { seatIds: ['A1'], account: 'dee' },
    });
    const feed = await get(`/_wr/origin/events/${eventId}/resale/feed`);
    expect((feed.body.events as { kind: string }[]).map((e) => e.kind)).toEqual([
      'return',
      'offer',
      'offer',
      'offer_lapsed',
      'offer_lapsed',
      'offer',
    ]);
    await checkInvariants(inv);
  });

  it('an accepted offer is paid through the ordinary payment flow, then the original order is refunded', async () => {
    const { eventId, inv, ann } = await soldOut();
    expect(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'cid', quantity: 1 })).toMatchObject({ status: 200 });
    expect(await post(`/_wr/origin/events/${eventId}/waitlist`, { account: 'cid', quantity: 1 })).toMatchObject({
      status: 200,
      body: { replayed: true },
    });
    await post(`/_wr/origin/events/${eventId}/holds/${ann}/return`, { seatIds: ['A2'], idempotencyKey: 'r' });
    const w = await get(`/_wr/origin/events/${eventId}/waitlist`);
    const offer = (w.body.entries as { offerHoldId: string }[])[0]!.offerHoldId;
    expect(await post(`/_wr/origin/events/${eventId}/offers/${offer}/accept`, { account: 'cid' })).toMatchObject({
      status: 200,
      body: { holdId: offer, status: 'HELD', account: 'cid', priceMinor: 5250 },
    });
    const hold = `/_wr/origin/events/${eventId}/holds/${offer}`;
    expect(await post(`${hold}/payment-pending`, {})).toMatchObject({ status: 200, body: { status: 'PAYMENT_PENDING' } });
    expect(await post(`${hold}/confirm`, { orderId: 'order-cid', amountMinor: 5250 })).toMatchObject({
      status: 200,
      body: { status: 'SOLD' },
    });
    const feed = await get(`/_wr/origin/events/${eventId}/resale/feed`);
    const refund = (feed.body.events as { kind: string; data: Record<string, unknown> }[]).find((e) => e.kind === 'refund');
    expect(refund?.data).toMatchObject({ orderId: 'order-ann', seatId: 'A2', amountMinor: 5000, currency: 'EUR' });
    expect((await get(`/_wr/origin/events/${eventId}/waitlist`)).body.counts).toMatchObject({ offersTaken: 1, resoldSeats: 1, refunds: 1 });
    await checkInvariants(inv);
  });
});
