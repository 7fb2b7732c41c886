// What the WaitingRoom derives from its stored rows (room-store.ts) through the pure rules: the
// published cursor, the organizer's stats, what binds, the alarm plan's facts and the visitors in
// line. Reads only: nothing here writes, so the object class keeps only RPC, storage calls and I/O.
import { CURSOR_QUEUE_BUCKETS, type AdmissionCursor, type FifoPlace, type LaneCursor, type Place } from '../../contracts/queue/cursor';
import { seedCommitment } from '../../contracts/queue/queue-policy';
import { ENDED_SESSIONS_MAX } from '../../contracts/queue/ended-sessions';
import { decideAdmit, type AdmitDecision } from './admission-policy';
import { claimWindowMs, pendingLimit, roomPace, type RoomPace } from './admission-pace';
import { nextSlotFreesAt, type AlarmCause, type AlarmFacts } from './alarm-plan';
import { parseStoredHealth, publicHealth } from './health-intake';
import { firstSaleStartMs, lanesOf, type RoomConfig } from './room-config';
import { publishCursor, queueListing } from './room-cursor';
import { bindingReport } from './room-report';
import { cursorOf, lapsedOf, type RoomRow } from './room-rows';
import type { RoomStore } from './room-store';
import type { Binding, LaneStats, RoomStats } from './room-types';
import { SIGNAL_WINDOW_MS, freeSlots, gatewaySignals, unreleasedArrivals, waitingCount, type LaneTick } from './tick-plan';
import { claimHorizonMs, unclaimedPlaces } from './unclaimed-places';

/** The dashboard's samples: one every SAMPLE_EVERY_MS, kept for SAMPLE_KEEP_MS. */
export const SAMPLE_EVERY_MS = 5_000;
export const SAMPLE_KEEP_MS = 30 * 60_000;
/** The organizer's dashboard shows this many of the latest rate changes. */
const RATE_LOG_SHOWN = 20;
/** Wait estimates look at the samples of about the last minute (one every SAMPLE_EVERY_MS), ms. */
const ADMISSION_SAMPLES_MS = 65_000;

/** The room's row with its config parsed and checked once (room-config.ts). */
export interface Room {
  row: RoomRow;
  config: RoomConfig;
}

/** Each lane as the tick reads it (tick-plan LaneTick): its rule and its own line's counts. */
export function laneTicks(store: RoomStore, room: Room): LaneTick[] {
  const { sealedBefore } = store.queueCounts(room.row);
  return lanesOf(room.config).map((l) => ({ ...l, queue: store.lanes.queueCounts(l.lane, sealedBefore) }));
}

/**
 * Visitors in line in each line: the public queue (tick-plan waitingCount) and each lane, with its
 * sale start; `drawDue` marks the public queue of a lottery not drawn yet.
 */
function lineWaiting(store: RoomStore, room: Room): { saleStartsAtMs: number; waiting: number; drawDue: boolean }[] {
  const { row, config } = room;
  const drawn = row.drawn === 1;
  const inPublic = waitingCount(store.queueCounts(row), {
    drawn,
    preQueue: drawn ? 0 : store.preQueue(),
    draw: { size: row.draw_size, released: row.draw_released },
  });
  return [
    { saleStartsAtMs: config.saleStartsAtMs, waiting: inPublic, drawDue: config.policy === 'random' && !drawn },
    ...laneTicks(store, room).map((l) => ({
      saleStartsAtMs: l.saleStartsAtMs,
      waiting: unreleasedArrivals(l.queue, { onlySealed: false }),
      drawDue: false,
    })),
  ];
}

/** Visitors in line from the stored counts, every lane's included. */
export function roomWaiting(store: RoomStore, room: Room): number {
  return lineWaiting(store, room).reduce((a, l) => a + l.waiting, 0);
}

/**
 * The sale start the alarm plan waits for, epoch ms: the event's first (public or lane) while a
 * line already on sale has visitors, else the next start of a line with visitors waiting (or the
 * public queue's, when its lottery draw is due there), else the first. So a room whose open
 * presale lane ran dry sleeps until the public queue's start instead of ticking for nobody; a
 * join wakes it (alarm-plan `event`).
 */
function nextReleaseStartMs(
  lines: readonly { saleStartsAtMs: number; waiting: number; drawDue: boolean }[],
  first: number,
  nowMs: number,
): number {
  if (lines.some((l) => l.saleStartsAtMs <= nowMs && l.waiting > 0)) return first;
  const ahead = lines.filter((l) => l.saleStartsAtMs > nowMs && (l.waiting > 0 || l.drawDue)).map((l) => l.saleStartsAtMs);
  return ahead.length > 0 ? Math.min(...ahead) : first;
}

/** Each lane's line for the organizer: its rule, visitors waiting in it and released from it. */
function laneStats(store: RoomStore, room: Room): LaneStats[] {
  const lines = store.lanes.lines();
  return laneTicks(store, room).map((l) => ({
    lane: l.lane,
    saleStartsAtMs: l.saleStartsAtMs,
    releaseSharePercent: l.sharePercent,
    waiting: unreleasedArrivals(l.queue, { onlySealed: false }),
    released: lines.get(l.lane)?.released ?? 0,
  }));
}

/**
 * The admission cursor the edge answers polls from (room-cursor.ts publishCursor), with the wait
 * pace measured over about the last minute (paceOf).
 * @param tickMs the room's release tick, ms (what binds, for the free slots)
 */
export function roomCursor(store: RoomStore, room: Room, nowMs: number, tickMs: number): AdmissionCursor {
  const { row, config } = room;
  const fifo = cursorOf(row);
  const queue = queueListing(fifo, store.arrivals(fifo.bucket), CURSOR_QUEUE_BUCKETS);
  const lanes = lanesOf(config).map((l): LaneCursor => {
    const { cursor } = store.lanes.line(l.lane);
    return {
      lane: l.lane,
      saleStartsAtMs: l.saleStartsAtMs,
      fifo: cursor,
      queue: queueListing(cursor, store.lanes.arrivals(l.lane, cursor.bucket), CURSOR_QUEUE_BUCKETS),
    };
  });
  const waitingNow = [queue, ...lanes.map((l) => l.queue)].flat().reduce((a, [, n]) => a + n, row.draw_size - row.draw_released);
  const pace = paceOf(store, room, nowMs, waitingNow, roomBinding(store, room, nowMs, tickMs));
  return publishCursor(row, config, {
    queue,
    lanes,
    releasedKey: row.draw_released > 0 ? store.drawKey(row.draw_released) : null,
    sealedBefore: store.positions.sealedBefore(row.shards),
    drawMarks: row.drawn === 1 ? store.positions.drawMarks(row.draw_released, row.draw_size) : null,
    admitPerMinute: pace.admitPerMinute,
    slotsFreedPerMinute: pace.slotsFreedPerMinute,
    freeSlots: pace.freeSlots,
    endedSessions: store.ended.published(nowMs, ENDED_SESSIONS_MAX),
    nowMs,
  });
}

/**
 * The wait pace (admission-pace roomPace) over about the last minute of samples, the current state
 * closing the last interval, with the slots as `binding` counts them. Only time on sale counts:
 * before the first sale start (of the public queue or a lane, or a lottery draw) nobody could be
 * admitted.
 * @param waitingNow visitors waiting now
 * @param binding what binds now, with its counts (roomBinding)
 */
function paceOf(store: RoomStore, { row, config }: Room, nowMs: number, waitingNow: number, binding: Binding): RoomPace {
  const samples = store.signals.admissions(nowMs - ADMISSION_SAMPLES_MS);
  samples.push({ at: nowMs, admittedTotal: row.admitted_total, waiting: waitingNow, active: binding.active });
  return roomPace(
    samples,
    nowMs,
    firstSaleStartMs(config),
    row.admit_rate || row.rate,
    (atMs) => store.claimsSince(atMs, config.idleTimeoutMs),
    {
      bound: binding.activeLimit,
      active: binding.active,
      expectedArrivals: binding.expectedArrivals,
    },
  );
}

/**
 * Unclaimed places inside the claim window `windowMs` now, and those expected to arrive
 * (unclaimed-places unclaimedPlaces) plus, unless `withoutAsks`, the visitors waiting for a slot (each
 * will take the next free one).
 */
function unclaimedNow(store: RoomStore, nowMs: number, windowMs: number, withoutAsks = false): { pending: number; expected: number } {
  const noShowRate = gatewaySignals(store.signals.sums(nowMs, SIGNAL_WINDOW_MS)).noShowRate;
  const u = unclaimedPlaces(store.unclaimedReleases(nowMs, windowMs), nowMs, noShowRate, store.claimLagsMs());
  return withoutAsks ? u : { ...u, expected: u.expected + store.slotAsks(nowMs).size };
}

/** What binds admissions now, with the numbers behind it (room-report.ts bindingReport). */
export function roomBinding(store: RoomStore, room: Room, nowMs: number, tickMs: number): Binding {
  const window = claimWindowMs(room.config.idleTimeoutMs);
  const unclaimed = unclaimedNow(store, nowMs, window);
  return bindingReport(room.row, room.config, {
    nowMs,
    waiting: roomWaiting(store, room),
    active: store.activeCount(nowMs),
    unclaimed: unclaimed.pending,
    expectedArrivals: unclaimed.expected,
    claimWindowMs: window,
    tickMs,
  });
}

/**
 * Config, counts, rate and its recent changes, for the organizer.
 * @param instance what only the object instance knows: its tick (ms) and requests served
 */
export async function roomStats(
  store: RoomStore,
  room: Room,
  nowMs: number,
  instance: { tickMs: number; objectRequests: number },
): Promise<RoomStats> {
  const { row, config } = room;
  const waiting = roomWaiting(store, room);
  const binding = roomBinding(store, room, nowMs, instance.tickMs);
  return {
    config,
    mode: row.mode,
    waiting,
    active: store.activeCount(nowMs),
    admittedTotal: row.admitted_total,
    pending: store.pendingCount(nowMs, config.idleTimeoutMs),
    binding,
    departuresPerMinute: paceOf(store, room, nowMs, waiting, binding).departuresPerMinute,
    shards: row.shards,
    objectRequests: instance.objectRequests,
    releaseRatePerMinute: row.rate,
    admitPerMinute: row.admit_rate,
    activeLimit: Math.min(row.active_limit ?? config.maxActiveVisitors, config.maxActiveVisitors),
    fixedRatePerMinute: row.fixed_rate,
    lastHealth: publicHealth(parseStoredHealth(row.health)),
    gateway: store.signals.gateway(nowMs),
    samples: store.signals.since(nowMs - SAMPLE_KEEP_MS),
    rateLog: store.rateLog(RATE_LOG_SHOWN),
    lanes: laneStats(store, room),
    lottery:
      config.policy === 'random'
        ? { commitment: await seedCommitment(row.seed), drawn: row.drawn === 1, seed: row.drawn === 1 ? row.seed : null }
        : null,
  };
}

/** The facts the alarm plan (alarm-plan.ts planAlarm) reads, from the stored counts at `nowMs`. */
export function alarmFacts(store: RoomStore, room: Room, nowMs: number, tickMs: number, cause: AlarmCause): AlarmFacts {
  const { row, config } = room;
  const window = claimWindowMs(config.idleTimeoutMs);
  const lines = lineWaiting(store, room);
  const unclaimed = unclaimedNow(store, nowMs, window);
  const counted = Math.min(window, claimHorizonMs(store.claimLagsMs()));
  return {
    nowMs,
    tickMs,
    cause,
    mode: row.mode,
    soldOut: row.sold_out === 1,
    // A presale lane may open before the public queue, and may run dry before it opens.
    saleStartsAtMs: nextReleaseStartMs(lines, firstSaleStartMs(config), nowMs),
    drawPending: config.policy === 'random' && row.drawn !== 1,
    waiting: lines.reduce((a, l) => a + l.waiting, 0),
    freeSlots: freeSlots({
      maxActiveVisitors: config.maxActiveVisitors,
      activeLimit: row.active_limit ?? config.maxActiveVisitors,
      active: store.activeCount(nowMs),
      ...unclaimed,
      pendingLimit: pendingLimit(row.admit_rate, window),
    }),
    // An unclaimed place lapses from the budget after its claim window, and is expected no more
    // once its release is older than every claim measured (unclaimed-places claimHorizonMs): the slot it
    // held frees then.
    nextSlotFreesAtMs: nextSlotFreesAt(store.nextEnds(nowMs, counted), counted),
    stockShown: config.page.showStock !== false,
  };
}

/** Whether `place` admits `visitorId` now (admission-policy.ts decideAdmit over the stored rows). */
export function admitDecision(store: RoomStore, { row, config }: Room, visitorId: string, place: Place, nowMs: number): AdmitDecision {
  const prior = store.admission(visitorId);
  const window = claimWindowMs(config.idleTimeoutMs);
  const fits = (late: boolean): boolean => {
    const active = store.activeCount(nowMs);
    if (active >= config.maxActiveVisitors || !late) return active < config.maxActiveVisitors;
    let ahead = 0;
    for (const id of store.slotAsks(nowMs).keys()) {
      if (id === visitorId) break;
      ahead++;
    }
    const cap = Math.min(config.maxActiveVisitors, row.active_limit ?? config.maxActiveVisitors);
    return cap - active - unclaimedNow(store, nowMs, window, true).expected - ahead >= 1;
  };
  return decideAdmit(
    visitorId,
    place,
    {
      policy: config.policy,
      idleTimeoutMs: config.idleTimeoutMs,
      admissionTtlMs: config.admissionTtlMs,
      shards: row.shards,
      drawn: row.drawn === 1,
      drawReleased: row.draw_released,
      lapsedDraw: row.lapsed_draw,
      cursor: cursorOf(row),
      lapsed: lapsedOf(row),
      lanes: laneLines(store, config),
      heldForMs: Math.min(window, claimHorizonMs(store.claimLagsMs())),
    },
    prior && { place: prior.place, state: prior.state, admittedAtMs: prior.admitted_at, expiresAtMs: prior.expires_at },
    {
      drawRank: () => store.drawRank(visitorId),
      releaseOfRank: (rank) => store.releaseOfRank(rank),
      releaseOfPlace: (p) => store.releaseOfPlace(p),
      fits,
      askedAtMs: () => store.slotAsks(nowMs).get(visitorId)?.firstMs ?? null,
    },
    nowMs,
  );
}

/** The line of each lane the event lists (a lane not listed any more has none: its places lapse). */
function laneLines(store: RoomStore, config: RoomConfig): Map<string, { cursor: FifoPlace; lapsed: FifoPlace }> {
  const stored = store.lanes.lines();
  return new Map(lanesOf(config).map((l) => [l.lane, stored.get(l.lane) ?? store.lanes.line(l.lane)]));
}
