// The page's own SHA-256 (src/pages/pow-solver.ts) agrees with WebCrypto: for random salts, nonces,
// counters and costs the solver finds exactly the counter whose WebCrypto key was set as the prefix.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { solvePow } from '../../src/pages/pow-solver';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** ALTCHA's key by WebCrypto: SHA-256(salt || nonce || counter big-endian), `cost` times in all. */
async function webCryptoKey(salt: Uint8Array, nonce: Uint8Array, counter: number, cost: number): Promise<Uint8Array> {
  const input = new Uint8Array(salt.length + nonce.length + 4);
  input.set(salt);
  input.set(nonce, salt.length);
  new DataView(input.buffer).setUint32(input.length - 4, counter);
  let key = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
  for (let i = 1; i < cost; i++) key = new Uint8Array(await crypto.subtle.digest('SHA-256', key));
  return key;
}

it('finds the counter whose WebCrypto key starts with the prefix, for every message length one block holds', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 0, maxLength: 30 }),
      fc.uint8Array({ minLength: 0, maxLength: 21 }),
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 4, max: 16 }),
      async (salt, nonce, counter, cost, prefixBytes) => {
        const key = await webCryptoKey(salt, nonce, counter, cost);
        const parameters = { salt: hex(salt), nonce: hex(nonce), keyPrefix: hex(key.subarray(0, prefixBytes)), cost, keyLength: 32 };
        const found = await solvePow(parameters, 512, () => {});
        expect(found).toEqual({ counter, derivedKey: hex(key) });
      },
    ),
    { numRuns: 60 },
  );
});

it('returns null for inputs longer than one SHA-256 block and when no counter below the bound matches', async () => {
  const long = { salt: '00'.repeat(40), nonce: '00'.repeat(16), keyPrefix: '00'.repeat(16), cost: 1, keyLength: 32 };
  expect(await solvePow(long, 10, () => {})).toBeNull();
  const salt = new Uint8Array(16).fill(1);
  const nonce = new Uint8Array(16).fill(2);
  const key = await webCryptoKey(salt, nonce, 1000, 1);
  const params = { salt: hex(salt), nonce: hex(nonce), keyPrefix: hex(key.subarray(0, 16)), cost: 1, keyLength: 32 };
  expect(await solvePow(params, 1000, () => {})).toBeNull();
  expect((await solvePow(params, 1001, () => {}))?.counter).toBe(1000);
});
