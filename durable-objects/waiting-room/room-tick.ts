// The release tick's one transaction: end expired admissions, move the release rate
// (release-controller.ts), release what the tick's plan allows (tick-plan.ts planRelease) and
// record it. The rules are pure; this file only reads their inputs from the store and writes
// their outputs back, so the WaitingRoom's alarm() is I/O around one call.
import { logDecision } from '../../contracts/log';
import { claimWindowMs, pendingLimit } from './admission-pace';
import { parseStoredHealth } from './health-intake';
import type { HealthReport } from './health-signals';
import type { GatewaySignals } from './health-signals';
import { nextReleaseRate } from './release-controller';
import { FLOOR_WINDOW_MS, floorP99 } from './release-growth';
import { controllerBounds } from './room-config';
import { SAMPLE_EVERY_MS, SAMPLE_KEEP_MS, laneTicks, roomWaiting, type Room } from './room-reads';
import type { RoomStore } from './room-store';
import { planRelease, releaseKeepMs } from './tick-plan';
import { unclaimedPlaces } from './unclaimed-places';

/**
 * One release tick at `nowMs` over the room as it was read after the arrivals were collected.
 * Call inside `transactionSync` (no await inside): a crash leaves the tick undone, never half
 * done. Idempotent in effect: a duplicate or late run releases only what the elapsed time earned
 * (capped, see releaseBudget).
 */
export function runTick(store: RoomStore, room: Room, nowMs: number): void {
  const { row: r, config } = room;
  store.endExpiredAdmissions(nowMs);
  followLapseClock(store, room, nowMs);

  const report = parseStoredHealth(r.health);
  const gateway = store.signals.gateway(nowMs);
  const active = store.activeCount(nowMs);
  // Unclaimed places count for the claim window only: after it they lapse from the budget. The
  // visitors whose late claim waits for a slot count as arrivals: the next free slots are theirs.
  const window = claimWindowMs(config.idleTimeoutMs);
  const places = unclaimedPlaces(store.unclaimedReleases(nowMs, window), nowMs, gateway.noShowRate, store.claimLagsMs());
  const unclaimed = { ...places, expected: places.expected + store.slotAsks(nowMs).size };
  const bounds = controllerBounds(config, r.fixed_rate);
  const decision = nextReleaseRate(
    {
      ratePerMinute: r.rate,
      activeLimit: r.active_limit ?? bounds.maxActive,
      slowStart: r.slow_start === 1,
      cssRounds: r.css_rounds,
      lastReportAtMs: r.last_report_at,
      overloadLimit: r.overload_limit,
      lastCutAtMs: r.last_cut_at,
    },
    {
      origin: report,
      gateway,
      active,
      pending: unclaimed.expected,
      // The p99 floor, from the dashboard's samples of the last five minutes (release-growth.ts).
      floorP99Ms: floorP99(store.signals.since(nowMs - FLOOR_WINDOW_MS), nowMs),
    },
    bounds,
    nowMs,
  );
  const rate = decision.state.ratePerMinute;
  const limit = decision.state.activeLimit;
  if (decision.reason) {
    store.logRate(nowMs, rate, decision.reason);
    logDecision('rate_changed', { eventId: config.eventId, ratePerMinute: rate, activeLimit: limit, reason: decision.reason });
  }

  const lanes = laneTicks(store, room);
  const plan = planRelease({
    nowMs,
    mode: r.mode,
    soldOut: r.sold_out === 1,
    saleStartsAtMs: config.saleStartsAtMs,
    admitPerMinute: decision.admitPerMinute,
    carry: r.carry,
    lastTickAtMs: r.last_tick_at,
    // Unclaimed places count apart: the share expected to arrive against the active limit, all
    // of them against their own bound (tick-plan freeSlots).
    occupancy: {
      maxActiveVisitors: config.maxActiveVisitors,
      activeLimit: limit,
      active,
      pending: unclaimed.pending,
      expected: unclaimed.expected,
      pendingLimit: pendingLimit(decision.admitPerMinute, window),
    },
    draw: { size: r.draw_size, released: r.draw_released },
    queue: store.queueCounts(r),
    lanes,
    laneCredit: lanes.map((l) => store.lanes.credit.get(l.lane) ?? 0).concat(store.lanes.credit.get('') ?? 0),
  });
  let admitted = 0;
  if (plan.kind === 'release') {
    admitted = plan.lanes.reduce((a, l) => a + l.released, plan.fromDraw + plan.fromQueue);
    const id = store.applyRelease(nowMs, plan.fromDraw, admitted, r.draw_released + plan.fromDraw, plan.cursor, plan.cursorMoved);
    for (const l of plan.lanes) if (l.released > 0 || l.cursorMoved) store.lanes.applyRelease(l.lane, id, l.released, l.cursor);
    store.lanes.credit = new Map([...lanes.map((l, i): [string, number] => [l.lane, plan.credit[i]!]), ['', plan.credit[lanes.length]!]]);
    if (admitted > 0) logDecision('released', { eventId: config.eventId, count: admitted, eligible: plan.eligible, slots: plan.admit });
  }
  store.endTick(nowMs, {
    rate,
    admitRate: decision.admitPerMinute,
    activeLimit: limit,
    slowStart: decision.state.slowStart,
    cssRounds: decision.state.cssRounds,
    overloadLimit: decision.state.overloadLimit,
    lastCutAtMs: decision.state.lastCutAtMs,
    lastReportAtMs: decision.state.lastReportAtMs,
    carry: plan.carry,
    admitted,
  });
  if (nowMs - r.last_sample_at >= SAMPLE_EVERY_MS) {
    recordSample(store, { row: store.room()!, config }, nowMs, { rate, admitRate: decision.admitPerMinute, limit, report, gateway });
  }
}

/** Records one dashboard sample (the last step of a tick's transaction), with the counts after the tick. */
function recordSample(
  store: RoomStore,
  room: Room,
  nowMs: number,
  s: { rate: number; admitRate: number; limit: number; report: HealthReport | null; gateway: GatewaySignals },
): void {
  store.signals.record(nowMs, { ...s, waiting: roomWaiting(store, room), active: store.activeCount(nowMs) }, SAMPLE_KEEP_MS);
}

/**
 * The lapse clock of released places stops behind the maintenance page (the `reject` method):
 * a visitor released just before the window cannot claim during it, so the window does not count
 * against their idle timeout, and no release record is pruned in it. Outside a window, old release
 * records are pruned (their places lapsed). Call inside `transactionSync`, with the room in effect.
 */
export function followLapseClock(store: RoomStore, room: Room, nowMs: number): void {
  const keepMs = releaseKeepMs(room.config.idleTimeoutMs);
  if (room.config.method === 'reject') return store.stopLapseClock(nowMs);
  if (room.row.reject_since !== null) store.resumeLapseClock(room.row.reject_since, nowMs, keepMs);
  store.pruneReleases(room.row, nowMs, keepMs);
}
