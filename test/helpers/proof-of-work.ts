// Join challenges fetched from the gateway and solved (test/helpers/pow-solution.ts).
import type { Challenge } from 'altcha-lib';
import { Visitor } from './client';
import { proofHeader, solve } from './pow-solution';

export { proofHeader, solve };

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
