// Presale lanes: how one release tick's budget is split among the event's queues (its lanes in the
// organizer's order, then the public queue). Pure; the tick's budget itself (rate x elapsed, free
// slots) stays the release controller's and tick-plan.ts's.

/** One queue the budget is split over. */
export interface LaneDemand {
  /** Visitors this queue could release now: 0 before its sale start, or when nobody waits in it. */
  eligible: number;
  /** Its share of the budget, whole percent 0-100 (the public queue's is 100 minus the lanes'). */
  sharePercent: number;
}

/** A tick's split: what each queue releases, and the credit each carries to the next tick. */
export interface LaneSplit {
  /** Visitors each queue releases now, in the order given. */
  admit: number[];
  /**
   * Each queue's share of earlier budgets that rounding has not yet given it (positive) or given
   * it ahead (negative), in visitors, |credit| < 2: pass it back as the next tick's `credit`. 0 for
   * a queue that got everything it could release (nothing is banked while a queue is short of
   * visitors).
   */
  credit: number[];
}

/**
 * Splits a tick's release budget among queues in release order, so that over many ticks each
 * queue with visitors gets its share to within one visitor, however small the budget (with one visitor per tick, rounding each tick on its own gave the first lane everything).
 *
 * 1. Each queue is owed `budget x share / 100` plus its carried `credit`. It gets the whole part
 *    of that, and the rounding's spare visitors go one each to the queues with the largest
 *    fractional parts (Hamilton's largest-remainder method, ties in the organizer's order); the
 *    fractions not given are carried as credit, so the roundings of successive ticks add up
 *    (as in deficit round robin, Shreedhar & Varghese, SIGCOMM 1995).
 * 2. Each is capped by what it can release; what a queue cannot use (and any spare no share
 *    claims) flows on in order: the first queue that still has visitors takes what it can, then
 *    the next. Units that flow on are not charged to the taker's credit.
 *
 * So: the allocations never add up to more than the budget, and no queue gets more than it can
 * release; nothing is wasted (they add up to min(budget, everyone eligible)); with no credit, a
 * queue with enough visitors gets at least `floor(budget x share / 100)`, and more than
 * `ceil(...)` only when every queue before it got all it could release.
 *
 * @param budget visitors the tick may release, a whole number >= 0
 * @param queues the lanes in the organizer's order, then the public queue
 * @param credit each queue's carried credit from the last tick's `LaneSplit.credit` (missing: 0)
 * @returns the number each queue releases and the credit to carry, in the same order
 * @throws RangeError when the budget or an eligible count is not a whole number >= 0, or the shares
 *   are not whole percents adding up to at most 100 (the event config refuses such lanes)
 */
export function splitLaneBudget(budget: number, queues: readonly LaneDemand[], credit: readonly number[] = []): LaneSplit {
  if (!Number.isSafeInteger(budget) || budget < 0) throw new RangeError(`budget must be a whole number >= 0, got ${budget}`);
  let shares = 0;
  for (const q of queues) {
    if (!Number.isSafeInteger(q.eligible) || q.eligible < 0)
      throw new RangeError(`eligible must be a whole number >= 0, got ${q.eligible}`);
    if (!Number.isInteger(q.sharePercent) || q.sharePercent < 0)
      throw new RangeError(`sharePercent must be a whole percent, got ${q.sharePercent}`);
    shares += q.sharePercent;
  }
  if (shares > 100) throw new RangeError(`the shares add up to ${shares} %, more than 100 %`);
  // 1. Entitlements and Hamilton's rounding, over the queues that can release at all.
  const owed = queues.map((q, i) => (q.eligible > 0 ? (budget * q.sharePercent) / 100 + (credit[i] ?? 0) : 0));
  const quota = owed.map((e) => Math.max(0, Math.floor(e)));
  const byRemainder = (sign: 1 | -1) =>
    queues.map((_, i) => i).sort((a, b) => sign * (owed[b]! - quota[b]! - (owed[a]! - quota[a]!)) || a - b);
  let spare = budget - quota.reduce((a, b) => a + b, 0);
  for (const i of byRemainder(1)) {
    if (spare <= 0 || owed[i]! - quota[i]! <= 0) break;
    quota[i]!++;
    spare--;
  }
  // Credits cashed in at once can ask for more than the budget: take back from the smallest remainders.
  while (spare < 0) {
    for (const i of byRemainder(-1)) {
      if (spare < 0 && quota[i]! > 0) {
        quota[i]!--;
        spare++;
      }
    }
  }
  // 2. Caps, and what is left flowing on in order, uncharged.
  const out = queues.map((q, i) => Math.min(q.eligible, quota[i]!));
  let left = budget - out.reduce((a, b) => a + b, 0);
  for (let i = 0; i < queues.length && left > 0; i++) {
    const more = Math.min(queues[i]!.eligible - out[i]!, left);
    out[i]! += more;
    left -= more;
  }
  return { admit: out, credit: queues.map((q, i) => (q.eligible > quota[i]! ? owed[i]! - quota[i]! : 0)) };
}
