// The edge's limit on requests in flight to the origin: the learned limit (a Gradient2 limiter
// against the windowed minimum round trip) and the gate that keeps the requests over it waiting in
// arrival order.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConcurrencyLimit,
  INITIAL_ORIGIN_LIMIT,
  MAX_ORIGIN_LIMIT,
  MAX_PER_VISITOR,
  MIN_ORIGIN_LIMIT,
  OriginGate,
  RTT_TOLERANCE,
  WINDOW_MS,
} from '../../src/lib/origin-limit';

/** Runs one full window of `n` answers of `rttMs` each at the limit's own load, ending at `nowMs`. */
function window(limit: ConcurrencyLimit, rttMs: number, nowMs: number, inFlight = Math.floor(limit.limit)): void {
  while (limit.inFlight < inFlight) limit.started(nowMs - WINDOW_MS);
  for (let i = 0; i < 20; i++) {
    limit.ended(rttMs, nowMs - WINDOW_MS + ((i + 1) * WINDOW_MS) / 20);
    limit.started(nowMs - WINDOW_MS + ((i + 1) * WINDOW_MS) / 20);
  }
}

describe('the learned limit', () => {
  it('stays within its bounds and never counts a negative load, whatever the answers', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('start' as const), dt: fc.integer({ min: 0, max: 2_000 }) }),
      fc.record({
        kind: fc.constant('end' as const),
        dt: fc.integer({ min: 0, max: 2_000 }),
        rtt: fc.double({ min: 0, max: 60_000, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const limit = new ConcurrencyLimit();
        let now = 1_000_000;
        for (const o of ops) {
          now += o.dt;
          if (o.kind === 'start') limit.started(now);
          else limit.ended(o.rtt, now);
          expect(limit.limit).toBeGreaterThanOrEqual(MIN_ORIGIN_LIMIT);
          expect(limit.limit).toBeLessThanOrEqual(MAX_ORIGIN_LIMIT);
          expect(limit.inFlight).toBeGreaterThanOrEqual(0);
          expect(limit.allows()).toBe(limit.inFlight < Math.floor(limit.limit));
        }
      }),
    );
  });

  it('grows while the round trips stay within the tolerance of their minimum and the load uses the limit', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 500, noNaN: true }), fc.double({ min: 1, max: RTT_TOLERANCE, noNaN: true }), (base, rise) => {
        const limit = new ConcurrencyLimit();
        window(limit, base, 1_000_000);
        const before = limit.limit;
        window(limit, base * rise, 1_000_000 + WINDOW_MS);
        expect(limit.limit).toBeGreaterThan(before);
      }),
    );
  });

  it('falls once the round trips rise well over their minimum (a queue at the origin)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 500, noNaN: true }),
        fc.double({ min: 2 * RTT_TOLERANCE, max: 1_000, noNaN: true }),
        (base, rise) => {
          const limit = new ConcurrencyLimit();
          window(limit, base, 1_000_000);
          const before = limit.limit;
          window(limit, base * rise, 1_000_000 + WINDOW_MS);
          expect(limit.limit).toBeLessThan(before);
        },
      ),
    );
  });

  it('never grows on a window that used less than half of it (nothing learned about the origin)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 500, noNaN: true }), fc.integer({ min: 0, max: INITIAL_ORIGIN_LIMIT / 2 - 2 }), (rtt, load) => {
        const limit = new ConcurrencyLimit();
        for (let w = 0; w < 5; w++) {
          const before = limit.limit;
          window(limit, rtt, 1_000_000 + w * WINDOW_MS, load);
          expect(limit.limit).toBeLessThanOrEqual(before);
        }
      }),
    );
  });
});

describe('the gate', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends at once under the limit, keeps the rest waiting in arrival order, and lets each in as one is answered', async () => {
    const gate = new OriginGate(() => Date.now());
    const slots = await Promise.all(Array.from({ length: INITIAL_ORIGIN_LIMIT }, () => gate.enter(1_000)));
    expect(slots.every((s) => s !== null)).toBe(true);
    const order: number[] = [];
    const late = [0, 1, 2].map((i) => gate.enter(1_000).then((s) => (order.push(i), s)));
    expect(gate.queued).toBe(3);
    slots[0]!.done();
    slots[0]!.done(); // a second call counts nothing
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([0]);
    slots[1]!.done();
    slots[2]!.done();
    expect((await Promise.all(late)).every((s) => s !== null)).toBe(true);
    expect(order).toEqual([0, 1, 2]);
    expect(gate.limit.inFlight).toBe(INITIAL_ORIGIN_LIMIT);
  });

  it('refuses a request that waited its whole time, which then takes no place', async () => {
    const gate = new OriginGate(() => Date.now());
    const slots = await Promise.all(Array.from({ length: INITIAL_ORIGIN_LIMIT }, () => gate.enter(1_000)));
    const waits: number[] = [];
    const waiting = gate.enter(1_000, { onWait: (ms) => waits.push(ms) });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await waiting).toBeNull();
    // The release law hears of the whole wait (edge-wait.ts); a request sent at once waited 0.
    expect(waits).toEqual([1_000]);
    expect(gate.queued).toBe(0);
    slots[0]!.done();
    expect(gate.limit.inFlight).toBe(INITIAL_ORIGIN_LIMIT - 1);
    await gate.enter(1_000, { onWait: (ms) => waits.push(ms) });
    expect(waits).toEqual([1_000, 0]);
  });

  it('never lets one visitor hold more than its share of places, and never lets a visitor at its cap block the ones behind it', async () => {
    vi.useRealTimers();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 60 }), async (askers) => {
        const gate = new OriginGate();
        const held = new Map<string, number>();
        const slots: { visitor: string; slot: NonNullable<Awaited<ReturnType<OriginGate['enter']>>> }[] = [];
        const pending = askers.map((v) =>
          gate.enter(60_000, { visitorId: `v${v}` }).then((slot) => {
            if (!slot) return;
            const n = (held.get(`v${v}`) ?? 0) + 1;
            held.set(`v${v}`, n);
            expect(n).toBeLessThanOrEqual(MAX_PER_VISITOR);
            slots.push({ visitor: `v${v}`, slot });
          }),
        );
        await new Promise((r) => setTimeout(r, 0));
        // A request waits only behind a full limit or its visitor's cap: what is in flight is the
        // most both allow.
        const asked = new Map<number, number>();
        for (const v of askers) asked.set(v, (asked.get(v) ?? 0) + 1);
        const allowed = [...asked.values()].reduce((a, n) => a + Math.min(n, MAX_PER_VISITOR), 0);
        expect(gate.limit.inFlight).toBe(Math.min(INITIAL_ORIGIN_LIMIT, allowed));
        for (const { visitor } of slots) expect(held.get(visitor)!).toBeLessThanOrEqual(MAX_PER_VISITOR);
        // Answer everything in turn: every request gets a place in the end.
        while (slots.length > 0) {
          const s = slots.shift()!;
          held.set(s.visitor, held.get(s.visitor)! - 1);
          s.slot.done();
          await new Promise((r) => setTimeout(r, 0));
        }
        await Promise.all(pending);
        expect(gate.queued).toBe(0);
        expect(gate.limit.inFlight).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it('sends a second visitor at once while the first waits at its cap', async () => {
    const gate = new OriginGate(() => Date.now());
    const first = await Promise.all(Array.from({ length: MAX_PER_VISITOR }, () => gate.enter(1_000, { visitorId: 'a' })));
    const capped = gate.enter(1_000, { visitorId: 'a' });
    expect(gate.queued).toBe(1);
    expect(await gate.enter(1_000, { visitorId: 'b' })).not.toBeNull();
    first[0]!.done();
    expect(await capped).not.toBeNull();
  });
});
