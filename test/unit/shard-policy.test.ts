// A queue shard's join rule as a table: who keeps their place, who gets a new one (pre-queue or
// FIFO), and which bucket a new arrival lands in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Place } from '../../contracts/queue/cursor';
import type { ShardJoin } from '../../contracts/queue/shard-join';
import { arrivalBucket, decideJoin, type JoinDecision } from '../../durable-objects/waiting-room/shard-policy';

const T0 = 1_800_000_000_250;
const BUCKET = Math.floor(T0 / 1000);
const req = (o: Partial<ShardJoin> = {}): ShardJoin => ({
  eventId: 'ev',
  shard: 0,
  visitorId: 'v',
  lottery: false,
  saleStartsAtMs: 0,
  again: false,
  ...o,
});
const held: Place = { bucket: BUCKET - 5, idx: 2, shard: 0 };
const open = { sealed: false, minBucket: 0 };

describe('decideJoin', () => {
  it.each<{
    name: string;
    r: Partial<ShardJoin>;
    current: Place | null;
    shard?: { sealed: boolean; minBucket: number };
    want: JoinDecision;
  }>([
    { name: 'a first join gets a FIFO place in this second', r: {}, current: null, want: { kind: 'new', pre: false, bucket: BUCKET } },
    { name: 'joining again keeps the place', r: {}, current: held, want: { kind: 'keep', place: held } },
    {
      name: 'a re-join instead of the held place gets a new one',
      r: { again: true, replaces: `${BUCKET - 5}:2:0` },
      current: held,
      want: { kind: 'new', pre: false, bucket: BUCKET },
    },
    {
      name: 'a re-join naming a place no longer held keeps the current one (replay)',
      r: { again: true, replaces: '1:0:0' },
      current: held,
      want: { kind: 'keep', place: held },
    },
    {
      name: 'a re-join without a named place always gets a new one',
      r: { again: true },
      current: held,
      want: { kind: 'new', pre: false, bucket: BUCKET },
    },
    {
      name: 'a lottery join before the sale enters the pre-queue',
      r: { lottery: true, saleStartsAtMs: T0 + 1 },
      current: null,
      want: { kind: 'new', pre: true },
    },
    {
      name: 'a lottery join after the seal gets a FIFO place',
      r: { lottery: true, saleStartsAtMs: T0 + 1 },
      current: null,
      shard: { sealed: true, minBucket: 0 },
      want: { kind: 'new', pre: false, bucket: BUCKET },
    },
    {
      name: 'a lottery join at the sale start gets a FIFO place',
      r: { lottery: true, saleStartsAtMs: T0 },
      current: null,
      want: { kind: 'new', pre: false, bucket: BUCKET },
    },
    {
      name: 'never into a bucket already reported final',
      r: {},
      current: null,
      shard: { sealed: false, minBucket: BUCKET + 3 },
      want: { kind: 'new', pre: false, bucket: BUCKET + 3 },
    },
  ])('$name', ({ r, current, shard, want }) => expect(decideJoin(req(r), current, shard ?? open, T0)).toEqual(want));

  it('a new bucket is never before the clock second nor the seal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 41 }), fc.integer({ min: 0, max: 2 ** 31 }), (now, min) => {
        const b = arrivalBucket(now, min);
        expect(b).toBeGreaterThanOrEqual(min);
        expect(b).toBeGreaterThanOrEqual(Math.floor(now / 1000));
      }),
    );
  });
});
