// The Inventory's sales-channel work: channel registry, allocations and their settlement,
// the allocation gate of every hold, and the change feed. Called by the Inventory adapter inside its
// transactions; the rules are allocation-policy.ts, the SQL channel-store.ts.
import type {
  AllocationAnswer,
  AllocationRequest,
  AllocationView,
  ChannelCaller,
  ChannelRefusal,
  ChannelView,
  EndAllocationAnswer,
  FeedAnswer,
  PutChannelAnswer,
  RevokeChannelAnswer,
} from '../../contracts/channel-answers';
import { EVENT_NOT_FOUND } from '../../contracts/answers';
import { decideAllocation, gateHold, reservedPlaces, type HoldGate, type Holder } from './allocation-policy';
import type { HoldTarget } from './hold-policy';
import type { ChannelStore } from './channel-store';
import type { InventoryStore } from './store';
import type { PlanStore } from './plan-store';

/** Feed entries per page: at most this many (1-1000, default 500). */
const MAX_FEED_PAGE = 1_000;

/** Channel and allocation work of one Inventory. Every method runs inside the caller's `transactionSync`. */
export class ChannelDesk {
  constructor(
    private readonly store: InventoryStore,
    private readonly channelStore: ChannelStore,
    private readonly plans: PlanStore,
  ) {}

  /**
   * Writes the end of every allocation whose release time passed at `nowMs` (a version each, with
   * seat-map deltas and feed entries). Decisions never wait for this (they compare the release time
   * with the clock); it runs first in every call that writes or serves the map or the feed, and in
   * the alarm, so no reader sees an ended allocation as live.
   * @returns true when anything was written
   */
  settle(nowMs: number): boolean {
    const due = this.channelStore.dueAllocations(nowMs);
    for (const id of due) {
      this.store.bumpVersion();
      this.channelStore.endAllocation(id);
    }
    return due.length > 0;
  }

  /** The earliest release time still to settle (epoch ms), or null: the alarm wakes for it too. */
  nextRelease(): number | null {
    return this.channelStore.nextRelease();
  }

  /**
   * The allocation rule of a hold the rest of `decideHold` granted (see `gateHold`). A public hold
   * with no allocation stored reads nothing more.
   */
  gate(holder: Holder, target: HoldTarget, nowMs: number): HoldGate {
    if (holder.kind === 'public' && !this.channelStore.anyLive()) return { ok: true, allocationId: null };
    const seatIds = target.kind === 'seats' ? target.seatIds : [];
    const tier = target.kind === 'tier' ? (this.store.tiers().find((t) => t.tier === target.tier) ?? null) : null;
    return gateHold({
      holder,
      target,
      seatAllocations: this.channelStore.seatAllocations(seatIds),
      tierAllocations: target.kind === 'tier' ? this.channelStore.tierAllocations(target.tier) : [],
      tier,
      nowMs,
    });
  }

  /** Whether a verified key may act: the channel exists, is not revoked, and the key is of its current generation. */
  admit(caller: ChannelCaller): ChannelRefusal | null {
    const channel = this.channelStore.channel(caller.channelId);
    if (!channel) return { kind: 'channel_unknown' };
    if (channel.revoked || channel.generation !== caller.generation) return { kind: 'channel_revoked' };
    return null;
  }

  /**
   * Creates a channel (generation 1) or re-activates a revoked one with the next generation, so a
   * key of before the revocation never works again. An active channel keeps its generation (and
   * key); only its name may change.
   */
  putChannel(channelId: string, name: string, nowMs: number): PutChannelAnswer {
    if (!this.plans.head()) return EVENT_NOT_FOUND;
    const current = this.channelStore.channel(channelId);
    const kind = !current ? 'created' : current.revoked ? 'reactivated' : 'unchanged';
    const channel = {
      channelId,
      name,
      generation: !current ? 1 : current.revoked ? current.generation + 1 : current.generation,
      revoked: false,
      createdAtMs: current?.createdAtMs ?? nowMs,
      updatedAtMs: kind === 'unchanged' && current!.name === name ? current!.updatedAtMs : nowMs,
    };
    this.channelStore.saveChannel(channel);
    return { kind, channel };
  }

  /** Revokes a channel: every call with its key is refused from now on. Its holds keep their terms; its allocations stay until their release time. */
  revokeChannel(channelId: string, nowMs: number): RevokeChannelAnswer {
    if (!this.plans.head()) return EVENT_NOT_FOUND;
    const current = this.channelStore.channel(channelId);
    if (!current) return { kind: 'channel_unknown' };
    const channel = current.revoked ? current : { ...current, revoked: true, updatedAtMs: nowMs };
    this.channelStore.saveChannel(channel);
    return { kind: 'ok', channel };
  }

  /** Creates or changes an allocation as `decideAllocation` allows (after the sweep and settlement). */
  allocate(request: AllocationRequest, nowMs: number): AllocationAnswer {
    if (!this.plans.head()) return EVENT_NOT_FOUND;
    const existing = this.channelStore.allocation(request.allocationId);
    const target = request.target;
    const seatIds = 'seatIds' in target ? [...new Set([...target.seatIds, ...(existing?.seatIds ?? [])])] : [];
    const tier = 'tier' in target ? (this.store.tiers().find((t) => t.tier === target.tier) ?? null) : null;
    const others =
      'tier' in target ? this.channelStore.tierAllocations(target.tier).filter((a) => a.allocationId !== request.allocationId) : [];
    const decision = decideAllocation({
      request,
      existing: existing && (existing.ended ? { ...existing, releaseAtMs: Math.min(existing.releaseAtMs, nowMs) } : existing),
      channel: this.channelStore.channel(request.channelId),
      seats: this.channelStore.allocationSeatFacts(seatIds, nowMs),
      tier: tier && { capacity: tier.capacity, held: tier.held, sold: tier.sold, reservedByOthers: reservedPlaces(others, nowMs) },
      nowMs,
    });
    if (decision.kind !== 'apply') return decision;
    // The feed entries the seat moves below write carry this new version.
    this.store.bumpVersion();
    const facts = {
      allocationId: request.allocationId,
      channelId: request.channelId,
      kind: 'tier' in target ? ('tier' as const) : ('seats' as const),
      tier: 'tier' in target ? target.tier : null,
      quantity: decision.quantity,
      used: 0,
      releaseAtMs: request.releaseAtMs,
    };
    if (decision.create) this.channelStore.insertAllocation(facts, nowMs);
    else this.channelStore.updateAllocation(request.allocationId, decision.quantity, request.releaseAtMs);
    this.channelStore.moveSeats(request.allocationId, decision.addSeats, decision.removeSeats);
    return { kind: 'ok', created: decision.create, allocation: this.view(request.allocationId, nowMs)! };
  }

  /** Ends an allocation now: its unsold rest returns to general sale (its holds keep their seats). Ending twice answers `ok`. */
  endAllocation(allocationId: string, nowMs: number): EndAllocationAnswer {
    if (!this.plans.head()) return EVENT_NOT_FOUND;
    const a = this.channelStore.allocation(allocationId);
    if (!a) return { kind: 'allocation_not_found' };
    if (!a.ended) {
      this.store.bumpVersion();
      if (a.releaseAtMs > nowMs) this.channelStore.updateAllocation(allocationId, a.quantity, nowMs);
      this.channelStore.endAllocation(allocationId);
    }
    return { kind: 'ok', allocation: this.view(allocationId, nowMs)! };
  }

  /**
   * A page of the change feed after entry id `after` (`readFeed`), or the snapshot to start from.
   * A cursor above the newest entry is refused (`cursor_ahead`), one below the pruned floor
   * answers `cursor_expired`; neither reads anything else.
   */
  feed(after: number | 'snapshot', limit: number): FeedAnswer {
    const head = this.plans.head();
    if (!head) return EVENT_NOT_FOUND;
    const { newest, floor } = this.channelStore.feedBounds();
    if (after === 'snapshot')
      return { kind: 'snapshot', snapshot: { version: head.version, cursor: newest, items: this.channelStore.feedState() } };
    if (after > newest) return { kind: 'cursor_ahead', newest };
    if (after < floor) return { kind: 'cursor_expired', oldest: floor };
    const n = Math.min(Math.max(1, limit), MAX_FEED_PAGE);
    const entries = this.channelStore.feedAfter(after, n + 1);
    const page = entries.slice(0, n);
    return { kind: 'page', page: { entries: page, next: page.at(-1)?.id ?? after, more: entries.length > n, version: head.version } };
  }

  /** Every channel of the event. */
  channels(): ChannelView[] {
    return this.channelStore.channels();
  }

  /** Allocations (optionally of one channel) as seen at `nowMs`. */
  allocations(nowMs: number, channelId: string | null): AllocationView[] {
    return this.channelStore.allocationViews(nowMs, channelId);
  }

  private view(allocationId: string, nowMs: number) {
    return this.channelStore.allocationViews(nowMs, null).find((a) => a.allocationId === allocationId) ?? null;
  }
}
