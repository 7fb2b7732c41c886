// The WaitingRoom's smaller rules as tables: the stored config read back and checked, what may
// change once visitors joined, the rate after new bounds, health-report order, the cursor's queue
// listing, and when the next slot frees.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type QueueConfig } from '../../contracts/event-config';
import { DEFAULT_HOLD_TARGET_P99_MS } from '../../contracts/event-input';
import { releasedInBucket } from '../../contracts/queue/cursor';
import { nextSlotFreesAt } from '../../durable-objects/waiting-room/alarm-plan';
import { acceptHealthReport, RECENT_REPORTS_KEPT, type StoredHealth } from '../../durable-objects/waiting-room/health-intake';
import {
  configChangeConflict,
  lotteryStartConflict,
  parseRoomConfig,
  rateAfterBoundsChange,
} from '../../durable-objects/waiting-room/room-config';
import { queueListing } from '../../durable-objects/waiting-room/room-cursor';

const T0 = 1_800_000_000_000;

const config: QueueConfig = {
  eventId: 'ev',
  name: 'Ev',
  policy: 'fifo',
  saleStartsAtMs: 0,
  maxReleaseRatePerMinute: 600,
  minReleaseRatePerMinute: 60,
  maxActiveVisitors: 100,
  admissionTtlMs: 600_000,
  idleTimeoutMs: 300_000,
  targetP99Ms: 800,
  maxErrorRate: 0.02,
  holdTargetP99Ms: 300,
  onOriginDown: 'minimum',
  shards: 2,
  waitingPageStatus: 200,
  page: {},
  proofOfWork: { difficultyBits: 16 },
};

describe('parseRoomConfig', () => {
  it('reads a stored config back as stored', () => expect(parseRoomConfig(JSON.stringify(config))).toEqual(config));

  it('fills in the settings configs stored before them lack', () => {
    const { shards: _s, holdTargetP99Ms: _h, onOriginDown: _o, waitingPageStatus: _w, page: _p, proofOfWork: _pow, ...old } = config;
    expect(parseRoomConfig(JSON.stringify(old))).toEqual({
      ...old,
      shards: 1,
      holdTargetP99Ms: DEFAULT_HOLD_TARGET_P99_MS,
      onOriginDown: 'minimum',
      waitingPageStatus: 200,
      page: {},
      proofOfWork: null,
    });
  });

  it.each([
    { json: 'null', error: 'not an object' },
    { json: JSON.stringify({ ...config, eventId: 7 }), error: 'eventId must be a string' },
    { json: JSON.stringify({ ...config, policy: 'lifo' }), error: "policy must be 'fifo' or 'random'" },
    { json: JSON.stringify({ ...config, idleTimeoutMs: '300000' }), error: 'idleTimeoutMs must be a finite number' },
    { json: JSON.stringify({ ...config, maxActiveVisitors: undefined }), error: 'maxActiveVisitors must be a finite number' },
    { json: JSON.stringify({ ...config, shards: 0 }), error: 'shards must be a positive integer' },
    {
      json: JSON.stringify({ ...config, proofOfWork: { difficultyBits: 99 } }),
      error: 'proofOfWork must be null or { difficultyBits: 8-20 }',
    },
  ])('refuses a stored config that is not one: $error', ({ json, error }) => expect(() => parseRoomConfig(json)).toThrow(error));
});

describe('lotteryStartConflict', () => {
  const fifo = parseRoomConfig(JSON.stringify(config));
  const lottery = parseRoomConfig(JSON.stringify({ ...config, policy: 'random', saleStartsAtMs: T0 - 60_000 }));
  it.each([
    ['a new lottery starting later', null, { ...config, policy: 'random' as const, saleStartsAtMs: T0 + 1 }, false],
    ['a new lottery starting now', null, { ...config, policy: 'random' as const, saleStartsAtMs: T0 }, true],
    ['a new lottery started a minute ago', null, { ...config, policy: 'random' as const, saleStartsAtMs: T0 - 60_000 }, true],
    ['a FIFO event switched to a lottery in the past', fifo, { ...config, policy: 'random' as const, saleStartsAtMs: T0 - 1 }, true],
    ['a FIFO event switched to a lottery later', fifo, { ...config, policy: 'random' as const, saleStartsAtMs: T0 + 60_000 }, false],
    ['a drawn lottery replaced with its past start', lottery, { ...lottery }, false],
    ['a new FIFO event in the past', null, { ...config, saleStartsAtMs: T0 - 60_000 }, false],
  ])('%s', (_name, old, next, refused) => {
    expect(lotteryStartConflict(old, next, T0) !== null).toBe(refused);
  });
});

describe('configChangeConflict', () => {
  const old = parseRoomConfig(JSON.stringify({ ...config, policy: 'random', saleStartsAtMs: T0 }));
  const fifo = parseRoomConfig(JSON.stringify({ ...config, policy: 'fifo', saleStartsAtMs: T0 }));
  it.each([
    {
      name: 'anything changes before anyone joined',
      next: { ...config, shards: 4 },
      state: { joined: false, drawn: false, admitted: false, nowMs: T0 },
      want: null,
    },
    {
      name: 'the policy is fixed once joined',
      next: { ...old, policy: 'fifo' as const },
      state: { joined: true, drawn: false, admitted: false, nowMs: T0 - 1 },
      want: 'the queue policy cannot change once visitors have joined',
    },
    {
      name: 'the shard count is fixed once joined',
      next: { ...old, shards: 3 },
      state: { joined: true, drawn: false, admitted: false, nowMs: T0 - 1 },
      want: 'the number of queue shards cannot change once visitors have joined',
    },
    {
      name: 'a missing shard count means 1',
      next: { ...old, shards: undefined },
      state: { joined: true, drawn: false, admitted: false, nowMs: T0 - 1 },
      want: 'the number of queue shards cannot change once visitors have joined',
    },
    {
      name: 'the sale start may move before the draw',
      next: { ...old, saleStartsAtMs: T0 + 1 },
      state: { joined: true, drawn: false, admitted: false, nowMs: T0 - 1 },
      want: null,
    },
    {
      name: 'the sale start is fixed after the draw',
      next: { ...old, saleStartsAtMs: T0 + 1 },
      state: { joined: true, drawn: true, admitted: true, nowMs: T0 + 60_000 },
      want: 'the sale start cannot move after the lottery draw',
    },
    {
      name: 'rates and limits may change any time',
      next: { ...old, maxReleaseRatePerMinute: 60, maxActiveVisitors: 5 },
      state: { joined: true, drawn: true, admitted: true, nowMs: T0 + 60_000 },
      want: null,
    },
    {
      name: 'a sale under way cannot have its start moved into the future',
      next: { ...config, saleStartsAtMs: T0 + 120_000 },
      state: { joined: true, drawn: false, admitted: true, nowMs: T0 + 60_000 },
      want: 'the sale is under way: its start cannot move into the future (pause the event to stop releases)',
      from: fifo,
    },
    {
      name: 'a started sale nobody was admitted to yet may still be postponed',
      next: { ...config, saleStartsAtMs: T0 + 120_000 },
      state: { joined: true, drawn: false, admitted: false, nowMs: T0 + 60_000 },
      want: null,
      from: fifo,
    },
    {
      name: 'a sale under way may have its start moved within the past',
      next: { ...config, saleStartsAtMs: T0 - 60_000 },
      state: { joined: true, drawn: false, admitted: true, nowMs: T0 + 60_000 },
      want: null,
      from: fifo,
    },
  ])('$name', ({ next, state, want, from }) => expect(configChangeConflict(from ?? old, next, state)).toBe(want));
});

describe('rateAfterBoundsChange', () => {
  it.each([
    { room: { rate: 300, fixedRate: null }, min: 60, max: 600, want: { kind: 'unchanged' } },
    {
      room: { rate: 300, fixedRate: null },
      min: 60,
      max: 200,
      want: { kind: 'clamped', rate: 200, reason: 'organizer bounds changed: 60-200/min' },
    },
    {
      room: { rate: 30, fixedRate: null },
      min: 60,
      max: 600,
      want: { kind: 'clamped', rate: 60, reason: 'organizer bounds changed: 60-600/min' },
    },
    {
      room: { rate: 500, fixedRate: 500 },
      min: 60,
      max: 400,
      want: { kind: 'clamped', rate: 400, reason: 'fixed rate of 500/min held to the maximum in effect of 400/min' },
    },
    { room: { rate: 500, fixedRate: 500 }, min: 600, max: 900, want: { kind: 'unchanged' } },
    // A window that held the fixed rate down ends: the operator's rate is back.
    {
      room: { rate: 12, fixedRate: 30 },
      min: 6,
      max: 100,
      want: { kind: 'clamped', rate: 30, reason: 'fixed rate of 30/min in effect again' },
    },
  ])('rate $room.rate (fixed $room.fixedRate), bounds $min-$max', ({ room, min, max, want }) => {
    expect(rateAfterBoundsChange(room, { minReleaseRatePerMinute: min, maxReleaseRatePerMinute: max })).toEqual(want);
  });
});

describe('acceptHealthReport', () => {
  const report = { p99LatencyMs: 100, errorRate: 0, activeBuyers: 3 };
  it.each([
    {
      name: 'the first report',
      last: null,
      signed: T0 - 1_000,
      want: { kind: 'store', health: { ...report, reportedAtMs: T0 - 1_000, signedAtMs: T0 - 1_000 } },
    },
    {
      name: 'a later-signed report',
      last: { ...report, reportedAtMs: T0 - 5_000, signedAtMs: T0 - 5_000 },
      signed: T0 - 1_000,
      want: { kind: 'store', health: { ...report, reportedAtMs: T0 - 1_000, signedAtMs: T0 - 1_000 } },
    },
    {
      name: 'an earlier-signed (replayed) report',
      last: { ...report, reportedAtMs: T0 - 1_000, signedAtMs: T0 - 1_000 },
      signed: T0 - 5_000,
      want: { kind: 'out_of_order' },
    },
    {
      name: 'a correctly timed report after one signed ahead of this clock is accepted',
      last: { ...report, reportedAtMs: T0 - 1_000, signedAtMs: T0 + 200_000 },
      signed: T0,
      want: { kind: 'store', health: { ...report, reportedAtMs: T0, signedAtMs: T0 } },
    },
    {
      name: 'a report stored before signedAtMs existed orders by reportedAtMs',
      last: { ...report, reportedAtMs: T0 - 1_000 },
      signed: T0 - 5_000,
      want: { kind: 'out_of_order' },
    },
    {
      name: 'a report signed ahead of this clock counts from now',
      last: null,
      signed: T0 + 3_000,
      want: { kind: 'store', health: { ...report, reportedAtMs: T0, signedAtMs: T0 + 3_000 } },
    },
  ])('$name', ({ last, signed, want }) => {
    const got = acceptHealthReport(last, report, signed, T0);
    expect(got.kind === 'store' ? { ...got, health: { ...got.health, recent: undefined } } : got).toEqual(
      want.kind === 'store' ? { ...want, health: { ...want.health, recent: undefined } } : want,
    );
  });

  // Failing input: one report signed 5 s ahead, posted five times 1.1 s
  // apart, was a new report each time (clamped to a later now), and the loop climbed five times.
  it('a report sent again, also one signed ahead and sent as the clock moves, is a duplicate', () => {
    const first = acceptHealthReport(null, report, T0 + 5_000, T0);
    expect(first.kind).toBe('store');
    let last = first.kind === 'store' ? first.health : null;
    for (const now of [T0 + 1_100, T0 + 2_200, T0 + 3_300, T0 + 4_400, T0 + 5_500, T0 + 60_000]) {
      expect(acceptHealthReport(last, report, T0 + 5_000, now)).toEqual({ kind: 'duplicate' });
    }
    // A different report signed at the same second is a new one; then both are known.
    const other = acceptHealthReport(last, { ...report, p99LatencyMs: 120 }, T0 + 5_000, T0 + 1_100);
    expect(other.kind).toBe('store');
    last = other.kind === 'store' ? other.health : null;
    expect(acceptHealthReport(last, report, T0 + 5_000, T0 + 2_000)).toEqual({ kind: 'duplicate' });
    expect(acceptHealthReport(last, { ...report, p99LatencyMs: 120 }, T0 + 5_000, T0 + 2_000)).toEqual({ kind: 'duplicate' });
  });

  // Failing input: a report signed 4 s ahead, then one signed in the
  // current second 300 ms later: refused with STALE_REPORT (stored time in ms, signed time in s).
  it('a report signed in the current second after one signed ahead is accepted', () => {
    const ahead = acceptHealthReport(null, report, T0 + 4_000, T0 + 300);
    expect(ahead.kind).toBe('store');
    const now = acceptHealthReport(ahead.kind === 'store' ? ahead.health : null, { ...report, p99LatencyMs: 150 }, T0, T0 + 600);
    expect(now).toMatchObject({ kind: 'store', health: { p99LatencyMs: 150, reportedAtMs: T0 } });
  });

  it('remembers only the reports that could pass the ordering rule again, and refuses past RECENT_REPORTS_KEPT', () => {
    let last: StoredHealth | null = null;
    for (let s = 0; s < 100; s++) {
      const got = acceptHealthReport(last, { ...report, activeBuyers: s }, T0 + s * 1_000, T0 + s * 1_000 + 500);
      expect(got.kind).toBe('store');
      last = got.kind === 'store' ? got.health : null;
    }
    expect(last!.recent).toHaveLength(1);
    // Many distinct reports in one second: kept up to the bound, then refused.
    const kinds = Array.from({ length: RECENT_REPORTS_KEPT + 5 }, (_, i) => {
      const got = acceptHealthReport(last, { ...report, activeBuyers: 1_000 + i }, T0 + 200_000, T0 + 200_000);
      if (got.kind === 'store') last = got.health;
      return got.kind;
    });
    expect(kinds.filter((k) => k === 'store')).toHaveLength(RECENT_REPORTS_KEPT);
    expect(kinds.at(-1)).toBe('out_of_order');
  });
});

describe('queueListing', () => {
  it('lists unreleased arrivals per bucket, summed over shards, oldest first, omitting empty and passed buckets', () => {
    const rows = [
      { shard: 1, bucket: 12, count: 2 },
      { shard: 0, bucket: 10, count: 5 },
      { shard: 1, bucket: 10, count: 1 },
      { shard: 0, bucket: 11, count: 0 },
      { shard: 0, bucket: 9, count: 4 },
    ];
    expect(queueListing({ bucket: 10, idx: 1, shard: 0 }, rows, 10)).toEqual([
      [10, 4 + 0],
      [12, 2],
    ]);
    expect(queueListing({ bucket: 10, idx: 1, shard: 0 }, rows, 1)).toEqual([[10, 4]]);
  });

  it('sums to every unreleased counted arrival (when none is cut off)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ shard: fc.nat(3), bucket: fc.integer({ min: 10, max: 15 }), count: fc.nat(5) }), { maxLength: 12 }),
        fc.nat(4),
        fc.nat(3),
        (raw, idx, shard) => {
          const rows = [...new Map(raw.map((r) => [`${r.shard}:${r.bucket}`, r])).values()];
          const cursor = { bucket: 12, idx, shard };
          const listed = queueListing(cursor, rows, 100).reduce((a, [, n]) => a + n, 0);
          const expected = rows
            .filter((r) => r.bucket >= 12)
            .reduce((a, r) => a + r.count - releasedInBucket(cursor, r.bucket, new Map([[r.shard, r.count]])), 0);
          expect(listed).toBe(expected);
        },
      ),
    );
  });
});

describe('nextSlotFreesAt', () => {
  it.each([
    { ends: { firstPendingAtMs: null, firstAdmissionEndMs: null }, want: null },
    { ends: { firstPendingAtMs: T0, firstAdmissionEndMs: null }, want: T0 + 60_001 },
    { ends: { firstPendingAtMs: null, firstAdmissionEndMs: T0 + 5 }, want: T0 + 5 },
    { ends: { firstPendingAtMs: T0, firstAdmissionEndMs: T0 + 70_000 }, want: T0 + 60_001 },
  ])('$ends -> $want', ({ ends, want }) => expect(nextSlotFreesAt(ends, 60_000)).toBe(want));
});
