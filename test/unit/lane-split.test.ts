// Presale lanes: the tick's budget split among lanes (property): never more than the budget, shares
// respected, nothing wasted, unused share flowing on in the organizer's order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitLaneBudget, type LaneDemand } from '../../durable-objects/waiting-room/lane-split';

/** 1-5 queues whose shares add up to at most 100 %. */
const queuesArb = fc
  .array(fc.record({ eligible: fc.nat({ max: 5000 }), sharePercent: fc.nat({ max: 100 }) }), { minLength: 1, maxLength: 5 })
  .map((qs) => {
    let room = 100;
    return qs.map((q): LaneDemand => {
      const sharePercent = Math.min(q.sharePercent, room);
      room -= sharePercent;
      return { eligible: q.eligible, sharePercent };
    });
  });

describe('splitLaneBudget', () => {
  it('never gives more than the budget, nor a queue more than it can release, and wastes nothing', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), queuesArb, (budget, queues) => {
        const out = splitLaneBudget(budget, queues).admit;
        const eligible = queues.reduce((a, q) => a + q.eligible, 0);
        expect(out.reduce((a, b) => a + b, 0)).toBe(Math.min(budget, eligible));
        out.forEach((n, i) => {
          expect(Number.isInteger(n) && n >= 0).toBe(true);
          expect(n).toBeLessThanOrEqual(queues[i]!.eligible);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('gives every queue at least its share of what it can release', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), queuesArb, (budget, queues) => {
        const out = splitLaneBudget(budget, queues).admit;
        queues.forEach((q, i) => expect(out[i]).toBeGreaterThanOrEqual(Math.min(q.eligible, Math.floor((budget * q.sharePercent) / 100))));
      }),
      { numRuns: 500 },
    );
  });

  it('lets unused share flow on in order: a queue gets more than its rounded-up share only when every queue before it is served', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), queuesArb, (budget, queues) => {
        const out = splitLaneBudget(budget, queues).admit;
        queues.forEach((q, j) => {
          if (out[j]! > Math.ceil((budget * q.sharePercent) / 100)) for (let i = 0; i < j; i++) expect(out[i]).toBe(queues[i]!.eligible);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('splits as the organizer set it (table)', () => {
    const cases: [number, LaneDemand[], number[]][] = [
      // presale 50 %, members 30 %, public 20 %, everyone has visitors
      [
        100,
        [
          { eligible: 500, sharePercent: 50 },
          { eligible: 500, sharePercent: 30 },
          { eligible: 500, sharePercent: 20 },
        ],
        [50, 30, 20],
      ],
      // presale has only 10 waiting: its unused 40 go to members first, then public
      [
        100,
        [
          { eligible: 10, sharePercent: 50 },
          { eligible: 500, sharePercent: 30 },
          { eligible: 500, sharePercent: 20 },
        ],
        [10, 70, 20],
      ],
      // a lane before its sale start (eligible 0) gives all of its share on
      [
        100,
        [
          { eligible: 0, sharePercent: 50 },
          { eligible: 500, sharePercent: 0 },
          { eligible: 500, sharePercent: 50 },
        ],
        [0, 50, 50],
      ],
      // rounding: 7 x 50 % = 3.5: the spare one goes to the first queue that can use it
      [
        7,
        [
          { eligible: 9, sharePercent: 50 },
          { eligible: 9, sharePercent: 50 },
        ],
        [4, 3],
      ],
      [0, [{ eligible: 9, sharePercent: 50 }], [0]],
    ];
    for (const [budget, queues, want] of cases) expect(splitLaneBudget(budget, queues).admit).toEqual(want);
  });

  // At a budget of 1-2 per tick each tick's rounding went to the first
  // lane: fan 30 % and public 70 % at 60/min released fan 27 : public 5.
  /** What each queue released over `ticks` ticks of `budget`, the credit carried as the tick carries it. */
  const over = (ticks: number, budget: number, queues: LaneDemand[]) => {
    const got = queues.map(() => 0);
    let credit: number[] = [];
    for (let tick = 0; tick < ticks; tick++) {
      const split = splitLaneBudget(budget, queues, credit);
      split.admit.forEach((n, i) => (got[i]! += n));
      credit = split.credit;
    }
    return got;
  };

  it('gives each line its share over many small ticks (fan 30 %, an empty lane 20 %, public 50 %)', () => {
    const line = (eligible: number, sharePercent: number): LaneDemand => ({ eligible, sharePercent });
    // Without the empty lane: 30 : 70 (before: 100 : 0 at a budget of 1).
    expect(over(100, 1, [line(1000, 30), line(1000, 70)])).toEqual([30, 70]);
    // The empty lane's 20 % flows on in order to the first line with visitors, fan: 50 : 50
    // (before: 100 : 0 at a budget of 1).
    for (const budget of [1, 2]) {
      const [fan, , pub] = over(100, budget, [line(1000, 30), line(0, 20), line(1000, 50)]);
      expect(Math.abs(fan! - 50 * budget)).toBeLessThanOrEqual(1);
      expect(Math.abs(pub! - 50 * budget)).toBeLessThanOrEqual(1);
    }
  });

  it('keeps every line with visitors within 2 of its share over any run of ticks, with credit under 2', () => {
    const runArb = fc.record({
      shares: fc.array(fc.nat({ max: 100 }), { minLength: 1, maxLength: 4 }),
      budgets: fc.array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 200 }),
    });
    fc.assert(
      fc.property(runArb, ({ shares, budgets }) => {
        let room = 100;
        const bounded = shares.map((p) => {
          const share = Math.min(p, room);
          room -= share;
          return share;
        });
        // The public queue takes the rest, as planRelease gives it.
        const queues: LaneDemand[] = [...bounded, room].map((sharePercent) => ({ eligible: 1_000_000, sharePercent }));
        const got = queues.map(() => 0);
        let credit: number[] = [];
        let total = 0;
        for (const budget of budgets) {
          const split = splitLaneBudget(budget, queues, credit);
          split.admit.forEach((n, i) => (got[i]! += n));
          credit = split.credit;
          total += budget;
          for (const c of credit) expect(Math.abs(c)).toBeLessThan(2);
          queues.forEach((q, i) => expect(Math.abs(got[i]! - (total * q.sharePercent) / 100)).toBeLessThan(2));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a negative or fractional budget or count, and shares over 100 %', () => {
    expect(() => splitLaneBudget(-1, [])).toThrow(RangeError);
    expect(() => splitLaneBudget(1.5, [])).toThrow(RangeError);
    expect(() => splitLaneBudget(1, [{ eligible: -1, sharePercent: 0 }])).toThrow(RangeError);
    expect(() => splitLaneBudget(1, [{ eligible: 1, sharePercent: 0.5 }])).toThrow(RangeError);
    expect(() =>
      splitLaneBudget(1, [
        { eligible: 1, sharePercent: 60 },
        { eligible: 1, sharePercent: 41 },
      ]),
    ).toThrow(/101/);
  });
});
