// Edge waits (requests waiting at the edge for a place under the origin limit) as the release law
// sees them: an isolate's tally sends a p99 only when some request waited, and the law judges the
// origin's p99 plus that wait, so a queue in front of the origin holds and cuts like one inside it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EDGE_WAIT_FLUSH_MS, EdgeWaitTally } from '../../src/lib/origin-limit';
import { NOW, report, state, step } from '../helpers/controller';

describe("an isolate's edge-wait tally", () => {
  it('says nothing while no request waited, however long', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 200 }), (gaps) => {
        const tally = new EdgeWaitTally();
        let now = NOW;
        for (const gap of gaps) {
          now += gap;
          expect(tally.record(0, now)).toBeNull();
        }
      }),
    );
  });

  it('sends the p99 of an interval in which some request waited, once the interval is over, then starts again', () => {
    const tally = new EdgeWaitTally();
    for (let i = 0; i < 98; i++) expect(tally.record(0, NOW + i)).toBeNull();
    expect(tally.record(640, NOW + 99)).toBeNull();
    expect(tally.record(640, NOW + 100)).toBeNull();
    expect(tally.record(0, NOW + EDGE_WAIT_FLUSH_MS)).toEqual({ p99Ms: 640, requests: 101 });
    expect(tally.record(0, NOW + EDGE_WAIT_FLUSH_MS + 1)).toBeNull();
    expect(tally.record(0, NOW + 2 * EDGE_WAIT_FLUSH_MS + 1)).toBeNull();
  });
});

describe('the release law with edge waits', () => {
  it('cuts when the origin is fast but visitors wait at the edge past the target, and says so', () => {
    const d = step(state(), report({ p99LatencyMs: 300, sampleCount: 100 }), {}, { edgeWaitP99Ms: 900 });
    expect(d.state.activeLimit).toBeLessThan(100);
    expect(d.state.ratePerMinute).toBeLessThan(300);
    expect(d.reason).toContain('p99 1,200 ms (900 ms of it waiting at the edge) over 800 ms target');
  });

  it('never grows while the wait at the edge takes the latency a visitor sees near the target', () => {
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 200 }), fc.integer({ min: 600, max: 880 }), (origin, seen) => {
        const d = step(
          state({ activeLimit: 110 }),
          report({ p99LatencyMs: origin, sampleCount: 100 }),
          {},
          { edgeWaitP99Ms: seen - origin },
        );
        expect(d.state.activeLimit).toBeLessThanOrEqual(110);
        expect(d.state.ratePerMinute).toBeLessThanOrEqual(300);
      }),
    );
  });

  it('reads a missing, zero or absurd edge wait as none', () => {
    for (const edgeWaitP99Ms of [null, undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const none = step(state(), report({ p99LatencyMs: 100, sampleCount: 100 }));
      const d = step(state(), report({ p99LatencyMs: 100, sampleCount: 100 }), {}, { edgeWaitP99Ms });
      expect(d).toEqual(none);
    }
  });
});
