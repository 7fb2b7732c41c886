// Released places not claimed yet: how many are still expected to arrive, from the measured claim
// lags and no-show rate. A room's slots count these arrivals (tick-plan.ts, admission-pace.ts).
import { MAX_POLL_MS } from '../../contracts/queue/queue-policy';

/** One release inside the claim window: when, the places it released, and how many of them are claimed so far. */
export interface ReleaseClaims {
  /** When the places were released, epoch ms. */
  atMs: number;
  count: number;
  claimed: number;
}

/** The claim lags unclaimedPlaces learns from: the room keeps this many of the latest. */
export const CLAIM_LAGS_KEPT = 256;
/** With fewer claim lags measured than this, claims are taken as spread evenly over DEFAULT_CLAIM_SPREAD_MS. */
const MIN_CLAIM_LAGS = 20;
/**
 * How late a visitor who shows may claim, without measured lags, ms: one longest poll interval
 * (MAX_POLL_MS) plus its 20 % jitter (a released visitor learns it at their next poll).
 */
export const DEFAULT_CLAIM_SPREAD_MS = MAX_POLL_MS * 1.2;

/**
 * How old a release must be for unclaimedPlaces to expect none of its places any more, ms: the
 * latest measured claim lag (with MIN_CLAIM_LAGS measured), else DEFAULT_CLAIM_SPREAD_MS. A room
 * whose slots are held by expected arrivals sleeps until then at most (alarm-plan nextSlotFreesAt).
 * @param claimLagsMs the latest measured claim lags, ms, any order
 */
export function claimHorizonMs(claimLagsMs: readonly number[]): number {
  return claimLagsMs.length >= MIN_CLAIM_LAGS ? Math.max(...claimLagsMs) : DEFAULT_CLAIM_SPREAD_MS;
}

/**
 * Unclaimed places of the releases inside the claim window, and how many of them are expected to
 * arrive. A visitor who shows claims `lag` ms after the release (the share F(a) of them within
 * a ms: the latest claim lags measured, else spread evenly over DEFAULT_CLAIM_SPREAD_MS), and a
 * share `s` = 1 - no-show rate shows at all. Of a release `a` ms old with u places unclaimed, each
 * unclaimed place is a visitor who shows but has not claimed yet with probability
 * s (1 - F(a)) / (1 - s F(a)) (Bayes: not claimed by `a` is either a late shower or a no-show), so
 * it expects u times that. Without a measured no-show rate s is 1: every unclaimed place is
 * expected until claims that late are no longer seen (F(a) = 1). So a release whose showing
 * visitors have claimed expects nobody more: the no-show rate alone counted every release's
 * shortfall for the whole claim window (a release of 10 with 3 of its 5 showers in expected 2
 * more for 30 s), and before it was known, every unclaimed place (bench:control,
 * 50 % no-shows: 133 unclaimed places held a cut limit of 10 full, nothing released for 25 s).
 *
 * @param releases the releases inside the claim window (any order)
 * @param nowMs the current time, epoch ms
 * @param noShowRate measured share of released visitors who never claim (0..1), or null while unknown
 * @param claimLagsMs the latest measured claim lags (release to claim), ms, any order
 * @returns `pending`: unclaimed places; `expected`: those expected to arrive, whole places (rounded up)
 */
export function unclaimedPlaces(
  releases: readonly ReleaseClaims[],
  nowMs: number,
  noShowRate: number | null,
  claimLagsMs: readonly number[],
): { pending: number; expected: number } {
  const show = noShowRate === null || !Number.isFinite(noShowRate) ? 1 : 1 - Math.min(1, Math.max(0, noShowRate));
  const measured = claimLagsMs.length >= MIN_CLAIM_LAGS;
  /** Share of showing visitors who claim within `age` ms (at most CLAIM_LAGS_KEPT lags: a count is cheap). */
  const claimedBy = (age: number): number =>
    measured
      ? claimLagsMs.filter((lag) => lag <= age).length / claimLagsMs.length
      : Math.min(1, Math.max(0, age) / DEFAULT_CLAIM_SPREAD_MS);
  let pending = 0;
  let expected = 0;
  for (const r of releases) {
    const left = Math.max(0, r.count - r.claimed);
    pending += left;
    const f = claimedBy(nowMs - r.atMs);
    if (f < 1) expected += (left * show * (1 - f)) / (1 - show * f);
  }
  // A float sum: round off its noise before rounding up to whole places.
  return { pending, expected: Math.ceil(Math.round(expected * 1e6) / 1e6) };
}
