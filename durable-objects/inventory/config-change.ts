// Event configuration changes that span objects: the Inventory keeps the one change in flight,
// so concurrent changes are serialized and a change cut short by a crash can be resumed or replaced.
import { planShape, type InventoryConfig } from '../../contracts/event-config';
import type { ChangeRequest } from '../../contracts/inventory-answers';

export type { ChangeRequest };
export { planShape };

/**
 * How long a started change owns the event, ms. Another change (with a different body) is refused
 * (`busy`) until the owner finishes or this lease runs out; after it, the next change takes over.
 * An admin request takes a few object round trips, so 30 s is only reached when it died.
 */
export const CHANGE_LEASE_MS = 30_000;

/** The change in flight, as stored. Times epoch ms (the Inventory's clock). */
export interface PendingChange {
  /** Chosen by the caller per request; names the owner. */
  changeId: string;
  /** Digest of the whole event configuration the change writes (both objects' parts). */
  fingerprint: string;
  /** The change created the seat plan: until it finishes, and while no hold exists, a new plan may replace it. */
  createdPlan: boolean;
  /** The configuration before the change (restored on abort); null when the change created the plan. */
  previousConfig: InventoryConfig | null;
  startedAtMs: number;
  leaseUntilMs: number;
}

/** `decideChange` outcome: what to write, or why not. */
export type ChangeDecision =
  /** `create` a new plan, `replace` the plan an unfinished creation left (no hold exists), or `update` prices and rules. */
  | { kind: 'apply'; write: 'create' | 'replace' | 'update'; pending: PendingChange; resumed: boolean }
  | { kind: 'busy'; retryAfterS: number }
  | { kind: 'conflict'; detail: string };

/** An event with sections spans objects: its seat plan is never replaced, even by a creation cut short (section holds are not seen here). */
function spansObjects(config: InventoryConfig | null): boolean {
  return config !== null && (config.section !== undefined || (config.sections?.length ?? 0) > 0);
}

/**
 * Whether a configuration change may start now, and what it writes.
 * - Another change with a different body in flight and within its lease: `busy` (the caller
 *   answers 409 and changes nothing; Retry-After = the lease left).
 * - The same body as the change in flight (a retry, or a second identical request): it takes the
 *   change over and re-applies the same configuration, so any interleaving ends the same.
 * - A change whose owner died (lease passed) is taken over by any change.
 * - The seat plan is fixed once a change that created it finished; until then, and while no hold
 *   exists, a taking-over change may replace it with another plan.
 *
 * @param state.holdsExist any hold (in any status) was ever stored
 * @param nowMs the Inventory's clock, epoch ms
 */
export function decideChange(
  state: { plan: InventoryConfig | null; holdsExist: boolean; pending: PendingChange | null },
  request: ChangeRequest,
  nowMs: number,
): ChangeDecision {
  const p = state.pending;
  if (p && p.fingerprint !== request.fingerprint && p.leaseUntilMs > nowMs) {
    return { kind: 'busy', retryAfterS: Math.max(1, Math.ceil((p.leaseUntilMs - nowMs) / 1000)) };
  }
  const unfinishedCreation = p?.createdPlan ?? false;
  let write: 'create' | 'replace' | 'update';
  if (!state.plan) write = 'create';
  else if (planShape(state.plan) === planShape(request.config)) write = 'update';
  else if (unfinishedCreation && !state.holdsExist && !spansObjects(state.plan) && !spansObjects(request.config)) write = 'replace';
  else {
    return {
      kind: 'conflict',
      detail:
        spansObjects(state.plan) || spansObjects(request.config)
          ? 'the seat plan of an event with sections (sections, seats, rows, tiers) is fixed once created'
          : unfinishedCreation
            ? 'the seat plan is fixed once holds exist'
            : 'the seat plan (seats, seatsPerRow, tier names and capacities) is fixed once created',
    };
  }
  const createdPlan = write !== 'update' || unfinishedCreation;
  return {
    kind: 'apply',
    write,
    resumed: p !== null,
    pending: {
      changeId: request.changeId,
      fingerprint: request.fingerprint,
      createdPlan,
      // What an abort goes back to: the last finished configuration, never a half-applied one.
      previousConfig: createdPlan ? null : p ? p.previousConfig : state.plan,
      startedAtMs: p?.startedAtMs ?? nowMs,
      leaseUntilMs: nowMs + CHANGE_LEASE_MS,
    },
  };
}

/** `decideAbort` outcome. */
export type AbortDecision =
  | { kind: 'not_owner' }
  /** Undo a creation: no hold exists, so the plan goes and the event does not exist. */
  | { kind: 'delete_plan' }
  /** Undo an update: the configuration before the change comes back. */
  | { kind: 'restore'; config: InventoryConfig }
  /** A creation that holds already use: the plan stays, the change ends. */
  | { kind: 'keep' };

/**
 * How to undo a change another object refused after the Inventory applied it (only its owner may).
 */
export function decideAbort(pending: PendingChange | null, changeId: string, holdsExist: boolean): AbortDecision {
  if (!pending || pending.changeId !== changeId) return { kind: 'not_owner' };
  if (pending.createdPlan) return holdsExist ? { kind: 'keep' } : { kind: 'delete_plan' };
  return pending.previousConfig ? { kind: 'restore', config: pending.previousConfig } : { kind: 'keep' };
}
