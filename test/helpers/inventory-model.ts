// A pure, in-memory reference inventory built on the pure hold state machine: the same rules as the
// Inventory object, without SQL. Property tests run random schedules on it and compare the object.
import {
  applyHoldAction,
  effectiveStatus,
  targetKey,
  targetQuantity,
  validateHoldTarget,
  type HoldAction,
  type HoldStatus,
} from '../../durable-objects/inventory/hold-policy';

export interface ModelConfig {
  seatIds: string[];
  seatPriceMinor: number;
  tiers: { tier: string; capacity: number; priceMinor: number }[];
  holdTtlMs: number;
  paymentGraceMs: number;
  maxSeatsPerAccount: number;
}

export interface ModelHold {
  id: string;
  account: string;
  status: HoldStatus;
  expiresAtMs: number;
  orderId: string | null;
  priceMinor: number;
  seatIds: string[];
  tier: string | null;
  quantity: number;
  request: string;
}

/** The outcome kinds the object also returns, for comparison. */
export type ModelOutcome = { kind: string; code?: string; status?: HoldStatus; holdId?: string; replayed?: boolean };

export class InventoryModel {
  readonly seats = new Map<
    string,
    { status: 'AVAILABLE' | 'HELD' | 'SOLD'; holdId: string | null; orderId: string | null; expiresAtMs: number | null }
  >();
  readonly tiers = new Map<string, { capacity: number; priceMinor: number; held: number; sold: number }>();
  readonly holds = new Map<string, ModelHold>();
  private readonly keys = new Map<string, string>();
  private next = 1;

  constructor(readonly config: ModelConfig) {
    for (const id of config.seatIds) this.seats.set(id, { status: 'AVAILABLE', holdId: null, orderId: null, expiresAtMs: null });
    for (const t of config.tiers) this.tiers.set(t.tier, { capacity: t.capacity, priceMinor: t.priceMinor, held: 0, sold: 0 });
  }

  hold(account: string, request: { seatIds: string[] } | { tier: string; quantity: number }, key: string, now: number): ModelOutcome {
    const valid = validateHoldTarget(request);
    if (!valid.ok) return { kind: 'invalid' };
    this.sweep(now);
    const target = valid.target;
    const earlier = this.keys.get(`${account}\n${key}`);
    if (earlier)
      return this.holds.get(earlier)!.request === targetKey(target)
        ? { kind: 'held', holdId: earlier, replayed: true }
        : { kind: 'idempotency_conflict' };
    const quantity = targetQuantity(target);
    let price: number;
    if (target.kind === 'seats') {
      if (target.seatIds.some((id) => !this.seats.has(id))) return { kind: 'unknown_seats' };
      if (target.seatIds.some((id) => this.seats.get(id)!.status !== 'AVAILABLE')) return { kind: 'unavailable' };
      price = quantity * this.config.seatPriceMinor;
    } else {
      const tier = this.tiers.get(target.tier);
      if (!tier) return { kind: 'unknown_tier' };
      if (tier.capacity - tier.held - tier.sold < quantity) return { kind: 'unavailable' };
      price = quantity * tier.priceMinor;
    }
    if (this.owned(account, now, null) + quantity > this.config.maxSeatsPerAccount) return { kind: 'account_limit' };
    const id = `h${this.next++}`;
    this.holds.set(id, {
      id,
      account,
      status: 'HELD',
      expiresAtMs: now + this.config.holdTtlMs,
      orderId: null,
      priceMinor: price,
      seatIds: target.kind === 'seats' ? target.seatIds : [],
      tier: target.kind === 'tier' ? target.tier : null,
      quantity,
      request: targetKey(target),
    });
    this.keys.set(`${account}\n${key}`, id);
    if (target.kind === 'seats') {
      for (const s of target.seatIds)
        this.seats.set(s, { status: 'HELD', holdId: id, orderId: null, expiresAtMs: now + this.config.holdTtlMs });
    } else this.tiers.get(target.tier)!.held += quantity;
    return { kind: 'held', holdId: id, replayed: false };
  }

  change(id: string, action: HoldAction, now: number): ModelOutcome {
    this.sweep(now);
    const h = this.holds.get(id);
    if (!h) return { kind: 'not_found' };
    const t = applyHoldAction(h, action, now);
    if (!t.ok) return { kind: 'refused', code: t.code };
    if (t.noop) return { kind: 'ok', status: effectiveStatus(h, now) };
    if (action.kind === 'confirm') {
      if ([...this.holds.values()].some((o) => o.id !== id && o.orderId === action.orderId))
        return { kind: 'refused', code: 'ORDER_ALREADY_USED' };
      if (this.owned(h.account, now, id) + h.quantity > this.config.maxSeatsPerAccount) return { kind: 'refused', code: 'ACCOUNT_LIMIT' };
    }
    this.apply(h, t.status, t.expiresAtMs, action.kind === 'confirm' ? action.orderId : null);
    return { kind: 'ok', status: t.status };
  }

  /** Every passed deadline, as the alarm (or the next write) applies it. */
  sweep(now: number): void {
    for (const h of this.holds.values()) {
      if ((h.status === 'HELD' || h.status === 'PAYMENT_PENDING') && h.expiresAtMs <= now) {
        this.apply(h, h.status === 'HELD' ? 'EXPIRED' : 'NEEDS_RECONCILIATION', h.expiresAtMs, null);
      }
    }
  }

  private apply(h: ModelHold, to: HoldStatus, expiresAtMs: number, orderId: string | null): void {
    if (to === 'RELEASED' || to === 'EXPIRED') {
      for (const s of h.seatIds)
        if (this.seats.get(s)!.holdId === h.id) this.seats.set(s, { status: 'AVAILABLE', holdId: null, orderId: null, expiresAtMs: null });
      if (h.tier) this.tiers.get(h.tier)!.held -= h.quantity;
    } else if (to === 'PAYMENT_PENDING') {
      for (const s of h.seatIds) this.seats.get(s)!.expiresAtMs = null;
    } else if (to === 'SOLD') {
      for (const s of h.seatIds) this.seats.set(s, { status: 'SOLD', holdId: h.id, orderId, expiresAtMs: null });
      if (h.tier) {
        const tier = this.tiers.get(h.tier)!;
        tier.held -= h.quantity;
        tier.sold += h.quantity;
      }
    }
    h.status = to;
    h.expiresAtMs = expiresAtMs;
    if (orderId) h.orderId = orderId;
  }

  private owned(account: string, now: number, except: string | null): number {
    let n = 0;
    for (const h of this.holds.values()) {
      if (h.account !== account || h.id === except) continue;
      const s = h.status === 'HELD' && h.expiresAtMs <= now ? 'EXPIRED' : h.status;
      if (s === 'HELD' || s === 'PAYMENT_PENDING' || s === 'NEEDS_RECONCILIATION' || s === 'SOLD') n += h.quantity;
    }
    return n;
  }

  /**
   * The invariants of DESIGN.md section 6, as a list of violations (empty = all hold):
   * one SOLD order per seat, sold seats and confirmed orders match exactly, live holds own all
   * their seats, tier counters equal their holds and never exceed capacity.
   */
  violations(): string[] {
    const out: string[] = [];
    for (const [id, seat] of this.seats) {
      const soldBy = [...this.holds.values()].filter((h) => h.status === 'SOLD' && h.seatIds.includes(id));
      if (soldBy.length > 1) out.push(`seat ${id} in ${soldBy.length} sold holds`);
      if (seat.status === 'SOLD' && (soldBy.length !== 1 || soldBy[0]!.id !== seat.holdId || soldBy[0]!.orderId !== seat.orderId))
        out.push(`sold seat ${id} without its order`);
      if (seat.status === 'HELD') {
        const h = this.holds.get(seat.holdId!);
        if (!h || !['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION'].includes(h.status))
          out.push(`held seat ${id} names a hold that is not live`);
      }
    }
    const orders = [...this.holds.values()].filter((h) => h.orderId !== null).map((h) => h.orderId);
    if (new Set(orders).size !== orders.length) out.push('an order id pays for two holds');
    for (const h of this.holds.values()) {
      const live = ['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION', 'SOLD'].includes(h.status);
      for (const s of h.seatIds) if (live && this.seats.get(s)!.holdId !== h.id) out.push(`${h.status} hold ${h.id} lost seat ${s}`);
    }
    for (const [name, t] of this.tiers) {
      const sum = (ss: HoldStatus[]) =>
        [...this.holds.values()].filter((h) => h.tier === name && ss.includes(h.status)).reduce((a, h) => a + h.quantity, 0);
      if (t.held + t.sold > t.capacity) out.push(`tier ${name} over capacity`);
      if (t.held !== sum(['HELD', 'PAYMENT_PENDING', 'NEEDS_RECONCILIATION']) || t.sold !== sum(['SOLD']))
        out.push(`tier ${name} counters off`);
    }
    return out;
  }

  /** Who owns each seat (hold id or null) and each tier's counters: the state a replay must not change. */
  fingerprint(): string {
    return JSON.stringify([[...this.seats].map(([k, v]) => [k, v.status, v.holdId]), [...this.tiers], this.holds.size]);
  }
}
