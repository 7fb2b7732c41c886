// Solved join challenges for the proof-of-work bench row: fetched from the gateway under test and
// solved by altcha-lib's own solver (Node's SHA-256), so the row also shows that the gateway's
// challenges are standard ALTCHA v2 ones.
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';

/**
 * `count` distinct `X-WR-Proof-Of-Work` values for `event`, 50 challenges fetched at a time.
 * @throws Error when a challenge cannot be fetched or solved
 */
export async function solvedProofs(base: string, event: string, count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - out.length) }, async () => {
        const res = await fetch(`${base}/_wr/events/${event}/challenge`);
        if (!res.ok) throw new Error(`challenge: ${res.status} ${await res.text()}`);
        const challenge = (await res.json()) as Challenge;
        const solution = await solveChallenge({ challenge, deriveKey });
        if (!solution) throw new Error('altcha-lib found no solution');
        return btoa(JSON.stringify({ challenge, solution: { counter: solution.counter, derivedKey: solution.derivedKey } }));
      }),
    );
    out.push(...batch);
  }
  return out;
}
