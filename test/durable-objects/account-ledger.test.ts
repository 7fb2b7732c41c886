// The AccountLedger object in workerd: a reservation whose hold never landed (a crash between the
// two steps) is dropped when the ledger reconciles it with the section's object; a live hold is kept
// and a sold one owned; the alarm stops once nothing is left to reconcile.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ledgerObjectName, sectionObjectName } from '../../contracts/inventory-names';
import type { AccountLedger } from '../../durable-objects/account-ledger/account-ledger';
import { RECONCILE_MARGIN_MS } from '../../durable-objects/account-ledger/ledger-policy';
import { createEvent, freshEventId } from '../helpers/client';

const TTL_S = 60;
const sectioned = {
  seats: 0,
  sections: [{ section: 'A', seats: 10, seatsPerRow: 5, priceMinor: 100 }],
  holdTtlSeconds: TTL_S,
  maxSeatsPerAccount: 4,
};

async function moveLedgerClock(ledger: DurableObjectStub<AccountLedger>, byMs: number): Promise<void> {
  await runInDurableObject(ledger, (obj: AccountLedger) => {
    const at = Date.now() + byMs;
    obj.clock = () => at;
  });
}

describe('AccountLedger', () => {
  it('drops a reservation whose hold never landed once it reconciles, and the account may hold again', async () => {
    const eventId = freshEventId('led');
    expect((await createEvent(eventId, sectioned)).status).toBe(201);
    const ledger = env.ACCOUNT_LEDGER.getByName(ledgerObjectName(eventId, 'alice'));
    // The crash: reserved in the ledger, the section's object never got the hold.
    const reserved = await ledger.reserve({
      account: 'alice',
      idempotencyKey: 'k-lost',
      request: 'seats:A-A1,A-A2,A-A3,A-A4',
      quantity: 4,
      limit: 4,
      holdTtlMs: TTL_S * 1000,
      object: sectionObjectName(eventId, 'A'),
      proposedHoldId: 'A.lost',
    });
    expect(reserved).toMatchObject({ kind: 'reserved', holdId: 'A.lost', replayed: false });
    const section = env.INVENTORY.getByName(sectionObjectName(eventId, 'A'));
    // Briefly too strict, never too loose: the limit is taken until the ledger learns the truth.
    expect(await section.hold('alice', { seatIds: ['A-B1'] }, 'k-next')).toMatchObject({ kind: 'account_limit', owned: 4 });

    await moveLedgerClock(ledger, TTL_S * 1000 + RECONCILE_MARGIN_MS + 1);
    expect(await runDurableObjectAlarm(ledger)).toBe(true);
    expect(await ledger.countedFor('alice')).toBe(0);
    expect(await section.hold('alice', { seatIds: ['A-B1'] }, 'k-next')).toMatchObject({
      kind: 'held',
      hold: { holdId: expect.stringMatching(/^A\./) },
    });
  });

  it('keeps a live hold’s reservation, owns a sold one, and stops its alarm when nothing is left to reconcile', async () => {
    const eventId = freshEventId('led');
    await createEvent(eventId, sectioned);
    const section = env.INVENTORY.getByName(sectionObjectName(eventId, 'A'));
    const held = await section.hold('bob', { seatIds: ['A-A1', 'A-A2'] }, 'k1');
    if (held.kind !== 'held') throw new Error('setup');
    const ledger = env.ACCOUNT_LEDGER.getByName(ledgerObjectName(eventId, 'bob'));
    expect(await ledger.countedFor('bob')).toBe(2);
    // The ledger asks before the hold's deadline passed at the object (its own clock is real time).
    await moveLedgerClock(ledger, TTL_S * 1000 + RECONCILE_MARGIN_MS + 1);
    expect(await runDurableObjectAlarm(ledger)).toBe(true);
    expect(await ledger.countedFor('bob')).toBe(2);
    // Sold (the confirm's own settle also tells it): owned, nothing left to reconcile.
    expect(await section.confirm(held.hold.holdId, 'o-1', 200, null)).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    expect(await ledger.countedFor('bob')).toBe(2);
    expect(await runInDurableObject(ledger, async (_o, state) => state.storage.getAlarm())).toBeNull();
  });

  it('keeps a reservation two copies of one request share until both gave it back (the model’s failing input)', async () => {
    const ledger = env.ACCOUNT_LEDGER.getByName(ledgerObjectName(freshEventId('led'), 'carol'));
    const req = {
      account: 'carol',
      idempotencyKey: 'k',
      request: 'seats:A-A1',
      quantity: 1,
      limit: 4,
      holdTtlMs: 60_000,
      object: 'x',
      proposedHoldId: 'A.1',
    };
    expect(await ledger.reserve(req)).toMatchObject({ holdId: 'A.1', replayed: false });
    expect(await ledger.reserve({ ...req, proposedHoldId: 'A.2' })).toMatchObject({ holdId: 'A.1', replayed: true });
    await ledger.settle('A.1', 'unplaced');
    expect(await ledger.countedFor('carol')).toBe(1);
    await ledger.settle('A.1', 'unplaced');
    expect(await ledger.countedFor('carol')).toBe(0);
  });
});
