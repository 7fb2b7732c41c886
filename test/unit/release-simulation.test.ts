// Closed loop: the release law against the origin stub's capacity model, on an injected clock.
import { describe, expect, it } from 'vitest';
import type { ControllerBounds } from '../../durable-objects/waiting-room/release-controller';
import { simulate, summarize } from '../helpers/release-sim';

const TARGET = 800;
const bounds: ControllerBounds = {
  minPerMinute: 10,
  maxPerMinute: 1000,
  targetP99Ms: TARGET,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  fixedPerMinute: null,
  maxActive: 10_000,
};

describe('release law in a closed loop (1 tick = 1 s, buyers stay 60 s, reports every 2 s)', () => {
  it('converges under target, follows a halved capacity within a few ticks, and never climbs without reports', () => {
    const halveAt = 450;
    const run = simulate({ ticks: 900, bounds, knee: (t) => (t < halveAt ? 100 : 50) });
    const before = summarize(run.slice(0, halveAt), TARGET, 150);
    const after = summarize(run.slice(halveAt), TARGET, 150);
    // The figures the issue note reports.
    console.log(
      `capacity 100: settles (p99 <= 1.25 x target from then on) at tick ${before.settlingTick}, ` +
        `p99 under target ${(before.underShare * 100).toFixed(0)}% of ticks after 150, worst overshoot ${before.overshootPct.toFixed(1)}%`,
    );
    const cutAt = run.slice(halveAt).findIndex((t) => t.limit < run[halveAt - 1]!.limit);
    console.log(
      `capacity halved at tick ${halveAt}: active limit cut after ${cutAt} ticks; settles ${after.settlingTick} ticks later, ` +
        `under target ${(after.underShare * 100).toFixed(0)}%, worst overshoot ${after.overshootPct.toFixed(1)}%`,
    );
    expect(before.settlingTick).toBeGreaterThanOrEqual(0);
    expect(before.settlingTick).toBeLessThan(200);
    expect(before.overshootPct).toBeLessThan(25);
    expect(cutAt).toBeLessThanOrEqual(3);
    expect(after.settlingTick).toBeGreaterThanOrEqual(0);
    expect(after.settlingTick).toBeLessThan(60);
    expect(after.overshootPct).toBeLessThan(25);
    // Concurrency stays near what the origin can serve: 78 buyers is where p99 reaches the target.
    expect(Math.max(...run.slice(halveAt + 60).map((t) => t.concurrent))).toBeLessThanOrEqual(80);

    const silent = simulate({ ticks: 300, bounds, knee: () => 100, reportsUntil: 120 });
    const atSilence = silent[121]!;
    for (const t of silent.slice(122)) {
      expect(t.rate).toBeLessThanOrEqual(atSilence.rate);
      expect(t.limit).toBeLessThanOrEqual(atSilence.limit);
    }
    expect(silent.at(-1)!.rate).toBe(bounds.minPerMinute);
  });
});
