// Join coalescing through the gateway (src/lib/shard-joins.ts) with the real QueueShard: concurrent
// joins of one isolate share shard calls, each visitor still gets its own place in arrival order,
// duplicates inside one batch are answered as one after another, and a failing shard call loses
// no place and doubles none. @cloudflare/vitest-plugin runs its tests without cross-request
// promise resolution, so these requests run inside one request (one ExecutionContext) with
// JOIN_COALESCING "on"; test/e2e/join-coalescing.e2e.test.ts runs the same over real HTTP.
import { env } from 'cloudflare:workers';
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signEntryToken } from '../../origin-sdk/src/entry';
import { shardName } from '../../contracts/names';
import type { ShardJoinItem } from '../../contracts/queue/shard-join';
import { createApp } from '../../src/app';
import { BASE, createEvent, freshEventId } from '../helpers/client';

/** A join's answer: its status, problem code, and the place its queue ticket names (`[bucket, idx]`). */
type Status = { status: number; code: string | null; place: [number, number] | null };

/** The place a queue ticket names (its claims are read, not verified: the gateway signed it). */
function ticketPlace(ticket: string | undefined): [number, number] | null {
  if (!ticket) return null;
  const claims = JSON.parse(atob(ticket.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { pl: [number, number, number] };
  return [claims.pl[0], claims.pl[1]];
}

/** Places as sortable numbers (bucket-major), for order and uniqueness checks. */
const rank = (a: Status) => a.place![0] * 1e6 + a.place![1];

/** A QUEUE_SHARD binding that counts `joinMany` calls and their items, and runs `fault` around each. */
function countedShards(fault: (call: number, real: () => Promise<unknown>) => Promise<unknown> = (_n, real) => real()) {
  const batches: number[] = [];
  const ns = {
    getByName: (name: string) => {
      const stub = env.QUEUE_SHARD.getByName(name);
      return {
        joinMany: (items: ShardJoinItem[]) => {
          batches.push(items.length);
          return fault(batches.length, () => stub.joinMany(items));
        },
      };
    },
  };
  return { ns: ns as unknown as Env['QUEUE_SHARD'], batches };
}

/** `inits` sent at once to one gateway app, all inside one request's context, with coalescing on. */
async function atOnce(eventId: string, inits: RequestInit[], shards: Env['QUEUE_SHARD']): Promise<Status[]> {
  const ctx = createExecutionContext();
  const app = createApp();
  const gatewayEnv = { ...env, JOIN_COALESCING: 'on', QUEUE_SHARD: shards };
  const answers = await Promise.all(
    inits.map(async (init) => {
      const res = await app.fetch(
        new Request(`${BASE}/_wr/events/${eventId}/join`, {
          method: 'POST',
          ...init,
          headers: { accept: 'application/json', ...init.headers },
        }),
        gatewayEnv,
        ctx,
      );
      const body = (await res.json()) as { queueTicket?: string; code?: string };
      return { status: res.status, code: body.code ?? null, place: ticketPlace(body.queueTicket) };
    }),
  );
  await waitOnExecutionContext(ctx);
  return answers;
}

/** Visitor rows of the event's only queue shard. */
const shardRows = (eventId: string) =>
  runInDurableObject(
    env.QUEUE_SHARD.getByName(shardName(eventId, 0)),
    (_o, s) => s.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM qs_visitors').toArray()[0]!.n,
  );

const retryable = () => Object.assign(new Error('Network connection lost.'), { retryable: true });
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** An event with its cursor already cached by one join (so every later join takes the same path). */
async function warmEvent(config: Record<string, unknown> = {}): Promise<string> {
  const eventId = freshEventId('co');
  await createEvent(eventId, config);
  const warm = countedShards();
  expect((await atOnce(eventId, [{}], warm.ns))[0]!.status).toBe(200);
  return eventId;
}

describe('join coalescing', () => {
  it('sends 30 concurrent joins in fewer shard calls than 30, and each visitor gets its own place in arrival order', async () => {
    const eventId = await warmEvent();
    const shards = countedShards();
    const answers = await atOnce(
      eventId,
      range(0, 30).map(() => ({})),
      shards.ns,
    );
    expect(answers.map((a) => a.status)).toEqual(range(0, 30).map(() => 200));
    // Arrival order: each place after the one before (the next second's bucket starts at index 0).
    const ranks = answers.map(rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(ranks).size).toBe(30);
    expect(shards.batches.length).toBeLessThan(30);
    expect(shards.batches.reduce((a, b) => a + b, 0)).toBe(30);
    expect(Math.max(...shards.batches)).toBeGreaterThan(1);
    expect(await shardRows(eventId)).toBe(31);
  });

  it('answers one account joining from 6 browsers at once (6 entry tokens) with its one place, as one after another would', async () => {
    const entry = { entry: { require: 'account', signInUrl: '/login' } };
    const sign = (eventId: string) =>
      Promise.all(range(0, 6).map(() => signEntryToken({ account: 'acct-1', eventId, ttlS: 120 }, env.ORIGIN_HMAC_SECRET)));
    const eventId = freshEventId('co');
    await createEvent(eventId, entry);
    const shards = countedShards();
    const batched = await atOnce(
      eventId,
      (await sign(eventId)).map((t) => ({ headers: { 'x-entry-token': t } })),
      shards.ns,
    );
    const seqId = freshEventId('co');
    await createEvent(seqId, entry);
    const sequential: Status[] = [];
    for (const t of await sign(seqId)) sequential.push(...(await atOnce(seqId, [{ headers: { 'x-entry-token': t } }], countedShards().ns)));
    expect(batched.map((a) => [a.status, a.code])).toEqual(sequential.map((a) => [a.status, a.code]));
    expect(batched.map((a) => a.status)).toEqual(range(0, 6).map(() => 200));
    expect(new Set(batched.map(rank)).size).toBe(1);
    expect(shards.batches.length).toBeLessThan(6);
    expect(await shardRows(eventId)).toBe(1);
  });

  it('answers one entry token sent 5 times at once with one place and 4 ENTRY_TOKEN_USED, as one after another would', async () => {
    const entry = { entry: { require: 'account', signInUrl: '/login' } };
    const run = async (together: boolean) => {
      const eventId = freshEventId('co');
      await createEvent(eventId, entry);
      const token = await signEntryToken({ account: 'acct-2', eventId, ttlS: 120 }, env.ORIGIN_HMAC_SECRET);
      const init = { headers: { 'x-entry-token': token } };
      if (together)
        return {
          answers: await atOnce(
            eventId,
            range(0, 5).map(() => init),
            countedShards().ns,
          ),
          eventId,
        };
      const answers: Status[] = [];
      for (let i = 0; i < 5; i++) answers.push(...(await atOnce(eventId, [init], countedShards().ns)));
      return { answers, eventId };
    };
    const batched = await run(true);
    const sequential = await run(false);
    expect(batched.answers.map((a) => [a.status, a.code])).toEqual(sequential.answers.map((a) => [a.status, a.code]));
    expect(batched.answers.map((a) => a.code)).toEqual([
      null,
      'ENTRY_TOKEN_USED',
      'ENTRY_TOKEN_USED',
      'ENTRY_TOKEN_USED',
      'ENTRY_TOKEN_USED',
    ]);
    expect(await shardRows(batched.eventId)).toBe(1);
  });

  it('a shard call that fails before the shard (retryable) is retried: every caller of the batch gets its own place, none lost', async () => {
    const eventId = await warmEvent();
    const shards = countedShards(async (call, real) => {
      if (call <= 2) throw retryable();
      return real();
    });
    const answers = await atOnce(
      eventId,
      range(0, 12).map(() => ({})),
      shards.ns,
    );
    expect(answers.map((a) => a.status)).toEqual(range(0, 12).map(() => 200));
    expect(new Set(answers.map(rank)).size).toBe(12);
    expect(await shardRows(eventId)).toBe(13);
  });

  it('a shard call whose answer is lost after it committed is retried: each visitor finds the place it took, none doubled', async () => {
    const eventId = await warmEvent();
    const shards = countedShards(async (call, real) => {
      const answer = await real();
      if (call === 1) throw retryable();
      return answer;
    });
    const answers = await atOnce(
      eventId,
      range(0, 12).map(() => ({})),
      shards.ns,
    );
    expect(answers.map((a) => a.status)).toEqual(range(0, 12).map(() => 200));
    expect(new Set(answers.map(rank)).size).toBe(12);
    expect(await shardRows(eventId)).toBe(13);
  });

  it('a shard that keeps failing gives every caller of the batch 503 OVERLOADED with nothing stored, and the next joins work', async () => {
    const eventId = await warmEvent();
    const down = countedShards(async () => {
      throw retryable();
    });
    const failed = await atOnce(
      eventId,
      range(0, 8).map(() => ({})),
      down.ns,
    );
    expect(failed.map((a) => [a.status, a.code])).toEqual(range(0, 8).map(() => [503, 'OVERLOADED']));
    expect(await shardRows(eventId)).toBe(1);
    const again = await atOnce(
      eventId,
      range(0, 8).map(() => ({})),
      countedShards().ns,
    );
    expect(again.map((a) => a.status)).toEqual(range(0, 8).map(() => 200));
    expect(await shardRows(eventId)).toBe(9);
  });
});
