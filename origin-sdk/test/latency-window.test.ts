// The sliding window: percentiles and error rate of exactly the samples inside it, bounded memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActiveVisitors, LatencyWindow, quantile } from '../src/index.ts';

const T = 1_000_000;

describe('LatencyWindow', () => {
  it('answers zeros with no samples, and the nearest-rank p50/p99 and error rate of the window', () => {
    const w = new LatencyWindow({ windowMs: 10_000 });
    expect(w.stats(T)).toEqual({ count: 0, p50LatencyMs: 0, p99LatencyMs: 0, errorRate: 0 });
    for (let i = 1; i <= 100; i++) w.record(T + i, i, i % 10 !== 0);
    expect(w.stats(T + 100)).toEqual({ count: 100, p50LatencyMs: 50, p99LatencyMs: 99, errorRate: 0.1 });
  });

  it('forgets samples older than the window', () => {
    const w = new LatencyWindow({ windowMs: 10_000 });
    w.record(T, 900, false);
    w.record(T + 5_000, 20, true);
    expect(w.stats(T + 10_000).count).toBe(2);
    expect(w.stats(T + 10_001)).toEqual({ count: 1, p50LatencyMs: 20, p99LatencyMs: 20, errorRate: 0 });
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
