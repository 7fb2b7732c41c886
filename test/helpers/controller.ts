// One fixture for the release law's unit tests: bounds, a report, a state and one step of
// nextReleaseRate with the signals spelled out (release-controller and release-growth tests).
import type { GatewaySignals, HealthReport } from '../../durable-objects/waiting-room/health-signals';
import { nextReleaseRate, type ControllerBounds, type ControllerState } from '../../durable-objects/waiting-room/release-controller';

/** 60-600/min, p99 target 800 ms, errors up to 2 %, seat holds up to 300 ms, max active 1,000. */
export const bounds: ControllerBounds = {
  minPerMinute: 60,
  maxPerMinute: 600,
  targetP99Ms: 800,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  fixedPerMinute: null,
  maxActive: 1000,
};
/** The tests' clock, epoch ms. */
export const NOW = 1_800_000_000_000;
/** Gateway signals with nothing measured. */
export const quiet: GatewaySignals = { holdP99Ms: null, conflictRate: null, noShowRate: null };
/** A fresh healthy report (p99 100 ms, no errors, 10 buyers, no sample count), with `r` laid over it. */
export const report = (r: Partial<HealthReport>): HealthReport => ({
  p99LatencyMs: 100,
  errorRate: 0,
  activeBuyers: 10,
  reportedAtMs: NOW,
  ...r,
});
/** Congestion avoidance at 300/min with a limit of 200, one report acted on, with `s` laid over it. */
export const state = (s: Partial<ControllerState> = {}): ControllerState => ({
  ratePerMinute: 300,
  activeLimit: 200,
  slowStart: false,
  cssRounds: 0,
  lastReportAtMs: 1,
  overloadLimit: 0,
  lastCutAtMs: 0,
  ...s,
});
/** One step of the law with 100 active and nothing unclaimed unless given. */
export const step = (
  s: ControllerState,
  origin: HealthReport | null,
  b: Partial<ControllerBounds> = {},
  gateway: Partial<GatewaySignals> = {},
  active = 100,
  now = NOW,
  pending = 0,
) => nextReleaseRate(s, { origin, gateway: { ...quiet, ...gateway }, active, pending }, { ...bounds, ...b }, now);
