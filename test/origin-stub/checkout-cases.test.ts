// The named cases of the checkout saga, each step by step: lost answers, early and duplicate
// webhooks, capture timeouts, refused confirmation, authorization expiry, refunds, reconciliation.
import { describe, expect, it, vi } from 'vitest';
import { operationId } from '../../origin-stub/order';
import { invariantViolations, settledViolations, World } from './harness';

const CARD = '4242 4242 4242 4242';

/** A world with one hold of `seats` for a fresh account. */
function setup(seats = ['A1']) {
  const w = new World();
  const account = w.newAccount();
  const holdId = w.inventory.hold(account, seats)!;
  return { w, account, holdId };
}

/** Runs every job (moving the clock as needed) and checks the invariants. */
async function finish(w: World) {
  await w.drain();
  expect(settledViolations(w)).toEqual([]);
}

describe('named checkout cases', () => {
  it('lost response after a successful authorization: PROCESSING, seats kept out of sale, resolved by query, one authorization, one capture', async () => {
    const { w, account, holdId } = setup();
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'PROCESSING', payment: 'UNKNOWN' });
    expect(w.ledger.payment(order.orderId)?.state).toBe('AUTHORIZED'); // the provider did authorize
    // Nobody else can take the seat while the answer is unknown, not even after the payment grace.
    w.now += w.inventory.graceMs + 1;
    expect(w.inventory.status(holdId)).toBe('NEEDS_RECONCILIATION');
    expect(w.inventory.hold(w.newAccount(), ['A1'])).toBeNull();
    expect(invariantViolations(w)).toEqual([]);
    await w.checkout.resolve(order.orderId);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'PAID', payment: 'AUTHORIZED' });
    await finish(w);
    expect(w.checkout.view(order.orderId)).toMatchObject({
      status: 'PAID',
      payment: 'CAPTURED',
      tickets: [`${order.orderId.slice(0, 8)}-A1`],
    });
    expect([...w.ledger.operations.values()].filter((o) => o.op === 'authorize')).toHaveLength(1);
    expect(w.ledger.moved).toEqual([
      { paymentId: order.orderId, kind: 'capture', amountMinor: 5000, operationId: operationId(order.orderId, 'capture') },
    ]);
  });

  it('lost response resolved by the webhook instead of a query', async () => {
    const { w, account, holdId } = setup();
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(await w.deliver(0)).toBe('applied');
    expect(w.checkout.view(order.orderId)?.status).toBe('PAID');
    await finish(w);
  });

  it('webhook before the API response: applied once; the late answer adds nothing', async () => {
    const { w, account, holdId } = setup();
    w.interleave.push('webhooks');
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.store.webhookEvents.get(w.ledger.outbox[0]!.id)).toBe('applied');
    const p = w.store.payment(order.orderId)!;
    // INITIATED -> AUTHORIZED by the webhook is the only change before the capture job: version 1.
    expect([p.state, p.version]).toEqual(['AUTHORIZED', 1]);
    expect(w.checkout.view(order.orderId)?.status).toBe('PAID');
    await finish(w);
  });

  it('duplicate webhook: the second delivery is recognized by event id and changes nothing', async () => {
    const { w, account, holdId } = setup();
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(await w.deliver(0)).toBe('applied');
    const after = w.store.payment(order.orderId);
    expect(await w.deliver(0)).toBe('duplicate');
    expect(w.store.payment(order.orderId)).toEqual(after);
    await finish(w);
  });

  it('webhooks out of order: settlement before capture is caught up; the late capture event is stale', async () => {
    const { w, account, holdId } = setup();
    w.hooks.push(() => undefined);
    const order = await w.checkout.checkout(account, holdId, CARD);
    await w.drain(); // capture
    w.provider.providerEvent(order.orderId, 'settled');
    const [authorized, captured, settled] = w.ledger.outbox;
    expect([authorized?.type, captured?.type, settled?.type]).toEqual(['payment.authorized', 'payment.captured', 'payment.settled']);
    expect(await w.checkout.webhook(settled!)).toBe('applied');
    expect(await w.checkout.webhook(captured!)).toBe('stale');
    expect(await w.checkout.webhook(authorized!)).toBe('stale');
    expect(w.store.payment(order.orderId)?.state).toBe('SETTLED');
    await finish(w);
  });

  it('capture timeout, then success on query: captured once, with the same operation id', async () => {
    const { w, account, holdId } = setup();
    w.providerFaults.push({ op: 'capture', fault: 'lost_response' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    await w.checkout.advance(order.orderId);
    expect(w.store.payment(order.orderId)).toMatchObject({ state: 'UNKNOWN', pending: { op: 'capture', from: 'AUTHORIZED' } });
    expect(w.checkout.view(order.orderId)?.status).toBe('PAID'); // the seats are sold; only the capture is unknown
    await w.checkout.resolve(order.orderId);
    expect(w.store.payment(order.orderId)?.state).toBe('CAPTURED');
    await finish(w);
    expect(w.ledger.moved.filter((m) => m.kind === 'capture')).toHaveLength(1);
  });

  it('capture timeout before the provider saw it: the query finds no capture, the retry reuses the operation id', async () => {
    const { w, account, holdId } = setup();
    w.providerFaults.push({ op: 'capture', fault: 'timeout' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    await w.checkout.advance(order.orderId);
    await w.checkout.resolve(order.orderId);
    expect(w.store.payment(order.orderId)?.state).toBe('CAPTURED');
    expect([...w.ledger.operations.keys()]).toEqual([operationId(order.orderId, 'authorize'), operationId(order.orderId, 'capture')]);
    await finish(w);
  });

  it('confirm refused after authorization (hold gone, seat taken): the authorization is voided and the visitor told so', async () => {
    const { w, account, holdId } = setup();
    let other: string | null = null;
    // While the provider authorizes, the hold is released and someone else takes the seat.
    w.hooks.push(() => {
      w.inventory.operatorRelease(holdId);
      other = w.inventory.hold(w.newAccount(), ['A1']);
    });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(other).not.toBeNull();
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'CANCELLED', payment: 'VOIDED', tickets: [] });
    expect(w.checkout.view(order.orderId)?.message).toMatch(/could not be confirmed.*not charged/);
    expect(w.ledger.payment(order.orderId)?.state).toBe('VOIDED');
    expect(w.inventory.status(other!)).toBe('HELD'); // the new holder keeps the seat
    expect(w.ledger.moved).toEqual([]);
    await finish(w);
  });

  it('authorization expiry: confirm never answered; after the window the authorization is voided and the seats released', async () => {
    const { w, account, holdId } = setup();
    for (let i = 0; i < 50; i++) w.inventory.faults.push({ op: 'confirm', fault: 'timeout' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'PROCESSING', payment: 'AUTHORIZED' });
    w.now += w.checkout['d'].timing.authorizationWindowMs;
    await w.checkout.expireAuthorization(order.orderId);
    await w.drain();
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'CANCELLED', payment: 'VOIDED' });
    expect(w.inventory.status(holdId)).toBe('RELEASED');
    w.inventory.faults.length = 0;
    await finish(w);
  });

  it('authorization expiry never voids a sale: a confirm whose answer was lost is found SOLD and captured', async () => {
    const { w, account, holdId } = setup();
    w.inventory.faults.push({ op: 'confirm', fault: 'lost' });
    for (let i = 0; i < 20; i++) w.inventory.faults.push({ op: 'confirm', fault: 'timeout' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.inventory.status(holdId)).toBe('SOLD');
    await w.checkout.expireAuthorization(order.orderId);
    w.inventory.faults.length = 0;
    await finish(w);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'PAID', payment: 'CAPTURED' });
  });

  it('gateway silent when the hold is read: nothing starts, the visitor is told to try again, the hold is untouched', async () => {
    const { w, account, holdId } = setup();
    w.inventory.faults.push({ op: 'getHold', fault: 'timeout' });
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'FAILED', payment: null });
    expect(order.message).toMatch(/did not answer.*Try again/);
    expect(w.inventory.status(holdId)).toBe('HELD');
    expect(w.ledger.payments()).toEqual([]);
    const again = await w.checkout.checkout(account, holdId, CARD);
    expect(w.checkout.view(again.orderId)?.status).toBe('PAID');
    await finish(w);
  });

  it('declined card: FAILED, nothing charged, seats released; a new attempt is a new order and payment', async () => {
    const { w, account, holdId } = setup();
    const first = await w.checkout.checkout(account, holdId, '4000 0000 0000 0002');
    expect(w.checkout.view(first.orderId)).toMatchObject({ status: 'FAILED', payment: 'FAILED' });
    expect(w.inventory.status(holdId)).toBe('RELEASED');
    const again = w.inventory.hold(account, ['A1'])!;
    const second = await w.checkout.checkout(account, again, CARD);
    expect(second.orderId).not.toBe(first.orderId);
    await finish(w);
  });

  it('refunds: partial then the rest; no second refund while one is unknown; never beyond the capture', async () => {
    const { w, account, holdId } = setup(['A1', 'A2']);
    const order = await w.checkout.checkout(account, holdId, CARD);
    await w.drain();
    w.providerFaults.push({ op: 'refund', fault: 'lost_response' });
    expect(await w.checkout.refund(order.orderId, 3000)).toBe('unknown');
    expect(await w.checkout.refund(order.orderId, 3000)).toBe('refused');
    await w.checkout.resolve(order.orderId);
    expect(w.store.payment(order.orderId)).toMatchObject({ state: 'REFUNDED', refundedMinor: 3000 });
    expect(await w.checkout.refund(order.orderId, 8000)).toBe('refused');
    expect(await w.checkout.refund(order.orderId, 7000)).toBe('refunded');
    expect(w.ledger.moved.filter((m) => m.kind === 'refund').map((m) => m.amountMinor)).toEqual([3000, 7000]);
    await finish(w);
  });

  it('reconciliation finds a lost authorization answer, a lost confirm answer and an orphan authorization, and resolves them', async () => {
    const w = new World();
    const a = w.newAccount();
    const h1 = w.inventory.hold(a, ['A1'])!;
    const h2 = w.inventory.hold(a, ['A2'])!;
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const o1 = await w.checkout.checkout(a, h1, CARD);
    w.inventory.faults.push({ op: 'confirm', fault: 'lost' });
    const o2 = await w.checkout.checkout(a, h2, CARD);
    await w.provider.authorize('stray:authorize', 'stray', 5000, 'EUR', CARD); // money held for no order
    w.jobs.length = 0; // no job ran: only the reconciliation finds these
    const report = await w.checkout.reconcile();
    const kinds = report.differences.map((d) => `${d.kind}:${d.orderId ?? '-'}`);
    expect(kinds).toEqual(
      expect.arrayContaining([`payment_behind_provider:${o1.orderId}`, `hold_sold_but_order_open:${o2.orderId}`, 'orphan_authorization:-']),
    );
    expect(w.ledger.payment('stray')?.state).toBe('VOIDED');
    expect(w.checkout.view(o1.orderId)?.status).toBe('PAID');
    expect(w.checkout.view(o2.orderId)?.status).toBe('PAID');
    await w.drain();
    expect((await w.checkout.reconcile()).differences).toEqual([]);
    expect(invariantViolations(w)).toEqual([]);
  });

  it('reconciliation reads settled orders from the bulk listings, and still checks one by one any the listings disagree with', async () => {
    const w = new World();
    const orders = [];
    for (const seat of ['A1', 'A2', 'A3', 'A4']) {
      const a = w.newAccount();
      orders.push(await w.checkout.checkout(a, w.inventory.hold(a, [seat])!, CARD));
    }
    const declined = w.newAccount();
    const failed = await w.checkout.checkout(declined, w.inventory.hold(declined, ['A5'])!, '4000 0000 0000 0002');
    await finish(w);
    const getHold = vi.spyOn(w.inventory, 'getHold');
    const query = vi.spyOn(w.provider, 'query');
    // The failed order is read once, to see its hold released; the paid ones are settled in the listings.
    expect((await w.checkout.reconcile()).differences).toEqual([]);
    expect(getHold.mock.calls).toEqual([[failed.holdId]]);
    getHold.mockClear();
    query.mockClear();
    expect((await w.checkout.reconcile()).differences).toEqual([]);
    expect([getHold.mock.calls.length, query.mock.calls.length]).toEqual([0, 0]);
    // The gateway no longer lists one hold as sold; the provider has a dispute the shop missed.
    const [gone, disputed] = orders as [(typeof orders)[0], (typeof orders)[0]];
    w.inventory.holds.get(gone.holdId)!.status = 'RELEASED';
    w.provider.providerEvent(disputed.orderId, 'disputed');
    w.ledger.outbox.length = 0; // its webhook is lost
    const report = await w.checkout.reconcile();
    expect(report.differences.map((d) => `${d.kind}:${d.orderId}`).sort()).toEqual(
      [`hold_state_mismatch:${gone.orderId}`, `payment_behind_provider:${disputed.orderId}`].sort(),
    );
    expect(getHold.mock.calls.map(([holdId]) => holdId).sort()).toEqual([gone.holdId, disputed.holdId].sort());
  });

  it("reconciliation compares the inventory's sold and paying holds with the orders: a sale it does not know is reported, an abandoned payment hold released", async () => {
    const w = new World();
    const a = w.newAccount();
    const sold = w.inventory.hold(a, ['A1'])!;
    w.inventory.foreignConfirm(sold, 'order-from-elsewhere');
    const stuck = w.inventory.hold(a, ['A2'])!;
    w.inventory.foreignPaymentPending(stuck);
    w.now += w.inventory.graceMs;
    const report = await w.checkout.reconcile();
    expect(report.differences).toEqual([
      expect.objectContaining({ kind: 'sold_without_order', holdId: sold, action: 'none: needs a person' }),
      expect.objectContaining({ kind: 'hold_without_order', holdId: stuck, action: 'released' }),
    ]);
    expect(w.inventory.status(stuck)).toBe('RELEASED');
  });
});
