// The box office and 200 admitted online visitors race for the same section through HTTP:
// the box office sells its allocation, visitors try every seat of the section (allocated ones
// included), the organizer ends the allocation mid-race so its rest goes on general sale, and
// everyone buys what they hold. No seat may be sold twice, and no allocated seat go to a visitor
// before the end.
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { BASE, Visitor, createEvent, freshEventId, tick } from '../helpers/client';
import { allocate, createChannel, organizer } from '../helpers/channels';
import { inventoryStats } from '../helpers/inventory';

const VISITORS = 200;
/** The contested section: rows A and B, 20 seats; the box office holds A1-A10 until the organizer ends it. */
const SECTION = [...'AB'].flatMap((row) => Array.from({ length: 10 }, (_, i) => `${row}${i + 1}`));
const ALLOCATED = SECTION.slice(0, 10);

/** A deterministic pseudo-random pick (the race must be reproducible). */
const pick = (i: number, salt: number) => SECTION[(i * 7 + salt * 13) % SECTION.length]!;

async function originConfirm(eventId: string, holdId: string, orderId: string, amountMinor: number) {
  const path = `/_wr/origin/events/${eventId}/holds/${holdId}/confirm`;
  const body = JSON.stringify({ orderId, amountMinor });
  const headers = {
    'content-type': 'application/json',
    ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, body, Date.now())),
  };
  const res = await exports.default.fetch(new Request(BASE + path, { method: 'POST', headers, body }));
  return { status: res.status, body: (await res.json()) as { status?: string; seatIds?: string[] } };
}

it('box office and 200 online visitors racing for one section: 0 seats sold twice, allocated seats only to the box office', async () => {
  const eventId = freshEventId('race');
  const created = await createEvent(eventId, {
    seats: 100,
    seatsPerRow: 10,
    releaseRatePerMinute: 1200,
    minReleaseRatePerMinute: 1200,
    maxActiveVisitors: 400,
    maxSeatsPerAccount: 2,
  });
  expect(created.status).toBe(201);
  const box = await createChannel(eventId, 'box-office', 'Box office');
  expect(
    (
      await allocate(eventId, 'box-ab', {
        channelId: 'box-office',
        seatIds: ALLOCATED,
        releaseAt: new Date(Date.now() + 3_600_000).toISOString(),
      })
    ).status,
  ).toBe(201);

  const visitors = Array.from({ length: VISITORS }, () => new Visitor());
  await Promise.all(
    visitors.map((v, i) =>
      v.json(`/_wr/events/${eventId}/join`, { method: 'POST', headers: { 'cf-connecting-ip': `10.0.${i >> 8}.${i & 255}` } }),
    ),
  );
  for (let round = 0; round < 10; round++) {
    const states = await Promise.all(visitors.map((v) => v.json<{ state: string }>(`/_wr/events/${eventId}/status`)));
    if (states.every((s) => s.body.state === 'admitted')) break;
    await tick(eventId);
  }

  const soldTo = new Map<string, string[]>();
  const sold = (who: string, seats: string[] = []) => seats.forEach((s) => soldTo.set(s, [...(soldTo.get(s) ?? []), who]));
  let firstWaveAllocatedToVisitors = 0;

  const visitorRun = async (v: Visitor, i: number) => {
    const seats = i >= 200 ? [SECTION[(i * 3) % SECTION.length]!] : i % 2 ? [...new Set([pick(i, 0), pick(i, 1)])] : [pick(i, 0)];
    const held = await v.hold(eventId, seats);
    if (held.status !== 201) return held.status;
    if (i < 100 && seats.some((s) => ALLOCATED.includes(s))) firstWaveAllocatedToVisitors++;
    const confirm = await originConfirm(eventId, held.body.holdId as string, `web-${i}`, held.body.priceMinor as number);
    if (confirm.status === 200) sold(`web-${i % 200}`, confirm.body.seatIds);
    return 201;
  };
  const boxRun = async (i: number) => {
    // First wave: six of its ten seats (and now and then one outside its allocation); second wave:
    // the four it has not sold, while the organizer's end puts them on general sale.
    const own = i < 20 ? ALLOCATED[i % 6]! : ALLOCATED[6 + (i % 4)]!;
    const seats = [own, ...(i % 5 === 0 ? [SECTION[10 + (i % 10)]!] : [])];
    const held = await box.hold(`walk-in-${i}`, { seatIds: seats });
    if (held.status !== 201) return held.status;
    const confirm = await box.confirm(held.body.holdId as string, `box-${i}`, held.body.priceMinor as number);
    if (confirm.status === 200) sold(`box-${i}`, confirm.body.seatIds as string[]);
    return 201;
  };

  // First wave: the allocation is live. Then the organizer ends it while the second wave runs.
  const first = await Promise.all([
    ...visitors.slice(0, 100).map((v, i) => visitorRun(v, i)),
    ...Array.from({ length: 20 }, (_, i) => boxRun(i)),
  ]);
  const endCall = organizer('DELETE', `/events/${eventId}/allocations/box-ab`).then((r) => r.status);
  const second = await Promise.all([
    ...visitors.slice(100).map((v, i) => visitorRun(v, 100 + i)),
    ...Array.from({ length: 20 }, (_, i) => boxRun(20 + i)),
    endCall,
  ]);

  // Last wave: every visitor who bought nothing tries one seat of the section; the released rest sells out.
  const buyers = new Set([...soldTo.values()].flat());
  const last = await Promise.all(visitors.map((v, i) => (buyers.has(`web-${i}`) ? 0 : visitorRun(v, 200 + i))));
  const twice = [...soldTo].filter(([, buyers]) => buyers.length > 1);
  const stats = await inventoryStats(env.INVENTORY.getByName(eventId));
  const statuses = (xs: number[]) => Object.fromEntries([...new Set(xs)].map((s) => [s, xs.filter((x) => x === s).length]));
  console.log(
    `race: ${VISITORS} visitors + 40 box-office sales for ${SECTION.length} seats; first wave ${JSON.stringify(statuses(first))}, second ${JSON.stringify(statuses(second))}, last ${JSON.stringify(statuses(last.filter(Boolean)))}; ` +
      `${soldTo.size} seats sold (${[...soldTo.values()].filter((b) => b[0]!.startsWith('box')).length} by the box office), ${twice.length} sold twice`,
  );
  expect(twice).toEqual([]);
  expect(firstWaveAllocatedToVisitors).toBe(0);
  // In the second wave too, no visitor's hold of an allocated seat is older than the allocation's end.
  const early = await runInDurableObject(env.INVENTORY.getByName(eventId), (_o, state) =>
    state.storage.sql
      .exec(
        `SELECT h.hold_id FROM inv_holds h JOIN inv_hold_seats hs ON hs.hold_id = h.hold_id, inv_allocations a
         WHERE a.allocation_id = 'box-ab' AND h.channel_id IS NULL AND h.created_at < a.release_at
         AND hs.seat_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ALLOCATED),
      )
      .toArray(),
  );
  expect(early).toEqual([]);
  expect(stats.consistency).toEqual({
    seatsWithMultipleOrders: 0,
    soldSeatsWithoutMatchingOrder: 0,
    tiersInconsistent: 0,
    seatsWithMultipleLiveHolds: 0,
    refundsUnmatched: 0,
    resaleFeedGaps: 0,
    waitlistSkips: 0,
    refundsBeforeResale: 0,
    returnedSeatsAdrift: 0,
  });
  expect(stats.seats.sold).toBe(soldTo.size);
  expect(soldTo.size).toBe(SECTION.length);
});
