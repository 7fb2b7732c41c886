// What the WaitingRoom object answers over RPC, where the edge reads the answer.

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
  | { kind: 'event_not_found' };
