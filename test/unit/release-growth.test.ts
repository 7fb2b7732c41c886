// When the release law grows the rate and the active limit: only on evidence (enough requests
// measured), only while the limit binds and p99 stays near its floor (the delay gradient), in slow
// start and congestion avoidance, creeping near the last knee; and when it cuts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_LATENCY_SAMPLES, type HealthReport } from '../../durable-objects/waiting-room/health-signals';
import {
  BIND_HORIZON_S,
  CSS_ROUNDS,
  DELAY_HOLD_HEADROOM,
  GROW_BELOW,
  KNEE_BACKOFF,
  LIMIT_HEADROOM,
  delayRise,
} from '../../durable-objects/waiting-room/release-growth';
import {
  CUT_SPACING_MS,
  INITIAL_LIMIT,
  MAX_CUT_FACTOR,
  MIN_CUT_FACTOR,
  initialControllerState,
  nextReleaseRate,
  type ControllerState,
} from '../../durable-objects/waiting-room/release-controller';
import { NOW, bounds, quiet, report, state, step } from '../helpers/controller';

describe('growth needs evidence', () => {
  // Failing input: the stub's first report measured one operator call (p99 26 ms, 0 buyers) before
  // a 900 ms capacity model applied, and slow start doubled the rate at an origin that was failing.
  it('idle first report never climbs', () => {
    const b = { minPerMinute: 150, maxActive: 700 };
    const s0 = initialControllerState({ ...bounds, ...b });
    for (const idle of [
      report({ p99LatencyMs: 26, activeBuyers: 0, sampleCount: 1 }),
      report({ p99LatencyMs: 26, activeBuyers: 0 }),
      report({ p99LatencyMs: 26, activeBuyers: 3, sampleCount: MIN_LATENCY_SAMPLES - 1 }),
    ]) {
      const d = step(s0, idle, b, {}, 0);
      expect(d.state.ratePerMinute).toBe(150);
      // Nor does it cut the organizer's max active (no measured reason): slow start waits for evidence.
      expect(d.state.activeLimit).toBe(700);
      expect(d.state).toMatchObject({ slowStart: true, lastReportAtMs: 0 });
      expect(d.reason).toBeNull();
    }
    // The same report with enough requests behind it grows.
    expect(step(s0, report({ p99LatencyMs: 26, sampleCount: MIN_LATENCY_SAMPLES }), b, {}, 0).state.ratePerMinute).toBeGreaterThan(150);
  });

  // Failing input (the demo, max active 100): 10 admitted visitors browsed only the gateway's seat
  // map, so the stub's reports measured nothing (p99 0); the first of them set the limit to 10 and
  // idle reports held it there, so the 11th visitor waited until the admissions ended. Idle reports
  // leave the limit alone; evidence starts slow start.
  it('idle reports never drop the limit the organizer set: 10 browsing visitors do not stall the queue', () => {
    const b = { minPerMinute: 10, maxPerMinute: 30, maxActive: 100 };
    let s = initialControllerState({ ...bounds, ...b });
    for (let i = 0; i < 5; i++) {
      const d = nextReleaseRate(
        s,
        {
          origin: { p99LatencyMs: 0, errorRate: 0, activeBuyers: 0, sampleCount: 0, reportedAtMs: NOW + i * 2000 },
          gateway: quiet,
          active: 10,
          pending: 0,
        },
        { ...bounds, ...b },
        NOW + i * 2000,
      );
      expect(d.state.activeLimit).toBe(100);
      s = d.state;
    }
    // The first report with evidence starts slow start from what is in flight.
    const busy = nextReleaseRate(
      s,
      {
        origin: { p99LatencyMs: 80, errorRate: 0, activeBuyers: 10, sampleCount: 40, reportedAtMs: NOW + 20_000 },
        gateway: quiet,
        active: 10,
        pending: 0,
      },
      { ...bounds, ...b },
      NOW + 20_000,
    );
    expect(busy.reason).toMatch(/^first health report, slow start from 10 active/);
    expect(busy.state.activeLimit).toBeGreaterThan(10);
  });

  it('a report with too few requests may still cut', () => {
    const d = step(state(), report({ p99LatencyMs: 2000, activeBuyers: 0, sampleCount: 1 }), {}, {}, 100);
    expect(d.state).toMatchObject({ ratePerMinute: 150, activeLimit: 50 });
  });

  const arbIdle = fc.oneof(
    fc.record({
      p99LatencyMs: fc.double({ min: 0, max: 800, noNaN: true }),
      sampleCount: fc.nat(MIN_LATENCY_SAMPLES - 1),
      activeBuyers: fc.nat(1000),
    }),
    fc.record({ p99LatencyMs: fc.double({ min: 0, max: 800, noNaN: true }), activeBuyers: fc.constant(0) }),
    fc.record({ p99LatencyMs: fc.double({ min: 0, max: 0.999, noNaN: true }), activeBuyers: fc.nat(1000), sampleCount: fc.nat(1000) }),
  );
  const arbState = fc.record({
    ratePerMinute: fc.integer({ min: 60, max: 600 }),
    activeLimit: fc.integer({ min: 1, max: 1000 }),
    slowStart: fc.boolean(),
    cssRounds: fc.integer({ min: 0, max: CSS_ROUNDS - 1 }),
    lastReportAtMs: fc.constantFrom(0, 1),
    overloadLimit: fc.nat(1000),
    lastCutAtMs: fc.constantFrom(0, 1),
  });

  it('a report without evidence never raises the rate or the limit, in any phase, first report or not', () => {
    fc.assert(
      fc.property(arbState, arbIdle, fc.nat(2000), fc.nat(2000), (s: ControllerState, idle, active, pending) => {
        const r: HealthReport = { errorRate: 0, reportedAtMs: NOW, ...idle };
        const d = nextReleaseRate(s, { origin: r, gateway: quiet, active, pending }, bounds, NOW);
        expect(d.state.ratePerMinute).toBeLessThanOrEqual(s.ratePerMinute);
        // The first report may set the limit slow start begins from, never above the old limit.
        expect(d.state.activeLimit).toBeLessThanOrEqual(s.lastReportAtMs === 0 ? bounds.maxActive : s.activeLimit);
        if (s.lastReportAtMs !== 0) expect(d.state.activeLimit).toBe(s.activeLimit);
      }),
    );
  });

  // Bad input: a p99 of 0 is no measurement; it must not read as full headroom.
  it('holds on a report that measured no latency (p99 0), in slow start too', () => {
    for (const slowStart of [true, false]) {
      const d = step(state({ slowStart, activeLimit: 100 }), report({ p99LatencyMs: 0 }), {}, {}, 100);
      expect(d.state).toMatchObject({ ratePerMinute: 300, activeLimit: 100 });
      expect(d.reason).toBeNull();
    }
  });
});

describe('cuts', () => {
  // Failing input: an overload seen with 4 active (the first cold requests) set the knee memory to
  // 10, and the limit then crept near it by 1 per report.
  it('a cut with fewer than INITIAL_LIMIT active keeps slow start and remembers no knee', () => {
    const d = step(state({ slowStart: true, activeLimit: 10 }), report({ p99LatencyMs: 1200 }), {}, {}, 4);
    expect(d.state).toMatchObject({ slowStart: true, overloadLimit: 0, activeLimit: 10 });
    const real = step(state({ activeLimit: 100 }), report({ p99LatencyMs: 1200 }), {}, {}, 80);
    expect(real.state).toMatchObject({ slowStart: false, overloadLimit: 80 });
  });

  // Failing input: "first health report, slow start from 59 active; p99 1,581 ms over 800 ms target,
  // x0.51: active limit 100 -> 18": 59 was active + unclaimed, the cut 37 active x0.51.
  it('names the load the limit was cut from, and the unclaimed places slow start counted', () => {
    const first = initialControllerState({ ...bounds, maxActive: 100 });
    const d = step(first, report({ p99LatencyMs: 1581 }), { maxActive: 100 }, {}, 37, NOW, 22);
    expect(d.reason).toBe(
      'first health report, slow start from 59 in flight (37 active + 22 unclaimed); p99 1,581 ms over 800 ms target, x0.51 (limit: 37 active x0.51): active limit 100 -> 18',
    );
    const floor = step(state({ activeLimit: 33 }), report({ p99LatencyMs: 2000 }), {}, {}, 12);
    expect(floor.reason).toBe(
      'p99 2,000 ms over 800 ms target, x0.50 (limit: 12 active x0.50): rate 300 -> 150/min, active limit 33 -> 10',
    );
  });

  // Failing input (a crowd run): the first report, p99 907 ms with 15 active admitted at the minimum
  // rate under the organizer's cap of 700, ended slow start and remembered 15 as the knee.
  it('a cut on the first report keeps slow start and remembers no knee, whatever the load', () => {
    const first = initialControllerState({ ...bounds, maxActive: 700, minPerMinute: 150 });
    const d = step(first, report({ p99LatencyMs: 907 }), { maxActive: 700, minPerMinute: 150 }, {}, 15);
    expect(d.state).toMatchObject({ slowStart: true, overloadLimit: 0, activeLimit: 13, lastCutAtMs: NOW });
    expect(d.reason).toBe(
      'first health report, slow start from 15 active; p99 907 ms over 800 ms target, x0.88 (limit: 15 active x0.88): active limit 700 -> 13',
    );
  });

  // Failing input: the limit sat at 10 with `pending 22, active 1`: unclaimed places filled it, but
  // the law only counted claimed visitors as use, so it never grew and the queue stalled.
  it('grows a limit filled by unclaimed places, whether or not their visitors have claimed yet', () => {
    const s = state({ activeLimit: 10, slowStart: true, ratePerMinute: 30 });
    const d = step(s, report({ p99LatencyMs: 140 }), { minPerMinute: 10, maxPerMinute: 30, maxActive: 100 }, {}, 1, NOW, 22);
    expect(d.state.activeLimit).toBeGreaterThan(10);
    expect(d.reason).toMatch(/active limit 10 -> 15/);
  });

  // Failing input (bench:control, capacity halved): one cut took the rate 600 -> 302/min and the
  // limit 700 -> 186 at 372 active; the visitors admitted before it stayed active over the limit,
  // so every later report held ("already cut") for 87 s at p99 ~2 s.
  it('cuts again CUT_SPACING_MS (two report windows) after the last cut while the overload persists, from the load then, even with the active visitors over the limit', () => {
    const s = state({ ratePerMinute: 302, activeLimit: 186, overloadLimit: 372, lastCutAtMs: NOW - CUT_SPACING_MS });
    const d = step(s, report({ p99LatencyMs: 1998 }), { minPerMinute: 150 }, {}, 350);
    expect(d.state).toMatchObject({ ratePerMinute: 151, activeLimit: 175, overloadLimit: 350, lastCutAtMs: NOW });
    expect(d.reason).toBe('p99 1,998 ms over 800 ms target, x0.50 (limit: 350 active x0.50): rate 302 -> 151/min, active limit 186 -> 175');
    // Never above the limit in force: with the load still at twice the limit, the rate alone falls.
    const high = step(s, report({ p99LatencyMs: 1998 }), { minPerMinute: 150 }, {}, 400);
    expect(high.state).toMatchObject({ ratePerMinute: 151, activeLimit: 186, lastCutAtMs: NOW });
  });

  it('cuts at most once per CUT_SPACING_MS: reports inside it hold, over the limit or under it', () => {
    const s = state({ activeLimit: 60, overloadLimit: 120, lastCutAtMs: NOW - CUT_SPACING_MS + 2000 });
    for (const active of [110, 58]) {
      const d = step(s, report({ p99LatencyMs: 2000 }), {}, {}, active);
      expect(d.state).toMatchObject({ ratePerMinute: 300, activeLimit: 60, lastCutAtMs: s.lastCutAtMs, lastReportAtMs: NOW });
      expect(d.reason).toBeNull();
    }
    // CUT_SPACING_MS after it, the overload cuts again; going on cutting one overload, it keeps at
    // least half the knee remembered (the load has drained under a window that still holds it).
    const again = step({ ...s, lastCutAtMs: NOW - CUT_SPACING_MS }, report({ p99LatencyMs: 2000 }), {}, {}, 58);
    expect(again.state).toMatchObject({ activeLimit: 29, overloadLimit: 60, lastCutAtMs: NOW });
    // A new overload, long after the last cut, remembers its own load.
    const fresh = step({ ...s, lastCutAtMs: NOW - 3 * CUT_SPACING_MS }, report({ p99LatencyMs: 2000 }), {}, {}, 58);
    expect(fresh.state.overloadLimit).toBe(58);
  });

  const arbOverload = fc.record({
    ratePerMinute: fc.integer({ min: 60, max: 600 }),
    activeLimit: fc.integer({ min: 1, max: 1000 }),
    slowStart: fc.boolean(),
    cssRounds: fc.integer({ min: 0, max: CSS_ROUNDS - 1 }),
    overloadLimit: fc.nat(1000),
  });

  it('overload persisting after a cut cuts again after CUT_SPACING_MS (rate and limit fall, the limit below the load)', () => {
    fc.assert(
      fc.property(
        arbOverload,
        fc.integer({ min: CUT_SPACING_MS, max: 120_000 }),
        fc.double({ min: 881, max: 1e9, noNaN: true }),
        fc.integer({ min: INITIAL_LIMIT, max: 2000 }),
        fc.nat(200),
        (raw, sinceCut, p99, active, pending) => {
          const s: ControllerState = { ...raw, lastReportAtMs: NOW - 1, lastCutAtMs: NOW - sinceCut };
          const d = nextReleaseRate(s, { origin: report({ p99LatencyMs: p99 }), gateway: quiet, active, pending }, bounds, NOW);
          // The knee counts what the limit counts: active + unclaimed.
          const inFlight = active + pending;
          expect(d.state.lastCutAtMs).toBe(NOW);
          expect(d.state.ratePerMinute).toBeLessThanOrEqual(s.ratePerMinute);
          if (s.ratePerMinute > bounds.minPerMinute) expect(d.state.ratePerMinute).toBeLessThan(s.ratePerMinute);
          expect(d.state.activeLimit).toBeLessThanOrEqual(s.activeLimit);
          expect(d.state.activeLimit).toBeLessThanOrEqual(Math.max(INITIAL_LIMIT, active * MAX_CUT_FACTOR));
          const going = sinceCut <= 2 * CUT_SPACING_MS;
          expect(d.state.overloadLimit).toBe(going ? Math.max(inFlight, Math.floor(raw.overloadLimit * MIN_CUT_FACTOR)) : inFlight);
        },
      ),
    );
  });

  it('never more than one cut per CUT_SPACING_MS, the rate falls only at a cut, and the limit without one never under the load it binds', () => {
    const arbStep = fc.record({
      gapMs: fc.integer({ min: 500, max: 15_000 }),
      p99: fc.oneof(fc.integer({ min: 1, max: 800 }), fc.integer({ min: 801, max: 10_000 })),
      errorRate: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.49, noNaN: true })),
      active: fc.nat(1500),
      pending: fc.nat(100),
      sampleCount: fc.nat(200),
    });
    fc.assert(
      fc.property(arbOverload, fc.array(arbStep, { minLength: 2, maxLength: 40 }), (raw, steps) => {
        let s: ControllerState = { ...raw, lastReportAtMs: NOW - 1, lastCutAtMs: 0 };
        let now = NOW;
        const cuts: number[] = [];
        for (const x of steps) {
          now += x.gapMs;
          const origin = report({ p99LatencyMs: x.p99, errorRate: x.errorRate, sampleCount: x.sampleCount, reportedAtMs: now });
          const d = nextReleaseRate(s, { origin, gateway: quiet, active: x.active, pending: x.pending }, bounds, now);
          if (d.state.lastCutAtMs !== s.lastCutAtMs) cuts.push(now);
          else {
            expect(d.state.ratePerMinute).toBeGreaterThanOrEqual(s.ratePerMinute);
            // Without a cut the limit falls only to follow the load: at a knee to KNEE_BACKOFF x its
            // use (active + unclaimed), else to the load it holds.
            if (d.state.activeLimit < s.activeLimit)
              expect(d.state.activeLimit).toBeGreaterThanOrEqual(
                Math.min(s.activeLimit, Math.max(INITIAL_LIMIT, Math.floor((x.active + x.pending) * KNEE_BACKOFF))),
              );
          }
          s = d.state;
        }
        for (let k = 1; k < cuts.length; k++) expect(cuts[k]! - cuts[k - 1]!).toBeGreaterThanOrEqual(CUT_SPACING_MS);
      }),
    );
  });

  // Failing input (bench:control, healthy origin): one excursion of the stub's p99 (the shared
  // machine, not the load) stayed in the reports for its window after it ended, and a rule that cut
  // again 10 s after the last cut cut on it twice: 152 -> 23 -> 10.
  it('a single excursion of up to one report window never cuts twice, whatever the reports around it', () => {
    const WINDOW_MS = 10_000; // the origin SDK's DEFAULT_WINDOW_MS: a slow request stays in the reports this long
    fc.assert(
      fc.property(
        arbOverload,
        fc.array(fc.integer({ min: 500, max: 3_000 }), { minLength: 5, maxLength: 60 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: WINDOW_MS }),
        fc.integer({ min: 801, max: 100_000 }),
        fc.nat(1500),
        (raw, gaps, startMs, lengthMs, overP99, active) => {
          let s: ControllerState = { ...raw, lastReportAtMs: NOW - 1, lastCutAtMs: 0 };
          let now = NOW;
          let cuts = 0;
          for (const gap of gaps) {
            now += gap;
            // Over target while the excursion's requests are inside the report's window.
            const over = now - NOW >= startMs && now - NOW < startMs + lengthMs + WINDOW_MS;
            const origin = report({ p99LatencyMs: over ? overP99 : 300, reportedAtMs: now });
            const d = nextReleaseRate(s, { origin, gateway: quiet, active, pending: 0 }, bounds, now);
            if (d.state.lastCutAtMs !== s.lastCutAtMs) cuts++;
            s = d.state;
          }
          expect(cuts).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});

describe('the active limit grows only while it binds', () => {
  // The pace would fill a limit of 200 within BIND_HORIZON_S only from 190 in flight: at 100 it does
  // not bind, says nothing about the origin, and follows the load.
  it('follows the load down when the pace would not fill it before the next report, and never grows then', () => {
    const d = step(state({ activeLimit: 200 }), report({}), {}, {}, 100);
    // (100 active + 5/s x BIND_HORIZON_S) x (1 + LIMIT_HEADROOM) = 121.
    expect((100 + 5 * BIND_HORIZON_S) * (1 + LIMIT_HEADROOM)).toBeCloseTo(121);
    expect(d.state).toMatchObject({ ratePerMinute: 360, activeLimit: 121 });
    expect(d.reason).toBe(
      'healthy (p99 100 ms of 800 ms target, 10 buyers), limit follows the load: rate 300 -> 360/min, active limit 200 -> 121',
    );
  });

  it('grows x1.25 a report (at least + sqrt) when it binds and p99 stays near its floor', () => {
    const d = nextReleaseRate(
      state({ activeLimit: 100 }),
      { origin: report({}), gateway: quiet, active: 95, pending: 0, floorP99Ms: 80 },
      bounds,
      NOW,
    );
    expect(d.state.activeLimit).toBe(125);
  });

  // Failing input (bench:control, healthy origin, short visits): at each tick's start a limit of 10
  // read 7 active + 2 unclaimed although it cut every tick's release at 600/min; a share-of-the-limit
  // test called it unused, and admissions stayed at 0.54 of the maximum.
  it('a limit that binds every tick grows although visitors leave between ticks', () => {
    let s = state({ activeLimit: 10, ratePerMinute: 600 });
    for (let k = 1; k <= 10; k++) {
      const inFlight = Math.floor(0.7 * s.activeLimit);
      s = nextReleaseRate(
        s,
        { origin: report({ p99LatencyMs: 65, reportedAtMs: NOW + k }), gateway: quiet, active: inFlight - 2, pending: 2, floorP99Ms: 60 },
        bounds,
        NOW + k,
      ).state;
    }
    expect(s.activeLimit).toBeGreaterThanOrEqual(50);
  });

  it('creeps near the load of the last overload and probes by + sqrt(limit) once 10 % past it', () => {
    const grow = (limit: number) =>
      nextReleaseRate(
        state({ activeLimit: limit, overloadLimit: 100 }),
        { origin: report({ p99LatencyMs: 50 }), gateway: quiet, active: limit, pending: 0, floorP99Ms: 40 },
        bounds,
        NOW,
      ).state.activeLimit;
    expect(grow(95)).toBe(97);
    expect(grow(50)).toBe(63);
    expect(grow(120)).toBe(131);
  });

  const arbState = fc.record({
    ratePerMinute: fc.integer({ min: 60, max: 600 }),
    activeLimit: fc.integer({ min: 1, max: 1000 }),
    slowStart: fc.boolean(),
    cssRounds: fc.integer({ min: 0, max: CSS_ROUNDS - 1 }),
    lastReportAtMs: fc.constant(1),
    overloadLimit: fc.nat(1000),
    lastCutAtMs: fc.constantFrom(0, 1),
  });
  const arbFloor = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.double({ min: -10, max: 2000, noNaN: true }),
    fc.constant(Number.NaN),
  );

  it('grows only while it binds, p99 is under GROW_BELOW x target and no delay rise over its floor; never above what binds it x SLOW_START_GROWTH or x1.25', () => {
    fc.assert(
      fc.property(
        arbState,
        fc.double({ min: 1, max: 880, noNaN: true }),
        arbFloor,
        fc.nat(1500),
        fc.nat(500),
        (s: ControllerState, p99, floorP99Ms, active, pending) => {
          const r = report({ p99LatencyMs: p99, sampleCount: 100 });
          const d = nextReleaseRate(s, { origin: r, gateway: quiet, active, pending, floorP99Ms }, bounds, NOW);
          if (d.state.activeLimit <= s.activeLimit) return;
          const floor = typeof floorP99Ms === 'number' && Number.isFinite(floorP99Ms) && floorP99Ms >= 1 ? floorP99Ms : null;
          expect(active + pending + (s.ratePerMinute / 60) * BIND_HORIZON_S).toBeGreaterThanOrEqual(s.activeLimit);
          expect(p99).toBeLessThan(GROW_BELOW * bounds.targetP99Ms);
          expect(delayRise(p99, floor, bounds.targetP99Ms)).toBe(false);
          expect(d.state.activeLimit).toBeLessThanOrEqual(Math.ceil(s.activeLimit * 1.5) + 1);
        },
      ),
    );
  });

  it('on a delay rise or near the target never grows, and holds at most DELAY_HOLD_HEADROOM over what the pace binds', () => {
    fc.assert(
      fc.property(
        arbState,
        fc.double({ min: 1, max: 50, noNaN: true }),
        fc.double({ min: 2, max: 40, noNaN: true }),
        fc.nat(1500),
        fc.nat(500),
        (s: ControllerState, floor, x, active, pending) => {
          const p99 = Math.min(880, Math.max(floor * x + 1, floor + 0.03 * bounds.targetP99Ms));
          const d = nextReleaseRate(
            s,
            { origin: report({ p99LatencyMs: p99, sampleCount: 100 }), gateway: quiet, active, pending, floorP99Ms: floor },
            bounds,
            NOW,
          );
          expect(d.state.activeLimit).toBeLessThanOrEqual(s.activeLimit);
          // Near the target at the load itself; on a delay rise at most what the pace binds.
          const paced = active + pending + (s.ratePerMinute / 60) * BIND_HORIZON_S;
          expect(d.state.activeLimit).toBeLessThanOrEqual(Math.max(INITIAL_LIMIT, Math.ceil(paced * (1 + DELAY_HOLD_HEADROOM))));
          if (p99 >= GROW_BELOW * bounds.targetP99Ms)
            expect(d.state.activeLimit).toBeLessThanOrEqual(
              Math.max(INITIAL_LIMIT, Math.ceil((active + pending) * (1 + DELAY_HOLD_HEADROOM))),
            );
        },
      ),
    );
  });
});

describe('slow start', () => {
  it('grows the rate by (1 + headroom) and a binding limit by SLOW_START_GROWTH per report; keeps a limit that does not bind', () => {
    const d = step(state({ activeLimit: 100, slowStart: true, ratePerMinute: 100 }), report({ p99LatencyMs: 80 }), {}, {}, 99);
    expect(d.state).toMatchObject({ ratePerMinute: 190, activeLimit: 150, slowStart: true, cssRounds: 0 });
    expect(d.reason).toBe(
      'healthy (p99 80 ms of 800 ms target, 10 buyers), slow start x1.50: rate 100 -> 190/min, active limit 100 -> 150',
    );
    const idle = step(state({ activeLimit: 100, slowStart: true, ratePerMinute: 100 }), report({ p99LatencyMs: 80 }), {}, {}, 40);
    expect(idle.state.activeLimit).toBe(100);
  });

  it('ends after CSS_ROUNDS delay rises in a row, resumes when the rise passes, and ends at once on an overload', () => {
    const sig = (p99: number, active: number, now: number) => ({
      origin: report({ p99LatencyMs: p99, reportedAtMs: now }),
      gateway: quiet,
      active,
      pending: 0,
      floorP99Ms: 40,
    });
    const rise = nextReleaseRate(state({ activeLimit: 100, slowStart: true }), sig(90, 100, NOW), bounds, NOW);
    expect(rise.state).toMatchObject({ slowStart: true, cssRounds: 1, activeLimit: 100 });
    const back = nextReleaseRate(rise.state, sig(45, 100, NOW + 1), bounds, NOW + 1);
    expect(back.state).toMatchObject({ slowStart: true, cssRounds: 0, activeLimit: 150 });
    let s = state({ activeLimit: 100, slowStart: true });
    for (let k = 1; k <= CSS_ROUNDS; k++) {
      s = nextReleaseRate(s, sig(90, 100, NOW + k), bounds, NOW + k).state;
      expect(s.slowStart).toBe(k < CSS_ROUNDS);
    }
    expect(s.cssRounds).toBe(0);
    expect(step(state({ activeLimit: 100, slowStart: true }), report({ p99LatencyMs: 5000 }), {}, {}, 90).state.slowStart).toBe(false);
  });

  it("starts at the first report from what is in flight, and logs the drop from the organizer's cap", () => {
    const s0 = initialControllerState(bounds);
    expect(s0).toEqual({
      ratePerMinute: 60,
      activeLimit: 1000,
      slowStart: true,
      cssRounds: 0,
      lastReportAtMs: 0,
      overloadLimit: 0,
      lastCutAtMs: 0,
    });
    const d = step(s0, report({}), {}, {}, 0);
    expect(d.state.activeLimit).toBe(INITIAL_LIMIT);
    expect(d.reason).toMatch(/^first health report, slow start from 10 active; .*active limit 1,000 -> 10$/);
    // 30 active + 20 unclaimed: slow start from 50, binding, x1.5.
    expect(step(s0, report({}), {}, {}, 30, NOW, 20).state.activeLimit).toBe(75);
  });
});
