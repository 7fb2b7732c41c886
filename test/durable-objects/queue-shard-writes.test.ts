// QueueShard's join write (one conditional insert for a visitor new to the shard, the state row
// kept in memory): random schedules of joins, repeated joins, re-joins, leaves, single-use joins,
// count reads, draws and clock steps (also backwards) against a model of what the shard promised.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUCKET_MS, isPre, placeKey, type FifoPlace, type Place } from '../../contracts/queue/cursor';
import type { ShardJoin } from '../../contracts/queue/shard-join';
import { shardName } from '../../contracts/names';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import { freshEventId } from '../helpers/client';

type Op =
  | { kind: 'join'; visitor: number; lane: boolean }
  | { kind: 'rejoin' | 'leave' | 'joinOnce'; visitor: number }
  | { kind: 'clock'; stepMs: number }
  | { kind: 'counts' | 'draw' | 'restart' };

const VISITORS = 6;
/** The presale lane some first joins name (a line of its own, counted apart from the public queue). */
const LANE = 'presale';
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('join' as const), visitor: fc.nat(VISITORS - 1), lane: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rejoin' as const), visitor: fc.nat(VISITORS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), visitor: fc.nat(VISITORS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('joinOnce' as const), visitor: fc.nat(VISITORS + 3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clock' as const), stepMs: fc.integer({ min: -1500, max: 2500 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'counts' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'draw' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

describe('QueueShard join writes', () => {
  it('hands each visitor one place, the same again on a repeated join, and numbers every bucket 0, 1, 2, ... without gaps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(arbOp, { minLength: 1, maxLength: 30 }), async (lottery, ops) => {
        const eventId = freshEventId('qsw');
        const name = shardName(eventId, 0);
        let shard = env.QUEUE_SHARD.getByName(name);
        let nowMs = Date.now();
        const saleStartsAtMs = nowMs + 3_000;
        const setClock = () => runInDurableObject(shard, (obj: QueueShard) => void (obj.clock = () => nowMs));
        await setClock();
        // The model: each visitor's current place (null after a leave), who ever had a row, the
        // places handed out per bucket, the seal the last count reported, the draw.
        const current = new Map<string, Place | null>();
        const seen = new Set<string>();
        const handedOut = new Map<string, Map<number, number>>();
        const line = (lane: string | undefined) => {
          const key = lane ?? '';
          if (!handedOut.has(key)) handedOut.set(key, new Map());
          return handedOut.get(key)!;
        };
        let sealedBefore = 0;
        let drawn = false;
        const req = (visitorId: string, again: boolean, lane?: string): ShardJoin => {
          const had = current.get(visitorId);
          const inLane = again && had && !isPre(had) ? had.lane : lane;
          return {
            eventId,
            shard: 0,
            visitorId,
            lottery,
            saleStartsAtMs,
            again,
            ...(again && had ? { replaces: placeKey(had) } : {}),
            ...(inLane ? { lane: inLane } : {}),
          };
        };
        const checkNew = (visitorId: string, place: Place, lane: string | undefined) => {
          // The draw is the public queue's: a lane's visitors line up first come, first served.
          if (lottery && lane === undefined && !drawn && nowMs < saleStartsAtMs) expect(isPre(place)).toBe(true);
          else {
            expect(isPre(place)).toBe(false);
            const { bucket, idx } = place as FifoPlace;
            expect((place as FifoPlace).lane).toBe(lane);
            expect(bucket).toBeGreaterThanOrEqual(sealedBefore);
            expect(bucket).toBe(Math.max(Math.floor(nowMs / BUCKET_MS), sealedBefore));
            expect(idx).toBe(line(lane).get(bucket) ?? 0);
            line(lane).set(bucket, idx + 1);
          }
          current.set(visitorId, place);
          seen.add(visitorId);
        };
        for (const op of ops) {
          switch (op.kind) {
            case 'join': {
              const v = `v${op.visitor}`;
              const had = current.get(v);
              const lane = op.lane ? LANE : undefined;
              const place = await shard.join(req(v, false, lane));
              // A visitor who has a place keeps it, whichever lane the join names.
              if (had) expect(place).toEqual(had);
              else checkNew(v, place, lane);
              break;
            }
            case 'rejoin': {
              const v = `v${op.visitor}`;
              if (!current.get(v)) break;
              const retry = req(v, true);
              const place = await shard.join(retry);
              checkNew(v, place, retry.lane);
              // The same re-join again (a retry, or a replay of the old ticket) keeps the place it got.
              expect(await shard.join(retry)).toEqual(place);
              break;
            }
            case 'leave': {
              const v = `v${op.visitor}`;
              expect(await shard.leave(v)).toBe(Boolean(current.get(v)));
              if (current.has(v)) current.set(v, null);
              break;
            }
            case 'joinOnce': {
              const v = `v${op.visitor}`;
              const answer = await shard.joinOnce(req(v, false));
              if (seen.has(v)) expect(answer).toEqual({ kind: 'used' });
              else {
                expect(answer.kind).toBe('joined');
                if (answer.kind === 'joined') checkNew(v, answer.place, undefined);
              }
              break;
            }
            case 'clock':
              nowMs += op.stepMs;
              await setClock();
              break;
            case 'counts': {
              const counts = await shard.counts(0);
              sealedBefore = counts.sealedBefore;
              expect(new Map(counts.buckets.map(([b, n]) => [b, n] as const))).toEqual(line(undefined));
              expect(new Map((counts.lanes[LANE] ?? []).map(([b, n]) => [b, n] as const))).toEqual(line(LANE));
              break;
            }
            case 'draw':
              await shard.entrants();
              drawn = true;
              break;
            case 'restart':
              // A new instance reads its state row again (the in-memory copy must match it).
              expect(
                await runInDurableObject(shard, (_obj, state) => state.abort('restart')).then(
                  () => false,
                  () => true,
                ),
              ).toBe(true);
              shard = env.QUEUE_SHARD.getByName(name);
              await setClock();
              break;
          }
        }
        const stored = await runInDurableObject(shard, (_o, state) =>
          state.storage.sql.exec<{ bucket: number; count: number }>('SELECT bucket, count FROM qs_buckets').toArray(),
        );
        expect(new Map(stored.map((r) => [r.bucket, r.count]))).toEqual(line(undefined));
      }),
      { numRuns: 25 },
    );
  });
});
