// What the WaitingRoom object answers over RPC, where the edge reads the answer (contracts/answers.ts
// says how every answer is shaped).
import type { Done, EventNotFound } from './answers';
import type { RoomMode } from './queue/queue-policy';

/**
 * `admit` outcome: the admission (new, or the same one again), `waiting` when the cursor has not
 * passed the place yet (the edge's cursor was ahead of this object's, which cannot happen, or
 * the place belongs to a draw not made yet), or `requeue` when the place is gone: released longer
 * than the idle timeout ago and never claimed (`lapsed`), its admission already ended (`ended`),
 * or a pre-queue ticket whose visitor is not in the draw (`not_in_draw`).
 */
export type AdmitAnswer =
  | { kind: 'admitted'; admittedAtMs: number; expiresAtMs: number }
  | { kind: 'waiting' }
  | { kind: 'requeue'; reason: 'lapsed' | 'ended' | 'not_in_draw' }
  | EventNotFound;

/**
 * `passThrough` outcome: the admission of a newcomer under the `passthrough` method, or `queue`
 * with why they take a place in line instead (durable-objects/waiting-room/schedule-policy.ts passDecision).
 */
export type PassAnswer =
  | { kind: 'admitted'; admittedAtMs: number; expiresAtMs: number }
  | { kind: 'queue'; reason: 'not_passthrough' | 'not_open' | 'people_waiting' | 'full' }
  | EventNotFound;

/** WaitingRoom `configure` outcome: stored (`created` = first time), or refused with a reason. */
export type RoomConfigureAnswer = { kind: 'ok'; created: boolean } | { kind: 'conflict'; detail: string };

/** `setFixedRate` outcome: `above_maximum` when the rate exceeds the event's releaseRatePerMinute. */
/**
 * `setFixedRate` outcome: `ok` with the fixed rate before (null: the controller decided) and
 * whether it changed; `above_maximum` over the event's own maximum (per minute).
 */
export type FixedRateAnswer =
  { kind: 'ok'; previous: number | null; changed: boolean } | EventNotFound | { kind: 'above_maximum'; maxPerMinute: number };

/** `recordHealth` outcome: `out_of_order` when a report signed later was already accepted. */
export type HealthAnswer = Done | EventNotFound | { kind: 'out_of_order' };

/** `pause`, `resume` and `close` outcome, with the mode before the call (the organizer audit's `from`). */
export type ModeAnswer = { kind: 'ok'; previous: RoomMode } | EventNotFound;

/** What one gateway isolate tells an event's WaitingRoom of its admitted requests' waits at the edge (src/lib/edge-wait.ts). */
export interface EdgeWaitSignal {
  /** p99 of the waits for a place under the origin limit over one flush interval, ms. */
  p99Ms: number;
  /** Admitted requests counted in that interval. */
  requests: number;
}
