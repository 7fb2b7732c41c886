// Organizer API for sales channels: create, re-activate and revoke channels (each with its
// own derived key, shown once), and allocate seats or tier quotas to them until a release time.
import { eventSections, inventoryFor } from '../lib/inventory-router';
import { Hono, type Context } from 'hono';
import * as z from 'zod/mini';
import { isoInstant, plainText, wholeNumber } from '../../contracts/zod';
import {
  ALLOCATION_ID_PATTERN,
  CHANNEL_ID_PATTERN,
  MAX_ALLOCATION_QUANTITY,
  MAX_ALLOCATION_SEATS,
  type AllocationAnswer,
  type ChannelListAnswer,
  type ChannelView,
  type EndAllocationAnswer,
  type PutChannelAnswer,
  type RevokeChannelAnswer,
} from '../../contracts/channel-answers';
import { callDurableObject } from '../lib/do-call';
import { GatewayError } from '../lib/errors';
import { allocationResult, endAllocationResult, revokeResult } from '../lib/channel-results';
import { channelKeyId, deriveChannelSecret } from '../lib/channel-keys';
import { requireEvent } from '../lib/object-answers';
import { gatewaySettings } from '../lib/settings';
import { readJsonBody } from '../lib/validate';
import { eventIdParam, type AppEnv } from '../types';
import { recordChange } from '../middleware/organizer-auth';
import { sectionOfSeat } from '../../contracts/inventory-names';

export const channelBody = z.strictObject({ name: plainText(1, 100) });
/** When an allocation's rest returns to general sale (bounded: `isoInstant`). */
const isoTime = isoInstant();
export const allocationBody = z.union([
  z.strictObject({
    channelId: z.string().check(z.regex(CHANNEL_ID_PATTERN)),
    seatIds: z.array(z.string().check(z.maxLength(16))).check(z.minLength(1), z.maxLength(MAX_ALLOCATION_SEATS)),
    releaseAt: isoTime,
  }),
  z.strictObject({
    channelId: z.string().check(z.regex(CHANNEL_ID_PATTERN)),
    tier: z.string().check(z.maxLength(32)),
    quantity: wholeNumber(1, MAX_ALLOCATION_QUANTITY),
    releaseAt: isoTime,
  }),
]);

function param(c: Context<AppEnv>, name: 'channelId' | 'allocationId', pattern: RegExp): string {
  const v = c.req.param(name);
  if (!v || !pattern.test(v)) throw new GatewayError('INVALID_REQUEST', { detail: `${name} must be a lower-case slug` });
  return v;
}

function call<T>(c: Context<AppEnv>, name: string, run: (inv: ReturnType<Env['INVENTORY']['getByName']>) => Promise<T>): Promise<T> {
  const eventId = eventIdParam(c);
  return callDurableObject(() => run(inventoryFor(c.env, eventId, { kind: 'event' })), {
    idempotent: true,
    name: `inventory.${name}`,
    eventId,
  });
}

/** The JSON of a channel; with `secret` when it was just issued (shown this once, never stored). */
function channelBodyOut(channel: ChannelView, secret?: string) {
  return { ...channel, keyId: channelKeyId(channel.channelId, channel.generation), ...(secret ? { secret } : {}) };
}

/** Mounted under `/_wr/admin` (behind organizerAuth). */
export const channelAdmin = new Hono<AppEnv>();

channelAdmin.put('/events/:eventId/channels/:channelId', async (c) => {
  const eventId = eventIdParam(c);
  const channelId = param(c, 'channelId', CHANNEL_ID_PATTERN);
  const { name } = await readJsonBody(c.req.raw, channelBody);
  const root = gatewaySettings(c.env).channelKeySecret;
  if (!root) throw new GatewayError('CONFIG_CONFLICT', { detail: 'set CHANNEL_KEY_SECRET (wrangler secret put) before creating channels' });
  const answer = requireEvent(await call<PutChannelAnswer>(c, 'putChannel', async (inv) => inv.putChannel(channelId, name)), eventId);
  c.header('cache-control', 'no-store');
  if (answer.kind === 'unchanged') return c.json(channelBodyOut(answer.channel));
  // The audit names the channel and its key generation, never the key.
  await recordChange(c, eventId, 'channel.put', [
    { field: `channels.${channelId}.name`, to: name },
    { field: `channels.${channelId}.generation`, to: answer.channel.generation },
  ]);
  const secret = await deriveChannelSecret(root, eventId, channelId, answer.channel.generation);
  return c.json(channelBodyOut(answer.channel, secret), 201);
});

channelAdmin.delete('/events/:eventId/channels/:channelId', async (c) => {
  const eventId = eventIdParam(c);
  const channelId = param(c, 'channelId', CHANNEL_ID_PATTERN);
  const channel = revokeResult(await call<RevokeChannelAnswer>(c, 'revokeChannel', async (inv) => inv.revokeChannel(channelId)), eventId);
  await recordChange(c, eventId, 'channel.revoke', [{ field: `channels.${channelId}.revoked`, to: true }]);
  return c.json(channelBodyOut(channel));
});

channelAdmin.get('/events/:eventId/channels', async (c) => {
  const answer = await call<ChannelListAnswer>(c, 'channelList', async (inv) => inv.channelList(null));
  if (answer.kind !== 'ok') throw new Error('invariant: the organizer list is never refused');
  // An empty list: tell an event without channels from no event at all (200 for a typo).
  if (answer.channels.length === 0 && answer.allocations.length === 0 && (await eventSections(c.env, eventIdParam(c))) === null) {
    throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventIdParam(c)}"` });
  }
  c.header('cache-control', 'no-store');
  return c.json({ channels: answer.channels.map((ch) => channelBodyOut(ch)), allocations: answer.allocations });
});

channelAdmin.put('/events/:eventId/allocations/:allocationId', async (c) => {
  const eventId = eventIdParam(c);
  const allocationId = param(c, 'allocationId', ALLOCATION_ID_PATTERN);
  const body = await readJsonBody(c.req.raw, allocationBody);
  const target = 'tier' in body ? { tier: body.tier, quantity: body.quantity } : { seatIds: body.seatIds };
  // Allocations live in the event's own object; section seats are in their section's (the
  // seats existed but the answer said SEAT_NOT_FOUND).
  const sectioned = 'seatIds' in body ? body.seatIds?.find((id) => sectionOfSeat(id) !== null) : undefined;
  if (sectioned) {
    throw new GatewayError('SECTIONS_NOT_SUPPORTED', {
      detail: `${sectioned} is a venue-section seat: allocate a tier, or seats of an event without sections`,
    });
  }
  const request = { allocationId, channelId: body.channelId, target, releaseAtMs: Date.parse(body.releaseAt) };
  const { allocation, created } = allocationResult(
    await call<AllocationAnswer>(c, 'allocate', async (inv) => inv.allocate(request)),
    eventId,
  );
  await recordChange(c, eventId, created ? 'allocation.create' : 'allocation.update', [
    { field: `allocations.${allocationId}`, to: { channelId: body.channelId, ...target, releaseAt: body.releaseAt } },
  ]);
  return c.json(allocation, created ? 201 : 200);
});

channelAdmin.delete('/events/:eventId/allocations/:allocationId', async (c) => {
  const eventId = eventIdParam(c);
  const allocationId = param(c, 'allocationId', ALLOCATION_ID_PATTERN);
  const ended = endAllocationResult(
    await call<EndAllocationAnswer>(c, 'endAllocation', async (inv) => inv.endAllocation(allocationId)),
    eventId,
  );
  await recordChange(c, eventId, 'allocation.end', [{ field: `allocations.${allocationId}`, to: 'ended' }]);
  return c.json(ended);
});
