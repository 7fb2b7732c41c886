// The draw page's check in the browser (src/pages/draw-check.ts), run from the very source the page
// ships: a real draw is verified, a swapped order names its first mismatch, a wrong seed is caught.
import { describe, expect, it } from 'vitest';
import { lotteryOrder, seedCommitment, verifyDraw, type DrawRecord } from '../../contracts/queue/queue-policy';
import { checkDraw, type DrawCheck } from '../../src/pages/draw-check';

/** The function rebuilt from its source text alone, as the page's script embeds it. */
const shipped = new Function(`return ${checkDraw.toString()}`)() as typeof checkDraw;

async function drawn(n: number): Promise<DrawRecord> {
  const seed = 'ab'.repeat(32);
  const ids = Array.from({ length: n }, (_, i) => `id-${i}`);
  return { commitment: await seedCommitment(seed), drawn: true, seed, entrants: await lotteryOrder(seed, ids) };
}

describe('the draw page checks the draw in the browser', () => {
  for (const [name, check] of [
    ['as written', checkDraw],
    ['from its shipped source', shipped],
  ] as const) {
    it(`${name}: verifies a real draw, names the first mismatch of a swapped one, refuses a wrong seed`, async () => {
      const record = await drawn(40);
      expect(await check(record, crypto.subtle)).toEqual<DrawCheck>({ kind: 'verified', entrants: 40 });
      expect(await verifyDraw(record)).toEqual([]);
      const swapped = [...record.entrants!];
      [swapped[6], swapped[7]] = [swapped[7]!, swapped[6]!];
      expect(await check({ ...record, entrants: swapped }, crypto.subtle)).toEqual<DrawCheck>({
        kind: 'mismatch',
        rank: 7,
        listed: record.entrants![7]!,
        expected: record.entrants![6]!,
      });
      expect(await check({ ...record, seed: 'cd'.repeat(32) }, crypto.subtle)).toEqual<DrawCheck>({ kind: 'bad_seed' });
      expect(await check({ ...record, drawn: false, seed: null, entrants: null }, crypto.subtle)).toEqual<DrawCheck>({ kind: 'pending' });
    });
  }
});
