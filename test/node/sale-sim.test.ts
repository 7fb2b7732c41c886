// The sale simulation (bench/sale-sim.ts), in Node: deterministic, and its arithmetic as computed by hand.
import { describe, expect, it } from 'vitest';
import {
  COSTS,
  SIZING,
  UNIT_MS,
  busyShare,
  firstSaturated,
  meanBatch,
  objectLoads,
  requestsPerS,
  scaled,
  simulate,
  type SaleShape,
} from '../../bench/sale-sim.ts';
import { fifoWaits, jobsOf } from '../../bench/fifo-queue.ts';

/** A sale small enough to cost by hand. */
const TINY: SaleShape = {
  ...SIZING,
  arrivals: 600,
  burstSeconds: 10,
  burstShare: 0.5,
  holdsPerS: 10,
  paymentPendingPerS: 4,
  confirmsPerS: 4,
  originReadsPerS: 4,
  releasesPerS: 3,
  expiriesPerS: 3,
  admissionsPerS: 2,
  coverShare: 0.1,
  refusedShare: 0,
  dataCentres: 3,
  isolatesPerDc: 1,
  queueShards: 2,
  sections: 1,
  ledgerShards: 2,
};

const load = (name: string) => objectLoads(TINY).find((o) => o.object === name)!;

describe('sale simulation', () => {
  it('gives the same table for the same shape and seed', () => {
    expect(simulate(scaled(SIZING, 2), 5, 7)).toEqual(simulate(scaled(SIZING, 2), 5, 7));
    expect(jobsOf(load('Inventory section'), 3, 9, UNIT_MS)).toEqual(jobsOf(load('Inventory section'), 3, 9, UNIT_MS));
  });

  it('makes a job wait until the ones before it are done (FIFO, one at a time)', () => {
    // Starts 0, 1, 2 ms; the second waits 1 - 0.5, the third 2 - 0.6.
    expect(
      fifoWaits([
        { atMs: 0, costMs: 1 },
        { atMs: 0.5, costMs: 1 },
        { atMs: 0.6, costMs: 1 },
      ]),
    ).toEqual([0, 0.5, 1.4]);
    // An idle server: nobody waits.
    expect(
      fifoWaits([
        { atMs: 0, costMs: 1 },
        { atMs: 5, costMs: 1 },
      ]),
    ).toEqual([0, 0]);
  });

  it("coalesces an isolate's calls only when they overlap a round trip", () => {
    expect(meanBatch(5, 20)).toBe(1);
    expect(meanBatch(100, 20)).toBe(2);
  });

  it('counts the calls and the busy time the code would cause, as computed by hand', () => {
    // Joins: 600 x 0.5 / 10 s = 30/s over 2 shards = 15/s each; 5/s per isolate and shard, batch 1.
    const shard = load('QueueShard');
    expect(requestsPerS(shard)).toBe(15);
    // (15 joins x (1 + 1.23) + 1 counts x 2.23) units x 1000/4412 ms = 35.68 x 0.22665 ms = 8.087 ms per second.
    expect(busyShare(shard)).toBeCloseTo(0.008087, 6);
    // Room: 3 cursor reads + 2 admits + 1 extendAdmission + 2 wakes + 3/5 hold signals + 1 health report.
    expect(requestsPerS(load('WaitingRoom'))).toBeCloseTo(9.6, 10);
    // Ledger: (10 reserves + 4 confirmAllowed + (4 + 3 + 3) settles) / 2 shards.
    expect(requestsPerS(load('AccountLedger'))).toBe(12);
    // Directory: one room-table read per data centre per 3 s.
    expect(requestsPerS(load('EventDirectory'))).toBe(1);
    expect(UNIT_MS).toBeCloseTo(0.22665, 5);
  });

  it('costs the seat maps as the Inventory hands them out: built once, then kept for a second', () => {
    const section = load('Inventory section');
    const call = (name: string) => section.calls.find((c) => c.call === name)!;
    // 10 holds + 4 payment-pending + 4 confirms + 3 releases + 3 expiries = 24 versions a second; a
    // delta lists (24 + 256 / 2) x 2 seats = 304 seats = 0.59375 of the bench's 512-seat delta.
    // 3 data centres x 2 keys = 6 delta reads, of which ceil(24 / 256) + 1 = 2 are built.
    expect(call('seatMap delta, built').perS).toBe(2);
    expect(call('seatMap delta, built').units).toBeCloseTo((COSTS.mapDeltaBuild256 + COSTS.mapDeltaCopy256) * 0.59375, 10);
    expect(call('seatMap delta, kept').perS).toBe(4);
    expect(call('seatMap delta, kept').units).toBeCloseTo(COSTS.mapDeltaCopy256 * 0.59375, 10);
    // A snapshot per data centre in a second with a new reader: 3 x (1 - e^(-2/3)).
    expect(call('seatMap snapshot, kept').perS).toBeCloseTo(3 * (1 - Math.exp(-2 / 3)), 10);
    // Requests: 10 holdMany (batch 1) + 4 getHold + 4 + 4 + 3 + 6 deltas + the snapshots; the expiry alarm and the build are not requests.
    expect(requestsPerS(section)).toBeCloseTo(31 + 3 * (1 - Math.exp(-2 / 3)), 10);
  });

  it('names the object furthest over the guidance first', () => {
    const results = simulate(SIZING, 2);
    expect(firstSaturated(results)?.object).toBe('Inventory section');
    expect(firstSaturated(simulate(TINY, 2))).toBeNull();
  });
});
