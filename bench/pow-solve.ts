// `npm run bench:pow`: how long the waiting page's solver (src/pages/pow-solver.ts) takes in
// Chromium at each difficulty, one fresh page per solve (cold, as a visitor's), on challenges made
// exactly as the gateway makes them (altcha-lib, deterministic counter drawn from 2^bits); and,
// in the same browser, WebCrypto's SHA-256 rate against the solver's own loop.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChallenge, randomInt } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { chromium } from 'playwright-core';
import { solvePow } from '../src/pages/pow-solver.ts';
import { median } from './harness.ts';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const BITS = (process.env.POW_BITS ?? '8,10,12,14,16,18,20,22').split(',').map(Number);
const SAMPLES = Number(process.env.POW_SAMPLES) || 7;

/** A challenge as src/lib/proof-of-work.ts issues it (the secret does not matter for solving). */
function challenge(bits: number) {
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    counter: randomInt(2 ** bits - 1, 0),
    deriveKey,
    data: { event: 'bench', visitor: crypto.randomUUID(), bits },
    expiresAt: Math.floor(Date.now() / 1000) + 120,
    hmacSignatureSecret: 'bench-only',
    hmacKeySignatureSecret: 'bench-only-key',
  });
}

async function main(): Promise<void> {
  // A secure context (127.0.0.1) for WebCrypto; the page itself is empty.
  const server = createServer((_req, res) => res.end('<!doctype html><title>solver</title>'));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
  const source = solvePow.toString();
  try {
    console.log(`Chromium ${browser.version()}, ${SAMPLES} solves per difficulty, each in a fresh page\n`);
    console.log('bits   hashes (mean, max)    median ms    min ms    max ms   median hashes/s');
    for (const bits of BITS) {
      const runs: { ms: number; counter: number }[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const c = await challenge(bits);
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(url);
        const run = await page.evaluate(
          async ([src, parameters, max]) => {
            // oxlint-disable-next-line no-eval -- the solver's own source, run inside the page as the check page does
            const solve = (0, eval)(`(${src})`) as typeof solvePow;
            const t0 = performance.now();
            const solution = await solve(parameters, max, () => {});
            return { ms: performance.now() - t0, counter: solution ? solution.counter : -1 };
          },
          [source, c.parameters, 2 ** bits] as const,
        );
        await context.close();
        if (run.counter < 0) throw new Error(`no solution at ${bits} bits`);
        runs.push(run);
      }
      const ms = median(runs.map((r) => r.ms));
      const rate = median(runs.map((r) => (r.counter + 1) / (r.ms / 1000)));
      console.log(
        [
          String(bits).padStart(4),
          `${(2 ** (bits - 1)).toLocaleString()}, ${(2 ** bits).toLocaleString()}`.padStart(21),
          ms.toFixed(0).padStart(11),
          Math.min(...runs.map((r) => r.ms))
            .toFixed(0)
            .padStart(9),
          Math.max(...runs.map((r) => r.ms))
            .toFixed(0)
            .padStart(9),
          Math.round(rate).toLocaleString().padStart(17),
        ].join('  '),
      );
    }
    const page = await browser.newPage();
    await page.goto(url);
    const rates = await page.evaluate(async (src) => {
      // oxlint-disable-next-line no-eval -- as above
      const solve = (0, eval)(`(${src})`) as typeof solvePow;
      const n = 200_000;
      // A prefix no key has: the solver runs through all n counters.
      const never = { salt: '11'.repeat(16), nonce: '22'.repeat(16), keyPrefix: 'ff'.repeat(16), cost: 1, keyLength: 32 };
      await solve(never, 20_000, () => {});
      let t0 = performance.now();
      await solve(never, n, () => {});
      const loop = n / ((performance.now() - t0) / 1000);
      const input = new Uint8Array(36);
      t0 = performance.now();
      for (let done = 0; done < 50_000; done += 256)
        await Promise.all(Array.from({ length: 256 }, () => crypto.subtle.digest('SHA-256', input)));
      return { loop, webCrypto: 50_000 / ((performance.now() - t0) / 1000) };
    }, source);
    console.log(
      `\nwarm SHA-256 rate in one page: solver loop ${Math.round(rates.loop).toLocaleString()}/s, crypto.subtle.digest (256 at a time) ${Math.round(rates.webCrypto).toLocaleString()}/s (${(rates.loop / rates.webCrypto).toFixed(1)}x)`,
    );
  } finally {
    await browser.close();
    server.close();
  }
}

await main();
