// Steps of a join timed alone inside the bench Worker (bench/bench-worker.ts serves them at
// /__bench/micro and /__bench/micro-pow): token signing and checking, the decision log, the
// limiter, object RPCs and coalesced shard batches, and the proof-of-work steps.
import { logDecision } from '../contracts/log';
import { recordDecision } from '../src/lib/decision-tally';
import { signAdmission, signQueueTicket, tokenSettings, verifyToken, type TokenSettings } from '../src/lib/token';
import { shardName } from '../contracts/names';
import type { ShardJoinItem } from '../contracts/queue/shard-join';
import { challengeKeyRing, issueChallenge, verifyProof } from '../src/lib/proof-of-work';
import { solvePow } from '../src/pages/pow-solver';
import type { BenchEnv } from './bench-envs';

/**
 * Each step of a join timed alone, one after another in this request (no contention): mean
 * microseconds per call over `n` calls. Workers' timers advance only at I/O, so each step is
 * timed over its whole loop, which ends with an I/O wait.
 */
export async function micro(env: BenchEnv, n: number): Promise<Record<string, number>> {
  const settings = tokenSettings(env as unknown as Env);
  const place = { bucket: 29_000_000, idx: 123, shard: 0 };
  const out: Record<string, number> = {};
  const tick = () => scheduler.wait(0);
  const time = async (name: string, step: (i: number) => Promise<unknown> | unknown) => {
    await tick();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    await tick();
    out[name] = Math.round(((performance.now() - t0) * 1000) / n);
  };
  const es256: TokenSettings = { ...settings, ticketSecret: '' };
  const admission = { eventId: 'micro', expiresAtMs: Date.now() + 600_000, sessionId: '1' };
  await signQueueTicket(settings, 'micro', 'warm', place, Date.now());
  await signQueueTicket(es256, 'micro', 'warm', place, Date.now());
  await time('empty loop + tick', () => undefined);
  await time('crypto.randomUUID', () => crypto.randomUUID());
  await time('ticket sign, ES256 (jose; before)', (i) => signQueueTicket(es256, 'micro', `v-${i}`, place, Date.now()));
  await time('ticket sign, HS256 (ticket-mac.ts; now)', (i) => signQueueTicket(settings, 'micro', `v-${i}`, place, Date.now()));
  const signAll = async (s: TokenSettings, tag: string) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(await signQueueTicket(s, 'micro', `${tag}-${i}`, place, Date.now()));
    return out;
  };
  const esTickets = await signAll(es256, 'e');
  const hsTickets = await signAll(settings, 'h');
  await time('ticket verify, ES256 (jose, uncached; before)', (i) => verifyToken(es256, 'ticket', esTickets[i]!, 'micro', Date.now()));
  await time('ticket verify, HS256 (uncached; now)', (i) => verifyToken(settings, 'ticket', hsTickets[i]!, 'micro', Date.now()));
  await time('token verify (cached, either kind)', (i) => verifyToken(settings, 'ticket', hsTickets[i]!, 'micro', Date.now()));
  await time('admission sign, ES256 (jose)', (i) => signAdmission(settings, { ...admission, visitorId: `a-${i}` }, Date.now()));
  const hmacKey = await crypto.subtle.importKey(
    'raw',
    crypto.getRandomValues(new Uint8Array(32)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const body = new TextEncoder().encode(hsTickets[0]!.split('.').slice(0, 2).join('.'));
  await time('raw HMAC-SHA256 over the same claims', () => crypto.subtle.sign('HMAC', hmacKey, body));
  await time('decision log line (before: one per join and hold)', () =>
    logDecision('joined', { eventId: 'micro', shard: 0, preQueue: false }),
  );
  await time('decision tally (now)', () => recordDecision('micro', 'joined'));
  await time('rate limiter call (before: awaited on every join)', (i) => env.IP_RATE_LIMITER.limit({ key: `join:micro:${i % 50}` }));
  const noop = env.NOOP.getByName('noop');
  await time('no-op Durable Object RPC', () => noop.ping());
  await time('Durable Object RPC with one SQLite upsert', (i) => noop.write(`m-${i}`));
  const shard = env.QUEUE_SHARD.getByName(shardName('micro', 0));
  await time('QueueShard.join RPC (write, no event)', (i) =>
    shard.join({ eventId: 'micro', shard: 0, visitorId: `x-${i}-${Math.random()}`, lottery: false, saleStartsAtMs: 0, again: false }),
  );
  // A coalesced batch of B new visitors: the round trip and the commit are shared, the per-join
  // decision and writes are not (per join = the call's time / B).
  for (const b of [1, 8, 64]) {
    const calls = Math.max(1, Math.round(n / b));
    const batch = (k: number): ShardJoinItem[] =>
      Array.from({ length: b }, (_, j) => ({
        kind: 'join',
        req: { eventId: 'micro', shard: 0, visitorId: `b${b}-${k}-${j}-${Math.random()}`, lottery: false, saleStartsAtMs: 0, again: false },
      }));
    await tick();
    const t0 = performance.now();
    for (let k = 0; k < calls; k++) await shard.joinMany(batch(k));
    await tick();
    out[`QueueShard.joinMany RPC, batch of ${b}, per join`] = Math.round(((performance.now() - t0) * 1000) / (calls * b));
  }
  return out;
}

/**
 * The proof-of-work steps of a join alone, microseconds per call over `n` calls (timed as `micro`
 * does): deriving the challenge secrets (each request does it), verifying one solved 8-bit
 * challenge (the same one `n` times: single use is the shard's, not the verifier's), issuing one.
 */
export async function microProofOfWork(env: BenchEnv, n: number): Promise<{ secrets: number; verify: number; issue: number }> {
  const secretsEnv = env as unknown as Env;
  const ring = await challengeKeyRing(secretsEnv);
  const proofOfWork = { difficultyBits: 8 };
  const request = (i: number) => ({ eventId: 'micro', proofOfWork, visitorId: crypto.randomUUID(), nowMs: Date.now(), randomUint32: i });
  const challenge = await issueChallenge(ring, request(7));
  const proof = btoa(JSON.stringify({ challenge, solution: await solvePow(challenge.parameters, 256, () => {}) }));
  const check = { eventId: 'micro', proofOfWork, nowMs: Date.now() };
  const time = async (step: (i: number) => Promise<unknown>) => {
    await scheduler.wait(0);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    await scheduler.wait(0);
    return Math.round(((performance.now() - t0) * 1000) / n);
  };
  return {
    secrets: await time(() => challengeKeyRing(secretsEnv)),
    verify: await time(() => verifyProof(ring, proof, check)),
    issue: await time((i) => issueChallenge(ring, request(i))),
  };
}
