// What the Inventory answers over RPC about sales channels, their allocations and the change feed:
// the shapes the edge maps to HTTP in src/lib/channel-results.ts.
import type { EventNotFound } from './answers';
import type { HoldAnswer, HoldChangeAnswer } from './inventory-answers';

/** Channel ids appear in URLs, key ids and audit lines: lower-case slug, 1-32 characters. */
export const CHANNEL_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** Allocation ids: lower-case slug, 1-64 characters, chosen by the organizer (the PUT is idempotent by it). */
export const ALLOCATION_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Most seats one allocation may name (a 16 KiB body holds about 2,000 seat ids). */
export const MAX_ALLOCATION_SEATS = 2_000;
/** Most general-admission places one allocation may reserve. */
export const MAX_ALLOCATION_QUANTITY = 1_000_000;

/** A sales channel (box office, partner) as the organizer sees it; times epoch ms. No key material. */
export interface ChannelView {
  channelId: string;
  name: string;
  /** Key generation: the channel's key id is `<channelId>.<generation>`; it grows when a revoked channel is re-activated. */
  generation: number;
  revoked: boolean;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Who calls the channel API: the key id the edge verified the signature with. */
export interface ChannelCaller {
  channelId: string;
  generation: number;
}

/** Why the Inventory refused a channel's call before looking at it: nothing was read or changed. */
export type ChannelRefusal =
  /** No channel of this id exists for the event. */
  | { kind: 'channel_unknown' }
  /** The channel was revoked, or the key's generation is not the current one. */
  | { kind: 'channel_revoked' };

/** `putChannel` outcome: `created` (a new channel, generation 1), `reactivated` (a revoked one, next generation), `unchanged` (already active; only the name may change). */
export type PutChannelAnswer = { kind: 'created' | 'reactivated' | 'unchanged'; channel: ChannelView } | EventNotFound;

/** `revokeChannel` outcome; revoking twice answers `ok` again. */
export type RevokeChannelAnswer = { kind: 'ok'; channel: ChannelView } | { kind: 'channel_unknown' } | EventNotFound;

/** What the organizer asks an allocation to be (create, grow, shrink, move, or change its release time). */
export interface AllocationRequest {
  allocationId: string;
  channelId: string;
  /** Numbered seats (1..MAX_ALLOCATION_SEATS) or a quota of a tier (1..MAX_ALLOCATION_QUANTITY places). */
  target: { seatIds: string[] } | { tier: string; quantity: number };
  /** When the unsold rest returns to general sale, epoch ms; must be after the object's clock. */
  releaseAtMs: number;
}

/** An allocation as the organizer and its channel see it; times epoch ms. */
export interface AllocationView {
  allocationId: string;
  channelId: string;
  kind: 'seats' | 'tier';
  /** Allocated seats in seat-id order; empty for a tier quota (and once the allocation ended). */
  seatIds: string[];
  tier: string | null;
  /** Seats or tier places the allocation reserves in all. */
  quantity: number;
  /** Of those, held or sold by the channel now. */
  used: number;
  releaseAtMs: number;
  /** Before its release time (the exact instant counts as released). */
  live: boolean;
}

/** `allocate` outcome. Every refusal changes nothing. */
export type AllocationAnswer =
  | { kind: 'ok'; allocation: AllocationView; created: boolean }
  | EventNotFound
  | { kind: 'invalid'; detail: string }
  | { kind: 'channel_unknown' }
  | { kind: 'channel_revoked' }
  | { kind: 'unknown_seats'; seatIds: string[] }
  | { kind: 'unknown_tier'; tier: string }
  /** Seats to add are held, sold or in another live allocation; or the tier has fewer free places (`remaining`). */
  | { kind: 'allocation_conflict'; seatIds: string[]; remaining?: number }
  /** Seats to take out are held or sold by the channel; or the quota would drop below what the channel holds and sold (`used`). */
  | { kind: 'allocation_in_use'; seatIds: string[]; used?: number }
  /** The allocation reached its release time: its rest is on general sale; create another. */
  | { kind: 'allocation_ended' };

/** `endAllocation` outcome: the unsold rest returns to general sale now (ending twice answers `ok`). */
export type EndAllocationAnswer = { kind: 'ok'; allocation: AllocationView } | { kind: 'allocation_not_found' } | EventNotFound;

/** `channelList` outcome: every channel (organizer) or none (a channel reading its own), and the allocations. */
export type ChannelListAnswer = { kind: 'ok'; channels: ChannelView[]; allocations: AllocationView[] } | ChannelRefusal;

/** A channel's hold: the hold answers, plus the channel refusals and a target outside its allocations. */
export type ChannelHoldAnswer = HoldAnswer | ChannelRefusal;

/** A channel's read or change of one of its holds (another channel's hold is `not_found`). */
export type ChannelHoldChangeAnswer = HoldChangeAnswer | ChannelRefusal | EventNotFound;

/** What a channel does to one of its holds. */
export type ChannelHoldAction = { kind: 'get' } | { kind: 'confirm'; orderId: string; amountMinor: number } | { kind: 'release' };

/** The state of one item after a change: a seat (stored status and live allocation) or a tier's counters. */
export type FeedItem =
  | { item: 'seat'; seatId: string; status: 'AVAILABLE' | 'HELD' | 'SOLD'; allocationId: string | null; channelId: string | null }
  | {
      item: 'tier';
      tier: string;
      capacity: number;
      held: number;
      sold: number;
      /** Places reserved for live allocations and not yet held or sold by their channel. */
      reserved: number;
    };

/** One feed entry: the item's whole state after `version`; `id` is unique and grows (the webhook deduplication key). */
export type FeedEntry = { id: number; version: number } & FeedItem;

/**
 * A page of the change feed after a cursor. A cursor is a feed entry id (the last one the reader
 * applied), so a page may end inside a version and the next one resumes exactly after it. `next`
 * is the cursor to pass next (the last entry's id, or the cursor given when nothing is new);
 * `more` = call again now.
 */
export interface FeedPage {
  entries: FeedEntry[];
  next: number;
  more: boolean;
  /** The Inventory's map version when the page was read. */
  version: number;
}

/** The whole state at `version` in the feed's item shape, and the cursor to follow it from: a consumer's start (or resync). */
export interface FeedSnapshot {
  version: number;
  cursor: number;
  items: FeedItem[];
}

/**
 * `readFeed` outcome. `cursor_expired`: entries after that cursor were pruned: read the snapshot.
 * `cursor_ahead`: no entry has that id yet (a cursor of another event, or made up): nothing was read.
 */
export type FeedAnswer =
  | { kind: 'page'; page: FeedPage }
  | { kind: 'snapshot'; snapshot: FeedSnapshot }
  | { kind: 'cursor_expired'; oldest: number }
  | { kind: 'cursor_ahead'; newest: number }
  | ChannelRefusal
  | EventNotFound;
