// The organizer's "what binds now" report from the room's numbers, pure (the dashboard reads it
// from GET /_wr/admin/events/{id}; the rule itself is admission-pace.ts whatBinds).
import { pendingLimit, whatBinds } from './admission-pace';
import { parseStoredHealth } from './health-intake';
import { originDownReason } from './health-signals';
import { firstSaleStartMs, type RoomConfig } from './room-config';
import type { RoomRow } from './room-rows';
import type { Binding } from './room-types';

/** The counts the report needs, read by the room at `nowMs`. */
export interface BindingCounts {
  nowMs: number;
  /** Visitors in line (tick-plan waitingCount). */
  waiting: number;
  active: number;
  /** Unclaimed places inside the claim window. */
  unclaimed: number;
  /** Of those, the places expected to arrive (unclaimed-places unclaimedPlaces). */
  expectedArrivals: number;
  /** The claim window, ms (admission-pace claimWindowMs). */
  claimWindowMs: number;
  /** The room's release tick, ms (RELEASE_TICK_MS). */
  tickMs: number;
}

/** What binds admissions now (whatBinds), with the rates, limits and counts behind it. */
export function bindingReport(row: RoomRow, config: RoomConfig, c: BindingCounts): Binding {
  const expected = c.expectedArrivals;
  const unclaimedLimit = pendingLimit(row.admit_rate, c.claimWindowMs);
  const activeLimit = Math.min(row.active_limit ?? config.maxActiveVisitors, config.maxActiveVisitors);
  const originSilent = originDownReason(parseStoredHealth(row.health), c.nowMs);
  const binds = whatBinds({
    mode: row.mode,
    soldOut: row.sold_out === 1,
    // On sale from the first start of any line: a presale lane may release before the public start.
    onSale: c.nowMs >= firstSaleStartMs(config),
    waiting: c.waiting,
    active: c.active,
    pending: c.unclaimed,
    expectedArrivals: expected,
    pendingLimit: unclaimedLimit,
    activeLimit,
    maxActive: config.maxActiveVisitors,
    releaseRatePerMinute: row.rate,
    admitPerMinute: row.admit_rate,
    fixedPerMinute: row.fixed_rate,
    originDown: originSilent,
    tickMs: c.tickMs,
  });
  return {
    ...binds,
    releaseRatePerMinute: row.rate,
    admitPerMinute: row.admit_rate,
    activeLimit,
    maxActiveVisitors: config.maxActiveVisitors,
    active: c.active,
    unclaimed: c.unclaimed,
    expectedArrivals: expected,
    unclaimedLimit,
    paused: row.mode === 'paused',
    originSilent,
  };
}
