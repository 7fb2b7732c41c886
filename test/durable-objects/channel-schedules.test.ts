// The Inventory with sales channels under random schedules (fast-check): online holds,
// channel holds and confirms, allocation changes and ends, release instants hit exactly, clock
// jumps, late alarms, and a feed consumer whose deliveries are lost or duplicated. After every step:
// the invariants of DESIGN.md section 6, and "an allocated seat is held or sold only by its channel
// before release"; at the end, replaying the feed from every recorded cursor gives exactly the state.
import fc from 'fast-check';
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { AllocationView, FeedAnswer, FeedSnapshot } from '../../contracts/channel-answers';
import type { HoldRequest } from '../../contracts/inventory-answers';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { applyFeedEntries, copyFromSnapshot, type FeedCopy } from '../../origin-sdk/src/feed-follower';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';

type Stub = DurableObjectStub<Inventory>;
const SEATS = ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4'];
const TTL_MS = 60_000;
const CHANNELS = ['box', 'partner'];
const caller = (c: string) => ({ channelId: c, generation: 1 });

const arbTarget = fc.oneof(
  { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 3 }).map((seatIds) => ({ seatIds })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((quantity) => ({ tier: 'floor', quantity })) },
);
const arbOp = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('online' as const), account: fc.nat(2), target: arbTarget, key: fc.nat(3) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('channel' as const),
      channel: fc.nat(1),
      account: fc.nat(1),
      target: arbTarget,
      key: fc.nat(3),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat(), byChannel: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), byChannel: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('allocate' as const),
      id: fc.nat(2),
      channel: fc.nat(1),
      target: fc.oneof(
        fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 4 }).map((seatIds) => ({ seatIds })),
        fc.integer({ min: 1, max: 4 }).map((quantity) => ({ tier: 'floor', quantity })),
      ),
      releaseInMs: fc.integer({ min: -5, max: 2 * TTL_MS }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const), id: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: TTL_MS }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'to_release' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'alarm' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('feed' as const),
      limit: fc.integer({ min: 1, max: 4 }),
      delivery: fc.constantFrom('ok', 'lost', 'dup'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
);

async function snapshotOf(inv: Stub): Promise<FeedSnapshot> {
  const a = (await inv.readFeed(caller('box'), 'snapshot', 0)) as FeedAnswer;
  if (a.kind !== 'snapshot') throw new Error(`expected a snapshot, got ${a.kind}`);
  return a.snapshot;
}

/** Reads the feed after `copy.cursor` to the end and applies it (the consumer catching up). */
async function catchUp(inv: Stub, copy: FeedCopy, limit = 50): Promise<FeedCopy> {
  for (;;) {
    const a = (await inv.readFeed(caller('box'), copy.cursor, limit)) as FeedAnswer;
    if (a.kind !== 'page') throw new Error(`expected a page after ${copy.cursor}, got ${a.kind}`);
    copy = { ...applyFeedEntries(copy, a.page.entries, a.page.version), cursor: a.page.next };
    if (!a.page.more) return copy;
  }
}

const state = (c: FeedCopy) => ({ seats: c.seats, tiers: c.tiers });

/** Allocated seats and tier places are held or sold only by their channel while the allocation is live; tiers never oversell with reserves. */
async function checkAllocations(inv: Stub, nowMs: number): Promise<void> {
  await runInDurableObject(inv, (_obj, s) => {
    const sql = s.storage.sql;
    const foreign = sql
      .exec(
        `SELECT x.seat_id FROM inv_allocation_seats x JOIN inv_allocations a ON a.allocation_id = x.allocation_id
         JOIN inv_seats st ON st.seat_id = x.seat_id JOIN inv_holds h ON h.hold_id = st.hold_id
         WHERE a.release_at > ? AND st.status != 'AVAILABLE' AND h.channel_id IS NOT a.channel_id`,
        nowMs,
      )
      .toArray();
    expect(foreign).toEqual([]);
    const tierForeign = sql
      .exec(
        `SELECT h.hold_id FROM inv_holds h JOIN inv_allocations a ON a.allocation_id = h.allocation_id WHERE h.channel_id IS NOT a.channel_id`,
      )
      .toArray();
    expect(tierForeign).toEqual([]);
    const over = sql.exec(`SELECT tier FROM inv_tier_feed_state WHERE held + sold + reserved > capacity`).toArray();
    expect(over).toEqual([]);
  });
}

it('keeps every invariant, the allocation rule and a replayable feed over random channel schedules', async () => {
  let runs = 0;
  let steps = 0;
  const tally = new Map<string, number>();
  const count = (what: string) => tally.set(what, (tally.get(what) ?? 0) + 1);
  await fc.assert(
    fc.asyncProperty(fc.array(arbOp, { minLength: 5, maxLength: 30 }), async (ops) => {
      runs++;
      const inv = env.INVENTORY.getByName(freshEventId('chs'));
      await inv.configure({
        seats: 8,
        seatsPerRow: 4,
        seatPriceMinor: 100,
        currency: 'EUR',
        tiers: [{ tier: 'floor', capacity: 6, priceMinor: 40 }],
        holdTtlMs: TTL_MS,
        paymentGraceMs: 30_000,
        maxSeatsPerAccount: 4,
      });
      let now = Date.now();
      const setClock = () => runInDurableObject(inv, (o: Inventory) => (o.clock = () => now));
      await setClock();
      for (const c of CHANNELS) await inv.putChannel(c, c);
      const holds: { id: string; channel: string | null; price: number }[] = [];
      const allocations = new Map<string, AllocationView>();
      const live = (seat: string) => [...allocations.values()].find((a) => a.releaseAtMs > now && a.seatIds.includes(seat)) ?? null;
      const recorded: FeedSnapshot[] = [await snapshotOf(inv)];
      let copy = copyFromSnapshot(recorded[0]!);
      for (const op of ops) {
        steps++;
        if (op.kind === 'online' || op.kind === 'channel') {
          const channel = op.kind === 'channel' ? CHANNELS[op.channel]! : null;
          const request = op.target as HoldRequest;
          const answer = channel
            ? await inv.channelHold(caller(channel), `c${op.account}`, request, `k${op.key}`)
            : await inv.hold(`a${op.account}`, request, `k${op.key}`);
          count(`${op.kind} hold: ${answer.kind === 'held' && answer.replayed ? 'replayed' : answer.kind}`);
          if (answer.kind === 'held' && !answer.replayed) {
            holds.push({ id: answer.hold.holdId, channel, price: answer.hold.priceMinor });
            // Before release, an allocated seat goes to its own channel only, and a channel only gets its own.
            for (const seat of answer.hold.seatIds) expect(live(seat)?.channelId ?? null).toBe(channel);
          }
          if ('seatIds' in request && answer.kind === 'not_allocated') expect(channel).not.toBeNull();
        } else if ((op.kind === 'confirm' || op.kind === 'release') && holds.length > 0) {
          const h = holds[op.pick % holds.length]!;
          const viaChannel = op.byChannel && h.channel !== null;
          if (op.kind === 'confirm') {
            const order = `o-${h.id}`;
            if (viaChannel) await inv.channelAct(caller(h.channel!), h.id, { kind: 'confirm', orderId: order, amountMinor: h.price });
            else await inv.confirm(h.id, order, h.price, null);
          } else if (viaChannel) await inv.channelAct(caller(h.channel!), h.id, { kind: 'release' });
          else await inv.release(h.id, null, true);
        } else if (op.kind === 'allocate') {
          const a = await inv.allocate({
            allocationId: `al${op.id}`,
            channelId: CHANNELS[op.channel]!,
            target: op.target,
            releaseAtMs: now + op.releaseInMs,
          });
          count(`allocate: ${a.kind}`);
          if (a.kind === 'ok') allocations.set(a.allocation.allocationId, a.allocation);
          if (op.releaseInMs <= 0) expect(a.kind).not.toBe('ok');
        } else if (op.kind === 'end') {
          const a = await inv.endAllocation(`al${op.id}`);
          if (a.kind === 'ok')
            allocations.set(a.allocation.allocationId, { ...a.allocation, seatIds: allocations.get(a.allocation.allocationId)!.seatIds });
        } else if (op.kind === 'advance') {
          now += op.ms;
          await setClock();
        } else if (op.kind === 'to_release') {
          // Exactly onto the next release time: the exact-instant rule, no timer between.
          const next = [...allocations.values()].map((a) => a.releaseAtMs).filter((t) => t > now);
          if (next.length) {
            now = Math.min(...next);
            await setClock();
          }
        } else if (op.kind === 'alarm') {
          await runInDurableObject(inv, async (_o, s) => s.storage.setAlarm(Date.now() + 60_000));
          await runDurableObjectAlarm(inv);
        } else if (op.kind === 'snapshot') {
          recorded.push(await snapshotOf(inv));
        } else if (op.kind === 'feed') {
          const a = (await inv.readFeed(
            caller('box'),
            op.delivery === 'dup' ? Math.max(0, copy.cursor - 3) : copy.cursor,
            op.limit,
          )) as FeedAnswer;
          count(`feed read: ${a.kind === 'page' ? op.delivery : a.kind}`);
          if (a.kind === 'page' && op.delivery !== 'lost')
            copy = { ...applyFeedEntries(copy, a.page.entries, a.page.version), cursor: a.page.next };
          if (a.kind === 'cursor_expired') copy = copyFromSnapshot(await snapshotOf(inv));
        }
        await checkInvariants(inv);
        await checkAllocations(inv, now);
      }
      const final = await snapshotOf(inv);
      // The consumer with lost and duplicated deliveries catches up to exactly the state.
      expect(state(await catchUp(inv, copy))).toEqual(state(copyFromSnapshot(final)));
      // Replaying from every recorded cursor (and from each once more, as a duplicated delivery) gives the state too.
      for (const snap of recorded) {
        const replayed = await catchUp(inv, copyFromSnapshot(snap), 3);
        expect(state(replayed)).toEqual(state(copyFromSnapshot(final)));
        expect(state(await catchUp(inv, { ...replayed, cursor: snap.cursor }))).toEqual(state(replayed));
      }
    }),
    { numRuns: 60 },
  );
  expect(runs).toBe(60);
  console.log(
    `channel schedules: ${runs} runs, ${steps} steps; ${[...tally]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
});
