// An event whose numbered seats are venue sections, one Inventory object each, through
// the gateway's HTTP API: routing by seat and hold id, the per-account limit across sections (the
// account ledger), the merged seat map, summed stats, setup over every object, sold out across them.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { sectionObjectName } from '../../contracts/inventory-names';
import { admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { seatMapOf } from '../helpers/inventory';
import { checkInvariants } from '../helpers/inventory-invariants';
import { call } from '../helpers/gateway';
import { allocate, createChannel, organizer } from '../helpers/channels';

const SECTIONS = [
  { section: 'A', seats: 10, seatsPerRow: 5, priceMinor: 4000 },
  { section: 'B', seats: 10, seatsPerRow: 5, priceMinor: 6000 },
];
const config = (over: Record<string, unknown> = {}) => ({
  seats: 0,
  sections: SECTIONS,
  tiers: [{ tier: 'floor', capacity: 5, priceMinor: 2000 }],
  maxSeatsPerAccount: 4,
  ...over,
});

const adminGet = (eventId: string) => call(`/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
async function origin(eventId: string, holdId: string, action: string, body: Record<string, unknown>) {
  const path = `/_wr/origin/events/${eventId}/holds/${holdId}/${action}`;
  const text = JSON.stringify(body);
  const headers = {
    'content-type': 'application/json',
    ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', path, text, Date.now())),
  };
  return call(path, { method: 'POST', body: text, headers });
}
const section = (eventId: string, s: string) => env.INVENTORY.getByName(sectionObjectName(eventId, s));

describe('an event with venue sections', () => {
  it('creates one Inventory per section, routes holds by seat and hold id, and keeps the account limit across sections', async () => {
    const eventId = freshEventId('sec');
    expect((await createEvent(eventId, config())).status).toBe(201);
    const v = await admittedVisitor(eventId);

    // A mix of sections: 400 with a code, and nothing held anywhere.
    const mix = await v.hold(eventId, ['A-A1', 'B-A1']);
    expect(mix).toMatchObject({ status: 400, body: { code: 'SECTION_MIX' } });
    // A section the event does not have: its seats are unknown, the event is not (404 "no event").
    expect(await v.hold(eventId, ['C-A1'])).toMatchObject({ status: 422, body: { code: 'SEAT_NOT_FOUND', seatIds: ['C-A1'] } });

    const a = await v.hold(eventId, ['A-A1', 'A-A2'], 'k-a');
    expect(a).toMatchObject({ status: 201, body: { seatIds: ['A-A1', 'A-A2'], priceMinor: 8000 } });
    expect(a.body.holdId).toMatch(/^A\./);
    const b = await v.hold(eventId, ['B-A1', 'B-A2'], 'k-b');
    expect(b).toMatchObject({ status: 201, body: { priceMinor: 12000 } });

    // 4 seats held over two sections: a fifth anywhere (a third section's object or a tier) is refused.
    expect(await v.hold(eventId, ['B-A3'])).toMatchObject({ status: 409, body: { code: 'ACCOUNT_LIMIT' } });
    const tier = await v.json(`/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { 'idempotency-key': 'k-t' },
      body: JSON.stringify({ tier: 'floor', quantity: 1 }),
    });
    expect(tier).toMatchObject({ status: 409, body: { code: 'ACCOUNT_LIMIT' } });

    // Replays: the same key and seats answer the first hold; the key with another section's seats is refused.
    expect(await v.hold(eventId, ['A-A1', 'A-A2'], 'k-a')).toMatchObject({ status: 201, body: { holdId: a.body.holdId } });
    expect(await v.hold(eventId, ['B-A5'], 'k-a')).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    // The hold id says its object: read and release reach section A.
    expect(await v.json(`/_wr/events/${eventId}/holds/${a.body.holdId}`)).toMatchObject({ status: 200, body: { status: 'HELD' } });
    expect(await v.json(`/_wr/events/${eventId}/holds/${a.body.holdId}`, { method: 'DELETE' })).toMatchObject({
      status: 200,
      body: { status: 'RELEASED' },
    });
    // The release gave the places back to the ledger at once.
    expect(await v.hold(eventId, ['B-A3'], 'k-b3')).toMatchObject({ status: 201 });

    // The origin pays section B's hold through the same routing.
    const holdB = b.body.holdId as string;
    expect(await origin(eventId, holdB, 'payment-pending', {})).toMatchObject({ status: 200, body: { status: 'PAYMENT_PENDING' } });
    expect(await origin(eventId, holdB, 'confirm', { orderId: 'o-b', amountMinor: 12000 })).toMatchObject({
      status: 200,
      body: { status: 'SOLD' },
    });

    const stats = await adminGet(eventId);
    expect(stats.status).toBe(200);
    expect(stats.body.inventory).toMatchObject({
      seats: { sold: 2, held: 1, available: 17 },
      holds: { SOLD: 1, HELD: 1, RELEASED: 1 },
      consistency: {
        seatsWithMultipleOrders: 0,
        soldSeatsWithoutMatchingOrder: 0,
        tiersInconsistent: 0,
        seatsWithMultipleLiveHolds: 0,
        refundsUnmatched: 0,
        resaleFeedGaps: 0,
        waitlistSkips: 0,
        refundsBeforeResale: 0,
        returnedSeatsAdrift: 0,
      },
      sections: { count: 2, missing: 0 },
    });
    expect((stats.body.config as Record<string, unknown>).sections).toEqual(SECTIONS);
    for (const s of ['A', 'B']) await checkInvariants(section(eventId, s));
  });

  it('refuses concurrent holds of seats a section does not have with 422 SEAT_NOT_FOUND, never ACCOUNT_LIMIT or IDEMPOTENCY_KEY_REUSED', async () => {
    const eventId = freshEventId('sec');
    expect((await createEvent(eventId, config())).status).toBe(201);
    const v = await admittedVisitor(eventId);
    // The failing input: 30 at once of one account (12 x 422 and 18 x 409 ACCOUNT_LIMIT, with nothing held).
    const many = await Promise.all(Array.from({ length: 30 }, (_, i) => v.hold(eventId, [`A-Z${i + 1}`])));
    expect(many.map((r) => `${r.status} ${r.body.code}`)).toEqual(Array(30).fill('422 SEAT_NOT_FOUND'));
    // One key, three bodies at once: a missing seat, a tier, a missing seat of the other section
    // (the tier got 422 IDEMPOTENCY_KEY_REUSED): only the tier can hold, and does.
    const [a, tier, b] = await Promise.all([
      v.hold(eventId, ['A-F1'], 'one-key'),
      v.json<Record<string, unknown>>(`/_wr/events/${eventId}/holds`, {
        method: 'POST',
        headers: { 'idempotency-key': 'one-key' },
        body: JSON.stringify({ tier: 'floor', quantity: 1 }),
      }),
      v.hold(eventId, ['B-F1'], 'one-key'),
    ]);
    expect([a.status, a.body.code, b.status, b.body.code]).toEqual([422, 'SEAT_NOT_FOUND', 422, 'SEAT_NOT_FOUND']);
    expect(tier.status).toBe(201);
    // The account's limit is untouched: 3 more seats (4 in all) still fit.
    expect((await v.hold(eventId, ['A-A1', 'A-A2', 'A-A3'])).status).toBe(201);
  });

  it('serves one seat map merged over the sections, and each section’s deltas by its own version', async () => {
    const eventId = freshEventId('secmap');
    await createEvent(eventId, config());
    const v = await admittedVisitor(eventId);
    const map = await v.json<{ kind: string; seats: { id: string }[]; sections: { section: string; version: number }[]; tiers: unknown[] }>(
      `/_wr/events/${eventId}/seats`,
    );
    expect(map.status).toBe(200);
    expect(map.body.kind).toBe('snapshot');
    expect(map.body.seats).toHaveLength(20);
    expect(map.body.seats[0]!.id).toBe('A-A1');
    expect(map.body.seats[10]!.id).toBe('B-A1');
    expect(map.body.sections.map((s) => s.section)).toEqual(['A', 'B']);
    expect(map.body.tiers).toHaveLength(1);
    const versionB = map.body.sections[1]!.version;
    await v.hold(eventId, ['B-B1']);
    // One section's map: only its seats (a `since` from before the edge's delta step gets its
    // snapshot, which the object reuses for up to a second: readers then follow with deltas).
    const part = await v.json<{ kind: string; seats: { id: string; status: string }[]; sections?: unknown }>(
      `/_wr/events/${eventId}/seats?section=B&since=${versionB}`,
    );
    expect(part.body.kind).toBe('snapshot');
    expect(part.body.seats.map((x) => x.id)).toEqual(map.body.seats.slice(10).map((x) => x.id));
    expect(part.body.sections).toBeUndefined();
    // The section's own deltas, read from its object (the edge asks it with a normalized `since`).
    expect(await seatMapOf(section(eventId, 'B'), versionB)).toMatchObject({ kind: 'delta', changes: [{ id: 'B-B1', status: 'HELD' }] });
    expect(await v.json(`/_wr/events/${eventId}/seats?section=b/../x`)).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
  });

  it('keeps the plan of an event with sections fixed: the same body again is idempotent, another shape is 409', async () => {
    const eventId = freshEventId('secput');
    expect((await createEvent(eventId, config())).status).toBe(201);
    expect((await createEvent(eventId, config())).status).toBe(200);
    // New prices and rules go to every section's object.
    const repriced = config({ sections: SECTIONS.map((s) => ({ ...s, priceMinor: s.priceMinor + 1 })) });
    expect((await createEvent(eventId, repriced)).status).toBe(200);
    expect(await seatMapOf(section(eventId, 'B'))).toMatchObject({ seatPriceMinor: 6001 });
    const reshaped = config({ sections: [...SECTIONS, { section: 'C', seats: 5, seatsPerRow: 5, priceMinor: 1 }] });
    const refused = await createEvent(eventId, reshaped);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'CONFIG_CONFLICT' });
    expect(await section(eventId, 'C').stats()).toEqual({ kind: 'event_not_found' });
    // Bad input changes nothing: sections beside a block of seats, or a section named twice.
    for (const bad of [
      config({ seats: 10 }),
      config({ sections: [SECTIONS[0], SECTIONS[0]] }),
      config({ sections: [{ ...SECTIONS[0], section: 'a' }] }),
    ]) {
      expect((await createEvent(freshEventId('secbad'), bad)).status).toBe(400);
    }
  });

  it('tells the waiting room the event is sold out only once every section and tier is', async () => {
    const eventId = freshEventId('secsold');
    const tiny = {
      seats: 0,
      sections: [
        { section: 'A', seats: 1, priceMinor: 100 },
        { section: 'B', seats: 1, priceMinor: 100 },
      ],
      maxSeatsPerAccount: 6,
    };
    await createEvent(eventId, tiny);
    const v = await admittedVisitor(eventId);
    const soldOut = () =>
      runInDurableObject(
        env.WAITING_ROOM.getByName(eventId),
        (_o, state) => state.storage.sql.exec<{ s: number }>('SELECT sold_out AS s FROM wr_room').one().s,
      );
    const a = await v.hold(eventId, ['A-A1']);
    await origin(eventId, a.body.holdId as string, 'confirm', { orderId: 'o-a', amountMinor: 100 });
    expect(await soldOut()).toBe(0);
    const b = await v.hold(eventId, ['B-A1']);
    await origin(eventId, b.body.holdId as string, 'confirm', { orderId: 'o-b', amountMinor: 100 });
    expect(await soldOut()).toBe(1);
  });
});

describe('sections with sales channels and origin reads', () => {
  it('refuses an allocation of section seats with 422 SECTIONS_NOT_SUPPORTED (it said SEAT_NOT_FOUND), and still allocates a tier', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, config());
    await createChannel(eventId, 'box');
    const seats = await allocate(eventId, 'a1', {
      channelId: 'box',
      seatIds: ['A-A1', 'A-A2'],
      releaseAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(seats.status).toBe(422);
    expect(seats.body).toMatchObject({ code: 'SECTIONS_NOT_SUPPORTED', detail: expect.stringContaining('A-A1') });
    const tier = await allocate(eventId, 't1', {
      channelId: 'box',
      tier: 'floor',
      quantity: 2,
      releaseAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(tier.status).toBe(201);
    expect((await organizer('GET', `/events/${eventId}/channels`)).body).toMatchObject({
      allocations: [expect.objectContaining({ allocationId: 't1' })],
    });
  });

  it('answers 404 EVENT_NOT_FOUND for the channel list and the origin hold list of an event that does not exist (they said 200 [])', async () => {
    const nobody = freshEventId();
    const list = await organizer('GET', `/events/${nobody}/channels`);
    expect(list.status).toBe(404);
    expect(list.body.code).toBe('EVENT_NOT_FOUND');
    const path = `/_wr/origin/events/${nobody}/holds`;
    const holds = await call(path, { headers: await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'GET', path, '', Date.now()) });
    expect(holds.status).toBe(404);
    expect(holds.body.code).toBe('EVENT_NOT_FOUND');
    // An event without channels or holds still answers 200 with empty lists.
    const eventId = freshEventId();
    await createEvent(eventId, config());
    expect((await organizer('GET', `/events/${eventId}/channels`)).status).toBe(200);
    const own = `/_wr/origin/events/${eventId}/holds`;
    expect((await call(own, { headers: await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'GET', own, '', Date.now()) })).status).toBe(200);
  });
});
