// The draw page's own check, run in the visitor's browser with Web Crypto: one self-contained
// function whose source the page ships as its script, and which the tests run as it is.
import type { DrawRecord } from '../../contracts/queue/queue-policy';

/**
 * What the browser found: `pending` (not drawn yet), `bad_seed` (the seed does not hash to the
 * commitment), `mismatch` (the first place where the published order differs from the order the
 * seed gives: 1-based, with both ids), or `verified` (with the number of entrants).
 */
export type DrawCheck =
  | { kind: 'pending' }
  | { kind: 'bad_seed' }
  | { kind: 'mismatch'; rank: number; listed: string; expected: string }
  | { kind: 'verified'; entrants: number };

/**
 * Checks a draw record as contracts/queue/queue-policy.ts `verifyDraw` does: SHA-256 of the seed's
 * hex string is the commitment, and sorting the entrants by SHA-256 hex of `seed:id` (ties by id)
 * gives the published order. Self-contained on purpose (no imports, no outer names, no named inner
 * functions): the draw page ships this function's source.
 *
 * @param record the record as `GET /_wr/events/{eventId}/draw` publishes it
 * @param subtle a Web Crypto `SubtleCrypto` (the browser's `crypto.subtle`)
 */
export async function checkDraw(record: DrawRecord, subtle: SubtleCrypto): Promise<DrawCheck> {
  if (!record.drawn || !record.seed || !record.entrants) return { kind: 'pending' };
  const seed = record.seed;
  const listed = record.entrants;
  const hexes = await Promise.all(
    [seed, ...listed.map((id) => seed + ':' + id)].map(async (text) =>
      [...new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text)))]
        .map((b) => b.toString(16).padStart(2, '0'))
        .join(''),
    ),
  );
  if (hexes[0] !== record.commitment) return { kind: 'bad_seed' };
  const keyed = listed.map((id, i) => ({ id, key: hexes[i + 1]! }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
  const at = keyed.findIndex((k, i) => k.id !== listed[i]);
  if (at >= 0) return { kind: 'mismatch', rank: at + 1, listed: listed[at] ?? '', expected: keyed[at]!.id };
  return { kind: 'verified', entrants: listed.length };
}
