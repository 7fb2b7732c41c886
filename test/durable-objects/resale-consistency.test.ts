// The resale's own consistency counters (workerd): `refundsBeforeResale` and `returnedSeatsAdrift`
// read 0 through a return, an offer and its resale, and count the states a lost step would leave:
// a refund paid before the seat was resold, a returned seat sold with no resale recorded, and a
// returned seat left free while an account waits. The bad states are written straight into the
// tables, as a write path that skipped the resale desk would leave them.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { InventoryConfig } from '../../contracts/event-config';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { inventoryStats } from '../helpers/inventory';
import { checkInvariants } from '../helpers/inventory-invariants';

type Stub = DurableObjectStub<Inventory>;

const config: InventoryConfig = {
  seats: 2,
  seatsPerRow: 2,
  seatPriceMinor: 5000,
  currency: 'EUR',
  tiers: [],
  holdTtlMs: 60_000,
  paymentGraceMs: 30_000,
  maxSeatsPerAccount: 6,
  resale: { returnDeadlineMs: Date.now() + 86_400_000, offerTtlMs: 120_000, feeMinor: 0, refund: 'on_resale' },
};

async function buy(inv: Stub, account: string, seatIds: string[]): Promise<string> {
  const held = await inv.hold(account, { seatIds }, `buy-${account}`);
  if (held.kind !== 'held') throw new Error(`hold refused: ${held.kind}`);
  expect(await inv.confirm(held.hold.holdId, `order-${account}`, held.hold.priceMinor, null)).toMatchObject({ kind: 'ok' });
  return held.hold.holdId;
}

/** A sold-out event whose order of A1 was returned with nobody waiting: A1 is back on open sale. */
async function returnedToOpenSale(): Promise<{ inv: Stub; ann: string; returnId: string }> {
  const inv = env.INVENTORY.getByName(freshEventId('resale-consistency'));
  expect(await inv.configure(config)).toMatchObject({ kind: 'ok' });
  const ann = await buy(inv, 'ann', ['A1']);
  await buy(inv, 'bob', ['A2']);
  const r = await inv.returnSeats(ann, null, 'ret-1');
  if (r.kind !== 'ok') throw new Error(`return refused: ${r.kind}`);
  await checkInvariants(inv);
  return { inv, ann, returnId: r.return.returnId };
}

const counters = async (inv: Stub) => {
  const { refundsBeforeResale, returnedSeatsAdrift } = (await inventoryStats(inv)).consistency;
  return { refundsBeforeResale, returnedSeatsAdrift };
};

describe('resale consistency counters', () => {
  it('count an on-resale refund paid while the seat is still unsold', async () => {
    const { inv, ann, returnId } = await returnedToOpenSale();
    await runInDurableObject(inv, (_obj, state) => {
      state.storage.sql.exec(`UPDATE inv_return_seats SET refunded_at = 1 WHERE hold_id = ? AND seat_id = 'A1'`, ann);
      state.storage.sql.exec(
        `INSERT INTO inv_refunds (return_id, order_id, seat_id, amount_minor, currency, at) VALUES (?, 'order-ann', 'A1', 5000, 'EUR', 1)`,
        returnId,
      );
    });
    expect(await counters(inv)).toEqual({ refundsBeforeResale: 1, returnedSeatsAdrift: 0 });
  });

  it('count a returned seat sold again with no resale recorded', async () => {
    const { inv } = await returnedToOpenSale();
    // The resale desk never hears of the sale: its trigger is gone.
    await runInDurableObject(inv, (_obj, state) => state.storage.sql.exec('DROP TRIGGER inv_resale_seat_changed'));
    await buy(inv, 'cid', ['A1']);
    expect(await counters(inv)).toEqual({ refundsBeforeResale: 0, returnedSeatsAdrift: 1 });
  });

  it('count a returned seat left on open sale while an account waits', async () => {
    const { inv } = await returnedToOpenSale();
    await runInDurableObject(inv, (_obj, state) =>
      state.storage.sql.exec(`INSERT INTO inv_waitlist (account, quantity, state, joined_at) VALUES ('dee', 1, 'WAITING', 1)`),
    );
    expect(await counters(inv)).toEqual({ refundsBeforeResale: 0, returnedSeatsAdrift: 1 });
  });

  it('read 0 once the returned seat is resold and refunded', async () => {
    const { inv } = await returnedToOpenSale();
    await buy(inv, 'cid', ['A1']);
    expect(await counters(inv)).toEqual({ refundsBeforeResale: 0, returnedSeatsAdrift: 0 });
    await checkInvariants(inv);
  });
});
