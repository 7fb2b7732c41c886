// The edge's mapping of the Inventory's channel, allocation and feed answers
// (contracts/channel-answers.ts) to results or GatewayErrors; every switch is exhaustive.
import type {
  AllocationAnswer,
  AllocationView,
  ChannelHoldAnswer,
  ChannelHoldChangeAnswer,
  ChannelRefusal,
  EndAllocationAnswer,
  FeedAnswer,
  FeedPage,
  FeedSnapshot,
  RevokeChannelAnswer,
} from '../../contracts/channel-answers';
import type { HoldAnswer, HoldChangeAnswer } from '../../contracts/inventory-answers';
import { GatewayError, assertNever } from './errors';
import { requireEvent } from './object-answers';

/** The answer without its channel refusals. @throws GatewayError CHANNEL_UNKNOWN / CHANNEL_REVOKED (401) */
export function requireChannel<A extends { kind: string }>(answer: A | ChannelRefusal): Exclude<A, ChannelRefusal> {
  if (answer.kind === 'channel_unknown')
    throw new GatewayError('CHANNEL_UNKNOWN', { detail: 'this event has no channel of that id; ask the organizer for a key' });
  if (answer.kind === 'channel_revoked')
    throw new GatewayError('CHANNEL_REVOKED', { detail: 'the organizer revoked this key (or issued a newer one); nothing was changed' });
  return answer as Exclude<A, ChannelRefusal>;
}

/** A channel's hold: the hold answer (mapped by `holdResult`). @throws GatewayError CHANNEL_UNKNOWN, CHANNEL_REVOKED */
export function channelHoldResult(answer: ChannelHoldAnswer): HoldAnswer {
  return requireChannel(answer);
}

/** A channel's hold change: the change answer (mapped by `holdChangeResult`). @throws GatewayError CHANNEL_*, EVENT_NOT_FOUND */
export function channelChangeResult(answer: ChannelHoldChangeAnswer, eventId: string): HoldChangeAnswer {
  return requireEvent(requireChannel(answer), eventId);
}

/**
 * Creating or changing an allocation.
 * @throws GatewayError EVENT_NOT_FOUND, INVALID_REQUEST, CHANNEL_NOT_FOUND (404), SEAT_NOT_FOUND,
 *   TIER_NOT_FOUND, ALLOCATION_CONFLICT (409), ALLOCATION_IN_USE (409), ALLOCATION_ENDED (409)
 */
export function allocationResult(answer: AllocationAnswer, eventId: string): { allocation: AllocationView; created: boolean } {
  const found = requireEvent(answer, eventId);
  switch (found.kind) {
    case 'ok':
      return found;
    case 'invalid':
      throw new GatewayError('INVALID_REQUEST', { detail: found.detail });
    case 'channel_unknown':
      throw new GatewayError('CHANNEL_NOT_FOUND', { detail: 'create the channel first (PUT .../channels/{channelId})' });
    case 'channel_revoked':
      throw new GatewayError('CHANNEL_REVOKED', { detail: 'the channel is revoked: re-activate it before allocating to it' });
    case 'unknown_seats':
      throw new GatewayError('SEAT_NOT_FOUND', { detail: `no such seats: ${found.seatIds.join(', ')}`, extra: { seatIds: found.seatIds } });
    case 'unknown_tier':
      throw new GatewayError('TIER_NOT_FOUND', { detail: `no tier "${found.tier}"` });
    case 'allocation_conflict':
      throw found.remaining !== undefined
        ? new GatewayError('ALLOCATION_CONFLICT', {
            detail: `only ${found.remaining} places of the tier are free to allocate; nothing was changed`,
            extra: { remaining: found.remaining },
          })
        : new GatewayError('ALLOCATION_CONFLICT', {
            detail: `held, sold or in another live allocation: ${found.seatIds.join(', ')}; nothing was changed`,
            extra: { seatIds: found.seatIds },
          });
    case 'allocation_in_use':
      throw found.used !== undefined
        ? new GatewayError('ALLOCATION_IN_USE', {
            detail: `the channel holds or sold ${found.used} places of this allocation; nothing was changed`,
            extra: { used: found.used },
          })
        : new GatewayError('ALLOCATION_IN_USE', {
            detail: `held or sold by the channel, so they stay allocated: ${found.seatIds.join(', ')}; nothing was changed`,
            extra: { seatIds: found.seatIds },
          });
    case 'allocation_ended':
      throw new GatewayError('ALLOCATION_ENDED', { detail: 'the allocation reached its release time; create another' });
    default:
      return assertNever(found);
  }
}

/** Ending an allocation. @throws GatewayError EVENT_NOT_FOUND, ALLOCATION_NOT_FOUND (404) */
export function endAllocationResult(answer: EndAllocationAnswer, eventId: string): AllocationView {
  const found = requireEvent(answer, eventId);
  if (found.kind === 'allocation_not_found') throw new GatewayError('ALLOCATION_NOT_FOUND');
  return found.allocation;
}

/** Revoking a channel. @throws GatewayError EVENT_NOT_FOUND, CHANNEL_NOT_FOUND (404) */
export function revokeResult(answer: RevokeChannelAnswer, eventId: string) {
  const found = requireEvent(answer, eventId);
  if (found.kind === 'channel_unknown') throw new GatewayError('CHANNEL_NOT_FOUND');
  return found.channel;
}

/**
 * Reading the feed.
 * @throws GatewayError CHANNEL_*, EVENT_NOT_FOUND, CURSOR_AHEAD (409: not a cursor of this feed),
 *   CURSOR_EXPIRED (410: read the snapshot and follow from its cursor)
 */
export function feedResult(answer: FeedAnswer, eventId: string): FeedPage | FeedSnapshot {
  const found = requireEvent(requireChannel(answer), eventId);
  switch (found.kind) {
    case 'page':
      return found.page;
    case 'snapshot':
      return found.snapshot;
    case 'cursor_ahead':
      throw new GatewayError('CURSOR_AHEAD', {
        detail: `no feed entry ${found.newest + 1} or later exists yet (newest ${found.newest}): a cursor of another event or made up; nothing was read`,
        extra: { newest: found.newest },
      });
    case 'cursor_expired':
      throw new GatewayError('CURSOR_EXPIRED', {
        detail: `entries up to ${found.oldest} were pruned: read the snapshot (GET .../feed/snapshot) and follow from its cursor`,
        extra: { oldest: found.oldest },
      });
    default:
      return assertNever(found);
  }
}
