// The channel API's signature versions: v2 covers the Idempotency-Key, and every request
// that carries a key must be signed v2, so a captured signed hold cannot be sent again under new keys
// (each would be a new hold for the same customer). v1 stays valid for requests without a key.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createEvent, freshEventId } from '../helpers/client';
import { ChannelClient, allocate, createChannel } from '../helpers/channels';
import { inventoryStats } from '../helpers/inventory';

const inHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function saleWithChannel(): Promise<{ eventId: string; box: ChannelClient }> {
  const eventId = freshEventId('sig');
  expect(
    (await createEvent(eventId, { seats: 20, seatsPerRow: 10, tiers: [{ tier: 'floor', capacity: 10, priceMinor: 2000 }] })).status,
  ).toBe(201);
  const box = await createChannel(eventId, 'box-office');
  expect((await allocate(eventId, 'box-a', { channelId: 'box-office', seatIds: ['A1', 'A2'], releaseAt: inHour() })).status).toBe(201);
  expect((await allocate(eventId, 'box-t', { channelId: 'box-office', tier: 'floor', quantity: 6, releaseAt: inHour() })).status).toBe(201);
  return { eventId, box };
}

async function send(
  url: URL,
  init: RequestInit,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await exports.default.fetch(
    new Request(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The Inventory's version: a refused request leaves it as it was. */
async function version(eventId: string): Promise<number> {
  return (await inventoryStats(env.INVENTORY.getByName(eventId))).version;
}

describe('channel signature versions', () => {
  it('refuses a signed hold sent again under a new Idempotency-Key, and holds nothing more', async () => {
    const { eventId, box } = await saleWithChannel();
    const { url, init } = await box.signed('POST', '/holds', { account: 'c1', tier: 'floor', quantity: 2 }, { 'idempotency-key': 'k-1' });
    const first = await send(url, init);
    expect(first).toMatchObject({ status: 201, body: { status: 'HELD', quantity: 2 } });
    const before = await version(eventId);
    // The same signed bytes (timestamp, signature, body), another key: with v1 this was a second hold.
    const replay = await send(url, init, { 'idempotency-key': 'k-2' });
    expect(replay).toMatchObject({ status: 401, body: { code: 'SIGNATURE_INVALID' } });
    expect(await version(eventId)).toBe(before);
    // The same key again is the idempotent replay of the first hold, as before.
    expect(await send(url, init)).toMatchObject({ status: 201, body: { holdId: first.body.holdId } });
    expect(await version(eventId)).toBe(before);
  });

  it('refuses a hold signed v1 (the key uncovered) with a detail that says how to sign v2, and holds nothing', async () => {
    const { eventId, box } = await saleWithChannel();
    const before = await version(eventId);
    const res = await box.request('POST', '/holds', { account: 'c1', seatIds: ['A1'] }, { 'idempotency-key': 'k-1' }, { version: 1 });
    expect(res).toMatchObject({ status: 401, body: { code: 'SIGNATURE_INVALID' } });
    expect(res.body.detail).toBe(
      'a request with Idempotency-Key must be signed v2, which covers the key: x-wr-signature: v2=<hex HMAC-SHA256 over "v2\\nMETHOD\\nPATH\\nTIMESTAMP\\nIDEMPOTENCY-KEY\\nBODY">',
    );
    expect(await version(eventId)).toBe(before);
  });

  it('refuses a v2 signature made over another key than the one sent, or over none', async () => {
    const { box } = await saleWithChannel();
    const signedForA = await box.signed('POST', '/holds', { account: 'c1', seatIds: ['A1'] }, { 'idempotency-key': 'a' });
    expect(await send(signedForA.url, signedForA.init, { 'idempotency-key': 'b' })).toMatchObject({ status: 401 });
    const signedForNone = await box.signed('POST', '/holds', { account: 'c1', seatIds: ['A1'] });
    expect(await send(signedForNone.url, signedForNone.init, { 'idempotency-key': 'a' })).toMatchObject({ status: 401 });
  });

  it('still takes v1 on requests without a key (existing partners reading allocations and the feed), and v2 there too', async () => {
    const { box } = await saleWithChannel();
    expect((await box.request('GET', '/allocations', undefined, {}, { version: 1 })).status).toBe(200);
    expect((await box.request('GET', '/allocations')).status).toBe(200);
    expect((await box.request('GET', '/feed/snapshot', undefined, {}, { version: 1 })).status).toBe(200);
  });
});
