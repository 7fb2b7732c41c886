// The checkout saga where calls race or answers are lost (harness world: real saga, real fake
// provider, real hold state machine): concurrent checkouts of one hold, an abandon while an
// authorize may be in flight, a confirm that lands late, and what the visitor sees meanwhile.
import { describe, expect, it } from 'vitest';
import { CheckoutEngine } from '../../origin-stub/checkout';
import type { HoldAnswer } from '../../origin-stub/order';
import { invariantViolations, World } from './harness';

const CARD = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';

/** A promise and its resolver: a gate a test opens when it likes. */
function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

describe('two checkouts of one hold', () => {
  it("another visitor's refused checkout of my hold (a FAILED order under my holdId) lets a concurrent checkout of mine create a 2nd order; its decline releases seats whose 1st payment is UNKNOWN", async () => {
    const w = new World();
    const victim = w.newAccount();
    const attacker = w.newAccount();
    const holdId = w.inventory.hold(victim, ['A1'])!;

    // Tab 2 of the victim: its hold read answers HELD, but the answer is slow to come back.
    const g = gate();
    w.inventory.hooks.push({ before: false, run: () => g.p });
    const tab2 = w.checkout.checkout(victim, holdId, DECLINED);

    // Tab 1 of the victim: authorized at the provider, but the answer is lost -> UNKNOWN, seats kept.
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const first = await w.checkout.checkout(victim, holdId, CARD);
    expect(w.store.payment(first.orderId)?.state).toBe('UNKNOWN');
    expect(w.inventory.status(holdId)).toBe('PAYMENT_PENDING');

    // Anyone (here another visitor who learned the hold id) checks out the hold: refused, but recorded as a FAILED order of this hold.
    const foreign = await w.checkout.checkout(attacker, holdId, CARD);
    expect(foreign.state).toBe('FAILED');

    // Tab 2's stale HELD answer arrives: orderForHold() now sees only the newest (FAILED) order, so a 2nd order is created.
    g.open();
    const second = await tab2;

    // Seats back on sale while the first payment (authorized at the provider) is still UNKNOWN:
    const thief = w.inventory.hold(w.newAccount(), ['A1']);
    expect({
      secondOrder: second.orderId === first.orderId ? 'same order' : `new order ${w.store.payment(second.orderId)?.state}`,
      firstPayment: w.store.payment(first.orderId)?.state,
      hold: w.inventory.status(holdId),
      seatTakenBySomeoneElse: thief !== null,
      violations: invariantViolations(w),
    }).toEqual({
      secondOrder: 'same order',
      firstPayment: 'UNKNOWN',
      hold: 'PAYMENT_PENDING',
      seatTakenBySomeoneElse: false,
      violations: [],
    });
  });

  it('same visitor, three quick clicks (no other account): a FAILED order from one click lets another click authorize the hold a 2nd time', async () => {
    const w = new World();
    const victim = w.newAccount();
    const holdId = w.inventory.hold(victim, ['A1'])!;

    // Click 2: the hold read is processed at once (HELD) but its answer comes back late.
    const g2 = gate();
    w.inventory.hooks.push({ before: false, run: () => g2.p });
    const click2 = w.checkout.checkout(victim, holdId, CARD);
    // Click 3: its hold read reaches the gateway late (after click 1 started the payment).
    const g3 = gate();
    w.inventory.hooks.push({ before: true, run: () => g3.p });
    const click3 = w.checkout.checkout(victim, holdId, CARD);
    // Click 1: goes through; the authorization's answer is lost (UNKNOWN).
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const first = await w.checkout.checkout(victim, holdId, CARD);
    expect(w.store.payment(first.orderId)?.state).toBe('UNKNOWN');

    g3.open();
    const third = await click3; // sees PAYMENT_PENDING -> a FAILED order for this hold, and tells the visitor so
    g2.open();
    const second = await click2;

    const payments = [...w.store.paymentsById.keys()];
    expect({
      third: w.checkout.view(third.orderId)?.status,
      payments: payments.length,
      authorizations: w.ledger.payments().length,
    }).toEqual({
      third: 'PROCESSING', // expected: the visitor is not told "failed" while their payment is UNKNOWN
      payments: 1,
      authorizations: 1,
    });
    expect(second.orderId).toBe(first.orderId);
  });

  it("a visitor's retry after another account's refused checkout of the hold is told FAILED / not charged while their payment is UNKNOWN", async () => {
    const w = new World();
    const victim = w.newAccount();
    const holdId = w.inventory.hold(victim, ['A1'])!;
    w.providerFaults.push({ op: 'authorize', fault: 'lost_response' });
    const first = await w.checkout.checkout(victim, holdId, CARD);
    expect(w.checkout.view(first.orderId)?.status).toBe('PROCESSING');
    const refused = await w.checkout.checkout(w.newAccount(), holdId, CARD); // refused: not their hold
    expect(w.checkout.view(refused.orderId)).toMatchObject({ status: 'FAILED', holdId: null, payment: null }); // linked to no hold
    expect(w.store.ordersForHold(holdId).map((o) => o.orderId)).toEqual([first.orderId]);
    const retry = await w.checkout.checkout(victim, holdId, CARD); // e.g. a reload re-posting the checkout
    expect({ orderId: retry.orderId, status: w.checkout.view(retry.orderId)?.status }).toEqual({
      orderId: first.orderId,
      status: 'PROCESSING',
    });
  });
});

describe('abandoning a payment whose authorize may be in flight', () => {
  it('after a restart mid-authorize, the abandon job fails the payment and frees the seats without asking the provider (which authorized)', async () => {
    const w = new World();
    const account = w.newAccount();
    const holdId = w.inventory.hold(account, ['A1'])!;
    // The provider processes the authorization, but the shop instance dies before the answer arrives.
    const never = new Promise<void>(() => {});
    w.hooks.push(() => never);
    void w.checkout.checkout(account, holdId, CARD);
    await new Promise((r) => setTimeout(r, 0));
    const orderId = [...w.store.ordersById.keys()][0]!;
    expect(w.ledger.payment(orderId)?.state).toBe('AUTHORIZED');
    // A fresh instance (what a Durable Object restart gives): same storage, same provider, no in-memory driver set.
    const restarted = new CheckoutEngine({ ...(w.checkout as unknown as { d: ConstructorParameters<typeof CheckoutEngine>[0] }).d });
    w.now += 60_000; // abandonAfterMs
    await restarted.advance(orderId); // the scheduled 'advance' job
    // The job asks the provider by the payment id, finds the authorization and carries on: the seats are confirmed.
    expect({
      payment: w.store.payment(orderId)?.state,
      order: w.store.order(orderId)?.state,
      hold: w.inventory.status(holdId),
      atProvider: w.ledger.payment(orderId)?.state,
      violations: invariantViolations(w),
    }).toEqual({ payment: 'AUTHORIZED', order: 'PAID', hold: 'SOLD', atProvider: 'AUTHORIZED', violations: [] });
  });

  it('the abandon job fails a payment only when the provider has no trace of it, and then frees the seats', async () => {
    const w = new World();
    const account = w.newAccount();
    const holdId = w.inventory.hold(account, ['A1'])!;
    // The shop instance dies after recording the order and moving the hold to PAYMENT_PENDING, before authorizing.
    const never = new Promise<HoldAnswer>(() => {});
    const realStart = w.inventory.startPayment.bind(w.inventory);
    w.inventory.startPayment = async (h, a) => (await realStart(h, a), never);
    void w.checkout.checkout(account, holdId, CARD);
    await new Promise((r) => setTimeout(r, 0));
    const orderId = [...w.store.ordersById.keys()][0]!;
    const restarted = new CheckoutEngine({ ...(w.checkout as unknown as { d: ConstructorParameters<typeof CheckoutEngine>[0] }).d });
    await restarted.advance(orderId); // too early: nothing happens
    expect(w.store.payment(orderId)?.state).toBe('INITIATED');
    w.now += 60_000;
    w.providerFaults.push({ op: 'query', fault: 'timeout' });
    await restarted.advance(orderId); // the provider does not answer the query: nothing is decided
    expect({ payment: w.store.payment(orderId)?.state, hold: w.inventory.status(holdId) }).toEqual({
      payment: 'INITIATED',
      hold: 'PAYMENT_PENDING',
    });
    await restarted.advance(orderId); // no trace at the provider: the payment fails and the seats are released
    expect({
      payment: w.store.payment(orderId)?.state,
      order: restarted.view(orderId)?.status,
      hold: w.inventory.status(holdId),
      atProvider: w.ledger.payment(orderId),
    }).toEqual({ payment: 'FAILED', order: 'FAILED', hold: 'RELEASED', atProvider: null });
  });
});

describe('a confirm that times out at the shop but lands at the gateway later', () => {
  it('authorization expiry reads the hold before the late confirm lands, voids, and the hold ends SOLD to an order whose payment is VOIDED', async () => {
    const w = new World();
    const account = w.newAccount();
    const holdId = w.inventory.hold(account, ['A1'])!;
    // The gateway is slow: each confirm times out at the shop (no answer) but is still processed later.
    const late: (() => Promise<unknown>)[] = [];
    const realConfirm = w.inventory.confirm.bind(w.inventory);
    w.inventory.confirm = async (h, orderId, amount, acct) => {
      late.push(() => realConfirm(h, orderId, amount, acct));
      return { kind: 'no_answer' };
    };
    const order = await w.checkout.checkout(account, holdId, CARD);
    expect(w.checkout.view(order.orderId)).toMatchObject({ status: 'PROCESSING', payment: 'AUTHORIZED' });
    // The window passes; the expiry job reads the hold (still PAYMENT_PENDING: the confirm has not landed yet).
    w.now += w.checkout['d'].timing.authorizationWindowMs;
    w.inventory.confirm = realConfirm; // the gateway is answering again
    w.inventory.hooks.push({ before: false, run: () => late.shift()!() }); // ...and the late confirm lands right after that read
    await w.checkout.expireAuthorization(order.orderId);
    await w.drain();
    expect({
      hold: w.inventory.status(holdId),
      soldTo: w.inventory.holds.get(holdId)!.orderId,
      order: w.store.order(order.orderId)?.state,
      payment: w.store.payment(order.orderId)?.state,
      violations: invariantViolations(w),
    }).toEqual({ hold: 'RELEASED', soldTo: null, order: 'CANCELLED', payment: 'VOIDED', violations: [] });
  });
});

describe('what the visitor sees while the payment is UNKNOWN', () => {
  it('confirm refused, then the void gets no answer: the visitor is answered CANCELLED (final, 409) while the payment is UNKNOWN', async () => {
    const w = new World();
    const account = w.newAccount();
    const holdId = w.inventory.hold(account, ['A1'])!;
    w.hooks.push(() => w.inventory.operatorRelease(holdId)); // the hold ends while the provider authorizes
    w.providerFaults.push({ op: 'void', fault: 'timeout' }); // the void is not answered
    const order = await w.checkout.checkout(account, holdId, CARD);
    const view = w.checkout.view(order.orderId)!;
    expect(view.payment).toBe('UNKNOWN');
    expect(view.status).toBe('PROCESSING'); // expected: never a final answer for an UNKNOWN payment
  });
});
