// The report's pure rules: the time-in-queue distribution and the runs of paused or troubled minutes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MinuteFigures } from '../../contracts/history';
import { QUEUE_TIME_BUCKETS_MS, incidents, queueTimeDistribution } from '../../durable-objects/waiting-room/report-policy';

const MIN = 60_000;
const minute = (i: number, binds: string, errorRate: number | null = null): MinuteFigures => ({
  atMs: i * MIN,
  waiting: 0,
  admitted: 0,
  active: 0,
  released: 0,
  departures: 0,
  queueP50Ms: null,
  queueP90Ms: null,
  originP99Ms: errorRate === null ? null : 100 * i,
  originErrorRate: errorRate,
  releaseRatePerMinute: 60,
  activeLimit: 10,
  binds,
  refusedProofOfWork: 0,
  refusedEntryToken: 0,
  refusedRateLimit: 0,
  refusedOther: 0,
});

describe('queueTimeDistribution', () => {
  it('puts each wait in the first bucket that holds it, the longest in the open last bucket', () => {
    const d = queueTimeDistribution([0, 60_000, 60_001, 299_999, 4_000_000]);
    expect(d.buckets.map((b) => b.count)).toEqual([2, 2, 0, 0, 0, 1]);
    expect(d.buckets.at(-1)).toEqual({ upToMs: null, count: 1 });
    expect([d.count, d.p50Ms]).toEqual([5, 60_001]);
  });

  it('counts every wait once', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(10_000_000), { maxLength: 300 }), (waits) => {
        const d = queueTimeDistribution(waits);
        expect(d.buckets).toHaveLength(QUEUE_TIME_BUCKETS_MS.length + 1);
        expect(d.buckets.reduce((a, b) => a + b.count, 0)).toBe(waits.length);
      }),
    );
  });
});

describe('incidents', () => {
  it('joins consecutive bad minutes into runs with the worst figures, and splits at a gap or a good minute', () => {
    const points = [minute(1, 'paused'), minute(2, 'paused'), minute(3, 'release_rate'), minute(4, 'paused'), minute(7, 'paused')];
    expect(incidents(points, MIN, (p) => p.binds === 'paused').map((r) => [r.fromMs / MIN, r.toMs / MIN])).toEqual([
      [1, 2],
      [4, 4],
      [7, 7],
    ]);
    const origin = [minute(1, 'origin_silent', 0.1), minute(2, 'origin_silent', 0.3), minute(3, 'origin_silent', 0.2)];
    expect(incidents(origin, MIN, () => true)).toEqual([{ fromMs: MIN, toMs: 3 * MIN, worstP99Ms: 300, worstErrorRate: 0.3 }]);
  });
});
