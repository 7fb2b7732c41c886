// What a health report is evidence of: requests still running (the SDK's `inFlight` samples, their
// age a lower bound of their latency) may make a report cut, never grow.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_LATENCY_SAMPLES, noGrowthEvidence, originDownReason } from '../../durable-objects/waiting-room/health-signals';
import { NOW, report, state, step } from '../helpers/controller';

describe('noGrowthEvidence with requests still running', () => {
  it('counts only the completed samples: 40 of which 35 still run is 5 measured, too few to grow on', () => {
    expect(noGrowthEvidence(report({ sampleCount: 40, inFlight: 35 }))).toBe(
      '5 requests measured in the report window, 35 more still running (at least 8 to grow on)',
    );
    expect(noGrowthEvidence(report({ sampleCount: 40, inFlight: 32 }))).toBeNull();
    // Without the field, as before.
    expect(noGrowthEvidence(report({ sampleCount: 5 }))).toBe('5 requests measured in the report window (at least 8 to grow on)');
    expect(noGrowthEvidence(report({ sampleCount: 8 }))).toBeNull();
  });

  it('counts a negative or non-finite inFlight as a malformed report', () => {
    expect(originDownReason(report({ sampleCount: 10, inFlight: -1 }), NOW)).toBe('malformed health report');
    expect(originDownReason(report({ sampleCount: 10, inFlight: Number.NaN }), NOW)).toBe('malformed health report');
    expect(originDownReason(report({ sampleCount: 10, inFlight: 10 }), NOW)).toBeNull();
  });

  it('never grows on a report with fewer than 8 completed samples, whatever its running ones and p99 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MIN_LATENCY_SAMPLES - 1 }),
        fc.nat(1_000),
        fc.integer({ min: 1, max: 800 }),
        fc.boolean(),
        (completed, running, p99, slowStart) => {
          const s = state({ slowStart });
          const d = step(s, report({ p99LatencyMs: p99, sampleCount: completed + running, inFlight: running }));
          expect(d.state.ratePerMinute).toBeLessThanOrEqual(s.ratePerMinute);
          expect(d.state.activeLimit).toBeLessThanOrEqual(s.activeLimit);
        },
      ),
    );
  });

  it('cuts on a p99 over the target made of requests still running (200 stuck for 12 s, none completed)', () => {
    const d = step(state(), report({ p99LatencyMs: 12_000, sampleCount: 200, inFlight: 200 }));
    expect(d.state.ratePerMinute).toBeLessThan(300);
    expect(d.reason).toMatch(/^p99 12,000 ms over 800 ms target/);
  });
});
