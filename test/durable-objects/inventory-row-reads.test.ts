// Rows SQLite reads per Inventory call stay bounded by the hold's own size, however many seats are
// held, and a seat-map delta reads only the seats that changed. Regression: a hold's seat UPDATE by `seat_id IN (json_each)` and the release,
// payment and sale UPDATEs by `hold_id` also named `status = ...`, and SQLite chose the status
// index: each read every seat of that status (all AVAILABLE seats per hold: 60 ms per hold at 50,000
// seats in `npm run bench:profile`; all HELD seats per release or expiry).
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { seatIdsFor } from '../../durable-objects/inventory/hold-policy';
import { freshEventId } from '../helpers/client';
import { seatMapOf } from '../helpers/inventory';

type Stub = DurableObjectStub<Inventory>;
const SEATS = 3_000;
const PER_ROW = 50;
/** Holds placed before the measured calls: 1,600 HELD seats, 1,400 AVAILABLE. */
const PRIOR_HOLDS = 400;
/** A call touching one hold of 4 seats may read this many rows at most (its rows, the plan, the log's few). */
const BOUND = 120;

/** Runs `call` inside the object and returns the rows every SQL statement it ran read, summed. */
async function rowsReadBy(inv: Stub, call: (o: Inventory) => Promise<unknown>): Promise<number> {
  return runInDurableObject(inv, async (o: Inventory, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      cursors.push(cursor);
      return cursor;
    }) as typeof sql.exec;
    try {
      await call(o);
    } finally {
      sql.exec = exec;
    }
    return cursors.reduce((sum, c) => sum + c.rowsRead, 0);
  });
}

/** A fresh event's Inventory with SEATS seats. */
async function venue(): Promise<Stub> {
  const inv = env.INVENTORY.getByName(freshEventId('rows'));
  await inv.configure({
    seats: SEATS,
    seatsPerRow: PER_ROW,
    seatPriceMinor: 100,
    currency: 'EUR',
    tiers: [],
    holdTtlMs: 60_000,
    paymentGraceMs: 30_000,
    maxSeatsPerAccount: 6,
  });
  return inv;
}

it('a hold, a payment start, a sale, a release and an expiry each read rows by their own seats, not by every seat of a status', async () => {
  const inv = await venue();
  const ids = seatIdsFor(SEATS, PER_ROW);
  let now = Date.now();
  await runInDurableObject(inv, async (o: Inventory) => {
    o.clock = () => now;
    for (let i = 0; i < PRIOR_HOLDS; i++) {
      const a = await o.hold(`prior-${i}`, { seatIds: ids.slice(i * 4, i * 4 + 4) }, `k-${i}`);
      if (a.kind !== 'held') throw new Error(`prior hold ${i}: ${a.kind}`);
    }
  });
  const free = (n: number) => ids.slice(PRIOR_HOLDS * 4 + n * 4, PRIOR_HOLDS * 4 + n * 4 + 4);
  const holdId = async (n: number) => {
    let id = '';
    const rows = await rowsReadBy(inv, async (o) => {
      const a = await o.hold(`buyer-${n}`, { seatIds: free(n) }, `b-${n}`);
      if (a.kind !== 'held') throw new Error(`hold ${n}: ${a.kind}`);
      id = a.hold.holdId;
    });
    return { id, rows };
  };
  const sold = await holdId(0);
  const released = await holdId(1);
  const expiring = await holdId(2);
  const reads: Record<string, number> = { hold: sold.rows };
  reads.startPayment = await rowsReadBy(inv, (o) => o.startPayment(sold.id, null));
  reads.confirm = await rowsReadBy(inv, (o) => o.confirm(sold.id, 'order-1', 400, null));
  reads.release = await rowsReadBy(inv, (o) => o.release(released.id, null, true));
  // Only this hold is due (the prior ones were placed at the same instant but live 60 s: move them on).
  await runInDurableObject(inv, (_o, s) =>
    s.storage.sql.exec('UPDATE inv_holds SET expires_at = expires_at + 120000 WHERE hold_id != ?', expiring.id),
  );
  now += 61_000;
  reads.expiry = await rowsReadBy(inv, (o) => o.alarm());
  for (const [call, rows] of Object.entries(reads)) expect(rows, call).toBeLessThan(BOUND);
  const stats = await inv.stats();
  expect(stats.kind === 'stats' && stats.stats.consistency).toEqual({
    seatsWithMultipleOrders: 0,
    soldSeatsWithoutMatchingOrder: 0,
    tiersInconsistent: 0,
    seatsWithMultipleLiveHolds: 0,
    refundsUnmatched: 0,
    resaleFeedGaps: 0,
    waitlistSkips: 0,
    refundsBeforeResale: 0,
    returnedSeatsAdrift: 0,
  });
  expect(stats.kind === 'stats' && stats.stats.holds).toMatchObject({ SOLD: 1, RELEASED: 1, EXPIRED: 1, HELD: PRIOR_HOLDS });
});

// With the seat list and a bound flag in one WHERE (`? = 1 OR seat_id IN (json_each(?))`), SQLite
// scanned every seat for each delta (about 10 ms at 50,000 seats).
it('a seat-map delta of two changed seats reads those seats, not the venue; the snapshot reads them all', async () => {
  const inv = await venue();
  const v0 = (await seatMapOf(inv)).version;
  expect((await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'k')).kind).toBe('held');
  const now = Date.now();
  expect(await rowsReadBy(inv, async (o) => expect(o.store.changesSince(v0, now)).toHaveLength(2))).toBeLessThan(50);
  expect(await rowsReadBy(inv, async (o) => expect(o.store.snapshotSeats(now)).toHaveLength(SEATS))).toBeGreaterThanOrEqual(SEATS);
});
