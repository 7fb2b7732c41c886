// The AIMD release controller and the release budget: bounds, safety on missing health, no bursts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TICK_GAP_MS,
  STALE_HEALTH_MS,
  initialControllerState,
  nextReleaseRate,
  releaseBudget,
  type ControllerBounds,
  type HealthReport,
} from '../../durable-objects/waiting-room/release-controller';

const bounds: ControllerBounds = { minPerMinute: 60, maxPerMinute: 600, targetP99Ms: 800, maxErrorRate: 0.02 };
const NOW = 1_800_000_000_000;
const report = (r: Partial<HealthReport>): HealthReport => ({ p99LatencyMs: 100, errorRate: 0, activeBuyers: 10, reportedAtMs: NOW, ...r });

const arbBounds = fc
  .record({
    min: fc.integer({ min: 0, max: 10_000 }),
    span: fc.integer({ min: 0, max: 10_000 }),
    target: fc.integer({ min: 1, max: 5_000 }),
  })
  .map(({ min, span, target }) => ({ minPerMinute: min, maxPerMinute: min + span, targetP99Ms: target, maxErrorRate: 0.05 }));
const arbReport = fc.option(
  fc.record({
    p99LatencyMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    errorRate: fc.double({ min: 0, max: 1, noNaN: true }),
    activeBuyers: fc.nat(),
    reportedAtMs: fc.integer({ min: NOW - 60_000, max: NOW }),
  }),
);

describe('nextReleaseRate (AIMD)', () => {
  it.each([
    ['healthy report climbs by a tenth of the max', report({}), 300, 360, /^healthy/],
    ['p99 over target halves', report({ p99LatencyMs: 1840 }), 300, 150, /^p99 1,840 ms over 800 ms target: x0.5$/],
    ['errors over the limit halve', report({ errorRate: 0.1 }), 300, 150, /^error rate 10.0% over 2.0%/],
    ['stale report halves', report({ reportedAtMs: NOW - STALE_HEALTH_MS - 1 }), 300, 150, /^no health report for 10 s/],
    ['no report halves', null, 300, 150, /^no health report yet/],
    ['climb stops at the max', report({}), 590, 600, /^healthy/],
    ['cut stops at the min', report({ p99LatencyMs: 5000 }), 100, 60, /^p99/],
  ])('%s', (_name, r, from, to, why) => {
    const d = nextReleaseRate({ ratePerMinute: from, lastReportAtMs: 0 }, r, bounds, NOW);
    expect(d.state.ratePerMinute).toBe(to);
    expect(d.reason).toMatch(why);
  });

  it('moves once per report: the same report on the next tick changes nothing', () => {
    const first = nextReleaseRate({ ratePerMinute: 100, lastReportAtMs: 0 }, report({}), bounds, NOW);
    const again = nextReleaseRate(first.state, report({}), bounds, NOW + 1000);
    expect(again.state.ratePerMinute).toBe(first.state.ratePerMinute);
    expect(again.reason).toBeNull();
  });

  it('starts at the minimum', () => {
    expect(initialControllerState(bounds).ratePerMinute).toBe(60);
  });

  it('always stays within the organizer bounds', () => {
    fc.assert(
      fc.property(arbBounds, fc.integer({ min: 0, max: 100_000 }), arbReport, (b, rate, r) => {
        const d = nextReleaseRate({ ratePerMinute: rate, lastReportAtMs: 0 }, r, b, NOW);
        expect(d.state.ratePerMinute).toBeGreaterThanOrEqual(b.minPerMinute);
        expect(d.state.ratePerMinute).toBeLessThanOrEqual(b.maxPerMinute);
        expect(Number.isInteger(d.state.ratePerMinute)).toBe(true);
      }),
    );
  });

  it('never raises the rate without a fresh, healthy report', () => {
    fc.assert(
      fc.property(arbBounds, fc.integer({ min: 0, max: 100_000 }), arbReport, fc.integer({ min: 0, max: 600_000 }), (b, raw, r, later) => {
        const rate = Math.min(b.maxPerMinute, Math.max(b.minPerMinute, raw));
        const now = NOW + later;
        const healthy =
          r !== null && now - r.reportedAtMs <= STALE_HEALTH_MS && r.p99LatencyMs <= b.targetP99Ms && r.errorRate <= b.maxErrorRate;
        const d = nextReleaseRate({ ratePerMinute: rate, lastReportAtMs: 0 }, r, b, now);
        if (!healthy) expect(d.state.ratePerMinute).toBeLessThanOrEqual(rate);
      }),
    );
  });
});

describe('releaseBudget', () => {
  it('never admits more than free slots or waiting visitors, and never a negative number', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: -1e5, max: 1e6 }),
        fc.integer({ min: -1e4, max: 1e6 }),
        fc.nat(1e6),
        (rate, carry, elapsed, slots, waiting) => {
          const b = releaseBudget(rate, carry, elapsed, slots, waiting);
          expect(b.admit).toBeGreaterThanOrEqual(0);
          expect(b.admit).toBeLessThanOrEqual(Math.max(0, Math.min(slots, waiting)));
          expect(b.carry).toBeGreaterThanOrEqual(0);
          expect(b.carry).toBeLessThan(1);
        },
      ),
    );
  });

  it('over many ticks admits rate x time, within one visitor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6000 }),
        fc.array(fc.integer({ min: 1, max: MAX_TICK_GAP_MS }), { minLength: 1, maxLength: 200 }),
        (rate, gaps) => {
          let carry = 0;
          let admitted = 0;
          for (const gap of gaps) {
            const b = releaseBudget(rate, carry, gap, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
            carry = b.carry;
            admitted += b.admit;
          }
          const expected = (rate * gaps.reduce((a, g) => a + g, 0)) / 60_000;
          expect(Math.abs(admitted - expected)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('does not burst after a long gap (late alarm)', () => {
    expect(releaseBudget(600, 0, 3_600_000, 1e6, 1e6).admit).toBe((600 * MAX_TICK_GAP_MS) / 60_000);
  });
});
