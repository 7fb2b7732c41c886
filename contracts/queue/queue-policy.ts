// Queue policy: pure rules for phases, the lottery draw, positions and wait estimates.
import type { QueueConfig } from '../event-config';

/** What a visitor's status says about the event and their place. */
export type QueueState = 'not_open' | 'waiting' | 'admitted' | 'paused' | 'closed' | 'sold_out';

/** Organizer switch kept beside the config. */
export type RoomMode = 'open' | 'paused' | 'closed';

/** True once the sale has started (releases may happen). */
export function onSale(config: QueueConfig, nowMs: number): boolean {
  return nowMs >= config.saleStartsAtMs;
}

/**
 * The state a still-waiting visitor sees.
 * @returns `closed` by organizer mode, `sold_out` when the inventory says nothing is left,
 *   `not_open` before the sale start, `paused` by organizer mode, else `waiting`
 */
export function waitingState(config: QueueConfig, mode: RoomMode, nowMs: number, soldOut = false): QueueState {
  if (mode === 'closed') return 'closed';
  if (soldOut) return 'sold_out';
  if (!onSale(config, nowMs)) return 'not_open';
  return mode === 'paused' ? 'paused' : 'waiting';
}

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 of a UTF-8 string, lower-case hex. */
async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** The public commitment to a lottery seed: SHA-256 of the seed's hex string. */
export function seedCommitment(seedHex: string): Promise<string> {
  return sha256Hex(seedHex);
}

/**
 * The lottery order: entrants sorted by SHA-256(`${seedHex}:${visitorId}`) (hex, ascending),
 * ties broken by id. With a secret random seed every order is equally likely, and once the seed
 * is revealed anyone can recompute it (scripts/verify-draw.ts).
 *
 * @param seedHex the 256-bit seed, hex
 * @param visitorIds the pre-queue entrants, any order, no duplicates
 * @returns the same ids in draw order (first = admitted first)
 */
export async function lotteryOrder(seedHex: string, visitorIds: readonly string[]): Promise<string[]> {
  return (await lotteryDraw(seedHex, visitorIds)).map((k) => k.id);
}

/** The lottery order with each entrant's key (SHA-256 hex of `${seedHex}:${visitorId}`), first first. */
export async function lotteryDraw(seedHex: string, visitorIds: readonly string[]): Promise<{ id: string; key: string }[]> {
  const keyed = await Promise.all(visitorIds.map(async (id) => ({ id, key: await lotteryKey(seedHex, id) })));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
  return keyed;
}

/** One entrant's lottery key: SHA-256 hex of `${seedHex}:${visitorId}`. */
export function lotteryKey(seedHex: string, visitorId: string): Promise<string> {
  return sha256Hex(`${seedHex}:${visitorId}`);
}

/** Shortest and longest poll interval the server hands out, ms. */
export const MIN_POLL_MS = 2_000;
export const MAX_POLL_MS = 15_000;

/**
 * The time `places` admissions take at `ratePerMinute`.
 * @param places admissions to wait for (a visitor's position: those ahead plus their own)
 * @param ratePerMinute admissions per minute
 * @returns whole seconds, or null when nothing is being released (rate 0 or paused)
 */
export function estimateWaitSeconds(places: number, ratePerMinute: number): number | null {
  if (ratePerMinute <= 0) return null;
  return Math.ceil((places * 60) / ratePerMinute);
}

/**
 * What the wait estimate reads from the admission cursor (AdmissionCursor fields of the same
 * names, published by the WaitingRoom from about the last minute, admission-pace.ts).
 */
export interface WaitPace {
  /** Admissions per minute measured while visitors waited, or the rate in force without enough measured time; 0 = none. */
  admitPerMinute: number;
  /**
   * Slots freed per minute with every slot of the slot bound taken: departures (admitted visitors
   * who left, were revoked or expired) measured over about the last minute, scaled from the mean
   * active visitors to the bound; 0 = none measured. Absent in cursors of older rooms.
   */
  slotsFreedPerMinute?: number;
  /**
   * Slots free now under the slot bound (the lower of the controller's active limit and the
   * organizer's max active, minus active visitors and unclaimed places expected to arrive); may be
   * 0 or negative (a limit cut below the active visitors). Absent in cursors of older rooms.
   */
  freeSlots?: number;
}

/**
 * Estimated wait for the visitor at position `places` (those ahead plus their own place): the
 * larger of two times, so it holds whether the release rate or a slot bound (the controller's
 * active limit, the organizer's max active) limits admissions, and changes smoothly as the bound
 * fills and frees (no switch on "full now"):
 * - the time the admission pace needs for `places`: `places / admitPerMinute`;
 * - when the free slots are fewer than `places`, the time for the rest to free up:
 *   `(places - freeSlots) / slotsFreedPerMinute`; null when no slot has been measured freeing
 *   (nothing may free for up to the admission TTL, and holds extend admissions past it).
 * A cursor without the slot figures (an older room) gives the first time alone.
 *
 * @param places the visitor's position (1 = next)
 * @param pace the cursor's pace figures (per minute) and free slots
 * @returns whole seconds, or null when it cannot be estimated
 */
export function estimateWait(places: number, pace: WaitPace): number | null {
  const byRate = estimateWaitSeconds(places, pace.admitPerMinute);
  if (byRate === null || pace.freeSlots === undefined || pace.slotsFreedPerMinute === undefined) return byRate;
  const short = places - pace.freeSlots;
  if (short <= 0) return byRate;
  const bySlots = estimateWaitSeconds(short, pace.slotsFreedPerMinute);
  return bySlots === null ? null : Math.max(byRate, bySlots);
}

/**
 * How long a client should wait before its next status poll: about a fifth of its expected wait,
 * within [MIN_POLL_MS, MAX_POLL_MS], and never more than a quarter of the idle timeout, so a
 * visitor who polls as told (even with +20 % jitter and a slow network) is never dropped as idle.
 *
 * @param estimatedWaitSeconds the visitor's estimated wait, or null when unknown
 * @param idleTimeoutMs the event's idle timeout, ms
 */
export function pollAfterMs(estimatedWaitSeconds: number | null, idleTimeoutMs: number): number {
  const wanted = estimatedWaitSeconds === null ? MAX_POLL_MS : Math.round((estimatedWaitSeconds * 1000) / 5);
  return Math.max(MIN_POLL_MS, Math.min(wanted, MAX_POLL_MS, Math.floor(idleTimeoutMs / 4)));
}

/**
 * How often a waiting visitor's last-seen time is rewritten, ms: rarely enough to spare writes,
 * often enough (a sixth of the idle timeout, at most 15 s) that a polling visitor never looks idle.
 */
export function seenWriteEveryMs(idleTimeoutMs: number): number {
  return Math.min(15_000, Math.floor(idleTimeoutMs / 6));
}

/** A lottery's public record, as `GET /_wr/events/{eventId}/draw` publishes it. */
export interface DrawRecord {
  commitment: string;
  drawn: boolean;
  seed: string | null;
  entrants: string[] | null;
}

/**
 * Checks a draw: the seed hashes to the commitment published before the sale, and ordering the
 * entrants by SHA-256(`seed:id`) gives exactly the published order.
 * @returns the problems found (empty = the draw is what the rules say)
 */
export async function verifyDraw(record: DrawRecord): Promise<string[]> {
  if (!record.drawn || !record.seed || !record.entrants) return ['the draw has not happened yet (only the commitment is published)'];
  const problems: string[] = [];
  if ((await seedCommitment(record.seed)) !== record.commitment)
    problems.push('the seed does not match the commitment published before the draw');
  const order = await lotteryOrder(record.seed, record.entrants);
  const first = order.findIndex((id, i) => id !== record.entrants![i]);
  if (first >= 0) problems.push(`the published order differs from the recomputed one at place ${first + 1}`);
  return problems;
}
