// Queue policy: the lottery order is a seeded, reproducible permutation; waits and polls are sane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_POLL_MS,
  MIN_POLL_MS,
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
