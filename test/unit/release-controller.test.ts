// The release law: AIMD on the rate and the active limit, overrides, safety on missing or bad
// health, and the release budget (no bursts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INITIAL_LIMIT,
  MAX_TICK_GAP_MS,
  STALE_HEALTH_MS,
  initialControllerState,
  nextReleaseRate,
  releaseBudget,
  type ControllerBounds,
  type ControllerState,
  type GatewaySignals,
  type HealthReport,
} from '../../durable-objects/waiting-room/release-controller';

const bounds: ControllerBounds = {
  minPerMinute: 60,
  maxPerMinute: 600,
  targetP99Ms: 800,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  fixedPerMinute: null,
  maxActive: 1000,
};
const NOW = 1_800_000_000_000;
const quiet: GatewaySignals = { holdP99Ms: null, conflictRate: null, noShowRate: null };
const report = (r: Partial<HealthReport>): HealthReport => ({ p99LatencyMs: 100, errorRate: 0, activeBuyers: 10, reportedAtMs: NOW, ...r });
const state = (s: Partial<ControllerState> = {}): ControllerState => ({
  ratePerMinute: 300,
  activeLimit: 200,
  slowStart: false,
  lastReportAtMs: 1,
  ...s,
});
const step = (
  s: ControllerState,
  origin: HealthReport | null,
  b: Partial<ControllerBounds> = {},
  gateway: Partial<GatewaySignals> = {},
  active = 100,
  now = NOW,
) => nextReleaseRate(s, { origin, gateway: { ...quiet, ...gateway }, active }, { ...bounds, ...b }, now);

describe('nextReleaseRate', () => {
  it.each<[string, HealthReport | null, Partial<ControllerBounds>, Partial<GatewaySignals>, number, number, RegExp]>([
    ['healthy report climbs by a tenth of the max', report({}), {}, {}, 360, 200, /^healthy/],
    [
      'p99 over target halves the rate and cuts the limit below the load',
      report({ p99LatencyMs: 1840 }),
      {},
      {},
      150,
      70,
      /^p99 1,840 ms over 800 ms target: active limit 70, rate x0.5$/,
    ],
    ['errors over the limit halve', report({ errorRate: 0.1 }), {}, {}, 150, 70, /^error rate 10.0% over 2.0%/],
    ['slow seat holds halve', report({}), {}, { holdP99Ms: 450 }, 150, 70, /^seat-hold p99 450 ms over 300 ms/],
    [
      'stale report halves toward the minimum',
      report({ reportedAtMs: NOW - STALE_HEALTH_MS - 1 }),
      {},
      {},
      150,
      200,
      /^no health report for 10 s/,
    ],
    ['no report halves', null, {}, {}, 150, 200, /^no health report yet/],
    ['a failing origin counts as down', report({ errorRate: 0.7 }), {}, {}, 150, 200, /^origin failing \(errors 70.0%\)/],
    [
      'a failing origin pauses releases when the organizer chose so',
      report({ errorRate: 0.7 }),
      { onOriginDown: 'pause' },
      {},
      0,
      200,
      /releases paused$/,
    ],
    ['NaN in a report counts as no report', report({ p99LatencyMs: Number.NaN }), {}, {}, 150, 200, /^malformed health report/],
    ['huge p99 halves', report({ p99LatencyMs: 1e12 }), {}, {}, 150, 70, /^p99/],
    [
      'a fixed rate overrides the controller',
      report({ p99LatencyMs: 5000 }),
      { fixedPerMinute: 42 },
      {},
      42,
      70,
      /fixed by the organizer at 42\/min/,
    ],
  ])('%s', (_name, r, b, g, rate, limit, why) => {
    const d = step(state(), r, b, g);
    expect(d.state.ratePerMinute).toBe(rate);
    expect(d.state.activeLimit).toBe(limit);
    expect(d.reason).toMatch(why);
  });

  it('caps a fixed rate at the maximum the organizer allows now', () => {
    expect(step(state(), report({}), { fixedPerMinute: 5000 }).state.ratePerMinute).toBe(600);
  });

  it('holds rate and limit when most holds find their seats taken (nothing moves, nothing logged)', () => {
    const d = step(state(), report({}), {}, { conflictRate: 0.9 });
    expect(d.state).toMatchObject({ ratePerMinute: 300, activeLimit: 200 });
    expect(d.reason).toBeNull();
  });

  it('probes the active limit upwards only near it and with headroom; slow start grows it by half', () => {
    expect(step(state({ activeLimit: 100 }), report({ p99LatencyMs: 100 }), {}, {}, 90).state.activeLimit).toBe(102);
    expect(step(state({ activeLimit: 100 }), report({ p99LatencyMs: 600 }), {}, {}, 90).state.activeLimit).toBe(100);
    expect(step(state({ activeLimit: 100 }), report({ p99LatencyMs: 100 }), {}, {}, 20).state.activeLimit).toBe(100);
    expect(step(state({ activeLimit: 100, slowStart: true }), report({ p99LatencyMs: 100 }), {}, {}, 90).state.activeLimit).toBe(150);
    expect(step(state({ activeLimit: 100, slowStart: true }), report({ p99LatencyMs: 5000 }), {}, {}, 90).state.slowStart).toBe(false);
  });

  it('starts at the minimum rate and the organizer cap, and begins slow start at the first report', () => {
    const s0 = initialControllerState(bounds);
    expect(s0).toEqual({ ratePerMinute: 60, activeLimit: 1000, slowStart: true, lastReportAtMs: 0 });
    expect(step(s0, report({}), {}, {}, 0).state.activeLimit).toBe(INITIAL_LIMIT);
  });

  it('compensates no-shows by admitting more than the rate, at most twice and never above the maximum', () => {
    expect(step(state(), report({}), {}, { noShowRate: 0.25 }).admitPerMinute).toBe(480);
    // Regression (review): faked no-shows pushed admissions past the organizer's maximum (600).
    expect(step(state(), report({}), {}, { noShowRate: 0.9 }).admitPerMinute).toBe(600);
    expect(step(state(), report({ p99LatencyMs: 5000 }), {}, { noShowRate: 0.5 }).admitPerMinute).toBe(150);
  });

  it('moves once per report: the same report on the next tick changes nothing, even after a clock jump back', () => {
    const first = step(state({ lastReportAtMs: 0, activeLimit: 200 }), report({}));
    expect(step(first.state, report({}), {}, {}, 100, NOW + 1000).reason).toBeNull();
    expect(step(first.state, report({}), {}, {}, 100, NOW - 3_600_000).reason).toBeNull();
  });

  const arbBounds = fc
    .record({
      min: fc.integer({ min: 0, max: 10_000 }),
      span: fc.integer({ min: 0, max: 10_000 }),
      target: fc.integer({ min: 1, max: 5_000 }),
      cap: fc.integer({ min: 1, max: 10_000 }),
    })
    .map(({ min, span, target, cap }): ControllerBounds => ({
      ...bounds,
      minPerMinute: min,
      maxPerMinute: min + span,
      targetP99Ms: target,
      maxActive: cap,
    }));
  const arbReport = fc.option(
    fc.record({
      p99LatencyMs: fc.oneof(fc.double({ min: 0, max: 1e9 }), fc.constant(Number.NaN)),
      errorRate: fc.double({ min: 0, max: 1, noNaN: true }),
      activeBuyers: fc.nat(),
      reportedAtMs: fc.integer({ min: NOW - 60_000, max: NOW + 60_000 }),
    }),
  );
  const arbState = fc.record({
    ratePerMinute: fc.nat(100_000),
    activeLimit: fc.integer({ min: 1, max: 100_000 }),
    slowStart: fc.boolean(),
    lastReportAtMs: fc.nat(),
  });

  it('keeps the rate within the bounds and the limit within [1, max active], whatever the input', () => {
    fc.assert(
      fc.property(arbBounds, arbState, arbReport, fc.nat(100_000), (b, s, r, active) => {
        const d = nextReleaseRate(s, { origin: r, gateway: quiet, active }, b, NOW);
        expect(d.state.ratePerMinute).toBeGreaterThanOrEqual(b.minPerMinute);
        expect(d.state.ratePerMinute).toBeLessThanOrEqual(b.maxPerMinute);
        expect(d.state.activeLimit).toBeGreaterThanOrEqual(1);
        expect(d.state.activeLimit).toBeLessThanOrEqual(b.maxActive);
        expect(Number.isInteger(d.state.ratePerMinute) && Number.isInteger(d.admitPerMinute)).toBe(true);
      }),
    );
  });

  it('never raises the rate or the limit without a fresh, healthy report', () => {
    fc.assert(
      fc.property(arbBounds, arbState, arbReport, fc.integer({ min: 0, max: 600_000 }), fc.nat(100_000), (b, raw, r, later, active) => {
        const s = {
          ...raw,
          ratePerMinute: Math.min(b.maxPerMinute, Math.max(b.minPerMinute, raw.ratePerMinute)),
          activeLimit: Math.min(raw.activeLimit, b.maxActive),
          lastReportAtMs: 1,
        };
        const now = NOW + later;
        const fresh = r !== null && Number.isFinite(r.p99LatencyMs) && now - r.reportedAtMs <= STALE_HEALTH_MS;
        const healthy = fresh && r.p99LatencyMs <= b.targetP99Ms && r.errorRate <= b.maxErrorRate;
        const d = nextReleaseRate(s, { origin: r, gateway: quiet, active }, b, now);
        if (!healthy) {
          expect(d.state.ratePerMinute).toBeLessThanOrEqual(s.ratePerMinute);
          expect(d.state.activeLimit).toBeLessThanOrEqual(s.activeLimit);
        }
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
