// The pure rules of a proof of work on join (contracts/proof-of-work.ts) as properties, and the
// challenge round trip: issued by src/lib/proof-of-work.ts, solved by the page's solver, verified.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DIFFICULTY_BITS, MIN_DIFFICULTY_BITS, challengeCounter, checkChallenge } from '../../contracts/proof-of-work';
import { GatewayError } from '../../src/lib/errors';
import { challengeKeyRing, issueChallenge, verifyProof } from '../../src/lib/proof-of-work';
import { solvePow } from '../../src/pages/pow-solver';
import { proofHeader } from '../helpers/pow-solution';

const SECRET = { QUEUE_TICKET_SECRET: 'unit-test-ticket-secret-of-at-least-32-chars', QUEUE_TICKET_PREVIOUS_SECRET: '' };
const NEXT = {
  QUEUE_TICKET_SECRET: 'the-next-ticket-secret-of-at-least-32-chars!',
  QUEUE_TICKET_PREVIOUS_SECRET: SECRET.QUEUE_TICKET_SECRET,
};
const bits = fc.integer({ min: MIN_DIFFICULTY_BITS, max: MAX_DIFFICULTY_BITS });
const uint32 = fc.integer({ min: 0, max: 0xffffffff });

describe('challengeCounter', () => {
  it('is the random number modulo 2^bits: in [0, 2^bits), every value reachable', () => {
    fc.assert(
      fc.property(bits, uint32, (b, r) => {
        const n = challengeCounter(b, r);
        return n >= 0 && n < 2 ** b && n === r % 2 ** b;
      }),
    );
  });

  it('refuses difficulties outside the bounds and random numbers that are not uint32', () => {
    for (const b of [MIN_DIFFICULTY_BITS - 1, MAX_DIFFICULTY_BITS + 1, 12.5, NaN]) expect(() => challengeCounter(b, 1)).toThrow(RangeError);
    for (const r of [-1, 2 ** 32, 0.5]) expect(() => challengeCounter(12, r)).toThrow(RangeError);
  });
});

describe('checkChallenge', () => {
  const visitor = '6f1d2c3b-4a59-4e6f-8a7b-9c0d1e2f3a4b';
  it('admits exactly an unexpired challenge of this event at or above the event’s difficulty', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: -200, max: 200 }),
        fc.constantFrom('a', 'b'),
        bits,
        bits,
        (nowS, expiresInS, event, issued, required) => {
          const nowMs = nowS * 1000 + 500;
          const r = checkChallenge({ event, visitor, bits: issued }, nowS + expiresInS, { eventId: 'a', difficultyBits: required, nowMs });
          const want = nowS + expiresInS > nowS + 0.5 && event === 'a' && issued >= required;
          expect(r.ok).toBe(want);
          if (!r.ok) {
            const code =
              nowS + expiresInS <= nowS ? 'PROOF_OF_WORK_EXPIRED' : event !== 'a' ? 'PROOF_OF_WORK_OTHER_EVENT' : 'PROOF_OF_WORK_TOO_EASY';
            expect(r.refusal.code).toBe(code);
          } else expect(r.visitorId).toBe(visitor);
        },
      ),
    );
  });

  it('calls anything but our data malformed', () => {
    const join = { eventId: 'a', difficultyBits: 8, nowMs: 0 };
    for (const data of [
      null,
      'x',
      {},
      { event: 'a', bits: 8 },
      { event: 'a', visitor: 'not-a-uuid', bits: 8 },
      { event: 'a', visitor, bits: '8' },
    ])
      expect(checkChallenge(data, 10, join)).toMatchObject({ ok: false, refusal: { code: 'PROOF_OF_WORK_MALFORMED' } });
    expect(checkChallenge({ event: 'a', visitor, bits: 8 }, '10', join)).toMatchObject({
      ok: false,
      refusal: { code: 'PROOF_OF_WORK_MALFORMED' },
    });
  });
});

describe('issue, solve, verify', () => {
  const issue = async (env: typeof SECRET, randomUint32: number, difficultyBits = 8) =>
    issueChallenge(await challengeKeyRing(env), {
      eventId: 'ev',
      proofOfWork: { difficultyBits },
      visitorId: crypto.randomUUID(),
      nowMs: Date.now(),
      randomUint32,
    });

  it('the solver finds the secret counter exactly, and nothing below it', async () => {
    const challenge = await issue(SECRET, 255);
    expect(await solvePow(challenge.parameters, 255, () => {})).toBeNull();
    const tried: number[] = [];
    const solution = await solvePow(challenge.parameters, 256, (n) => tried.push(n));
    expect(solution?.counter).toBe(255);
    expect(solution?.derivedKey.startsWith(challenge.parameters.keyPrefix)).toBe(true);
    expect(tried).toEqual([]);
  });

  it('a solved challenge verifies to its visitor id, under the current secret or the previous one during a rotation', async () => {
    const old = await issue(SECRET, 7);
    const header = proofHeader(old, (await solvePow(old.parameters, 256, () => {}))!);
    const check = { eventId: 'ev', proofOfWork: { difficultyBits: 8 }, nowMs: Date.now() };
    expect(await verifyProof(await challengeKeyRing(SECRET), header, check)).toBe(old.parameters.data!.visitor);
    expect(await verifyProof(await challengeKeyRing(NEXT), header, check)).toBe(old.parameters.data!.visitor);
    const rotatedOut = { QUEUE_TICKET_SECRET: NEXT.QUEUE_TICKET_SECRET, QUEUE_TICKET_PREVIOUS_SECRET: '' };
    await expect(verifyProof(await challengeKeyRing(rotatedOut), header, check)).rejects.toMatchObject({ code: 'PROOF_OF_WORK_INVALID' });
  });

  it('without QUEUE_TICKET_SECRET no challenge can be signed: a 500 naming the variable', async () => {
    const err = await challengeKeyRing({ QUEUE_TICKET_SECRET: '', QUEUE_TICKET_PREVIOUS_SECRET: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('INTERNAL');
    expect((err as GatewayError).detail).toContain('QUEUE_TICKET_SECRET');
  });
});
