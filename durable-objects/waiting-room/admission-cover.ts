// How far a seat hold keeps its visitor's admission alive: the pure rule; room-store.ts applies it to the session row.

/** The settings the cover reads: the room's admission TTL and the Inventory's hold rules, ms. */
export interface CoverRules {
  admissionTtlMs: number;
  /** The event's hold TTL; absent in older rooms (then the longest, 3,600 s). */
  holdTtlMs?: number;
  /** How long a PAYMENT_PENDING hold waits for the origin; absent in older rooms (then 900 s). */
  paymentGraceMs?: number;
  /** The longest a hold may last with its extensions (`holdExtension.maxTotalSeconds`); absent = holds are never extended. */
  holdLongestMs?: number;
}

/** The longest hold TTL and payment grace an organizer may set (contracts/event-input.ts), ms. */
const LONGEST_HOLD_TTL_MS = 3_600_000;
const LONGEST_PAYMENT_GRACE_MS = 900_000;

/**
 * The end a hold gives its visitor's admission session, epoch ms: the hold's deadline plus the
 * payment grace (a payment started at the hold's last moment moves its deadline by the grace, and
 * a buyer whose card answer is slow must still see their order), but never past the
 * session's own end plus one hold TTL and grace (`admittedAtMs + admission TTL + hold TTL +
 * grace`: a hold placed in the admission's last moment is fully covered, while a chain of holds
 * released at once cannot keep a slot for the whole sale: a 30 s admission still
 * active after 212 s of hold/release every 50 s). Where the organizer lets buyers extend a hold,
 * the longest a hold may last (`holdLongestMs`) takes the hold TTL's place in that bound, so an
 * extended hold placed in the admission's last moment is covered to its new deadline too. The caller keeps the later of this and the
 * session's current end, so a cover never shortens a session. On a whole second (at or before),
 * as every admission's end is, so the token's `exp` names it exactly (contracts/queue/lifetimes.ts).
 *
 * @param admittedAtMs the session's admission time, epoch ms (its id)
 * @param holdEndsAtMs the hold's deadline, epoch ms
 */
export function coverEnd(rules: CoverRules, admittedAtMs: number, holdEndsAtMs: number): number {
  const grace = rules.paymentGraceMs ?? LONGEST_PAYMENT_GRACE_MS;
  const longestHold = Math.max(rules.holdTtlMs ?? LONGEST_HOLD_TTL_MS, rules.holdLongestMs ?? 0);
  const cap = admittedAtMs + rules.admissionTtlMs + longestHold + grace;
  return Math.floor(Math.min(holdEndsAtMs + grace, cap) / 1000) * 1000;
}
