// Sales channels through HTTP: the organizer's channel and allocation API, a channel's
// signed holds and confirms, the public seat map, and every bad input refused with its code and
// nothing changed.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { deriveChannelSecret } from '../../src/lib/channel-keys';
import { admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { ChannelClient, allocate, createChannel, organizer } from '../helpers/channels';
import { inventoryStats } from '../helpers/inventory';

const inHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function saleWithBoxOffice(): Promise<{ eventId: string; box: ChannelClient }> {
  const eventId = freshEventId('ch');
  expect(
    (await createEvent(eventId, { seats: 40, seatsPerRow: 10, tiers: [{ tier: 'floor', capacity: 10, priceMinor: 2000 }] })).status,
  ).toBe(201);
  const box = await createChannel(eventId, 'box-office', 'Box office');
  expect(
    (await allocate(eventId, 'box-a', { channelId: 'box-office', seatIds: ['A1', 'A2', 'A3', 'A4'], releaseAt: inHour() })).status,
  ).toBe(201);
  return { eventId, box };
}

/** The Inventory's version and audit length: what a refused request must leave as it was. */
async function footprint(eventId: string) {
  const inv = env.INVENTORY.getByName(eventId);
  const stats = await inventoryStats(inv);
  return { version: stats.version, audit: (await inv.auditLog(0, 1000)).length, allocations: await inv.channelList(null) };
}

describe('channel keys', () => {
  it('shows a new channel its secret once; a PUT of an active channel keeps its key and shows none', async () => {
    const eventId = freshEventId('ch');
    await createEvent(eventId);
    const first = await organizer('PUT', `/events/${eventId}/channels/partner`, { name: 'Partner' });
    expect(first).toMatchObject({ status: 201, body: { channelId: 'partner', keyId: 'partner.1', generation: 1, revoked: false } });
    expect(first.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await organizer('PUT', `/events/${eventId}/channels/partner`, { name: 'Partner agency' });
    expect(again).toMatchObject({ status: 200, body: { keyId: 'partner.1', name: 'Partner agency' } });
    expect(again.body.secret).toBeUndefined();
    // Nothing key-like is stored: the registry row has no secret column at all.
    const columns = await runInDurableObject(env.INVENTORY.getByName(eventId), (_o, state) =>
      state.storage.sql
        .exec<{ name: string }>(`SELECT name FROM pragma_table_info('inv_channels')`)
        .toArray()
        .map((r) => r.name),
    );
    expect(columns).toEqual(['channel_id', 'name', 'generation', 'revoked', 'created_at', 'updated_at']);
  });

  it('revokes one channel alone; re-activating it issues a new key and the old one stays dead', async () => {
    const { eventId, box } = await saleWithBoxOffice();
    const partner = await createChannel(eventId, 'partner');
    expect((await organizer('DELETE', `/events/${eventId}/channels/box-office`)).body).toMatchObject({ revoked: true });
    expect(await box.hold('c1', { seatIds: ['A1'] })).toMatchObject({ status: 401, body: { code: 'CHANNEL_REVOKED' } });
    expect((await partner.request('GET', '/allocations')).status).toBe(200);
    const renewed = await createChannel(eventId, 'box-office');
    expect(renewed.keyId).toBe('box-office.2');
    expect(await box.hold('c1', { seatIds: ['A1'] })).toMatchObject({ status: 401, body: { code: 'CHANNEL_REVOKED' } });
    expect((await renewed.hold('c1', { seatIds: ['A1'] })).status).toBe(201);
  });
});

describe('channel holds', () => {
  it('holds and confirms allocated seats without the queue; the audit log names the channel', async () => {
    const { eventId, box } = await saleWithBoxOffice();
    const held = await box.hold('walk-in-7', { seatIds: ['A1', 'A2'] }, 'sale-1');
    expect(held).toMatchObject({ status: 201, body: { status: 'HELD', seatIds: ['A1', 'A2'], priceMinor: 10_000 } });
    const holdId = held.body.holdId as string;
    expect(await box.hold('walk-in-7', { seatIds: ['A1', 'A2'] }, 'sale-1')).toMatchObject({ status: 201, body: { holdId } });
    expect(await box.hold('walk-in-7', { seatIds: ['A3'] }, 'sale-1')).toMatchObject({
      status: 422,
      body: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
    expect(await box.confirm(holdId, 'box-order-1', 10_000)).toMatchObject({
      status: 200,
      body: { status: 'SOLD', orderId: 'box-order-1' },
    });
    expect(await box.confirm(holdId, 'box-order-1', 10_000)).toMatchObject({ status: 200, body: { status: 'SOLD' } });
    const audit = await env.INVENTORY.getByName(eventId).auditLog(0, 100);
    expect(audit.map((e) => [e.to, e.actor])).toEqual([
      ['HELD', 'channel:box-office'],
      ['SOLD', 'channel:box-office'],
    ]);
  });

  it('keeps the per-account limit per customer of the channel', async () => {
    const { eventId, box } = await saleWithBoxOffice();
    await organizer('PUT', `/events/${eventId}/allocations/box-a`, {
      channelId: 'box-office',
      seatIds: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7'],
      releaseAt: inHour(),
    });
    expect((await box.hold('c1', { seatIds: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'] })).status).toBe(201);
    expect(await box.hold('c1', { seatIds: ['A7'] })).toMatchObject({ status: 409, body: { code: 'ACCOUNT_LIMIT' } });
    expect((await box.hold('c2', { seatIds: ['A7'] })).status).toBe(201);
  });

  it('shows allocated seats as not on sale on the public map, and refuses them to visitors', async () => {
    const { eventId } = await saleWithBoxOffice();
    const visitor = await admittedVisitor(eventId);
    const map = await visitor.json<{ seats: { id: string; status: string }[]; tiers: unknown[] }>(`/_wr/events/${eventId}/seats`);
    expect(map.body.seats.slice(0, 5)).toEqual([
      { id: 'A1', status: 'ALLOCATED' },
      { id: 'A2', status: 'ALLOCATED' },
      { id: 'A3', status: 'ALLOCATED' },
      { id: 'A4', status: 'ALLOCATED' },
      { id: 'A5', status: 'AVAILABLE' },
    ]);
    expect(await visitor.hold(eventId, ['A4', 'A5'])).toMatchObject({ status: 409, body: { code: 'SEATS_UNAVAILABLE', seatIds: ['A4'] } });
    expect((await visitor.hold(eventId, ['A5'])).status).toBe(201);
  });

  it('returns the unsold rest to general sale at the release instant, with no timer run', async () => {
    const { eventId, box } = await saleWithBoxOffice();
    const inv = env.INVENTORY.getByName(eventId);
    // Two minutes: inside the hold TTL (300 s), so the channel's hold on A1 is still live then.
    const releaseAtMs = Date.now() + 2 * 60_000;
    await organizer('PUT', `/events/${eventId}/allocations/box-a`, {
      channelId: 'box-office',
      seatIds: ['A1', 'A2'],
      releaseAt: new Date(releaseAtMs).toISOString(),
    });
    expect((await box.hold('c1', { seatIds: ['A1'] })).status).toBe(201);
    const visitor = await admittedVisitor(eventId);
    await runInDurableObject(inv, (o: Inventory) => (o.clock = () => releaseAtMs - 1));
    expect((await visitor.hold(eventId, ['A2'])).status).toBe(409);
    await runInDurableObject(inv, (o: Inventory) => (o.clock = () => releaseAtMs));
    // Exactly at the release time, before any alarm: A2 is on sale, A1 stays with the channel's hold.
    expect((await visitor.hold(eventId, ['A2'])).status).toBe(201);
    expect(await visitor.hold(eventId, ['A1'])).toMatchObject({ status: 409, body: { code: 'SEATS_UNAVAILABLE' } });
    expect(await box.hold('c2', { seatIds: ['A3'] })).toMatchObject({ status: 403, body: { code: 'NOT_IN_ALLOCATION' } });
  });
});

describe('bad input changes nothing', () => {
  it('refuses each with its code and leaves version, audit and allocations as they were', async () => {
    const { eventId, box } = await saleWithBoxOffice();
    const sold = await box.hold('c1', { seatIds: ['A1'] });
    await box.confirm(sold.body.holdId as string, 'o-1', 5000);
    const visitor = await admittedVisitor(eventId);
    expect((await visitor.hold(eventId, ['B1'])).status).toBe(201);
    const before = await footprint(eventId);
    const stranger = new ChannelClient(eventId, 'nobody.1', await deriveChannelSecret(env.CHANNEL_KEY_SECRET, eventId, 'nobody', 1));
    const forged = new ChannelClient(eventId, box.keyId, 'not-the-secret');
    const cases: [string, () => Promise<{ status: number; body: Record<string, unknown> }>, number, string][] = [
      ['unknown channel', () => stranger.hold('c', { seatIds: ['A2'] }), 401, 'CHANNEL_UNKNOWN'],
      ['wrong secret', () => forged.hold('c', { seatIds: ['A2'] }), 401, 'SIGNATURE_INVALID'],
      [
        'malformed key id',
        () => new ChannelClient(eventId, 'box-office', box.secret).hold('c', { seatIds: ['A2'] }),
        401,
        'SIGNATURE_INVALID',
      ],
      [
        'a key of another event',
        () => new ChannelClient(freshEventId('x'), box.keyId, box.secret).hold('c', { seatIds: ['A2'] }),
        401,
        'SIGNATURE_INVALID',
      ],
      ['seat outside the allocation', () => box.hold('c', { seatIds: ['A2', 'A5'] }), 403, 'NOT_IN_ALLOCATION'],
      ['tier without an allocation', () => box.hold('c', { tier: 'floor', quantity: 1 }), 403, 'NOT_IN_ALLOCATION'],
      ['no account', () => box.request('POST', '/holds', { seatIds: ['A2'] }, { 'idempotency-key': 'k' }), 400, 'INVALID_REQUEST'],
      // A line break in the account was held (log and audit injection).
      ['an account with a line break', () => box.hold('a\nb', { seatIds: ['A2'] }), 400, 'INVALID_REQUEST'],
      ['an account with a space', () => box.hold('a b', { seatIds: ['A2'] }), 400, 'INVALID_REQUEST'],
      ['a visitor hold', () => box.confirm('no-such-hold', 'o-2', 5000), 404, 'HOLD_NOT_FOUND'],
      [
        'allocation over a held seat',
        () => allocate(eventId, 'box-b', { channelId: 'box-office', seatIds: ['B1', 'B2'], releaseAt: inHour() }),
        409,
        'ALLOCATION_CONFLICT',
      ],
      [
        'shrinking over a sold seat',
        () => allocate(eventId, 'box-a', { channelId: 'box-office', seatIds: ['A2', 'A3', 'A4'], releaseAt: inHour() }),
        409,
        'ALLOCATION_IN_USE',
      ],
      [
        'tier quota over capacity',
        () => allocate(eventId, 'box-t', { channelId: 'box-office', tier: 'floor', quantity: 11, releaseAt: inHour() }),
        409,
        'ALLOCATION_CONFLICT',
      ],
      [
        'allocation to an unknown channel',
        () => allocate(eventId, 'box-c', { channelId: 'nobody', seatIds: ['C1'], releaseAt: inHour() }),
        404,
        'CHANNEL_NOT_FOUND',
      ],
      [
        'release time after the alarm range (year 2300)',
        () => allocate(eventId, 'box-c', { channelId: 'box-office', seatIds: ['C1'], releaseAt: '2300-01-01T00:00:00Z' }),
        400,
        'INVALID_REQUEST',
      ],
      [
        'release time more than five years ahead',
        () =>
          allocate(eventId, 'box-c', {
            channelId: 'box-office',
            seatIds: ['C1'],
            releaseAt: new Date(Date.now() + 6 * 365 * 86_400_000).toISOString(),
          }),
        400,
        'INVALID_REQUEST',
      ],
      [
        'release time in the past',
        () => allocate(eventId, 'box-c', { channelId: 'box-office', seatIds: ['C1'], releaseAt: '2020-01-01T00:00:00Z' }),
        400,
        'INVALID_REQUEST',
      ],
      [
        'release time without a zone',
        () => allocate(eventId, 'box-c', { channelId: 'box-office', seatIds: ['C1'], releaseAt: '2030-01-01T00:00:00' }),
        400,
        'INVALID_REQUEST',
      ],
      ['malformed cursor', () => box.request('GET', '/feed?after=-1'), 400, 'CURSOR_INVALID'],
      ['no cursor', () => box.request('GET', '/feed'), 400, 'CURSOR_INVALID'],
      ['cursor from the future', () => box.request('GET', '/feed?after=999999'), 409, 'CURSOR_AHEAD'],
    ];
    for (const [name, run, status, code] of cases) {
      const res = await run();
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status, code });
      expect(await footprint(eventId)).toEqual(before);
    }
  });
});
