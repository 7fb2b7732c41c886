// The waiting page's proof-of-work solver: one pure async function, shipped as its own source in
// the check page's script (src/pages/check-page.ts) and run by the tests and the solve-time script.

/** The parameters of an ALTCHA v2 challenge the solver reads (hex strings, as issued). */
export interface SolverParameters {
  salt: string;
  nonce: string;
  keyPrefix: string;
  cost: number;
  keyLength: number;
}

/**
 * Finds the counter of a deterministic ALTCHA v2 SHA-256 challenge (src/lib/proof-of-work.ts):
 * for counter = 0, 1, 2, ... the key SHA-256(salt || nonce || counter as 4 bytes big-endian)
 * (hashed `cost` times in all, cut to `keyLength` bytes) until it starts with `keyPrefix`.
 *
 * SHA-256 is computed here (FIPS 180-4, one 64-byte block: messages up to 55 bytes, which covers
 * the gateway's 36-byte inputs and the 32-byte re-hashes) rather than with WebCrypto: measured in
 * Chromium, `crypto.subtle.digest` gives about 50,000 hashes/s (each call is a promise), this loop
 * about 330,000/s (docs/explanation/scaling.md, "Proof of work"); test/unit/pow-solver.test.ts checks it
 * against WebCrypto. It works in slices of about 50 ms and yields between them (a MessageChannel
 * message, which background tabs do not throttle like timers), so the page stays responsive.
 * Self-contained on purpose (no imports, no outer names, no named inner functions): the page
 * ships this function's source.
 *
 * @param maxCounter counters 0..maxCounter-1 are tried (2^difficultyBits)
 * @param onProgress called after each slice with the number of counters tried
 * @returns the solution (`derivedKey` as lower-case hex), or null when no counter below
 *   `maxCounter` solves it or the input does not fit one SHA-256 block
 */
export async function solvePow(
  parameters: SolverParameters,
  maxCounter: number,
  onProgress: (tried: number) => void,
): Promise<{ counter: number; derivedKey: string } | null> {
  const [salt, nonce, prefix] = [parameters.salt, parameters.nonce, parameters.keyPrefix].map(
    (h) => new Uint8Array((h.match(/../g) || []).map((b) => parseInt(b, 16))),
  ) as [Uint8Array, Uint8Array, Uint8Array];
  const len = salt.length + nonce.length + 4;
  const cost = Math.max(1, parameters.cost);
  if (len > 55 || parameters.keyLength > 32 || prefix.length > parameters.keyLength) return null;
  // prettier-ignore
  const K = Uint32Array.from([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const IV = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const block = new Uint8Array(64);
  const W = new Uint32Array(64);
  const H = new Uint32Array(8);
  const key = new Uint8Array(32);
  let counter = 0;
  while (counter < maxCounter) {
    const sliceEnd = performance.now() + 50;
    // The clock is read once per 256 counters.
    for (let n = 0; counter < maxCounter && (n % 256 !== 0 || n === 0 || performance.now() < sliceEnd); n++, counter++) {
      for (let round = 0; round < cost; round++) {
        // One padded block: the message, 0x80, zeros, the length in bits (big-endian) at the end.
        block.fill(0);
        const size = round === 0 ? len : 32;
        if (round === 0) {
          block.set(salt);
          block.set(nonce, salt.length);
          block[len - 4] = counter >>> 24;
          block[len - 3] = (counter >>> 16) & 255;
          block[len - 2] = (counter >>> 8) & 255;
          block[len - 1] = counter & 255;
        } else block.set(key);
        block[size] = 0x80;
        block[62] = (size * 8) >>> 8;
        block[63] = (size * 8) & 255;
        for (let i = 0; i < 16; i++)
          W[i] = (block[4 * i]! << 24) | (block[4 * i + 1]! << 16) | (block[4 * i + 2]! << 8) | block[4 * i + 3]!;
        for (let i = 16; i < 64; i++) {
          const x = W[i - 15]!;
          const y = W[i - 2]!;
          W[i] =
            (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
            W[i - 16]! +
            (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) +
            W[i - 7]!;
        }
        let a = IV[0]!,
          b = IV[1]!,
          c = IV[2]!,
          d = IV[3]!,
          e = IV[4]!,
          f = IV[5]!,
          g = IV[6]!,
          h = IV[7]!;
        for (let i = 0; i < 64; i++) {
          const t1 =
            (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
          const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
          h = g;
          g = f;
          f = e;
          e = (d + t1) | 0;
          d = c;
          c = b;
          b = a;
          a = (t1 + t2) | 0;
        }
        H[0] = a + IV[0]!;
        H[1] = b + IV[1]!;
        H[2] = c + IV[2]!;
        H[3] = d + IV[3]!;
        H[4] = e + IV[4]!;
        H[5] = f + IV[5]!;
        H[6] = g + IV[6]!;
        H[7] = h + IV[7]!;
        for (let i = 0; i < 8; i++) {
          const v = H[i]!;
          key[4 * i] = v >>> 24;
          key[4 * i + 1] = (v >>> 16) & 255;
          key[4 * i + 2] = (v >>> 8) & 255;
          key[4 * i + 3] = v & 255;
        }
      }
      let match = true;
      for (let j = 0; match && j < prefix.length; j++) match = key[j] === prefix[j];
      if (match)
        return { counter, derivedKey: Array.from(key.subarray(0, parameters.keyLength), (x) => x.toString(16).padStart(2, '0')).join('') };
    }
    onProgress(counter);
    await new Promise<void>((done) => {
      if (typeof MessageChannel !== 'function') return void setTimeout(done, 0);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => done();
      channel.port2.postMessage(0);
    });
  }
  return null;
}
