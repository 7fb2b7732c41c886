// Class sweep: every answer that sets or depends on a visitor's (or the
// organizer's) credentials is `no-store` or `private`, whatever the origin sent; every cookie the
// gateway sets or clears is HttpOnly and SameSite. Walks every route of the app in every state.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { createApp } from '../../src/app';
import { Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';
import { viaFreshApp } from '../helpers/rooms';
import { createChannel } from '../helpers/channels';
import { CHANNEL_KEY_HEADER } from '../../contracts/names';

/** An origin that asks every cache, shared ones and CDNs included, to keep its answers. */
const cachingOrigin = {
  fetch: async () =>
    new Response('origin page', {
      headers: {
        'cache-control': 'public, max-age=3600, s-maxage=86400',
        'cdn-cache-control': 'max-age=600',
        'surrogate-control': 'max-age=600',
      },
    }),
};

/** Checks one answer against the rules; returns a description of each breach. */
function breaches(label: string, res: Response, isPublic: boolean): string[] {
  const out: string[] = [];
  const cc = res.headers.get('cache-control') ?? '';
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0 && !/\bno-store\b/.test(cc)) out.push(`${label}: sets a cookie with Cache-Control "${cc}"`);
  for (const cookie of cookies) {
    // The gateway's credentials; the language preference `wr_lang` is none (pages' script reads it).
    const credential = /^(__Host-)?(__)?wr_[ta]_/.test(cookie);
    if (credential && !/;\s*HttpOnly/i.test(cookie)) out.push(`${label}: credential cookie without HttpOnly: ${cookie.split('=')[0]}`);
    if (!/;\s*SameSite=/i.test(cookie)) out.push(`${label}: cookie without SameSite: ${cookie.split('=')[0]}`);
  }
  if (!isPublic && !/\b(no-store|private)\b/.test(cc)) out.push(`${label}: Cache-Control "${cc}"`);
  if (isPublic && cookies.length > 0) out.push(`${label}: a public answer sets a cookie`);
  for (const field of ['cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control']) {
    if (!isPublic && res.headers.has(field)) out.push(`${label}: ${field} passed on`);
  }
  return out;
}

interface RouteCase {
  method: string;
  /** Hono's route path, to check every registered route has a case. */
  route: string;
  /** The URL, with {e} the event and {h} a hold. */
  path: string;
  body?: unknown;
  /** The same answer for everyone, carrying no credentials: may be cached publicly. */
  public?: boolean;
  area: 'visitor' | 'admin' | 'origin' | 'page' | 'channel';
}

const CONFIG = { releaseRatePerMinute: 600, minReleaseRatePerMinute: 600, maxActiveVisitors: 1000, seats: 10, seatsPerRow: 10 };
const ROUTES: RouteCase[] = [
  { method: 'GET', route: '/.well-known/jwks.json', path: '/.well-known/jwks.json', public: true, area: 'page' },
  { method: 'GET', route: '/_wr/openapi.json', path: '/_wr/openapi.json', public: true, area: 'page' },
  { method: 'GET', route: '/_wr/admin', path: '/_wr/admin', area: 'page' },
  { method: 'GET', route: '/_wr/admin/', path: '/_wr/admin/', area: 'page' },
  { method: 'GET', route: '/_wr/admin/console', path: '/_wr/admin/console', area: 'page' },
  { method: 'POST', route: '/_wr/events/:eventId/join', path: '/_wr/events/{e}/join', area: 'visitor' },
  { method: 'GET', route: '/_wr/events/:eventId/status', path: '/_wr/events/{e}/status', area: 'visitor' },
  { method: 'GET', route: '/_wr/events/:eventId/draw', path: '/_wr/events/{e}/draw', public: true, area: 'visitor' },
  { method: 'GET', route: '/_wr/events/:eventId/challenge', path: '/_wr/events/{e}/challenge', area: 'visitor' },
  { method: 'GET', route: '/_wr/events/:eventId/seats', path: '/_wr/events/{e}/seats', area: 'visitor' },
  { method: 'POST', route: '/_wr/events/:eventId/holds', path: '/_wr/events/{e}/holds', body: { seatIds: ['A9'] }, area: 'visitor' },
  { method: 'GET', route: '/_wr/events/:eventId/holds/:holdId', path: '/_wr/events/{e}/holds/{h}', area: 'visitor' },
  { method: 'DELETE', route: '/_wr/events/:eventId/holds/:holdId', path: '/_wr/events/{e}/holds/{h}', area: 'visitor' },
  { method: 'POST', route: '/_wr/events/:eventId/holds/:holdId/extend', path: '/_wr/events/{e}/holds/{h}/extend', area: 'visitor' },
  { method: 'POST', route: '/_wr/events/:eventId/leave', path: '/_wr/events/{e}/leave', area: 'visitor' },
  { method: 'PUT', route: '/_wr/admin/events/:eventId', path: '/_wr/admin/events/{e}', body: CONFIG, area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events', path: '/_wr/admin/events', area: 'admin' },
  { method: 'PATCH', route: '/_wr/admin/events/:eventId', path: '/_wr/admin/events/{e}', body: { name: 'Patched' }, area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events/:eventId/changes', path: '/_wr/admin/events/{e}/changes?format=csv', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/me', path: '/_wr/admin/me', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/keys', path: '/_wr/admin/keys', area: 'admin' },
  { method: 'POST', route: '/_wr/admin/keys', path: '/_wr/admin/keys', body: { label: 'cc', role: 'viewer' }, area: 'admin' },
  { method: 'DELETE', route: '/_wr/admin/keys/:keyId', path: '/_wr/admin/keys/000000000000', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/changes', path: '/_wr/admin/changes', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events/:eventId', path: '/_wr/admin/events/{e}', area: 'admin' },
  {
    method: 'POST',
    route: '/_wr/admin/events/:eventId/rate',
    path: '/_wr/admin/events/{e}/rate',
    body: { fixedPerMinute: null },
    area: 'admin',
  },
  { method: 'GET', route: '/_wr/admin/events/:eventId/audit', path: '/_wr/admin/events/{e}/audit', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events/:eventId/schedule', path: '/_wr/admin/events/{e}/schedule', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events/:eventId/history', path: '/_wr/admin/events/{e}/history', area: 'admin' },
  { method: 'GET', route: '/_wr/admin/events/:eventId/report', path: '/_wr/admin/events/{e}/report', area: 'admin' },
  {
    method: 'PUT',
    route: '/_wr/admin/events/:eventId/schedule/:overrideId',
    path: '/_wr/admin/events/{e}/schedule/cc-change',
    body: {
      reason: 'cc',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      endsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      maxActiveVisitors: 5,
    },
    area: 'admin',
  },
  {
    method: 'DELETE',
    route: '/_wr/admin/events/:eventId/schedule/:overrideId',
    path: '/_wr/admin/events/{e}/schedule/cc-change',
    area: 'admin',
  },
  { method: 'GET', route: '/_wr/admin/events/:eventId/preview', path: '/_wr/admin/events/{e}/preview?phase=waiting', area: 'admin' },
  {
    method: 'POST',
    route: '/_wr/admin/events/:eventId/preview',
    path: '/_wr/admin/events/{e}/preview?phase=waiting',
    body: { page: { message: 'Doors at 19:00' } },
    area: 'admin',
  },
  { method: 'POST', route: '/_wr/admin/events/:eventId/pause', path: '/_wr/admin/events/{e}/pause', area: 'admin' },
  { method: 'POST', route: '/_wr/admin/events/:eventId/resume', path: '/_wr/admin/events/{e}/resume', area: 'admin' },
  { method: 'POST', route: '/_wr/admin/events/:eventId/close', path: '/_wr/admin/events/{e}/close', area: 'admin' },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/health',
    path: '/_wr/origin/events/{e}/health',
    body: { p99LatencyMs: 100, errorRate: 0, activeBuyers: 1 },
    area: 'origin',
  },
  { method: 'GET', route: '/_wr/origin/events/:eventId', path: '/_wr/origin/events/{e}', area: 'origin' },
  { method: 'GET', route: '/_wr/origin/events/:eventId/holds', path: '/_wr/origin/events/{e}/holds', area: 'origin' },
  { method: 'GET', route: '/_wr/origin/events/:eventId/holds/:holdId', path: '/_wr/origin/events/{e}/holds/{h}', area: 'origin' },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/holds/:holdId/payment-pending',
    path: '/_wr/origin/events/{e}/holds/{h}/payment-pending',
    body: {},
    area: 'origin',
  },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/holds/:holdId/confirm',
    path: '/_wr/origin/events/{e}/holds/{h}/confirm',
    body: { orderId: 'o-1', amountMinor: 1 },
    area: 'origin',
  },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/holds/:holdId/extend',
    path: '/_wr/origin/events/{e}/holds/{h}/extend',
    body: { idempotencyKey: 'cc-extend' },
    area: 'origin',
  },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/holds/:holdId/release',
    path: '/_wr/origin/events/{e}/holds/{h}/release',
    body: {},
    area: 'origin',
  },
  // Returns, the waitlist and resale (the event has no resale settings: refusals, checked all the same).
  { method: 'POST', route: '/_wr/events/:eventId/waitlist', path: '/_wr/events/{e}/waitlist', body: { quantity: 1 }, area: 'visitor' },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/holds/:holdId/return',
    path: '/_wr/origin/events/{e}/holds/{h}/return',
    body: {},
    area: 'origin',
  },
  { method: 'GET', route: '/_wr/origin/events/:eventId/waitlist', path: '/_wr/origin/events/{e}/waitlist', area: 'origin' },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/waitlist',
    path: '/_wr/origin/events/{e}/waitlist',
    body: { account: 'cc-w', quantity: 1 },
    area: 'origin',
  },
  {
    method: 'POST',
    route: '/_wr/origin/events/:eventId/offers/:holdId/accept',
    path: '/_wr/origin/events/{e}/offers/{h}/accept',
    body: { account: 'cc-w' },
    area: 'origin',
  },
  { method: 'GET', route: '/_wr/origin/events/:eventId/resale/feed', path: '/_wr/origin/events/{e}/resale/feed', area: 'origin' },
  // Sales channels: the organizer's calls, and a channel's signed with its own key.
  {
    method: 'PUT',
    route: '/_wr/admin/events/:eventId/channels/:channelId',
    path: '/_wr/admin/events/{e}/channels/cc-other',
    body: { name: 'Other' },
    area: 'admin',
  },
  {
    method: 'DELETE',
    route: '/_wr/admin/events/:eventId/channels/:channelId',
    path: '/_wr/admin/events/{e}/channels/cc-other',
    area: 'admin',
  },
  { method: 'GET', route: '/_wr/admin/events/:eventId/channels', path: '/_wr/admin/events/{e}/channels', area: 'admin' },
  {
    method: 'PUT',
    route: '/_wr/admin/events/:eventId/allocations/:allocationId',
    path: '/_wr/admin/events/{e}/allocations/cc-a',
    body: { channelId: 'cc-box', seatIds: ['A5'], releaseAt: new Date(Date.now() + 3_600_000).toISOString() },
    area: 'admin',
  },
  {
    method: 'DELETE',
    route: '/_wr/admin/events/:eventId/allocations/:allocationId',
    path: '/_wr/admin/events/{e}/allocations/cc-b',
    area: 'admin',
  },
  {
    method: 'POST',
    route: '/_wr/channel/events/:eventId/holds',
    path: '/_wr/channel/events/{e}/holds',
    body: { account: 'c', seatIds: ['A6'] },
    area: 'channel',
  },
  { method: 'GET', route: '/_wr/channel/events/:eventId/holds/:holdId', path: '/_wr/channel/events/{e}/holds/{h}', area: 'channel' },
  {
    method: 'POST',
    route: '/_wr/channel/events/:eventId/holds/:holdId/confirm',
    path: '/_wr/channel/events/{e}/holds/{h}/confirm',
    body: { orderId: 'cc-o', amountMinor: 1 },
    area: 'channel',
  },
  {
    method: 'POST',
    route: '/_wr/channel/events/:eventId/holds/:holdId/release',
    path: '/_wr/channel/events/{e}/holds/{h}/release',
    body: {},
    area: 'channel',
  },
  { method: 'GET', route: '/_wr/channel/events/:eventId/allocations', path: '/_wr/channel/events/{e}/allocations', area: 'channel' },
  { method: 'GET', route: '/_wr/channel/events/:eventId/feed', path: '/_wr/channel/events/{e}/feed?after=0', area: 'channel' },
  { method: 'GET', route: '/_wr/channel/events/:eventId/feed/snapshot', path: '/_wr/channel/events/{e}/feed/snapshot', area: 'channel' },
];

const cookieOf = (v: Visitor) => [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ');

describe('Cache-Control of every answer', () => {
  it('has a case for every route the app registers', () => {
    const registered = createApp()
      .routes.filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`);
    const covered = new Set(ROUTES.map((r) => `${r.method} ${r.route}`));
    expect(registered.filter((r) => !covered.has(r))).toEqual([]);
  });

  it('walks every route in every state: anonymous, waiting, admitted, forged, with and without the area’s credentials', async () => {
    const eventId = freshEventId('cc');
    await createEvent(eventId);
    const admitted = await admittedVisitor(eventId);
    const hold = await admitted.hold(eventId, ['A1']);
    const holdId = String(hold.body.holdId);
    const waiting = new Visitor();
    await waiting.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const channel = await createChannel(eventId, 'cc-box');
    const states: Record<string, Record<string, string>> = {
      anonymous: {},
      waiting: { cookie: cookieOf(waiting) },
      admitted: { cookie: cookieOf(admitted) },
      forged: { cookie: `__Host-wr_t_${eventId}=eyJ.forged.x; __Host-wr_a_${eventId}=eyJ.forged.y` },
    };
    const found: string[] = [];
    let answers = 0;
    // Leave, release and close end things: they run last, in that order.
    const order = [...ROUTES].sort((a, b) => Number(/leave|close/.test(a.path)) - Number(/leave|close/.test(b.path)));
    for (const r of order) {
      const path = r.path.replace('{e}', eventId).replace('{h}', holdId);
      const body = r.body === undefined ? undefined : JSON.stringify(r.body);
      const variants: Record<string, Record<string, string>> = { ...states };
      if (r.area === 'admin') variants.admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
      if (r.area === 'origin') variants.signed = await signOriginRequest(env.ORIGIN_HMAC_SECRET, r.method, path, body ?? '', Date.now());
      if (r.area === 'channel')
        variants.signed = {
          [CHANNEL_KEY_HEADER]: channel.keyId,
          ...(await signOriginRequest(channel.secret, r.method, path.split('?')[0]!, body ?? '', Date.now())),
        };
      for (const [state, headers] of Object.entries(variants)) {
        for (const accept of ['application/json', 'text/html']) {
          const res = await viaFreshApp(path, {
            method: r.method,
            headers: { ...headers, accept, 'content-type': 'application/json', 'idempotency-key': `cc-${answers}` },
            ...(body !== undefined && r.method !== 'GET' ? { body } : {}),
          });
          await res.arrayBuffer();
          answers++;
          found.push(...breaches(`${r.method} ${r.path} [${state}, ${accept}] ${res.status}`, res, r.public === true));
        }
      }
    }
    console.log(`Cache-Control sweep: ${ROUTES.length} routes, ${answers} answers checked, ${found.length} breaches`);
    expect(found).toEqual([]);
  });

  it('keeps the room’s own answers private whatever the origin asks: waiting page, JSON, admitted page, the admitting request', async () => {
    const eventId = freshEventId('cc');
    await createEvent(eventId);
    const found: string[] = [];
    const room = `/events/${eventId}/seats`;
    const check = async (label: string, v: Visitor, accept: string) => {
      const res = await viaFreshApp(room, { headers: { cookie: cookieOf(v), accept } }, { ORIGIN: cachingOrigin });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const i = pair!.indexOf('=');
        v.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
      found.push(...breaches(label, res, false));
      return res;
    };
    const v = new Visitor();
    await check('waiting page, first visit', v, 'text/html');
    await check('waiting JSON', v, 'application/json');
    await tick(eventId);
    const admitting = await check('the request that admits', v, 'text/html');
    expect(await admitting.text()).toBe('origin page');
    expect(admitting.headers.getSetCookie().some((c) => c.startsWith(`__Host-wr_a_${eventId}=`))).toBe(true);
    const page = await check('an admitted page', v, 'text/html');
    expect(page.headers.get('cache-control')).toBe('private, max-age=3600');
    await check('forged credentials', Object.assign(new Visitor(), { cookies: new Map([[`__Host-wr_a_${eventId}`, 'x']]) }), 'text/html');
    expect(found).toEqual([]);
  });
});
