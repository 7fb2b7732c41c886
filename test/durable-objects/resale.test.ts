// Returns, the waitlist and resale in one Inventory (workerd): a sell-out, returns, offers to the
// waitlist in order, an offer lapsing to the next account, resale at face value plus fee, refunds
// on resale or at once, refusals that change nothing, and the object reset mid-return and
// mid-offer. The invariants (test/helpers/inventory-invariants.ts) are checked after every step.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { InventoryConfig, ResaleRules } from '../../contracts/event-config';
import type { WaitlistAnswer } from '../../contracts/resale-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { crashAfterNextCommit, failure, reset } from '../helpers/inventory-faults';
import { inventoryStats } from '../helpers/inventory';

type Stub = DurableObjectStub<Inventory>;

const T0 = Date.UTC(2027, 0, 1);
const OFFER_MS = 120_000;
const RESALE: ResaleRules = { returnDeadlineMs: T0 + 86_400_000, offerTtlMs: OFFER_MS, feeMinor: 250, refund: 'on_resale' };
const config = (resale: ResaleRules | null): InventoryConfig => ({
  seats: 4,
  seatsPerRow: 4,
  seatPriceMinor: 5000,
  currency: 'EUR',
  tiers: [],
  holdTtlMs: 60_000,
  paymentGraceMs: 30_000,
  maxSeatsPerAccount: 6,
  ...(resale ? { resale } : {}),
});

async function soldOut(resale: ResaleRules | null = RESALE): Promise<{ inv: Stub; ann: string; bob: string }> {
  const inv = env.INVENTORY.getByName(freshEventId('resale'));
  expect(await inv.configure(config(resale))).toMatchObject({ kind: 'ok' });
  await setClock(inv, T0);
  return { inv, ann: await buy(inv, 'ann', ['A1', 'A2']), bob: await buy(inv, 'bob', ['A3', 'A4']) };
}

async function setClock(inv: Stub, nowMs: number): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
}

/** Holds and pays for seats on open sale; the hold's id. */
async function buy(inv: Stub, account: string, seatIds: string[], key = `buy-${account}`): Promise<string> {
  const held = await inv.hold(account, { seatIds }, key);
  if (held.kind !== 'held') throw new Error(`hold refused: ${held.kind}`);
  const sold = await inv.confirm(held.hold.holdId, `order-${account}-${key}`, held.hold.priceMinor, null);
  expect(sold).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
  return held.hold.holdId;
}

async function waitlist(inv: Stub): Promise<Extract<WaitlistAnswer, { kind: 'ok' }>> {
  const w = await inv.resaleRead('waitlist', 0, 100);
  if (w.kind !== 'ok') throw new Error('no event');
  return w;
}

const feedKinds = async (inv: Stub) => {
  const f = await inv.resaleRead('feed', 0, 100);
  return f.kind === 'feed' ? f.events.map((e) => e.kind) : [];
};

describe('resale', () => {
  it('sell-out, a return, an offer lapsing to the next account, resale at face value plus fee, the refund on confirm', async () => {
    const { inv, ann } = await soldOut();
    expect(await inv.joinWaitlist('cid', 1)).toMatchObject({ kind: 'ok', entry: { state: 'WAITING' }, replayed: false });
    expect(await inv.joinWaitlist('dee', 2)).toMatchObject({ kind: 'ok', replayed: false });
    expect(await inv.joinWaitlist('cid', 1)).toMatchObject({ kind: 'ok', replayed: true });

    const returned = await inv.returnSeats(ann, ['A2'], 'ret-1');
    expect(returned).toMatchObject({
      kind: 'ok',
      replayed: false,
      return: { seats: [{ seatId: 'A2', faceMinor: 5000, refunded: false }] },
    });
    let w = await waitlist(inv);
    expect(w.entries.map((e) => [e.account, e.state])).toEqual([
      ['cid', 'OFFERED'],
      ['dee', 'WAITING'],
    ]);
    const cidOffer = w.entries[0]!.offerHoldId!;
    expect(await inv.getHold(cidOffer, 'cid')).toMatchObject({ hold: { status: 'HELD', seatIds: ['A2'], priceMinor: 5250 } });
    await checkInvariants(inv);

    // The offer lapses at its deadline: the alarm offers the seat to the next account.
    await setClock(inv, T0 + OFFER_MS);
    expect(await runDurableObjectAlarm(inv)).toBe(true);
    w = await waitlist(inv);
    expect(w.entries.map((e) => [e.account, e.state])).toEqual([
      ['cid', 'LAPSED'],
      ['dee', 'OFFERED'],
    ]);
    expect(await inv.acceptOffer(cidOffer, 'cid')).toMatchObject({ kind: 'refused', code: 'OFFER_LAPSED' });
    const deeOffer = w.entries[1]!.offerHoldId!;
    expect(await inv.acceptOffer(deeOffer, 'cid')).toMatchObject({ kind: 'refused', code: 'NOT_OFFER_OWNER' });
    expect(await inv.acceptOffer(deeOffer, 'dee')).toMatchObject({ kind: 'ok', hold: { expiresAtMs: T0 + 2 * OFFER_MS } });
    await checkInvariants(inv);

    // The new buyer pays through the ordinary payment flow; then the original order is refunded.
    expect(await inv.startPayment(deeOffer, 'dee')).toMatchObject({ kind: 'ok' });
    expect(await inv.confirm(deeOffer, 'order-dee', 5000, null)).toMatchObject({ kind: 'refused', code: 'PRICE_MISMATCH' });
    expect(await inv.confirm(deeOffer, 'order-dee', 5250, null)).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    expect(await inv.returnSeats(ann, ['A2'], 'ret-1')).toMatchObject({
      replayed: true,
      return: { seats: [{ seatId: 'A2', refunded: true, resoldHoldId: deeOffer }] },
    });
    w = await waitlist(inv);
    expect(w.counts).toMatchObject({
      returns: 1,
      offersMade: 2,
      offersTaken: 1,
      offersLapsed: 1,
      resoldSeats: 1,
      refunds: 1,
      refundedMinor: 5000,
    });
    expect(await feedKinds(inv)).toEqual(['return', 'offer', 'offer_lapsed', 'offer', 'resold', 'refund', 'offer_taken']);
    const stats = await inventoryStats(inv);
    expect(stats.seats.sold).toBe(4);
    expect(stats.resale).toMatchObject({ returns: 1, offersMade: 2, offersTaken: 1, offersLapsed: 1, resoldSeats: 1, refunds: 1 });
    await checkInvariants(inv);
  });

  it('with nobody waiting the seat goes back on open sale at its face value plus fee, refunded when bought', async () => {
    const { inv, bob } = await soldOut();
    expect(await inv.returnSeats(bob, null, 'ret-all')).toMatchObject({
      kind: 'ok',
      return: { seats: [{ seatId: 'A3' }, { seatId: 'A4' }] },
    });
    expect(await inv.joinWaitlist('cid', 1)).toMatchObject({ kind: 'refused', code: 'WAITLIST_NOT_OPEN' });
    const held = await inv.hold('eve', { seatIds: ['A3'] }, 'e1');
    expect(held).toMatchObject({ kind: 'held', hold: { priceMinor: 5250 } });
    await inv.confirm(held.kind === 'held' ? held.hold.holdId : '', 'order-eve', 5250, null);
    expect((await waitlist(inv)).counts).toMatchObject({ resoldSeats: 1, refunds: 1 });
    expect(await inv.returnSeats(bob, ['A4'], 'ret-again')).toMatchObject({ kind: 'refused', code: 'RETURN_IN_PROGRESS' });
    await checkInvariants(inv);
  });

  it('refunds at once under the organizer option, and never twice when the seat is resold', async () => {
    const { inv, ann } = await soldOut({ ...RESALE, refund: 'at_once' });
    await inv.joinWaitlist('cid', 1);
    expect(await inv.returnSeats(ann, ['A1'], 'r')).toMatchObject({
      kind: 'ok',
      return: { refund: 'at_once', seats: [{ refunded: true }] },
    });
    expect(await inv.returnSeats(ann, ['A2'], 'r2')).toMatchObject({ kind: 'ok' });
    const offer = (await waitlist(inv)).entries[0]!.offerHoldId!;
    await inv.confirm(offer, 'order-cid', 5250, null);
    expect((await waitlist(inv)).counts).toMatchObject({ refunds: 2, resoldSeats: 1 });
    expect(await inv.returnSeats(ann, ['A1'], 'r3')).toMatchObject({ kind: 'refused', code: 'ORDER_ALREADY_RETURNED' });
    await checkInvariants(inv);
  });

  it("takes a return of the order's other seats while an earlier return waits for its resale", async () => {
    // The failing input: a second return of the same order was refused RETURN_IN_PROGRESS until the
    // first one's seats were resold, so an order whose returned seat nobody bought could never
    // return another.
    const { inv, ann } = await soldOut();
    expect(await inv.returnSeats(ann, ['A1'], 'first')).toMatchObject({ kind: 'ok' });
    expect(await inv.returnSeats(ann, ['A1'], 'again')).toMatchObject({ kind: 'refused', code: 'RETURN_IN_PROGRESS' });
    expect(await inv.returnSeats(ann, ['A2'], 'second')).toMatchObject({
      kind: 'ok',
      return: { seats: [{ seatId: 'A2', refunded: false }] },
    });
    expect(await inv.returnSeats(ann, null, 'third')).toMatchObject({ kind: 'refused', code: 'RETURN_IN_PROGRESS' });
    expect(await feedKinds(inv)).toEqual(['return', 'return']);
    await checkInvariants(inv);
  });

  it('refuses bad returns with a code and changes nothing', async () => {
    const { inv, ann } = await soldOut();
    const held = await inv.hold('cid', { seatIds: ['A1'] }, 'x');
    expect(held.kind).toBe('unavailable');
    const before = await feedKinds(inv);
    expect(await inv.returnSeats(ann, ['A3'], 'k1')).toMatchObject({ kind: 'refused', code: 'SEATS_NOT_IN_ORDER' });
    expect(await inv.returnSeats('nope', null, 'k2')).toEqual({ kind: 'not_found' });
    expect(await inv.returnSeats(ann, ['A1'], 'k3')).toMatchObject({ kind: 'ok' });
    expect(await inv.returnSeats(ann, ['A2'], 'k3')).toMatchObject({ kind: 'refused', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await inv.returnSeats(ann, ['A1'], 'k4')).toMatchObject({ kind: 'refused', code: 'RETURN_IN_PROGRESS' });
    await setClock(inv, RESALE.returnDeadlineMs);
    expect(await inv.returnSeats(ann, ['A2'], 'k5')).toMatchObject({ kind: 'refused', code: 'RETURN_DEADLINE_PASSED' });
    expect(await feedKinds(inv)).toEqual([...before, 'return']);
    const off = await soldOut(null);
    expect(await off.inv.returnSeats(off.ann, null, 'k')).toMatchObject({ kind: 'refused', code: 'RESALE_OFF' });
    await checkInvariants(inv);
  });
});

describe('resale under resets', () => {
  it('mid-return (after the commit, before the answer): the retry replays it, one return, one offer', async () => {
    const { inv: first, ann } = await soldOut();
    await first.joinWaitlist('cid', 2);
    await crashAfterNextCommit(first);
    expect(await failure(first.returnSeats(ann, null, 'ret'))).toMatch(/injected reset/);
    const inv = await reset(first);
    await setClock(inv, T0 + 1_000);
    expect(await inv.returnSeats(ann, null, 'ret')).toMatchObject({ kind: 'ok', replayed: true });
    expect((await waitlist(inv)).counts).toMatchObject({ returns: 1, returnedSeats: 2, offersMade: 1 });
    expect(await inv.getHold((await waitlist(inv)).entries[0]!.offerHoldId!, 'cid')).toMatchObject({ hold: { seatIds: ['A1', 'A2'] } });
    await checkInvariants(inv);
  });

  it('mid-offer (the offer hold fails to write): the whole return rolls back; the retry makes it', async () => {
    const { inv, ann } = await soldOut();
    await inv.joinWaitlist('cid', 1);
    await runInDurableObject(inv, (obj: Inventory) => {
      const store = obj.store as unknown as { insertHold: (...a: unknown[]) => void };
      const real = store.insertHold.bind(store);
      store.insertHold = () => {
        store.insertHold = real;
        throw new Error('injected failure writing the offer');
      };
    });
    expect(await failure(inv.returnSeats(ann, ['A1'], 'ret'))).toMatch(/injected failure/);
    expect((await waitlist(inv)).counts).toMatchObject({ returns: 0, offersMade: 0 });
    expect((await inventoryStats(inv)).seats.sold).toBe(4);
    await checkInvariants(inv);
    expect(await inv.returnSeats(ann, ['A1'], 'ret')).toMatchObject({ kind: 'ok', replayed: false });
    expect((await waitlist(inv)).counts).toMatchObject({ returns: 1, offersMade: 1 });
    await checkInvariants(inv);
  });

  it('mid-acceptance and mid-lapse: one acceptance, the lapsed offer passed on once, no seat lost or sold twice', async () => {
    const { inv: first, ann } = await soldOut();
    await first.joinWaitlist('cid', 1);
    await first.joinWaitlist('dee', 1);
    await first.returnSeats(ann, ['A1'], 'ret');
    const cidOffer = (await waitlist(first)).entries[0]!.offerHoldId!;
    await crashAfterNextCommit(first);
    expect(await failure(first.acceptOffer(cidOffer, 'cid'))).toMatch(/injected reset/);
    let inv = await reset(first);
    await setClock(inv, T0 + 1_000);
    expect(await inv.acceptOffer(cidOffer, 'cid')).toMatchObject({ kind: 'ok', hold: { expiresAtMs: T0 + OFFER_MS } });
    // The accepted offer runs out unpaid; the object resets in the middle of the alarm passing it on.
    await setClock(inv, T0 + OFFER_MS);
    await crashAfterNextCommit(inv);
    expect(await failure(runDurableObjectAlarm(inv))).toMatch(/injected reset/);
    inv = await reset(inv);
    await setClock(inv, T0 + OFFER_MS + 1);
    await runDurableObjectAlarm(inv);
    const w = await waitlist(inv);
    expect(w.entries.map((e) => e.state)).toEqual(['LAPSED', 'OFFERED']);
    expect(w.counts).toMatchObject({ offersMade: 2, offersLapsed: 1 });
    const seats = await runInDurableObject(inv, (_o, s) => s.storage.sql.exec(`SELECT status FROM inv_seats ORDER BY ord`).toArray());
    expect(seats.map((r) => r.status)).toEqual(['HELD', 'SOLD', 'SOLD', 'SOLD']);
    await checkInvariants(inv);
  });
});
