// Proof of work on join ("a cost for bots on open events"): the per-event difficulty,
// what a challenge signs, the pure checks of a solved challenge against the event and the clock,
// and the queue shard's answer to a first join. Signing and verifying: src/lib/proof-of-work.ts
// over altcha-lib (ALTCHA v2, deterministic SHA-256 challenges).

/** Easiest difficulty an organizer may set, bits: the counter is drawn from 2^8 = 256 values. */
export const MIN_DIFFICULTY_BITS = 8;
/**
 * Hardest difficulty an organizer may set, bits: at most 2^20 (about a million) hashes per join,
 * about 1.5 s in Chromium on the 2-core machine and several seconds on a slow phone (22 bits took
 * a median 11 s: docs/explanation/scaling.md, "Proof of work on join").
 */
export const MAX_DIFFICULTY_BITS = 20;
/**
 * How long a challenge may be solved and submitted, ms. Short, so a bot cannot stockpile
 * solutions over hours; long enough for a slow phone at MAX_DIFFICULTY_BITS (docs/explanation/scaling.md).
 */
export const CHALLENGE_TTL_MS = 120_000;
/** The ALTCHA v2 key derivation of our challenges: one SHA-256 (cost 1) over salt, nonce and counter. */
export const CHALLENGE_ALGORITHM = 'SHA-256';

/** An event's proof-of-work setting (absent = none asked). */
export interface ProofOfWorkConfig {
  /**
   * Difficulty in bits, MIN_DIFFICULTY_BITS..MAX_DIFFICULTY_BITS: the challenge's secret counter
   * is uniform in [0, 2^difficultyBits), so a solver computes on average 2^(difficultyBits - 1)
   * and at most 2^difficultyBits SHA-256 hashes.
   */
  difficultyBits: number;
}

/**
 * What a challenge signs besides ALTCHA's own parameters (its `data`): the event, the visitor id
 * the solution joins under (fresh per challenge, so a solution can only ever be one place), and
 * the difficulty it was issued at.
 */
export interface ChallengeData {
  event: string;
  visitor: string;
  bits: number;
}

/** Why a correctly signed and solved challenge does not admit a join here and now. */
export type ChallengeRefusal =
  | { code: 'PROOF_OF_WORK_EXPIRED'; detail: string }
  | { code: 'PROOF_OF_WORK_OTHER_EVENT'; detail: string }
  | { code: 'PROOF_OF_WORK_TOO_EASY'; detail: string }
  | { code: 'PROOF_OF_WORK_MALFORMED'; detail: string };

/** The QueueShard's answer to a join under a solved challenge's visitor id (`joinOnce`). */
export type FirstJoinAnswer<P> = { kind: 'joined'; place: P } | { kind: 'used' };

/** Visitor ids the gateway hands out: `crypto.randomUUID()`. */
const VISITOR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The challenge's secret counter for `difficultyBits`: the low bits of a uniform 32-bit random
 * number, so uniform in [0, 2^difficultyBits) (2^bits divides 2^32: no modulo bias).
 * @param randomUint32 a uniform random integer in [0, 2^32) (the caller's randomness)
 * @throws RangeError when the difficulty is outside the allowed bits or the random number is not a uint32
 */
export function challengeCounter(difficultyBits: number, randomUint32: number): number {
  if (!Number.isInteger(difficultyBits) || difficultyBits < MIN_DIFFICULTY_BITS || difficultyBits > MAX_DIFFICULTY_BITS)
    throw new RangeError(`difficultyBits must be ${MIN_DIFFICULTY_BITS}-${MAX_DIFFICULTY_BITS}, got ${difficultyBits}`);
  if (!Number.isInteger(randomUint32) || randomUint32 < 0 || randomUint32 > 0xffffffff)
    throw new RangeError('randomUint32 must be a uint32');
  return randomUint32 % 2 ** difficultyBits;
}

/**
 * Checks a challenge whose signature and solution are already verified against the join: the
 * challenge has not expired by `nowMs`, names this event, carries a well-formed visitor id, and
 * was issued at least at the event's current difficulty (a harder one is accepted; an easier one,
 * from before the organizer raised it, is not).
 *
 * @param data the challenge's signed `data`
 * @param expiresAtS the challenge's signed `expiresAt`, Unix seconds
 * @returns the visitor id the join may create a place for, or why not
 */
export function checkChallenge(
  data: unknown,
  expiresAtS: unknown,
  join: { eventId: string; difficultyBits: number; nowMs: number },
): { ok: true; visitorId: string } | { ok: false; refusal: ChallengeRefusal } {
  const refuse = (refusal: ChallengeRefusal) => ({ ok: false as const, refusal });
  if (typeof expiresAtS !== 'number' || !Number.isFinite(expiresAtS))
    return refuse({ code: 'PROOF_OF_WORK_MALFORMED', detail: 'the challenge has no expiry' });
  if (expiresAtS * 1000 <= join.nowMs)
    return refuse({ code: 'PROOF_OF_WORK_EXPIRED', detail: 'the challenge has expired: get a new one and solve it' });
  const d = (typeof data === 'object' && data !== null ? data : {}) as Partial<Record<keyof ChallengeData, unknown>>;
  if (typeof d.event !== 'string' || typeof d.visitor !== 'string' || !VISITOR_ID.test(d.visitor) || typeof d.bits !== 'number')
    return refuse({ code: 'PROOF_OF_WORK_MALFORMED', detail: 'the challenge is not one of this gateway’s join challenges' });
  if (d.event !== join.eventId)
    return refuse({ code: 'PROOF_OF_WORK_OTHER_EVENT', detail: `the challenge is for another event, not "${join.eventId}"` });
  if (d.bits < join.difficultyBits)
    return refuse({
      code: 'PROOF_OF_WORK_TOO_EASY',
      detail: `the challenge was issued at ${d.bits} bits; the event now asks for ${join.difficultyBits}: get a new one`,
    });
  return { ok: true, visitorId: d.visitor };
}
