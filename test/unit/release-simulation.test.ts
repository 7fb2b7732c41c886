// Closed loop: the release law and the tick's budget against the origin stub's capacity model, on an
// injected clock, with released visitors who claim late or never.
import { describe, expect, it } from 'vitest';
import { CUT_SPACING_MS, INITIAL_LIMIT, type ControllerBounds } from '../../durable-objects/waiting-room/release-controller';
import { releasedPerMinute, simulate, summarize, targetCrossings } from '../helpers/release-sim';

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
      `capacity 100: settles (p99 <= 1.1 x target from then on) at tick ${before.settlingTick}, ` +
        `p99 under target ${(before.underShare * 100).toFixed(0)}% of ticks after 150, worst overshoot ${before.overshootPct.toFixed(1)}%`,
    );
    const cutAt = run.slice(halveAt).findIndex((t) => t.limit < run[halveAt - 1]!.limit);
    console.log(
      `capacity halved at tick ${halveAt}: active limit cut after ${cutAt} ticks; settles ${after.settlingTick} ticks later, ` +
        `under target ${(after.underShare * 100).toFixed(0)}%, worst overshoot ${after.overshootPct.toFixed(1)}%`,
    );
    expect(before.settlingTick).toBeGreaterThanOrEqual(0);
    expect(before.settlingTick).toBeLessThan(200);
    expect(before.overshootPct).toBeLessThan(10);
    expect(cutAt).toBeLessThanOrEqual(3);
    expect(after.settlingTick).toBeGreaterThanOrEqual(0);
    expect(after.settlingTick).toBeLessThan(60);
    expect(after.overshootPct).toBeLessThan(10);
    // Settled means settled: p99 does not cross the target again (no sawtooth across it).
    expect(targetCrossings(run, TARGET, 200, halveAt)).toBe(0);
    expect(targetCrossings(run, TARGET, halveAt + 60)).toBe(0);
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

  it("recovers to the origin's knee within 60 s of the origin recovering, and stays under the target", () => {
    const run = simulate({ ticks: 700, bounds, knee: (t) => (t < 150 ? 100 : t < 400 ? 50 : 100) });
    const at = (t: number) => run[t]!;
    // The law holds the load where p99 leaves its floor (the delay gradient), at the knee: 100
    // concurrent buyers for the full origin, not at the 128 where p99 would reach the target.
    const recovered = run.slice(400).findIndex((t) => t.concurrent >= 0.9 * 100);
    console.log(`origin recovered at tick 400: concurrency back to 90 % of its knee after ${recovered} ticks`);
    expect(at(399).concurrent).toBeLessThanOrEqual(80);
    expect(recovered).toBeGreaterThanOrEqual(0);
    expect(recovered).toBeLessThanOrEqual(60);
    expect(summarize(run.slice(400), TARGET).overshootPct).toBe(0);
  });

  // Failing input: the crowd tool's visitors (claim 2-6 s after release, leave after
  // 3 s). The limit dropped from the organizer's 200 to 10 at the first report and never grew,
  // because unclaimed places filled it but did not count as use: 102 of 1,200/min released.
  it('reaches the maximum within 30 s of the first report while released visitors have not claimed yet', () => {
    const b = { ...bounds, minPerMinute: 300, maxPerMinute: 1200, maxActive: 200 };
    const run = simulate({ ticks: 120, bounds: b, knee: () => 1000, sessionS: 3, claimDelayS: [2, 6] });
    const full = run.findIndex((t, i) => i >= 5 && releasedPerMinute(run, i - 5, i) >= 0.9 * b.maxPerMinute);
    console.log(`healthy origin, late claims: 90 % of the maximum from tick ${full}; limit ${run.at(-1)!.limit}`);
    expect(full).toBeGreaterThanOrEqual(0);
    expect(full).toBeLessThanOrEqual(30);
    expect(releasedPerMinute(run, 30, 120)).toBeGreaterThanOrEqual(0.9 * b.maxPerMinute);
  });

  // Failing input: half the released visitors never come back. Unclaimed places counted
  // as active for the whole idle timeout pinned the limit: 2 of 600/min released.
  it('releases at >= 90 % of the rate when half the released visitors are no-shows', () => {
    const b = { ...bounds, minPerMinute: 60, maxPerMinute: 600, maxActive: 700 };
    const run = simulate({ ticks: 180, bounds: b, knee: () => 1000, sessionS: 30, claimDelayS: [1, 10], noShowShare: 0.5 });
    const perMinute = releasedPerMinute(run, 30, 180);
    console.log(`50 % no-shows: ${perMinute.toFixed(0)} released per minute of ${b.maxPerMinute}`);
    expect(perMinute).toBeGreaterThanOrEqual(0.9 * b.maxPerMinute);
    expect(Math.max(...run.map((t) => t.pending))).toBeLessThanOrEqual(Math.ceil((b.maxPerMinute * 30) / 60));
  });

  // Failing input (bench:control, 50 % no-shows, 0.55 x the rate): one
  // report of p99 1,902 ms at 47 s, with 13 visitors active (short visits), cut the limit 447 -> 10
  // and halved the rate. 133 places were unclaimed, and while the no-show rate was unknown (it
  // needed releases 60 s old) every one counted as an arrival against the limit of 10: nothing was
  // released for 25 s although the showing half of each release had claimed.
  it('a cut to a small limit is not held full by no-shows: >= 90 % of the rate released after it', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    const run = simulate({
      ticks: 110,
      bounds: b,
      knee: () => 1000,
      sessionS: 1,
      claimDelayS: [1, 4],
      noShowShare: 0.5,
      noiseMs: (t) => (t >= 45 && t < 47 ? 1900 : 0),
    });
    const cut = run.find((t) => t.tick >= 45 && t.reason?.includes('over 800 ms target'))!;
    const after = run.filter((t) => t.tick > cut.tick && t.tick < cut.tick + 40);
    const meanRate = after.reduce((a, t) => a + t.rate, 0) / after.length;
    const released = releasedPerMinute(run, cut.tick + 1, cut.tick + 40);
    console.log(
      `50 % no-shows, a cut at tick ${cut.tick} (${cut.reason}): released ${(released / meanRate).toFixed(2)} x the rate over the next 39 s`,
    );
    expect(cut.limit).toBeLessThanOrEqual(20);
    expect(released / meanRate).toBeGreaterThanOrEqual(0.9);
  });

  // Failing input (bench:control, origin failing): the first report came before any
  // buyer reached the origin (p99 26 ms of one operator call, 0 buyers) and slow start took the
  // rate from 150 to 295/min at an origin serving everyone in 900 ms or more.
  it('never climbs at an origin failing from the start whose first report was idle', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    const run = simulate({
      ticks: 60,
      bounds: b,
      baseLatencyMs: 900,
      knee: () => 5,
      sessionS: 5,
      idleReport: { p99LatencyMs: 26, sampleCount: 1 },
    });
    expect(Math.max(...run.map((t) => t.rate))).toBe(b.minPerMinute);
    for (let k = 1; k < run.length; k++) expect(run[k]!.limit).toBeLessThanOrEqual(run[k - 1]!.limit);
  });

  // Failing input: 20 app clients joined `demo` (30/min, 100 active) and never came
  // back: `pending 22, active 1`, almost nobody admitted for two minutes (1 of 30/min released).
  it('does not stall a slow room behind no-shows', () => {
    const b = { ...bounds, minPerMinute: 10, maxPerMinute: 30, maxActive: 100 };
    const run = simulate({ ticks: 240, bounds: b, knee: () => 1000, claimDelayS: [1, 5], noShowShare: 0.9 });
    expect(releasedPerMinute(run, 30, 240)).toBeGreaterThanOrEqual(0.9 * b.maxPerMinute);
  });

  // Failing input (bench:control, origin capacity halves): one cut took the rate
  // 600 -> 302/min and the limit 700 -> 186 (372 active), then nothing changed for 87 s while p99
  // stayed near 2 s. The cause: the p99 was 20 + (48 - 4)^2 = 1,956 ms, the stub's latency at
  // exactly the crowd's 48 requests in flight, so the crowd's client was saturated and the visitors
  // admitted before the halving needed over a minute for their remaining pages; while they stayed
  // active over the limit, the old rule ("cut once while active exceeds the limit") held every
  // report. Here the same mechanism: closed-loop visitors of 12 pages, 2 s apart, through a
  // 48-request client (the stub's base latency under wrangler dev ~150 ms; knee 16 -> 8).
  it('after a halving with visits that stretch with latency, cuts again each report window while p99 stays over target, settles once the visitors admitted before have left, and regains capacity', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    const halveAt = 45;
    const run = simulate({
      ticks: 200,
      bounds: b,
      visitors: 600,
      baseLatencyMs: 150,
      knee: (t) => (t < halveAt ? 16 : 8),
      claimDelayS: [1, 3],
      visit: { pages: 12, thinkS: 2, clientConcurrency: 48 },
    });
    const after = run.slice(halveAt);
    const settled = summarize(after, TARGET).settlingTick;
    const cuts = after.filter((t) => t.reason?.includes('over 800 ms target')).map((t) => t.tick);
    const gaps = cuts.slice(1).map((c, k) => c - cuts[k]!);
    const at = (k: number) => run[halveAt + k]!;
    console.log(
      `closed-loop visitors, capacity halved at tick ${halveAt} with ${at(0).concurrent} active: cuts at ticks ${cuts.join(', ')}; ` +
        `p99 settles ${settled} ticks after the change (active ${at(settled).concurrent}, limit ${at(settled).limit}); ` +
        `30 ticks later active ${at(settled + 30).concurrent}, limit ${at(settled + 30).limit}`,
    );
    // While p99 stays over target the limit follows the load down: one cut per report window.
    expect(cuts.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(CUT_SPACING_MS / 1000 + 2);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(CUT_SPACING_MS / 1000);
    // Nobody is released while the overload lasts.
    expect(run.slice(halveAt + 2, halveAt + settled).every((t) => t.released === 0)).toBe(true);
    // Settles (the drain of the visitors admitted before the halving sets when), no sawtooth after.
    expect(settled).toBeGreaterThanOrEqual(0);
    expect(targetCrossings(after, TARGET, settled)).toBe(0);
    // The halved origin reaches the target at ~115 visitors (33 requests in flight at 2.8 s a
    // page): within 30 s of settling at least half of that is back (the old rule's cuts on the
    // window's stale p99 left the limit at 10 and 44 active then).
    expect(at(settled + 30).concurrent).toBeGreaterThanOrEqual(58);
  });

  // Failing input (bench:control, healthy origin, 0.75 and 0.22 x the
  // maximum): the stub's p99 rose past the target for one report window while 13-18 visitors were
  // active (the join burst, and other processes on the shared 2 cores: the stub's knee is 50
  // requests), once at the first report and once later. The first cut took the limit 700 -> 10 and
  // ended slow start; congestion avoidance then grew it by 1-4 a report (20 -> 43 in 11 s at p99
  // 200-500 ms), and repeat cuts on the same excursion's lingering window took it back to 10.
  it('a healthy origin with two one-window p99 excursions not caused by the load: one cut each, and >= 90 % of the maximum within 30 s of each', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    const excursion = (t: number) => (t >= 2 && t < 8) || (t >= 60 && t < 66);
    const run = simulate({
      ticks: 150,
      bounds: b,
      knee: () => 1000,
      baseLatencyMs: 200,
      sessionS: 4,
      claimDelayS: [2, 6],
      noiseMs: (t) => (excursion(t) ? 900 : 0),
    });
    const cuts = run.filter((t) => t.reason?.includes('over 800 ms target')).map((t) => t.tick);
    const share = (from: number, to: number) => releasedPerMinute(run, from, to) / b.maxPerMinute;
    console.log(
      `healthy origin, excursions at ticks 2-7 and 60-65: cuts at ticks ${cuts.join(', ')}; released ${share(30, 60).toFixed(2)} x the maximum ` +
        `over ticks 30-60, ${share(90, 150).toFixed(2)} over 90-150; limits ${[10, 20, 30, 60, 70, 80, 90].map((k) => run[k]!.limit).join(', ')}`,
    );
    // One cut per excursion: its window lingers in the reports for up to two windows (20 s).
    expect(cuts.filter((t) => t < 30)).toHaveLength(1);
    expect(cuts.filter((t) => t >= 60)).toHaveLength(1);
    expect(share(30, 60)).toBeGreaterThanOrEqual(0.9);
    expect(share(90, 150)).toBeGreaterThanOrEqual(0.9);
  });

  // Failing input (the crowd tool, healthy origin, 0.22 x the maximum): the first report
  // came 9 s after the first admissions (15 active, admitted at the minimum rate under the
  // organizer's cap) with p99 907 ms from the join burst on the shared machine. Its cut ended slow
  // start and remembered 15 as the knee, and congestion avoidance then grew the limit by 1 a
  // report from 10 (10 -> 16 in 20 s).
  it('a first report over target from a burst not caused by the load: slow start stays on and >= 90 % of the maximum follows', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    const run = simulate({
      ticks: 90,
      bounds: b,
      knee: () => 1000,
      baseLatencyMs: 200,
      sessionS: 10,
      claimDelayS: [2, 6],
      reportsFrom: 10,
      noiseMs: (t) => (t >= 4 && t < 12 ? 900 : 0),
    });
    const first = run.find((t) => t.reason?.startsWith('first health report'))!;
    const share = releasedPerMinute(run, 40, 90) / b.maxPerMinute;
    console.log(
      `first report at tick ${first.tick} with ${first.concurrent} active: ${first.reason}; released ${share.toFixed(2)} x the maximum over ticks 40-90`,
    );
    expect(first.concurrent).toBeGreaterThanOrEqual(10);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });

  // Failing input (bench:control, healthy origin, 0.83 x the maximum; another run, 0.24):
  // on the shared 2 cores the stub's p99 sat at 40-60 % of the target with 15-50 visitors active
  // (its knee is 50 requests in flight: the machine's latency, not the origin's), and after a cut
  // congestion avoidance grew the limit by +1..+3 a report (36 -> 49 in 11 s; 10 -> 15 in 33 s),
  // because its growth faded with the square of the distance to 70 % of the target. The limit
  // 600/min needs is the visit (5 s) plus the claim lag (1-3 s) at 10 a second, about 70.
  it('a healthy origin with fewer than INITIAL_LIMIT visitors on it whose p99 sits at 2-3 x its floor for 25 s: the limit does not fall under the pace, >= 90 % of the maximum', () => {
    // bench:control's healthy row: a floor of 43 ms, then 100-115 ms for 20 s from the shared
    // machine, with 0-7 visitors active (visits shorter than their claim lag).
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 300, maxActive: 700 };
    const noise = (t: number) => (t >= 20 && t < 45 ? 60 + ((t * 7919) % 5) * 3 : 0);
    const run = simulate({ ticks: 90, bounds: b, knee: () => 1000, baseLatencyMs: 43, sessionS: 1, claimDelayS: [1, 3], noiseMs: noise });
    const share = releasedPerMinute(run, 20, 60) / b.maxPerMinute;
    const active = Math.max(...run.slice(20, 60).map((t) => t.concurrent));
    console.log(
      `p99 2-3 x its floor at ticks 20-44, at most ${active} active: released ${share.toFixed(2)} x the maximum over ticks 20-60; limits ${[20, 30, 40, 50].map((k) => run[k]!.limit).join(', ')}`,
    );
    expect(active).toBeLessThan(INITIAL_LIMIT);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });

  it('a healthy origin whose p99 sits at 40-60 % of the target whatever the load: back to >= 90 % of the maximum within 30 s of a cut', () => {
    const b = { ...bounds, minPerMinute: 150, maxPerMinute: 600, maxActive: 700 };
    // Load-free latency: 300-460 ms a tick (deterministic), and one excursion over the target at 40-45.
    const noise = (t: number) => (t >= 40 && t < 46 ? 900 : 300 + ((t * 7919) % 17) * 10);
    const run = simulate({ ticks: 150, bounds: b, knee: () => 1000, baseLatencyMs: 20, sessionS: 5, claimDelayS: [1, 3], noiseMs: noise });
    const cuts = run.filter((t) => t.reason?.includes('over 800 ms target')).map((t) => t.tick);
    const share = (from: number, to: number) => releasedPerMinute(run, from, to) / b.maxPerMinute;
    const cut = cuts[0] ?? 0;
    console.log(
      `healthy origin at p99 40-60 % of target, excursion at ticks 40-45: cuts at ticks ${cuts.join(', ')}; released ${share(30, 40).toFixed(2)} x the maximum over ticks 30-40, ` +
        `${share(cut + 30, 150).toFixed(2)} x the maximum from 30 s after the cut; limits ${[30, 40, cut + 1, cut + 10, cut + 20, cut + 30].map((k) => run[k]!.limit).join(', ')}`,
    );
    expect(cuts).toHaveLength(1);
    expect(share(30, 40)).toBeGreaterThanOrEqual(0.9);
    expect(share(cut + 30, 150)).toBeGreaterThanOrEqual(0.9);
  });
});
