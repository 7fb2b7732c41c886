// QueueShard.joinMany (the batch the edge's join coalescing sends): random batches of joins,
// re-joins, entry-token joins and proof-of-work joins, with repeated visitors, tokens and ids inside
// one batch, answer exactly as the same calls one after another on a twin shard; a failing item
// stands alone; a batch out of bounds changes nothing.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { placeKey } from '../../contracts/queue/cursor';
import { SHARD_BATCH_MAX, type ShardJoin, type ShardJoinAnswer, type ShardJoinItem } from '../../contracts/queue/shard-join';
import { shardName } from '../../contracts/names';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import { freshEventId } from '../helpers/client';

type Pick = { kind: 'join' | 'rejoin' | 'enter' | 'once'; visitor: number; token: number; lane: boolean };

const arbPick: fc.Arbitrary<Pick> = fc.record({
  kind: fc.constantFrom<Pick['kind']>('join', 'join', 'rejoin', 'enter', 'once'),
  visitor: fc.nat(4),
  token: fc.nat(3),
  lane: fc.boolean(),
});

/** A shard of a fresh event with its clock fixed at `nowMs`, and the rows it holds. */
async function shardAt(nowMs: number) {
  const eventId = freshEventId('qsb');
  const stub = env.QUEUE_SHARD.getByName(shardName(eventId, 0));
  await runInDurableObject(stub, (obj: QueueShard) => void (obj.clock = () => nowMs));
  const rows = () =>
    runInDurableObject(stub, (_o, s) => ({
      visitors: s.storage.sql.exec('SELECT visitor_id, pre, bucket, idx, lane, left_at FROM qs_visitors ORDER BY visitor_id').toArray(),
      buckets: s.storage.sql.exec('SELECT bucket, count FROM qs_buckets ORDER BY bucket').toArray(),
      lanes: s.storage.sql.exec('SELECT lane, bucket, count FROM qs_lane_buckets ORDER BY lane, bucket').toArray(),
      tokens: s.storage.sql.exec('SELECT token_id FROM qs_entry_tokens ORDER BY token_id').toArray(),
    }));
  return { eventId, stub, rows };
}

/** The items of `picks` for `eventId`; a re-join names the place the visitor had before the batch. */
function itemsOf(eventId: string, picks: Pick[], lottery: boolean, saleStartsAtMs: number, held: Map<string, string>): ShardJoinItem[] {
  return picks.map((p) => {
    const visitorId = `v-${p.visitor}`;
    const replaces = p.kind === 'rejoin' ? held.get(visitorId) : undefined;
    const req: ShardJoin = {
      eventId,
      shard: 0,
      visitorId,
      lottery,
      saleStartsAtMs,
      again: replaces !== undefined,
      ...(replaces ? { replaces } : {}),
      ...(p.lane ? { lane: 'presale' } : {}),
    };
    if (p.kind === 'enter') return { kind: 'enter', req, token: { id: `t-${p.token}`, expiresAtMs: saleStartsAtMs + 600_000 } };
    if (p.kind === 'once') return { kind: 'once', req: { ...req, visitorId: `pow-${p.visitor}` } };
    return { kind: 'join', req };
  });
}

/** The same item through the shard's single-join methods, as the edge called them before batching. */
async function alone(stub: DurableObjectStub<QueueShard>, item: ShardJoinItem): Promise<ShardJoinAnswer> {
  if (item.kind === 'enter') return stub.enter(item.req, item.token);
  if (item.kind === 'once') {
    const a = await stub.joinOnce(item.req);
    return a.kind === 'joined' ? { kind: 'place', place: a.place } : a;
  }
  return { kind: 'place', place: await stub.join(item.req) };
}

describe('QueueShard.joinMany', () => {
  it('answers a batch exactly as the same joins one after another, and stores the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(arbPick, { maxLength: 6 }),
        fc.array(arbPick, { minLength: 1, maxLength: 12 }),
        async (lottery, before, batch) => {
          const nowMs = Date.now();
          const saleStartsAtMs = nowMs + (lottery ? 60_000 : -60_000);
          const [a, b] = [await shardAt(nowMs), await shardAt(nowMs)];
          // The same history on both shards first (so re-joins and repeats meet existing places).
          const held = new Map<string, string>();
          for (const item of itemsOf(a.eventId, before, lottery, saleStartsAtMs, new Map())) {
            const answer = await alone(a.stub, item);
            await alone(b.stub, { ...item, req: { ...item.req, eventId: b.eventId } } as ShardJoinItem);
            if (answer.kind === 'place') held.set(item.req.visitorId, placeKey(answer.place));
          }
          const items = itemsOf(a.eventId, batch, lottery, saleStartsAtMs, held);
          const batched = await a.stub.joinMany(items);
          const sequential: ShardJoinAnswer[] = [];
          for (const item of items)
            sequential.push(await alone(b.stub, { ...item, req: { ...item.req, eventId: b.eventId } } as ShardJoinItem));
          expect(batched).toEqual(sequential.map((value) => ({ ok: true, value })));
          expect(await a.rows()).toEqual(await b.rows());
        },
      ),
      { numRuns: 25 },
    );
  });

  it('decides a batch in its order: new visitors get indexes 0, 1, 2, ... as listed', async () => {
    const nowMs = Date.now();
    const { eventId, stub } = await shardAt(nowMs);
    const req = (visitorId: string): ShardJoin => ({ eventId, shard: 0, visitorId, lottery: false, saleStartsAtMs: 0, again: false });
    const answers = await stub.joinMany(['c', 'a', 'b', 'a', 'd'].map((v) => ({ kind: 'join', req: req(v) })));
    const idx = answers.map((o) => (o.ok && o.value.kind === 'place' && 'idx' in o.value.place ? o.value.place.idx : null));
    expect(idx).toEqual([0, 1, 2, 1, 3]);
  });

  it('answers an item that fails { ok: false } with nothing of it stored, and the others stand', async () => {
    const { eventId, stub, rows } = await shardAt(Date.now());
    const req = (visitorId: string): ShardJoin => ({ eventId, shard: 0, visitorId, lottery: false, saleStartsAtMs: 0, again: false });
    const broken = { kind: 'enter', req: req('v-broken'), token: { id: 't-broken', expiresAtMs: null } } as unknown as ShardJoinItem;
    const answers = await stub.joinMany([{ kind: 'join', req: req('v-1') }, broken, { kind: 'join', req: req('v-2') }]);
    expect(answers.map((o) => o.ok)).toEqual([true, false, true]);
    expect((answers[1] as { error: string }).error).toMatch(/NOT NULL/);
    const stored = await rows();
    expect(stored.visitors.map((r) => r.visitor_id)).toEqual(['v-1', 'v-2']);
    expect(stored.tokens).toEqual([]);
    expect(stored.buckets.map((r) => r.count)).toEqual([2]);
  });

  it.each([
    ['an empty batch', 0],
    ['a batch over SHARD_BATCH_MAX', SHARD_BATCH_MAX + 1],
  ])('refuses %s with RangeError and stores nothing', async (_name, n) => {
    const { eventId, stub, rows } = await shardAt(Date.now());
    const items = Array.from({ length: n }, (_, i): ShardJoinItem => ({
      kind: 'join',
      req: { eventId, shard: 0, visitorId: `v-${i}`, lottery: false, saleStartsAtMs: 0, again: false },
    }));
    const refused = await stub.joinMany(items).then(
      () => null,
      (err: unknown) => err,
    );
    expect(String(refused)).toMatch(/RangeError: joinMany takes 1\.\.64 joins/);
    expect((await rows()).visitors).toEqual([]);
  });
});
