// Join-challenge solutions for tests, solved with the waiting page's own solver (so the tests
// exercise the code the browser runs). Pure: runs in Node and in workerd.
import type { Challenge } from 'altcha-lib';
import { solvePow } from '../../src/pages/pow-solver';

/** The `X-WR-Proof-Of-Work` value for a challenge and a solution (base64 of ALTCHA's payload). */
export function proofHeader(challenge: Challenge, solution: { counter: number; derivedKey: string }): string {
  return btoa(JSON.stringify({ challenge, solution }));
}

/** Solves a challenge with `solvePow`; throws when it has no solution below 2^bits. */
export async function solve(challenge: Challenge): Promise<{ counter: number; derivedKey: string }> {
  const bits = Number(challenge.parameters.data?.bits);
  const solution = await solvePow(challenge.parameters, 2 ** bits, () => {});
  if (!solution) throw new Error('no solution below 2^bits');
  return solution;
}
