// The room's stored settings: parsed and checked once per read (defaults of settings added later
// filled in), and the rules for what an organizer may change once visitors have joined.
import { type QueueConfig } from '../../contracts/event-config';
import { DEFAULT_HOLD_TARGET_P99_MS } from '../../contracts/event-input';
import { MAX_DIFFICULTY_BITS, MIN_DIFFICULTY_BITS } from '../../contracts/proof-of-work';
import type { ControllerBounds } from './release-controller';

/** A stored QueueConfig with every optional setting filled in (configs stored before it existed get its default). */
export type RoomConfig = QueueConfig &
  Required<Pick<QueueConfig, 'shards' | 'holdTargetP99Ms' | 'onOriginDown' | 'waitingPageStatus' | 'page' | 'proofOfWork'>>;

const NUMBERS = [
  'saleStartsAtMs',
  'maxReleaseRatePerMinute',
  'minReleaseRatePerMinute',
  'maxActiveVisitors',
  'admissionTtlMs',
  'idleTimeoutMs',
  'targetP99Ms',
  'maxErrorRate',
] as const;

/**
 * The room's config from its stored JSON (wr_room.config), checked: strings, the policy, finite
 * numbers, and the optional settings' defaults (shards 1, hold target DEFAULT_HOLD_TARGET_P99_MS,
 * a silent origin gets the minimum, waiting page status 200, no page template, no proof of work).
 * @throws Error naming the field when the stored config is not one (a bug or a corrupt row: the
 *   room must not guess)
 */
export function parseRoomConfig(json: string): RoomConfig {
  const raw: unknown = JSON.parse(json);
  if (typeof raw !== 'object' || raw === null) throw new Error('stored room config is not an object');
  const c = raw as Record<string, unknown>;
  const fail = (field: string, want: string) => new Error(`stored room config: ${field} must be ${want}`);
  for (const f of ['eventId', 'name'] as const) if (typeof c[f] !== 'string') throw fail(f, 'a string');
  if (c.policy !== 'fifo' && c.policy !== 'random') throw fail('policy', "'fifo' or 'random'");
  for (const f of NUMBERS) if (typeof c[f] !== 'number' || !Number.isFinite(c[f])) throw fail(f, 'a finite number');
  const config = raw as QueueConfig;
  if (config.shards !== undefined && !(Number.isInteger(config.shards) && config.shards >= 1)) throw fail('shards', 'a positive integer');
  const pow = config.proofOfWork;
  if (
    pow != null &&
    !(Number.isInteger(pow.difficultyBits) && pow.difficultyBits >= MIN_DIFFICULTY_BITS && pow.difficultyBits <= MAX_DIFFICULTY_BITS)
  )
    throw fail('proofOfWork', `null or { difficultyBits: ${MIN_DIFFICULTY_BITS}-${MAX_DIFFICULTY_BITS} }`);
  return {
    ...config,
    shards: config.shards ?? 1,
    holdTargetP99Ms: config.holdTargetP99Ms ?? DEFAULT_HOLD_TARGET_P99_MS,
    onOriginDown: config.onOriginDown ?? 'minimum',
    waitingPageStatus: config.waitingPageStatus ?? 200,
    page: config.page ?? {},
    proofOfWork: config.proofOfWork ?? null,
  };
}

/** What has happened in the room that locks settings. */
export interface JoinedState {
  /** Anyone admitted, drawn, or waiting (counted arrivals included). */
  joined: boolean;
  /** The lottery draw has been made. */
  drawn: boolean;
  /** Anyone has been admitted: the sale is under way once its start has passed. */
  admitted: boolean;
  /** The room's clock, ms since the epoch. */
  nowMs: number;
}

/**
 * Why `next` may not replace `old`, or null when it may: once visitors joined the queue policy,
 * the number of queue shards and the presale lanes listed are fixed (places were handed out under
 * them; lanes may still be added, and their starts and shares changed), after a lottery draw
 * its sale start is fixed (the draw was made at it), and a sale under way (started, visitors
 * admitted) cannot have its start moved into the future: releases would stop with every page
 * saying "not started yet" to people already in line; pausing is the way to stop releases.
 */
export function configChangeConflict(old: RoomConfig, next: QueueConfig, state: JoinedState): string | null {
  if (!state.joined) return null;
  if (old.policy !== next.policy) return 'the queue policy cannot change once visitors have joined';
  if (old.shards !== (next.shards ?? 1)) return 'the number of queue shards cannot change once visitors have joined';
  if (old.policy === 'random' && state.drawn && old.saleStartsAtMs !== next.saleStartsAtMs)
    return 'the sale start cannot move after the lottery draw';
  if (state.admitted && old.saleStartsAtMs <= state.nowMs && next.saleStartsAtMs > state.nowMs)
    return 'the sale is under way: its start cannot move into the future (pause the event to stop releases)';
  // Lane places name their lane: a lane's start and share may change, and lanes may be added, but
  // a lane visitors may be in line in stays (its places would lapse).
  const kept = new Set((next.entry?.lanes ?? []).map((l) => l.lane));
  const dropped = (old.entry?.lanes ?? []).find((l) => !kept.has(l.lane));
  if (dropped) return `the presale lane "${dropped.lane}" cannot be removed once visitors have joined`;
  return null;
}

/**
 * Why `next` may not make this room a lottery, or null: an event that becomes a lottery (created
 * as one, or switched to one before anyone joined) needs a sale start in the future, since its
 * pre-queue is drawn at that instant. A start in the past would hand out places in arrival order
 * while every page says "lottery". A lottery already drawn keeps its past start.
 *
 * @param nowMs the room's clock, ms since the epoch
 */
export function lotteryStartConflict(old: RoomConfig | null, next: QueueConfig, nowMs: number): string | null {
  if (next.policy !== 'random' || old?.policy === 'random') return null;
  // No start at all (0) is refused by the organizer API's schema (400 naming saleStartsAt).
  if (next.saleStartsAtMs === 0 || next.saleStartsAtMs > nowMs) return null;
  return 'a lottery needs a saleStartsAt in the future: visitors who arrive before it are drawn in random order at that instant';
}

/**
 * The config to store when `next` replaces `old`: once visitors joined, an entry rule keeps the
 * account key it was pinned to (its accounts' places are hashed under it; a rotated gateway
 * secret must not give them second places), whatever key the organizer API pinned this time.
 */
export function keepAccountKey(old: RoomConfig | null, next: QueueConfig, state: Pick<JoinedState, 'joined'>): QueueConfig {
  const pinned = old?.entry?.accountKeyId;
  if (!state.joined || !pinned || !next.entry) return next;
  return { ...next, entry: { ...next.entry, accountKeyId: pinned } };
}

/**
 * The release rate after the bounds in effect change (the organizer's edit, or a scheduled change
 * starting or ending): a controller rate outside the new bounds is clamped into them; a fixed rate
 * is held to the maximum in effect, and back at the organizer's value once the maximum allows it.
 * The fixed rate itself is never rewritten: it is the operator's setting, and the schedule only
 * bounds it while a window is on.
 * @returns the rate to store with its logged reason, or `unchanged`
 */
export function rateAfterBoundsChange(
  room: { rate: number; fixedRate: number | null },
  next: Pick<QueueConfig, 'minReleaseRatePerMinute' | 'maxReleaseRatePerMinute'>,
): { kind: 'clamped'; rate: number; reason: string } | { kind: 'unchanged' } {
  const max = next.maxReleaseRatePerMinute;
  if (room.fixedRate !== null) {
    const rate = Math.min(room.fixedRate, max);
    if (rate === room.rate) return { kind: 'unchanged' };
    const reason =
      rate < room.fixedRate
        ? `fixed rate of ${room.fixedRate}/min held to the maximum in effect of ${max}/min`
        : `fixed rate of ${room.fixedRate}/min in effect${rate > room.rate ? ' again' : ''}`;
    return { kind: 'clamped', rate, reason };
  }
  const clamped = Math.min(max, Math.max(next.minReleaseRatePerMinute, room.rate));
  return clamped === room.rate
    ? { kind: 'unchanged' }
    : { kind: 'clamped', rate: clamped, reason: `organizer bounds changed: ${next.minReleaseRatePerMinute}-${max}/min` };
}

/** The controller's bounds from the room's config and the organizer's fixed rate (null: the controller decides). */
export function controllerBounds(config: RoomConfig, fixedRate: number | null = null): ControllerBounds {
  return {
    minPerMinute: config.minReleaseRatePerMinute,
    maxPerMinute: config.maxReleaseRatePerMinute,
    targetP99Ms: config.targetP99Ms,
    maxErrorRate: config.maxErrorRate,
    holdTargetP99Ms: config.holdTargetP99Ms,
    onOriginDown: config.onOriginDown,
    fixedPerMinute: fixedRate,
    maxActive: config.maxActiveVisitors,
  };
}

/** A presale lane's rule with its sale start resolved (0 in the config = the event's own), epoch ms. */
export interface LaneRuleNow {
  lane: string;
  saleStartsAtMs: number;
  sharePercent: number;
}

/** The event's presale lanes in the organizer's (release) order, each with its own sale start. */
export function lanesOf(config: RoomConfig): LaneRuleNow[] {
  return (config.entry?.lanes ?? []).map((l) => ({
    lane: l.lane,
    saleStartsAtMs: l.saleStartsAtMs || config.saleStartsAtMs,
    sharePercent: l.releaseSharePercent,
  }));
}

/** The first sale start of the event's lines (the public queue's and its lanes'), epoch ms. */
export function firstSaleStartMs(config: RoomConfig): number {
  return Math.min(config.saleStartsAtMs, ...lanesOf(config).map((l) => l.saleStartsAtMs));
}
