// Allocation rules: who may hold an allocated seat or tier place at `nowMs`, and which
// allocation changes are allowed. Pure functions over facts read from storage; the exact-instant
// rule of hold deadlines applies: an allocation is live while `releaseAtMs > nowMs`, so its unsold
// rest is on general sale from the release instant on, whether or not any timer ran.
import { MAX_INSTANT_AHEAD_MS } from '../../contracts/zod';
import type { AllocationAnswer, AllocationRequest } from '../../contracts/channel-answers';
import type { HoldRefusalAnswer } from '../../contracts/inventory-answers';
import type { HoldTarget } from './hold-policy';

/** Who places a hold: a visitor admitted by the queue (or any caller of `hold`), or a sales channel. */
export type Holder = { kind: 'public' } | { kind: 'channel'; channelId: string };

/** An allocation as a decision needs it. `used` = places of it held or sold by its channel now. */
export interface AllocationFacts {
  allocationId: string;
  channelId: string;
  kind: 'seats' | 'tier';
  tier: string | null;
  quantity: number;
  used: number;
  /** Epoch ms; the allocation is live while this is after `nowMs`. */
  releaseAtMs: number;
}

/** True while the allocation holds its places for its channel (the release instant counts as released). */
export function allocationLive(a: Pick<AllocationFacts, 'releaseAtMs'>, nowMs: number): boolean {
  return a.releaseAtMs > nowMs;
}

/** Tier places reserved for live allocations and not yet held or sold by their channel. */
export function reservedPlaces(allocations: readonly AllocationFacts[], nowMs: number): number {
  return allocations.filter((a) => allocationLive(a, nowMs)).reduce((n, a) => n + Math.max(0, a.quantity - a.used), 0);
}

/** `gateHold` outcome: the hold may go ahead (tier holds of a channel name the allocation they draw on), or the refusal. */
export type HoldGate = { ok: true; allocationId: string | null } | { ok: false; refusal: HoldRefusalAnswer };

/**
 * The allocation rule of a hold whose seats exist and are free (`decideHold` said grant):
 * - public, seats: a seat in a live allocation is not on sale (`unavailable`, as the map shows it);
 * - public, tier: the places left are capacity - held - sold - the live allocations' reserve;
 * - channel, seats: every seat must be in a live allocation of this channel (`not_allocated`);
 * - channel, tier: one live allocation of this channel for the tier must have `quantity` places
 *   unused (`not_allocated` without any, `unavailable` with `remaining` when all are too full).
 *
 * @param facts.seatAllocations the allocation of each requested seat that has one (any state)
 * @param facts.tierAllocations every allocation of the requested tier
 * @param facts.tier the tier's counters (tier targets only)
 * @param facts.nowMs the Inventory object's clock, epoch ms
 */
export function gateHold(facts: {
  holder: Holder;
  target: HoldTarget;
  seatAllocations: ReadonlyMap<string, AllocationFacts>;
  tierAllocations: readonly AllocationFacts[];
  tier: { capacity: number; held: number; sold: number } | null;
  nowMs: number;
}): HoldGate {
  const { holder, target, nowMs } = facts;
  if (target.kind === 'seats') {
    const liveOwner = (id: string) => {
      const a = facts.seatAllocations.get(id);
      return a && allocationLive(a, nowMs) ? a.channelId : null;
    };
    if (holder.kind === 'public') {
      const allocated = target.seatIds.filter((id) => liveOwner(id) !== null);
      return allocated.length ? { ok: false, refusal: { kind: 'unavailable', seatIds: allocated } } : { ok: true, allocationId: null };
    }
    const outside = target.seatIds.filter((id) => liveOwner(id) !== holder.channelId);
    return outside.length ? { ok: false, refusal: { kind: 'not_allocated', seatIds: outside } } : { ok: true, allocationId: null };
  }
  const live = facts.tierAllocations.filter((a) => allocationLive(a, nowMs));
  if (holder.kind === 'public') {
    const t = facts.tier;
    const remaining = t ? t.capacity - t.held - t.sold - reservedPlaces(live, nowMs) : 0;
    return remaining >= target.quantity
      ? { ok: true, allocationId: null }
      : { ok: false, refusal: { kind: 'unavailable', seatIds: [], remaining: Math.max(0, remaining) } };
  }
  const mine = live.filter((a) => a.channelId === holder.channelId).sort((a, b) => (a.allocationId < b.allocationId ? -1 : 1));
  if (mine.length === 0) return { ok: false, refusal: { kind: 'not_allocated', seatIds: [], tier: target.tier } };
  const fits = mine.find((a) => a.quantity - a.used >= target.quantity);
  if (fits) return { ok: true, allocationId: fits.allocationId };
  const remaining = Math.max(0, ...mine.map((a) => a.quantity - a.used));
  return { ok: false, refusal: { kind: 'unavailable', seatIds: [], remaining } };
}

/** A seat as an allocation change needs it: its stored status (deadlines applied) and live allocation, if any. */
export interface AllocationSeatFacts {
  seatId: string;
  status: 'AVAILABLE' | 'HELD' | 'SOLD';
  /** The live allocation the seat is in now, or null. */
  allocationId: string | null;
}

/** `decideAllocation` outcome: what to write, or the refusal (which changes nothing). */
export type AllocationDecision =
  | { kind: 'apply'; create: boolean; addSeats: string[]; removeSeats: string[]; quantity: number }
  | Exclude<AllocationAnswer, { kind: 'ok' } | { kind: 'event_not_found' }>;

/**
 * Decides an allocation's creation or change. Never takes a seat or place that is held or sold:
 * - the release time must be after `nowMs` and at most MAX_INSTANT_AHEAD_MS after it; an allocation past its release time cannot change
 *   (`allocation_ended`): its rest is already on general sale;
 * - its channel and kind (seats or tier) are fixed once created (end it and create another);
 * - seats added must exist, be AVAILABLE and in no other live allocation (`allocation_conflict`);
 *   seats taken out must not be held or sold (`allocation_in_use`);
 * - a tier quota may not drop below what the channel holds and sold (`allocation_in_use`) and
 *   may reserve at most the places nobody holds, sold or reserved (`allocation_conflict`).
 *
 * @param facts.existing the allocation of this id, or null (with `used` at `nowMs`, `seatIds` its seats)
 * @param facts.channel the requested channel's state, or null when it does not exist
 * @param facts.seats every requested or currently allocated seat that exists
 * @param facts.tier the requested tier's counters and the reserve of the other live allocations, or null
 * @param facts.nowMs the Inventory object's clock, epoch ms
 */
export function decideAllocation(facts: {
  request: AllocationRequest;
  existing: (AllocationFacts & { seatIds: readonly string[] }) | null;
  channel: { revoked: boolean } | null;
  seats: readonly AllocationSeatFacts[];
  tier: { capacity: number; held: number; sold: number; reservedByOthers: number } | null;
  nowMs: number;
}): AllocationDecision {
  const { request, existing, nowMs } = facts;
  if (!facts.channel) return { kind: 'channel_unknown' };
  if (facts.channel.revoked) return { kind: 'channel_revoked' };
  if (existing && !allocationLive(existing, nowMs)) return { kind: 'allocation_ended' };
  if (!(request.releaseAtMs > nowMs)) return { kind: 'invalid', detail: 'releaseAt must be later than now' };
  // Bounded here too (the edge's schema bounds it first): the time becomes the object's alarm.
  if (!(request.releaseAtMs <= nowMs + MAX_INSTANT_AHEAD_MS)) return { kind: 'invalid', detail: 'releaseAt must be within five years' };
  const kind = 'tier' in request.target ? 'tier' : 'seats';
  if (existing && existing.channelId !== request.channelId)
    return {
      kind: 'invalid',
      detail: `allocation ${request.allocationId} belongs to channel ${existing.channelId}; end it and create another`,
    };
  if (existing && existing.kind !== kind) return { kind: 'invalid', detail: `allocation ${request.allocationId} is of ${existing.kind}` };
  if ('tier' in request.target) {
    const { tier, quantity } = request.target;
    if (!facts.tier) return { kind: 'unknown_tier', tier };
    if (existing && existing.tier !== tier)
      return { kind: 'invalid', detail: `allocation ${request.allocationId} is of tier ${existing.tier}` };
    const used = existing?.used ?? 0;
    if (quantity < used) return { kind: 'allocation_in_use', seatIds: [], used };
    // `held` and `sold` already count this allocation's used places.
    const free = facts.tier.capacity - facts.tier.held - facts.tier.sold - facts.tier.reservedByOthers;
    if (quantity - used > free) return { kind: 'allocation_conflict', seatIds: [], remaining: Math.max(0, free) };
    return { kind: 'apply', create: !existing, addSeats: [], removeSeats: [], quantity };
  }
  const wanted = new Set(request.target.seatIds);
  const known = new Map(facts.seats.map((s) => [s.seatId, s]));
  const unknown = [...wanted].filter((id) => !known.has(id));
  if (unknown.length) return { kind: 'unknown_seats', seatIds: unknown };
  const current = new Set(existing?.seatIds ?? []);
  const addSeats = [...wanted].filter((id) => !current.has(id)).sort();
  const removeSeats = [...current].filter((id) => !wanted.has(id)).sort();
  const conflict = addSeats.filter((id) => {
    const s = known.get(id)!;
    return s.status !== 'AVAILABLE' || (s.allocationId !== null && s.allocationId !== request.allocationId);
  });
  if (conflict.length) return { kind: 'allocation_conflict', seatIds: conflict };
  const inUse = removeSeats.filter((id) => known.get(id)?.status !== 'AVAILABLE');
  if (inUse.length) return { kind: 'allocation_in_use', seatIds: inUse };
  return { kind: 'apply', create: !existing, addSeats, removeSeats, quantity: wanted.size };
}
