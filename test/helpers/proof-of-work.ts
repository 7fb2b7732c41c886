// Join challenges for tests: fetched from the gateway (or issued directly) and solved with the
// waiting page's own solver, so the tests exercise the code the browser runs.
import type { Challenge } from 'altcha-lib';
import { solvePow } from '../../src/pages/pow-solver';
import { Visitor } from './client';

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

/** A fresh challenge from `GET /_wr/events/{eventId}/challenge`. */
export async function fetchChallenge(eventId: string): Promise<Challenge> {
  const r = await new Visitor().json<Challenge>(`/_wr/events/${eventId}/challenge`);
  if (r.status !== 200) throw new Error(`challenge: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A solved challenge of the event, as the header a join sends. */
export async function solvedHeader(eventId: string): Promise<{ header: string; challenge: Challenge }> {
  const challenge = await fetchChallenge(eventId);
  return { header: proofHeader(challenge, await solve(challenge)), challenge };
}
