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

/**
 * Splits a tick's release budget among queues in release order. First each queue gets its share
 * (`floor(budget x share / 100)`), capped by what it can release; then whatever is left (shares
 * of queues with fewer visitors waiting, and the rounding) flows on in order: the first queue
 * that still has visitors takes what it can, then the next. So:
 * - the allocations never add up to more than the budget, and no queue gets more than it can release;
 * - a queue with enough visitors always gets at least its share;
 * - nothing is wasted: the allocations add up to min(budget, everyone eligible);
 * - a queue gets more than its share only when every queue before it got all it could release.
 *
 * @param budget visitors the tick may release, a whole number >= 0
 * @param queues the lanes in the organizer's order, then the public queue
 * @returns the number each queue releases, in the same order
 * @throws RangeError when the budget or an eligible count is not a whole number >= 0, or the shares
 *   are not whole percents adding up to at most 100 (the event config refuses such lanes)
 */
export function splitLaneBudget(budget: number, queues: readonly LaneDemand[]): number[] {
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
  const out = queues.map((q) => Math.min(q.eligible, Math.floor((budget * q.sharePercent) / 100)));
  let left = budget - out.reduce((a, b) => a + b, 0);
  for (let i = 0; i < queues.length && left > 0; i++) {
    const more = Math.min(queues[i]!.eligible - out[i]!, left);
    out[i]! += more;
    left -= more;
  }
  return out;
}
