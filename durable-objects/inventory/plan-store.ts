// The Inventory's plan row and its change record: the seat plan, flags, and the configuration change in flight.
import { type InventoryConfig } from '../../contracts/event-config';
import { DEFAULT_PAYMENT_GRACE_S, DEFAULT_SEAT_PRICE_MINOR } from '../../contracts/event-input';
import type { BeginChangeAnswer, ChangeRequest, EndChangeAnswer } from '../../contracts/inventory-answers';
import type { Sql } from '../shared/sql';
import { decideAbort, decideChange, type PendingChange } from './config-change';
import { seatIdsFor } from './hold-policy';

/** The plan row's bookkeeping: map version, pruned deltas, flags. */
export interface PlanHead {
  version: number;
  prunedThrough: number;
  /** The WaitingRoom was told the event sold out. */
  soldOut: boolean;
  eventId: string | null;
  salesClosed: boolean;
}

/** The event's plan and configuration changes. Call the writers inside `transactionSync`. */
export class PlanStore {
  /** The last plan parsed and the stored text it came from: a hold reads the plan 2-3 times. */
  private parsed: { raw: string; plan: Readonly<InventoryConfig> } | null = null;

  constructor(private readonly sql: Sql) {}

  /**
   * Starts (or resumes) a change: writes what `decideChange` allows (a new plan, a replaced
   * unfinished one, or new prices and rules) and records the change in flight.
   */
  begin(request: ChangeRequest, nowMs: number, eventId: string | null): BeginChangeAnswer {
    const plan = this.plan();
    const decision = decideChange({ plan, holdsExist: this.holdsExist(), pending: this.pendingChange() }, request, nowMs);
    if (decision.kind !== 'apply') return decision;
    if (decision.write === 'create') this.createPlan(request.config, eventId);
    else if (decision.write === 'replace') this.replacePlan(request.config, eventId);
    else this.updatePlan(request.config, eventId);
    this.savePendingChange(decision.pending);
    // `created` stays true for a creation resumed after a crash: its answer is still 201.
    return { kind: 'ok', created: decision.pending.createdPlan, resumed: decision.resumed };
  }

  /** Ends the change `changeId` started; a retried finish answers `ok` again. */
  finish(changeId: string): EndChangeAnswer {
    const pending = this.pendingChange();
    if (pending?.changeId === changeId) {
      this.endChange('done');
      return { kind: 'ok' };
    }
    return !pending && this.lastFinishedChange() === changeId ? { kind: 'ok' } : { kind: 'superseded' };
  }

  /** Undoes the change `changeId` started (see `decideAbort`). */
  abort(changeId: string): EndChangeAnswer {
    const decision = decideAbort(this.pendingChange(), changeId, this.holdsExist());
    if (decision.kind === 'not_owner') return { kind: 'superseded' };
    if (decision.kind === 'delete_plan') this.deletePlan();
    else if (decision.kind === 'restore') this.updatePlan(decision.config, null);
    this.endChange('dropped');
    return { kind: 'ok' };
  }

  /**
   * The stored configuration, with defaults for fields added after it was stored; null = no event.
   * Read from storage on every call (so a write, or a rolled-back one, is seen at once); parsed
   * again only when the stored text changed. Callers must not modify it (frozen).
   */
  plan(): Readonly<InventoryConfig> | null {
    const row = this.sql.one<{ config: string }>`SELECT config FROM inv_plan WHERE id = 1`;
    if (!row) return null;
    if (this.parsed?.raw === row.config) return this.parsed.plan;
    // Plans stored before prices, tiers and payment grace existed get the defaults.
    const defaults = {
      seatPriceMinor: DEFAULT_SEAT_PRICE_MINOR,
      currency: 'EUR',
      tiers: [],
      paymentGraceMs: DEFAULT_PAYMENT_GRACE_S * 1000,
    };
    const plan = Object.freeze({ ...defaults, ...(JSON.parse(row.config) as Partial<InventoryConfig>) } as InventoryConfig);
    this.parsed = { raw: row.config, plan };
    return plan;
  }

  head(): PlanHead | null {
    const row = this.sql.one<{ version: number; pruned_through: number; sold_out: number; event_id: string | null; sales_closed: number }>`
      SELECT version, pruned_through, sold_out, event_id, sales_closed FROM inv_plan WHERE id = 1`;
    if (!row) return null;
    return {
      version: row.version,
      prunedThrough: row.pruned_through,
      soldOut: row.sold_out === 1,
      eventId: row.event_id,
      salesClosed: row.sales_closed === 1,
    };
  }

  /** Writes a new seat plan: every seat AVAILABLE, every tier empty. `fromVersion` keeps versions growing across a replaced plan. */
  createPlan(config: InventoryConfig, eventId: string | null, fromVersion = 1): void {
    this.sql
      .run`INSERT INTO inv_plan (id, config, version, event_id, pruned_through) VALUES (1, ${JSON.stringify(config)}, ${fromVersion}, ${eventId}, ${fromVersion})`;
    seatIdsFor(config.seats, config.seatsPerRow, config.section).forEach((id, i) => {
      this.sql.run`INSERT INTO inv_seats (seat_id, ord, status, version) VALUES (${id}, ${i}, 'AVAILABLE', ${fromVersion})`;
    });
    for (const t of config.tiers)
      this.sql.run`INSERT INTO inv_tiers (tier, capacity, price_minor) VALUES (${t.tier}, ${t.capacity}, ${t.priceMinor})`;
  }

  /** Removes the seat plan, its seats and tiers (only ever with no hold stored; a new plan's `pruned_through` hides older feed entries from its seat map). */
  deletePlan(): void {
    if (this.holdsExist()) throw new Error('invariant: a plan with holds is never deleted');
    this.sql.run`DELETE FROM inv_seats`;
    this.sql.run`DELETE FROM inv_tiers`;
    this.sql.run`DELETE FROM inv_section_flags`;
    this.sql.run`DELETE FROM inv_plan`;
  }

  /** Replaces the plan an unfinished creation left (no hold exists) with another one. */
  replacePlan(config: InventoryConfig, eventId: string | null): void {
    const version = (this.head()?.version ?? 0) + 1;
    this.deletePlan();
    this.createPlan(config, eventId, version);
  }

  /** Updates prices and hold rules; the plan's shape is unchanged (checked by the caller). */
  updatePlan(config: InventoryConfig, eventId: string | null): void {
    if (eventId) this.sql.run`UPDATE inv_plan SET event_id = ${eventId}`;
    this.sql.run`UPDATE inv_plan SET config = ${JSON.stringify(config)}`;
    for (const t of config.tiers) this.sql.run`UPDATE inv_tiers SET price_minor = ${t.priceMinor} WHERE tier = ${t.tier}`;
  }

  setSalesClosed(closed: boolean): void {
    this.sql.run`UPDATE inv_plan SET sales_closed = ${closed ? 1 : 0}`;
  }

  setSoldOutDelivered(soldOut: boolean): void {
    this.sql.run`UPDATE inv_plan SET sold_out = ${soldOut ? 1 : 0}`;
  }

  /** The configuration change in flight, or null. */
  pendingChange(): PendingChange | null {
    const r = this.sql.one<{
      change_id: string;
      fingerprint: string;
      created_plan: number;
      previous_config: string | null;
      started_at: number;
      lease_until: number;
    }>`SELECT * FROM inv_change WHERE id = 1 AND done = 0`;
    if (!r) return null;
    return {
      changeId: r.change_id,
      fingerprint: r.fingerprint,
      createdPlan: r.created_plan === 1,
      previousConfig: r.previous_config === null ? null : (JSON.parse(r.previous_config) as InventoryConfig),
      startedAtMs: r.started_at,
      leaseUntilMs: r.lease_until,
    };
  }

  /** The id of the last change that finished (for a retried finish). */
  lastFinishedChange(): string | null {
    return this.sql.one<{ change_id: string }>`SELECT change_id FROM inv_change WHERE id = 1 AND done = 1`?.change_id ?? null;
  }

  savePendingChange(p: PendingChange): void {
    this.sql.run`INSERT INTO inv_change (id, change_id, fingerprint, created_plan, previous_config, started_at, lease_until, done)
      VALUES (1, ${p.changeId}, ${p.fingerprint}, ${p.createdPlan ? 1 : 0}, ${p.previousConfig ? JSON.stringify(p.previousConfig) : null}, ${p.startedAtMs}, ${p.leaseUntilMs}, 0)
      ON CONFLICT (id) DO UPDATE SET change_id = excluded.change_id, fingerprint = excluded.fingerprint, created_plan = excluded.created_plan,
        previous_config = excluded.previous_config, started_at = excluded.started_at, lease_until = excluded.lease_until, done = 0`;
  }

  /** Marks the change in flight finished (`done`), or forgets it (`dropped`, after an abort). */
  endChange(how: 'done' | 'dropped'): void {
    if (how === 'done') this.sql.run`UPDATE inv_change SET done = 1 WHERE id = 1`;
    else this.sql.run`DELETE FROM inv_change WHERE id = 1`;
  }

  /** The sold-out flag each section's object delivered last (event's own object of an event with sections). */
  sectionFlags(): Map<string, boolean> {
    const rows = this.sql.all<{ section: string; sold_out: number }>`SELECT section, sold_out FROM inv_section_flags`;
    return new Map(rows.map((r) => [r.section, r.sold_out === 1]));
  }

  setSectionFlag(section: string, soldOut: boolean): void {
    this.sql.run`INSERT INTO inv_section_flags (section, sold_out) VALUES (${section}, ${soldOut ? 1 : 0})
      ON CONFLICT (section) DO UPDATE SET sold_out = excluded.sold_out`;
  }

  holdsExist(): boolean {
    return this.sql.one`SELECT 1 AS x FROM inv_holds LIMIT 1` !== null;
  }
}
