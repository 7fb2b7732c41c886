// The wait estimate over a modelled room (test/helpers/room-sim.ts): the pace the WaitingRoom
// publishes (admission-pace roomPace) read by the edge (queue-policy estimateWait), right while the
// release rate binds and while a slot bound binds, and steady from one poll to the next.
// The "old" numbers quoted are what the code before this change published for the same
// instants: measuredAdmissionRate(..., slotsFull) with slotsFull from whatBinds at that instant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateWait } from '../../contracts/queue/queue-policy';
import { roomPace } from '../../durable-objects/waiting-room/admission-pace';
import { SIM_T0, releasedAtS, simulateRoom, type SimInstant, type SimRoom } from '../helpers/room-sim';

/** The estimate for the visitor at `position` at instant `i`, as the cursor would give it. */
function estimateAt(room: SimRoom, i: SimInstant, position: number): number | null {
  // The room reads the samples of about the last minute (room-reads ADMISSION_SAMPLES_MS).
  const samples = i.samples.filter((s) => s.at >= i.at - 65_000);
  const pace = roomPace(samples, i.at, SIM_T0, room.ratePerMinute, i.claimsSince, {
    bound: room.slotBound,
    active: i.active,
    expectedArrivals: 0,
  });
  return estimateWait(position, pace);
}

/** A room at 600/min into which 100/min trickle for two minutes, then `burst` join at once (at 120 s); every visitor stays `stayS`. */
function burstInto(slotBound: number, stayS: number, burst: number): SimRoom {
  return { slotBound, ratePerMinute: 600, stayS: () => stayS, arrivals: (s) => (s < 120 ? (s % 3 === 0 ? 5 : 0) : s === 120 ? burst : 0) };
}

/** A repeatable stream of stays, uniform in [lo, hi] s. */
function stays(seed: number, lo: number, hi: number): (i: number) => number {
  let x = seed >>> 0;
  const list: number[] = [];
  return (i) => {
    while (list.length <= i) list.push(Math.round(lo + (hi - lo) * ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32)));
    return list[i]!;
  };
}

describe('wait estimate over a modelled room', () => {
  // Failing input (a): max active 100, visitors stay 40 s (the bound admits 150/min when full),
  // the rate 600/min; 100/min trickle in for two minutes (about 65 active), then 300 join at once.
  // At the join the old code read the rate alone (35 free slots are more than a tick's 10, so
  // `release_rate`; no queued time measured, so the rate in force): 30 s for the 300th, who was
  // released 117 s later. Five seconds on, with the bound full, it said it could not estimate
  // (null), and 125 s five seconds after that.
  it('at a join behind a short slot bound, waits for the slots, not for the rate alone', () => {
    const room = burstInto(100, 40, 300);
    const run = simulateRoom(room, 300);
    const join = run[120]!.before;
    expect(join).toMatchObject({ waiting: 300, freeSlots: 35 });
    const wait = estimateAt(room, join, 300)!;
    expect(wait).toBe(106);
    expect(wait / 30).toBeGreaterThan(3.5);
    // The model released the 300th (290th after the join tick) 117 s later.
    expect(releasedAtS(run, 120, run[120]!.after.waiting)! - 120).toBe(117);
    // And that visitor's estimate stays put while the burst is let in and the bound fills (old: 29
    // at 121 s, null at 125 s, 125 s at 130 s); it falls as they move up.
    const released = (i: SimInstant) => i.samples.at(-1)!.admittedTotal - join.samples.at(-1)!.admittedTotal;
    for (const s of [121, 125, 130]) {
      const i = run[s]!.before;
      expect(Math.abs(estimateAt(room, i, 300 - released(i))! - (106 - (s - 120)))).toBeLessThan(10);
    }
  });

  // Failing input (b): max active 100, rate 120/min (2 a tick), stays of 30-90 s, 3,000 join at
  // once; the bound filled at 53 s. At 59 s, right after a tick, the bound was full and the old code
  // counted only the releases that replaced a departure (the room had filled during the minute):
  // 1,362 s for the 300th; one second later 2 slots were free (a whole tick's worth, so
  // `release_rate`) and it counted every release: 163 s. The model released that visitor 180 s later.
  it('gives the same visitor about the same estimate with the bound full and, a second later, not', () => {
    const room: SimRoom = { slotBound: 100, ratePerMinute: 120, stayS: stays(7, 30, 90), arrivals: (s) => (s === 0 ? 3000 : 0) };
    const run = simulateRoom(room, 400);
    const full = run[59]!.after;
    const next = run[60]!.before;
    expect(full.freeSlots).toBe(0);
    expect(next.freeSlots).toBe(2);
    const a = estimateAt(room, full, 300)!;
    const b = estimateAt(room, next, 300)!;
    expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(1.2);
    // Both are far above the 180 s the model took (794 and 703 s): 6 s after it filled, the room's
    // visitors have barely begun to leave (stays of 30-90 s), so the departures measured are too
    // few. Once a whole stay has been measured the estimate is within 10 % of the model's time.
    expect(releasedAtS(run, 59, 300)! - 59).toBe(180);
    for (let s = 150; s < 300; s += 10) {
      const truth = releasedAtS(run, s, 300)! - s;
      expect(Math.abs(estimateAt(room, run[s]!.after, 300)! - truth) / truth).toBeLessThan(0.1);
    }
  });

  // Failing input (c): a burst into a roomy bound. Max active 1,000, 100 active leaving 100/min
  // (stays of 60 s), the rate 600/min, 5,000 join. Counting only the departures measured, the
  // 4,095 slots past the 905 free would take 41 min; once the room is full, its 1,000 visitors
  // leave about 1,000/min, so the rate (8-9 min) is what binds.
  it('scales the slots freed to a full bound, so a roomy room is not read as a slow one', () => {
    const room = burstInto(1000, 60, 5000);
    const run = simulateRoom(room, 900);
    const join = run[120]!.before;
    expect(join.freeSlots).toBe(905);
    const wait = estimateAt(room, join, 5000)!;
    expect(wait).toBe(500);
    const truth = releasedAtS(run, 120, run[120]!.after.waiting)! - 120;
    expect(Math.abs(wait - truth) / truth).toBeLessThan(0.1);
  });

  // The property behind (b): over rooms whose bound is full at one instant and not the next (a
  // tick fills it, visitors leave before the next), one visitor's estimate, polled every half
  // second (before and after each tick) from joining until released, never rises by more than 20 %
  // (or 15 s) from one poll to the next. It may fall fast: right after a room fills, each departure
  // adds much of what is known about how long visitors stay. The old code failed it: in the room
  // of (b), 163 s for the 300th at 60 s with 2 slots free, 1,200 s right after that second's tick.
  it('does not flip between polls (property)', () => {
    const rooms = fc.record({
      slotBound: fc.integer({ min: 20, max: 300 }),
      lo: fc.integer({ min: 20, max: 120 }),
      spread: fc.double({ min: 1.5, max: 3, noNaN: true }),
      rateFactor: fc.double({ min: 0.6, max: 3, noNaN: true }),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(rooms, fc.double({ min: 0, max: 1, noNaN: true }), (r, where) => {
        const hi = Math.round(r.lo * r.spread);
        const turnover = (r.slotBound * 60) / ((r.lo + hi) / 2);
        const rate = Math.max(1, Math.round(turnover * r.rateFactor));
        const room: SimRoom = {
          slotBound: r.slotBound,
          ratePerMinute: rate,
          stayS: stays(r.seed, r.lo, hi),
          arrivals: (s) => (s === 0 ? 100_000 : 0),
        };
        const run = simulateRoom(room, 400);
        let position = 1 + Math.floor(where * 20 * r.slotBound);
        let last: number | null = null;
        for (let s = 10; s < run.length && position > 0; s++) {
          for (const [i, at] of [
            [run[s]!.before, position],
            [run[s]!.after, position - run[s]!.after.released],
          ] as const) {
            if (at <= 0) break;
            const wait = estimateAt(room, i, at);
            if (last !== null && wait !== null) expect(wait).toBeLessThanOrEqual(Math.max(last * 1.25, last + 15));
            last = wait;
          }
          position -= run[s]!.after.released;
        }
      }),
      { numRuns: 300 },
    );
  });
});
