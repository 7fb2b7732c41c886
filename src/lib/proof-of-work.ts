// Join challenges (proof of work) signed and verified at the edge: ALTCHA v2 challenges from
// altcha-lib in its deterministic mode over one SHA-256 (WebCrypto only), bound to the event and
// to a fresh visitor id; the rules they must meet are in contracts/proof-of-work.ts.
import { createChallenge, verifySolution, type Challenge, type DeriveKeyFunction, type Solution } from 'altcha-lib';
import {
  CHALLENGE_ALGORITHM,
  CHALLENGE_TTL_MS,
  challengeCounter,
  checkChallenge,
  type ChallengeData,
  type ProofOfWorkConfig,
} from '../../contracts/proof-of-work';
import { GatewayError } from './errors';

/** Longest proof-of-work header accepted, characters (a real payload is about 700). */
const MAX_PROOF_CHARS = 4096;

/**
 * The two HMAC secrets of challenges, derived from one gateway secret so that a challenge MAC
 * can never stand in for a queue-ticket MAC: `signature` signs the challenge's parameters,
 * `key` signs the derived key the solver must find (ALTCHA's key signature).
 */
interface ChallengeSecrets {
  signature: string;
  key: string;
}

/** Current secrets first, then those of the previous ticket secret during a rotation. */
export type ChallengeKeyRing = readonly ChallengeSecrets[];

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function derive(label: string, secret: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', encoder.encode(`${label}\n${secret}`)));
}

/**
 * The challenge secrets from the queue-ticket secrets (`QUEUE_TICKET_SECRET`, and
 * `QUEUE_TICKET_PREVIOUS_SECRET` while it rotates): SHA-256 of a label and the secret, hex.
 * @throws GatewayError INTERNAL (500) when `QUEUE_TICKET_SECRET` is unset: an event that asks for
 *   a proof of work cannot sign challenges without it (the detail names the variable)
 */
export async function challengeKeyRing(env: Pick<Env, 'QUEUE_TICKET_SECRET' | 'QUEUE_TICKET_PREVIOUS_SECRET'>): Promise<ChallengeKeyRing> {
  const secrets = [env.QUEUE_TICKET_SECRET ?? '', env.QUEUE_TICKET_PREVIOUS_SECRET ?? ''].filter((s) => s !== '');
  if (!env.QUEUE_TICKET_SECRET) throw new GatewayError('INTERNAL', { detail: 'QUEUE_TICKET_SECRET must be set to sign join challenges' });
  return Promise.all(
    secrets.map(async (s) => ({ signature: await derive('wr-pow-challenge', s), key: await derive('wr-pow-derived-key', s) })),
  );
}

/**
 * ALTCHA's SHA-256 key derivation over WebCrypto (altcha-lib's own uses `node:crypto`, which the
 * gateway runs without): SHA-256(salt || password), repeated `cost` times, cut to `keyLength`.
 * The password is the nonce followed by the counter as a 4-byte big-endian integer.
 */
const deriveSha256Key: DeriveKeyFunction = async (parameters, salt, password) => {
  if (parameters.algorithm !== CHALLENGE_ALGORITHM) throw new Error(`unsupported challenge algorithm ${parameters.algorithm}`);
  const input = new Uint8Array(salt.length + password.length);
  input.set(salt);
  input.set(password, salt.length);
  let key = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
  for (let i = 1; i < parameters.cost; i++) key = new Uint8Array(await crypto.subtle.digest('SHA-256', key));
  return { derivedKey: key.slice(0, parameters.keyLength) };
};

/** What one challenge is issued for. */
export interface ChallengeRequest {
  eventId: string;
  /** The event's setting. */
  proofOfWork: ProofOfWorkConfig;
  /** The id the solution joins under: fresh (`crypto.randomUUID()`), never one with a place. */
  visitorId: string;
  /** The edge's clock, epoch ms; the challenge expires CHALLENGE_TTL_MS later (whole seconds). */
  nowMs: number;
  /** Uniform random integer in [0, 2^32) that picks the secret counter. */
  randomUint32: number;
}

/**
 * A fresh join challenge (the ALTCHA v2 challenge JSON: `{ parameters, signature }`): SHA-256,
 * cost 1, a random salt and nonce, the secret counter from `challengeCounter`, the first 16 bytes
 * of its derived key as `keyPrefix`, that key's HMAC as `keySignature`, `expiresAt` in Unix
 * seconds and `data` = ChallengeData; all signed with the current secrets.
 */
export async function issueChallenge(ring: ChallengeKeyRing, req: ChallengeRequest): Promise<Challenge> {
  const { signature, key } = ring[0]!;
  const data: ChallengeData = { event: req.eventId, visitor: req.visitorId, bits: req.proofOfWork.difficultyBits };
  return createChallenge({
    algorithm: CHALLENGE_ALGORITHM,
    cost: 1,
    counter: challengeCounter(req.proofOfWork.difficultyBits, req.randomUint32),
    deriveKey: deriveSha256Key,
    data: { ...data },
    expiresAt: Math.floor((req.nowMs + CHALLENGE_TTL_MS) / 1000),
    hmacSignatureSecret: signature,
    hmacKeySignatureSecret: key,
  });
}

/** A payload's challenge and solution, as far as their shape goes. */
function parsePayload(header: string): { challenge: Challenge; solution: Solution } | null {
  if (header.length > MAX_PROOF_CHARS || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(header)) return null;
  let value: unknown;
  try {
    value = JSON.parse(atob(header.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { challenge, solution } = value as { challenge?: unknown; solution?: unknown };
  if (typeof challenge !== 'object' || challenge === null || typeof solution !== 'object' || solution === null) return null;
  const { parameters, signature } = challenge as { parameters?: unknown; signature?: unknown };
  if (typeof parameters !== 'object' || parameters === null || typeof signature !== 'string') return null;
  const p = parameters as Record<string, unknown>;
  if (typeof p.algorithm !== 'string' || typeof p.nonce !== 'string' || typeof p.salt !== 'string' || typeof p.keyPrefix !== 'string')
    return null;
  if (typeof p.cost !== 'number' || typeof p.keyLength !== 'number') return null;
  const s = solution as Record<string, unknown>;
  if (typeof s.counter !== 'number' || typeof s.derivedKey !== 'string') return null;
  return { challenge: challenge as Challenge, solution: { counter: s.counter, derivedKey: s.derivedKey } };
}

/** What a join needs of the event to check a proof. */
export interface ProofCheck {
  eventId: string;
  proofOfWork: ProofOfWorkConfig;
  /** The edge's clock, epoch ms. */
  nowMs: number;
}

/**
 * The visitor id a proof of work lets a new visitor join under, after checking, in this order:
 * present; the ALTCHA payload's shape (base64 of `{ challenge, solution }`); not expired (by
 * ALTCHA, then by `nowMs`); signed by this gateway (current or previous secret); solved (the
 * derived key's HMAC equals the signed key signature); for this event; at least the event's
 * difficulty. Nothing is recorded here: single use is the queue shard's (`QueueShard.joinOnce`).
 *
 * @param header the `X-WR-Proof-Of-Work` header, if any
 * @throws GatewayError PROOF_OF_WORK_REQUIRED (401) without one; PROOF_OF_WORK_MALFORMED (400);
 *   PROOF_OF_WORK_EXPIRED (401); PROOF_OF_WORK_INVALID (403: forged, tampered or not solved);
 *   PROOF_OF_WORK_OTHER_EVENT (403); PROOF_OF_WORK_TOO_EASY (409: issued before the organizer
 *   raised the difficulty)
 */
export async function verifyProof(ring: ChallengeKeyRing, header: string | undefined, check: ProofCheck): Promise<string> {
  const challengeUrl = `/_wr/events/${check.eventId}/challenge`;
  if (!header)
    throw new GatewayError('PROOF_OF_WORK_REQUIRED', {
      detail: `this event asks for a proof of work: solve GET ${challengeUrl} and send it as X-WR-Proof-Of-Work`,
      extra: { challengeUrl },
    });
  const payload = parsePayload(header);
  if (!payload)
    throw new GatewayError('PROOF_OF_WORK_MALFORMED', { detail: 'X-WR-Proof-Of-Work is not base64 of { challenge, solution }' });
  let solved = false;
  for (const secrets of ring) {
    let result: Awaited<ReturnType<typeof verifySolution>>;
    try {
      result = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey: deriveSha256Key,
        hmacSignatureSecret: secrets.signature,
        hmacKeySignatureSecret: secrets.key,
      });
    } catch (err) {
      // altcha-lib throws on parameters it cannot even read (e.g. a nonce that is not hex).
      throw new GatewayError('PROOF_OF_WORK_MALFORMED', { detail: 'the challenge parameters are malformed', cause: err });
    }
    if (result.expired) throw new GatewayError('PROOF_OF_WORK_EXPIRED', { detail: 'the challenge has expired: get a new one' });
    if (result.invalidSignature) continue;
    if (!result.verified) throw new GatewayError('PROOF_OF_WORK_INVALID', { detail: 'the solution does not solve the challenge' });
    solved = true;
    break;
  }
  if (!solved) throw new GatewayError('PROOF_OF_WORK_INVALID', { detail: 'the challenge was not issued by this gateway' });
  const checked = checkChallenge(payload.challenge.parameters.data, payload.challenge.parameters.expiresAt, {
    eventId: check.eventId,
    difficultyBits: check.proofOfWork.difficultyBits,
    nowMs: check.nowMs,
  });
  if (!checked.ok) throw new GatewayError(checked.refusal.code, { detail: checked.refusal.detail, extra: { challengeUrl } });
  return checked.visitorId;
}

/**
 * A fresh challenge for a new visitor of `eventId`, under a fresh visitor id and a random counter
 * (`crypto.randomUUID()`, `crypto.getRandomValues`).
 * @throws GatewayError INTERNAL when `QUEUE_TICKET_SECRET` is unset (see `challengeKeyRing`)
 */
export async function newChallenge(
  env: Pick<Env, 'QUEUE_TICKET_SECRET' | 'QUEUE_TICKET_PREVIOUS_SECRET'>,
  eventId: string,
  proofOfWork: ProofOfWorkConfig,
  nowMs: number,
): Promise<Challenge> {
  return issueChallenge(await challengeKeyRing(env), {
    eventId,
    proofOfWork,
    visitorId: crypto.randomUUID(),
    nowMs,
    randomUint32: crypto.getRandomValues(new Uint32Array(1))[0]!,
  });
}
