// The stub's capacity model as a processor-sharing server (origin-stub/load-model.ts): the steady
// state of simulatedLatencyMs, and requests that speed up and slow down with the load while they run.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestWorkMs, SharedServer, simulatedLatencyMs, type CapacityModel } from '../../origin-stub/load-model';

type Step =
  | { atMs: number; kind: 'arrive'; key: number }
  | { atMs: number; kind: 'abandon'; key: number }
  | { atMs: number; kind: 'model'; model: CapacityModel };

interface Outcome {
  /** When each request finished, ms (exact: the time of the server's own next completion). */
  finishedAt: Map<number, number>;
  /** Keys in the order they were handed out. */
  order: number[];
  arrivedAt: Map<number, number>;
  /** Requests in service right after each arrival (itself included): what the old model's sleep was computed from. */
  inServiceAtArrival: Map<number, number>;
}

/** Drives a server as the Shop does (one timer at the next completion, a call at every step), on exact times. */
function run(model: CapacityModel, steps: Step[]): Outcome {
  const server = new SharedServer<number>(model, 0);
  const sorted = [...steps].sort((a, b) => a.atMs - b.atMs);
  const out: Outcome = { finishedAt: new Map(), order: [], arrivedAt: new Map(), inServiceAtArrival: new Map() };
  const take = (atMs: number) => {
    for (const done of server.takeFinished(atMs)) {
      expect(done.atMs).toBeCloseTo(atMs, 6);
      out.finishedAt.set(done.key, done.atMs);
      out.order.push(done.key);
    }
  };
  let i = 0;
  for (;;) {
    const next = server.nextFinishAtMs();
    const step = sorted[i];
    if (step && (next === null || step.atMs < next)) {
      i++;
      if (step.kind === 'arrive') {
        server.arrive(step.key, step.atMs);
        out.arrivedAt.set(step.key, step.atMs);
        out.inServiceAtArrival.set(step.key, server.inService);
      } else if (step.kind === 'abandon') server.abandon(step.key, step.atMs);
      else server.setModel(step.model, step.atMs);
      take(step.atMs);
    } else if (next !== null) take(next);
    else return out;
  }
}

/** Drives a server with a late timer: calls only at the steps and every `everyMs`; when each request finished and was handed out. */
function runLate(model: CapacityModel, steps: Step[], everyMs: number): Map<number, { finishedAt: number; handedOutAt: number }> {
  const server = new SharedServer<number>(model, 0);
  const sorted = [...steps].sort((a, b) => a.atMs - b.atMs);
  const handedOut = new Map<number, { finishedAt: number; handedOutAt: number }>();
  let i = 0;
  for (let tick = 0; i < sorted.length || server.inService > 0;) {
    const atMs = i < sorted.length ? Math.min(sorted[i]!.atMs, tick) : tick;
    for (; i < sorted.length && sorted[i]!.atMs === atMs; i++) {
      const step = sorted[i]!;
      if (step.kind === 'arrive') server.arrive(step.key, atMs);
      else if (step.kind === 'abandon') server.abandon(step.key, atMs);
      else server.setModel(step.model, atMs);
    }
    for (const done of server.takeFinished(atMs)) handedOut.set(done.key, { finishedAt: done.atMs, handedOutAt: atMs });
    if (atMs === tick) tick += everyMs;
  }
  return handedOut;
}

const arrivals = (n: number, atMs = 0, everyMs = 0, from = 0): Step[] =>
  Array.from({ length: n }, (_, k) => ({ atMs: atMs + k * everyMs, kind: 'arrive' as const, key: from + k }));

const modelArb = fc.record({ baseLatencyMs: fc.integer({ min: 0, max: 2_000 }), capacityKnee: fc.integer({ min: 0, max: 300 }) });
/** Models whose knee the random schedules below (up to 60 requests) often pass. */
const smallModelArb = fc.record({ baseLatencyMs: fc.integer({ min: 0, max: 2_000 }), capacityKnee: fc.integer({ min: 0, max: 12 }) });

/** A random schedule: arrivals, some abandoned later, and model changes. */
const scheduleArb = fc
  .record({
    model: smallModelArb,
    arrivals: fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 60 }),
    abandons: fc.array(fc.record({ index: fc.nat(), afterMs: fc.integer({ min: 0, max: 30_000 }) }), { maxLength: 10 }),
    changes: fc.array(fc.record({ atMs: fc.integer({ min: 0, max: 40_000 }), model: smallModelArb }), { maxLength: 3 }),
  })
  .map(({ model, arrivals: at, abandons, changes }) => {
    const steps: Step[] = at.map((atMs, key) => ({ atMs, kind: 'arrive', key }));
    const gone = new Set<number>();
    for (const a of abandons) {
      const key = a.index % at.length;
      if (gone.has(key)) continue;
      gone.add(key);
      steps.push({ atMs: at[key]! + a.afterMs, kind: 'abandon', key });
    }
    for (const c of changes) steps.push({ atMs: c.atMs, kind: 'model', model: c.model });
    return { model, steps, gone };
  });

describe('the capacity model serves requests by processor sharing', () => {
  it('at a constant concurrency each request takes simulatedLatencyMs, within a ms', () => {
    fc.assert(
      fc.property(modelArb, fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 1e9 }), (model, n, t0) => {
        const out = run(model, arrivals(n, t0));
        const expected = t0 + simulatedLatencyMs(n, model.baseLatencyMs, model.capacityKnee);
        expect(out.finishedAt.size).toBe(n);
        for (const at of out.finishedAt.values()) expect(Math.abs(at - expected)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('a request never finishes before its work (of the fastest model in force), every request not abandoned finishes once, and an abandoned one never', () => {
    fc.assert(
      fc.property(scheduleArb, ({ model, steps, gone }) => {
        const out = run(model, steps);
        const models = [model, ...steps.flatMap((s) => (s.kind === 'model' ? [s.model] : []))];
        const workMs = Math.min(...models.map(requestWorkMs));
        const arrived = steps.filter((s) => s.kind === 'arrive').length;
        expect(new Set(out.order).size).toBe(out.order.length);
        for (const key of gone) {
          const finished = out.finishedAt.get(key);
          // Gone before it finished: never handed out after its abandon time.
          if (finished !== undefined) expect(finished).toBeLessThanOrEqual(steps.find((s) => s.kind === 'abandon' && s.key === key)!.atMs);
        }
        for (let key = 0; key < arrived; key++) {
          const finished = out.finishedAt.get(key);
          if (!gone.has(key)) expect(finished).toBeDefined();
          if (finished !== undefined) expect(finished - out.arrivedAt.get(key)!).toBeGreaterThanOrEqual(workMs - 1e-6);
        }
      }),
    );
  });

  it('a late timer changes nothing: each request finishes when it would have with the timer on time, and is handed out at the first call after that', () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: 1, max: 3_000 }), ({ model, steps }, everyMs) => {
        const exact = run(model, steps).finishedAt;
        const late = runLate(model, steps, everyMs);
        expect([...late.keys()].sort((a, b) => a - b)).toEqual([...exact.keys()].sort((a, b) => a - b));
        const calls = [...new Set(steps.map((s) => s.atMs))];
        for (const [key, finishedAt] of exact) {
          const due = finishedAt - 1e-6; // the model's slack: V is a sum of many small steps
          const firstCall = Math.min(Math.ceil(due / everyMs) * everyMs, ...calls.filter((t) => t >= due));
          expect(Math.abs(late.get(key)!.handedOutAt - firstCall)).toBeLessThan(1e-6);
          expect(late.get(key)!.finishedAt).toBeCloseTo(finishedAt, 3);
        }
      }),
    );
  });

  it('requests finish in arrival order, whatever the model changes', () => {
    fc.assert(
      fc.property(scheduleArb, ({ model, steps }) => {
        const arrived = steps.filter((s) => s.kind === 'arrive').sort((a, b) => a.atMs - b.atMs || a.key - b.key);
        const out = run(
          model,
          steps.filter((s) => s.kind !== 'abandon'),
        );
        expect(out.order).toEqual(arrived.map((s) => s.key));
      }),
    );
  });

  it('when another request leaves, no remaining one finishes later', () => {
    fc.assert(
      fc.property(scheduleArb, fc.nat(), fc.integer({ min: 0, max: 5_000 }), ({ model, steps, gone }, pick, afterMs) => {
        const arrivalsOnly = steps.filter((s): s is Extract<Step, { kind: 'arrive' }> => s.kind === 'arrive');
        const leaver = arrivalsOnly[pick % arrivalsOnly.length]!;
        if (gone.has(leaver.key)) return;
        const base = run(model, steps);
        const fewer = run(model, [...steps, { atMs: leaver.atMs + afterMs, kind: 'abandon', key: leaver.key }]);
        for (const [key, at] of fewer.finishedAt) if (key !== leaver.key) expect(at).toBeLessThanOrEqual(base.finishedAt.get(key)! + 1e-6);
      }),
    );
  });

  it('every request slows down when one more arrives, and one left alone runs at full speed from the moment the others finish', () => {
    // 19 requests at t=0 (each at 20/245 of full speed: base 20 ms, knee 4), one more at t=10 (20 in service: 20/276).
    const out = run({ baseLatencyMs: 20, capacityKnee: 4 }, [...arrivals(19), { atMs: 10, kind: 'arrive', key: 19 }]);
    const first = out.finishedAt.get(0)!;
    // The 19 got their 20 ms of work after 10 + (20 - 10 x 20/245) x 276/20 ms; the last one had 20 x (first - 10) / 276 of it then.
    expect(first).toBeCloseTo(10 + ((20 - (10 * 20) / 245) * 276) / 20, 6);
    const left = 20 - (20 * (first - 10)) / 276;
    // Then alone (c = 1, under the knee): at full speed.
    expect(out.finishedAt.get(19)!).toBeCloseTo(first + left, 6);
    expect(out.order).toEqual([...Array.from({ length: 19 }, (_, k) => k), 19]);
  });

  // npm run bench:control, halved-capacity row (knee 8 -> 4): a burst took the stub to ~200
  // requests in flight, each request arriving then slept 40-70 s from its arrival (its sleep fixed
  // by the concurrency at that instant), those sleeps went on after the gateway had given up on
  // them and after the load had dropped, and the origin's p99 stayed at 50-78 s for 100 s with 10
  // visitors left. The failing input: 200 in flight at knee 4, then the load drops to 10.
  describe('the failing input of bench:control: 200 in flight at knee 4, then the load drops', () => {
    const model = { baseLatencyMs: 20, capacityKnee: 4 };
    /** When a request would have finished with its sleep fixed at arrival (the old stub). */
    const fixedAtArrival = (out: Outcome, key: number) =>
      out.arrivedAt.get(key)! + simulatedLatencyMs(out.inServiceAtArrival.get(key)!, 20, 4);

    it('the gateway gives up on 190 of them at its 15 s timeout: the other 10 finish within 2 s (a sleep fixed at arrival: 35-38 s)', () => {
      const burst = arrivals(200, 0, 0.5); // 200 within 100 ms
      const gone: Step[] = Array.from({ length: 190 }, (_, key) => ({ atMs: key * 0.5 + 15_000, kind: 'abandon', key }));
      const out = run(model, [...burst, ...gone]);
      expect(out.inServiceAtArrival.get(199)).toBe(200);
      const dropAt = 189 * 0.5 + 15_000;
      for (let key = 190; key < 200; key++) {
        expect(out.finishedAt.get(key)! - dropAt).toBeLessThan(2_000);
        expect(fixedAtArrival(out, key)).toBeGreaterThan(35_000);
      }
      expect(out.order).toEqual(Array.from({ length: 10 }, (_, k) => 190 + k));
    });

    it('190 of them finish: 10 that arrived while over 100 were in service finish within 2 s of them (a sleep fixed at arrival: 10 s more)', () => {
      const late = Array.from({ length: 10 }, (_, k): Step => ({ atMs: 30_000 + k * 100, kind: 'arrive', key: 190 + k }));
      const out = run(model, [...arrivals(190, 0, 0.5), ...late]);
      const dropAt = Math.max(...Array.from({ length: 190 }, (_, key) => out.finishedAt.get(key)!));
      for (let key = 190; key < 200; key++) {
        expect(out.inServiceAtArrival.get(key)).toBeGreaterThan(100);
        expect(out.finishedAt.get(key)! - dropAt).toBeLessThan(2_000);
        expect(fixedAtArrival(out, key) - dropAt).toBeGreaterThan(5_000);
      }
      // A request arriving after the drop is served at the formula of the load it finds.
      const after = run(model, [...arrivals(190, 0, 0.5), ...late, { atMs: 60_000, kind: 'arrive', key: 200 }]);
      expect(after.finishedAt.get(200)! - 60_000).toBeCloseTo(20, 6);
    });
  });

  describe('a capacity change applies from its moment', () => {
    it('a halved knee slows the requests in service from then on, and the time before it is served at the old speed', () => {
      // 20 requests of 20 ms at knee 20 (full speed); at 10 ms the knee drops to 0: 20 + 20^2 = 420 ms each, so the 10 ms left take 210 ms.
      const out = run({ baseLatencyMs: 20, capacityKnee: 20 }, [
        ...arrivals(20),
        { atMs: 10, kind: 'model', model: { baseLatencyMs: 20, capacityKnee: 0 } },
      ]);
      for (const at of out.finishedAt.values()) expect(at).toBeCloseTo(220, 6);
    });

    it('the rest of every request in service is served under the new model: half done at base 20, the other half at base 100', () => {
      const out = run({ baseLatencyMs: 20, capacityKnee: 0 }, [
        ...arrivals(10), // 20 + 10^2 = 120 ms each at knee 0: half done at 60 ms
        { atMs: 60, kind: 'model', model: { baseLatencyMs: 100, capacityKnee: 50 } }, // then 100 ms each (under the knee)
        { atMs: 60, kind: 'arrive', key: 10 },
      ]);
      for (let key = 0; key < 10; key++) expect(out.finishedAt.get(key)).toBeCloseTo(110, 6);
      expect(out.finishedAt.get(10)).toBeCloseTo(160, 6);
    });

    it("an operator's 60 s base latency, reset after 300 ms, ends the request it slowed at once", () => {
      const out = run({ baseLatencyMs: 60_000, capacityKnee: 0 }, [
        ...arrivals(1),
        { atMs: 300, kind: 'model', model: { baseLatencyMs: 20, capacityKnee: 1_000 } },
      ]);
      expect(out.finishedAt.get(0)).toBeCloseTo(300 + 20 * (1 - 300 / 60_001), 6);
    });

    it('setting the model in force changes nothing', () => {
      fc.assert(
        fc.property(scheduleArb, fc.integer({ min: 0, max: 40_000 }), ({ model, steps }, atMs) => {
          const plain = steps.filter((s) => s.kind !== 'model');
          const base = run(model, plain);
          const same = run(model, [...plain, { atMs, kind: 'model', model }]);
          for (const [key, at] of base.finishedAt) expect(same.finishedAt.get(key)).toBeCloseTo(at, 3);
        }),
      );
    });
  });

  it('time that runs backwards serves nothing, and an unknown or finished request cannot be abandoned', () => {
    const server = new SharedServer<string>({ baseLatencyMs: 20, capacityKnee: 4 }, 1_000);
    server.arrive('a', 1_000);
    expect(server.takeFinished(500)).toEqual([]);
    expect(server.nextFinishAtMs()).toBe(1_020);
    expect(server.abandon('b', 1_005)).toBe(false);
    expect(server.takeFinished(1_020)).toEqual([{ key: 'a', atMs: 1_020 }]);
    expect(server.abandon('a', 1_030)).toBe(false);
    expect(server.inService).toBe(0);
    expect(server.nextFinishAtMs()).toBeNull();
  });
});

describe('where the stub serves its most (the cliff a delay gradient cannot see)', () => {
  /** Requests finished per ms with `c` in service at steady state: c / simulatedLatencyMs(c). */
  const throughput = (c: number, base: number, knee: number) => c / simulatedLatencyMs(c, base, knee);
  const peak = (base: number, knee: number) => {
    let best = { c: 1, x: 0 };
    for (let c = 1; c <= 4 * knee + 40; c += 0.05) {
      const x = throughput(c, base, knee);
      if (x > best.x) best = { c, x };
    }
    return best;
  };

  it("bench:control's origin (20 ms, knee 8 and halved to 4) serves the most at under 1.25 x its base latency, and at 2 x it already serves less (0.73 and 0.85 of its most)", () => {
    for (const knee of [8, 4]) {
      const top = peak(20, knee);
      expect(simulatedLatencyMs(top.c, 20, knee) / 20).toBeLessThan(1.25);
      const atTwice = knee + Math.sqrt(20); // base + excess^2 = 2 x base
      expect(simulatedLatencyMs(atTwice, 20, knee)).toBeCloseTo(40, 6);
      expect(atTwice).toBeGreaterThan(top.c);
      expect(throughput(atTwice, 20, knee) / top.x).toBeCloseTo(knee === 8 ? 0.73 : 0.85, 2);
    }
  });
});
