// Queue policy: the lottery order is a seeded, reproducible permutation; waits and polls are sane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_POLL_MS,
  MIN_POLL_MS,
  estimateWait,
  estimateWaitSeconds,
  lotteryOrder,
  pollAfterMs,
  seedCommitment,
  seenWriteEveryMs,
} from '../../contracts/queue/queue-policy';
import { CHI_SQUARE_P001, chiSquareUniform } from '../helpers/chi-square';

describe('lotteryOrder', () => {
  it('is a permutation of the entrants and depends only on the seed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.uuid(), { maxLength: 50 }), fc.stringMatching(/^[0-9a-f]{64}$/), async (ids, seed) => {
        const order = await lotteryOrder(seed, ids);
        expect([...order].sort()).toEqual([...ids].sort());
        expect(await lotteryOrder(seed, [...ids].reverse())).toEqual(order);
      }),
      { numRuns: 50 },
    );
  });

  it('gives each of 4 entrants the first place about equally often over 2,000 seeds (chi-square, 3 df)', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const firsts = new Map(ids.map((id) => [id, 0]));
    for (let i = 0; i < 2000; i++) {
      const [first] = await lotteryOrder(`seed-${i}`, ids);
      firsts.set(first!, firsts.get(first!)! + 1);
    }
    const chi2 = chiSquareUniform([...firsts.values()]);
    console.log(`lottery first place over 2,000 seeded draws: ${[...firsts.values()].join(' / ')}, chi-square = ${chi2.toFixed(2)} (3 df)`);
    expect(chi2).toBeLessThan(CHI_SQUARE_P001[3]!);
  });

  it('publishes the SHA-256 of the seed as the commitment', async () => {
    expect(await seedCommitment('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('estimates', () => {
  it('estimates the wait from the release rate, unknown when nothing is released', () => {
    expect(estimateWaitSeconds(100, 60)).toBe(100);
    expect(estimateWaitSeconds(1, 600)).toBe(1);
    expect(estimateWaitSeconds(10, 0)).toBeNull();
  });

  it('takes the larger of the admission pace and the time for the slots ahead to free', () => {
    // Enough free slots: the pace alone.
    expect(estimateWait(100, { admitPerMinute: 600, slotsFreedPerMinute: 150, freeSlots: 100 })).toBe(10);
    // Failing input (test/unit/wait-pace.test.ts): at 600/min with 35 slots
    // free and 150/min freeing, the 300th waited 30 s by the rate alone; 265 slots must free first.
    expect(estimateWaitSeconds(300, 600)).toBe(30);
    expect(estimateWait(300, { admitPerMinute: 600, slotsFreedPerMinute: 150, freeSlots: 35 })).toBe(106);
    // A slow pace still wins over fast-freeing slots.
    expect(estimateWait(300, { admitPerMinute: 60, slotsFreedPerMinute: 600, freeSlots: 0 })).toBe(300);
    // A limit cut below the active visitors: those over it leave first.
    expect(estimateWait(10, { admitPerMinute: 600, slotsFreedPerMinute: 60, freeSlots: -20 })).toBe(30);
  });

  it('cannot estimate while slots are short and none has been measured freeing, nor without a pace', () => {
    expect(estimateWait(5, { admitPerMinute: 600, slotsFreedPerMinute: 0, freeSlots: 0 })).toBeNull();
    expect(estimateWait(5, { admitPerMinute: 0, slotsFreedPerMinute: 60, freeSlots: 10 })).toBeNull();
    // ...but the free slots ahead are known.
    expect(estimateWait(5, { admitPerMinute: 600, slotsFreedPerMinute: 0, freeSlots: 5 })).toBe(1);
  });

  it('reads the pace alone from cursors of older rooms (no slot figures)', () => {
    expect(estimateWait(100, { admitPerMinute: 60 })).toBe(100);
    expect(estimateWait(100, { admitPerMinute: 60, freeSlots: 0 })).toBe(100);
    expect(estimateWait(100, { admitPerMinute: 0 })).toBeNull();
  });

  it('never falls as the visitor moves back, nor as slots fill or free more slowly (property)', () => {
    const pace = fc.record({
      admitPerMinute: fc.double({ min: 0, max: 10_000, noNaN: true }),
      slotsFreedPerMinute: fc.double({ min: 0, max: 10_000, noNaN: true }),
      freeSlots: fc.integer({ min: -1_000, max: 1_000 }),
    });
    const known = (x: number | null) => (x === null ? Infinity : x);
    fc.assert(
      fc.property(pace, fc.integer({ min: 1, max: 100_000 }), fc.nat(1_000), (p, places, more) => {
        const w = known(estimateWait(places, p));
        expect(known(estimateWait(places + more, p))).toBeGreaterThanOrEqual(w);
        expect(known(estimateWait(places, { ...p, freeSlots: p.freeSlots - more }))).toBeGreaterThanOrEqual(w);
        expect(known(estimateWait(places, { ...p, slotsFreedPerMinute: p.slotsFreedPerMinute / 2 }))).toBeGreaterThanOrEqual(w);
        // Never below the pace's own time.
        expect(w).toBeGreaterThanOrEqual(known(estimateWaitSeconds(places, p.admitPerMinute)));
      }),
    );
  });
  it('keeps the poll interval within bounds and well inside the idle timeout', () => {
    fc.assert(
      fc.property(fc.option(fc.nat()), fc.integer({ min: 30_000, max: 3_600_000 }), (wait, idleMs) => {
        const p = pollAfterMs(wait, idleMs);
        expect(p).toBeGreaterThanOrEqual(MIN_POLL_MS);
        expect(p).toBeLessThanOrEqual(MAX_POLL_MS);
        // A client that polls at the longest jittered interval is seen again long before the timeout.
        expect(p * 1.2 + seenWriteEveryMs(idleMs)).toBeLessThan(idleMs);
      }),
    );
  });
});
