// The sliding window: percentiles and error rate of exactly the samples inside it, bounded memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActiveVisitors, LatencyWindow, quantile, RunningRequests } from '../src/index.ts';

const T = 1_000_000;

describe('LatencyWindow', () => {
  it('answers zeros with no samples, and the nearest-rank p50/p99 and error rate of the window', () => {
    const w = new LatencyWindow({ windowMs: 10_000 });
    expect(w.stats(T)).toEqual({ count: 0, p50LatencyMs: 0, p99LatencyMs: 0, errorRate: 0, inFlight: 0 });
    for (let i = 1; i <= 100; i++) w.record(T + i, i, i % 10 !== 0);
    expect(w.stats(T + 100)).toEqual({ count: 100, p50LatencyMs: 50, p99LatencyMs: 99, errorRate: 0.1, inFlight: 0 });
  });

  it('forgets samples older than the window', () => {
    const w = new LatencyWindow({ windowMs: 10_000 });
    w.record(T, 900, false);
    w.record(T + 5_000, 20, true);
    expect(w.stats(T + 10_000).count).toBe(2);
    expect(w.stats(T + 10_001)).toEqual({ count: 1, p50LatencyMs: 20, p99LatencyMs: 20, errorRate: 0, inFlight: 0 });
  });

  it('ignores negative and non-finite latencies (a clock step), and refuses bad options', () => {
    const w = new LatencyWindow();
    w.record(T, -5, true);
    w.record(T, Number.NaN, true);
    w.record(T, Number.POSITIVE_INFINITY, false);
    expect(w.stats(T).count).toBe(0);
    expect(() => new LatencyWindow({ windowMs: 10 })).toThrow(/windowMs/);
    expect(() => new LatencyWindow({ maxSamples: 0 })).toThrow(/maxSamples/);
  });

  it('matches a direct computation over the in-window samples, for any arrival pattern (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 3_000 }), ms: fc.integer({ min: 0, max: 5_000 }), ok: fc.boolean() }), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 50 }),
        (samples, maxSamples) => {
          const w = new LatencyWindow({ windowMs: 5_000, maxSamples });
          let now = T;
          const all: { at: number; ms: number; ok: boolean }[] = [];
          for (const s of samples) {
            now += s.dt;
            w.record(now, s.ms, s.ok);
            all.push({ at: now, ms: s.ms, ok: s.ok });
          }
          const inWindow = all.filter((s) => now - s.at <= 5_000).slice(-maxSamples);
          const got = w.stats(now);
          expect(got.count).toBe(inWindow.length);
          expect(got.p99LatencyMs).toBe(
            quantile(
              inWindow.map((s) => s.ms),
              0.99,
            ),
          );
          expect(got.p50LatencyMs).toBeLessThanOrEqual(got.p99LatencyMs);
          expect(got.errorRate).toBeCloseTo(inWindow.length ? inWindow.filter((s) => !s.ok).length / inWindow.length : 0, 12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps memory bounded under a flood', () => {
    const w = new LatencyWindow({ maxSamples: 100 });
    for (let i = 0; i < 100_000; i++) w.record(T, 1, true);
    expect(w.stats(T).count).toBe(100);
  });
});

// A crowd run: an origin far past its capacity completed almost nothing for a while, so its windows
// held 0-few samples ("p99 0 ms", nothing measured) while 234 requests were in flight, some for
// 10+ s, and the gateway could not cut until the requests it gave up on completed.
describe('LatencyWindow with requests still running (censored samples)', () => {
  it('reads 200 requests running for 12 s with none completed as p99 12,000 ms over 200 samples, not nothing measured', () => {
    const w = new LatencyWindow();
    expect(w.stats(T).p99LatencyMs).toBe(0); // what the window said before: nothing measured
    const running = Array.from({ length: 200 }, () => 12_000);
    expect(w.stats(T, running)).toEqual({ count: 200, p50LatencyMs: 12_000, p99LatencyMs: 12_000, errorRate: 0, inFlight: 200 });
  });

  it('counts only running requests at least as old as the completed p99, and keeps the error rate of the completed ones', () => {
    const w = new LatencyWindow();
    for (let i = 1; i <= 100; i++) w.record(T, i, i > 10); // p99 99 ms, 10 % errors
    // 50 young ones (< 99 ms) may still end fast or slow: they wait for their real time.
    const got = w.stats(T, [...Array.from({ length: 50 }, (_, i) => i), 5_000, 6_000, 7_000]);
    expect(got).toEqual({ count: 103, p50LatencyMs: 52, p99LatencyMs: 6_000, errorRate: 0.1, inFlight: 3 });
  });

  it('with nothing running, reports exactly the completed requests (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ms: fc.integer({ min: 0, max: 20_000 }), ok: fc.boolean() }), { maxLength: 200 }), (samples) => {
        const w = new LatencyWindow();
        for (const s of samples) w.record(T, s.ms, s.ok);
        const ms = samples.map((s) => s.ms);
        expect(w.stats(T, [])).toEqual({
          count: samples.length,
          p50LatencyMs: quantile(ms, 0.5),
          p99LatencyMs: quantile(ms, 0.99),
          errorRate: samples.length ? samples.filter((s) => !s.ok).length / samples.length : 0,
          inFlight: 0,
        });
      }),
      { numRuns: 300 },
    );
  });

  // The statement: for any age A, when the requests running for at least A ms are more than 1 % of
  // the report's samples, its p99 is at least A (nearest rank: fewer than 99 % of the samples are
  // then below A). In particular, with nothing completed and every request stuck for A, p99 >= A.
  // And the running requests never make a report more optimistic than its completed requests.
  it('p99 is at least A whenever requests running for A ms or more are over 1 % of the samples, and never below the completed p99 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 20_000 }), ok: fc.boolean() }), { maxLength: 150 }),
        fc.array(fc.integer({ min: 0, max: 120_000 }), { maxLength: 150 }),
        (samples, running) => {
          const w = new LatencyWindow();
          for (const s of samples) w.record(T, s.ms, s.ok);
          const alone = w.stats(T);
          const got = w.stats(T, running);
          for (const a of running) {
            const stuck = running.filter((age) => age >= a).length;
            if (stuck * 100 > got.count) expect(got.p99LatencyMs).toBeGreaterThanOrEqual(a);
          }
          expect(got.p99LatencyMs).toBeGreaterThanOrEqual(alone.p99LatencyMs);
          expect(got.p50LatencyMs).toBeGreaterThanOrEqual(alone.p50LatencyMs);
          expect(got.p50LatencyMs).toBeLessThanOrEqual(got.p99LatencyMs);
          // Each request is one sample at most: completed ones once, running ones at most once.
          expect(got.count).toBe(alone.count + got.inFlight);
          expect(got.inFlight).toBeLessThanOrEqual(running.length);
          expect(got.errorRate).toBe(alone.errorRate);
          if (alone.count === 0) expect(got.inFlight).toBe(running.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('RunningRequests', () => {
  it('gives the ages of the requests begun and not ended, forgets one past maxInFlightMs, and keeps at most max', () => {
    const r = new RunningRequests({ maxInFlightMs: 60_000, max: 3 });
    const a = r.begin(T);
    r.begin(T + 1_000);
    const c = r.begin(T + 2_000);
    r.end(c);
    r.end(c); // twice: nothing more
    r.end(12345); // unknown: ignored
    expect(r.ages(T + 5_000)).toEqual([5_000, 4_000]);
    expect(r.ages(T + 60_500)).toEqual([59_500]); // the first is past 60 s: forgotten
    r.end(a);
    expect(r.size).toBe(1);
    for (let i = 0; i < 5; i++) r.begin(T + 70_000);
    expect(r.size).toBe(3);
    expect(r.ages(T - 1_000)).toEqual([0, 0, 0]); // a clock step back: never a negative age
  });

  it('refuses bad options with a TypeError naming the option', () => {
    expect(() => new RunningRequests({ maxInFlightMs: 999 })).toThrow(/maxInFlightMs/);
    expect(() => new RunningRequests({ maxInFlightMs: 600_001 })).toThrow(/maxInFlightMs/);
    expect(() => new RunningRequests({ max: 0 })).toThrow(/max/);
  });
});

describe('ActiveVisitors', () => {
  it('counts distinct visitors seen within 60 s, re-seen ones stay', () => {
    const a = new ActiveVisitors(60_000);
    a.touch('v1', T);
    a.touch('v2', T + 1_000);
    a.touch('v1', T + 30_000);
    expect(a.count(T + 60_500)).toBe(2);
    expect(a.count(T + 61_001)).toBe(1);
    expect(a.count(T + 90_001)).toBe(0);
  });
});
