// Presale lanes through the gateway in workerd: a `presale` lane that opens before the public queue
// with a 50 % share. Its visitors are released first, the public queue only from its own start,
// the shares hold over ticks, an unknown lane is refused with nothing created, a lane account's
// second device gets the same place, and the organizer sees each lane's counts.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signEntryToken } from '../../origin-sdk/src/entry';
import { shardName } from '../../contracts/names';
import { forgetCursor } from '../../src/lib/cursor-cache';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { Visitor, createEvent, freshEventId, sealArrivals } from '../helpers/client';

/** 120 new visitors per minute: each test tick (5 s earned) releases 10. */
const RATE = { releaseRatePerMinute: 120, minReleaseRatePerMinute: 120 };

const iso = (ms: number) => new Date(ms).toISOString();

/** When the test's events start: the room's clock runs from here in exact 5 s ticks. */
const T0 = Date.now();

/**
 * The event's organizer PUT: the public queue opens at `publicStartMs` (default: in an hour), the
 * `presale` lane (50 %) opened a minute before T0.
 */
const putPresaleEvent = (eventId: string, publicStartMs = T0 + 3_600_000) =>
  createEvent(eventId, {
    ...RATE,
    saleStartsAt: iso(publicStartMs),
    entry: {
      require: 'account',
      signInUrl: '/login',
      lanes: [{ lane: 'presale', saleStartsAt: iso(T0 - 60_000), releaseSharePercent: 50 }],
    },
  });

async function presaleEvent(eventId: string): Promise<void> {
  const res = await putPresaleEvent(eventId);
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/**
 * Release ticks on the room's own clock, each exactly 5 s after the last (10 visitors at RATE), so
 * no real time between ticks adds to a budget: the shares are counted exactly.
 */
async function tick(eventId: string, n = 1): Promise<void> {
  const room = env.WAITING_ROOM.getByName(eventId);
  for (let i = 0; i < n; i++) {
    await sealArrivals(eventId);
    await runInDurableObject(room, async (obj: WaitingRoom, state) => {
      const last = state.storage.sql.exec<{ at: number }>('SELECT last_tick_at AS at FROM wr_room').one().at;
      obj.clock = () => last + 5_000;
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    if (!(await runDurableObjectAlarm(room))) throw new Error('the release tick did not run');
  }
  await forgetCursor(eventId);
}

const entryToken = (eventId: string, account: string, lane?: string) =>
  signEntryToken({ account, eventId, ttlS: 120, ...(lane ? { lane } : {}) }, env.ORIGIN_HMAC_SECRET);

interface Body {
  state: string;
  position: number | null;
  lane: string | null;
  queueTicket?: string;
  code?: string;
}

/** An app joins with an entry token and then polls with its bearer ticket. */
async function join(eventId: string, account: string, lane?: string): Promise<{ status: number; body: Body; ticket: string }> {
  const r = await new Visitor().json<Body>(`/_wr/events/${eventId}/join`, {
    method: 'POST',
    headers: { 'x-entry-token': await entryToken(eventId, account, lane) },
  });
  return { status: r.status, body: r.body, ticket: r.body.queueTicket ?? '' };
}

const poll = async (eventId: string, ticket: string) =>
  (await new Visitor().json<Body>(`/_wr/events/${eventId}/status`, { headers: { authorization: `Bearer ${ticket}` } })).body;

/** The states of each visitor's poll, counted: { admitted: n, waiting: m, ... }. */
async function states(eventId: string, tickets: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tickets) {
    const s = (await poll(eventId, t)).state;
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}

interface LaneStats {
  lane: string;
  saleStartsAtMs: number;
  releaseSharePercent: number;
  waiting: number;
  released: number;
}

/** The organizer's view: `GET /_wr/admin/events/{id}`. */
async function adminView(
  eventId: string,
): Promise<{ queue: { waiting: number; admittedTotal: number; lanes: LaneStats[]; binding: { binds: string } } }> {
  const res = await new Visitor().fetch(`/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.json();
}

const shardRows = (eventId: string) =>
  runInDurableObject(env.QUEUE_SHARD.getByName(shardName(eventId, 0)), (_o, s) =>
    s.storage.sql
      .exec<{ visitor_id: string; lane: string | null }>('SELECT visitor_id, lane FROM qs_visitors ORDER BY visitor_id')
      .toArray(),
  );

describe('a presale lane', () => {
  it('releases presale visitors first, the public queue only from its start, then both by their 50 % shares', async () => {
    const eventId = freshEventId('presale');
    await presaleEvent(eventId);
    const presale: string[] = [];
    const general: string[] = [];
    for (let i = 0; i < 30; i++) {
      const p = await join(eventId, `member-${i}@example.com`, 'presale');
      expect(p.status).toBe(200);
      expect(p.body).toMatchObject({ state: 'waiting', lane: 'presale' });
      presale.push(p.ticket);
      const g = await join(eventId, `fan-${i}@example.com`);
      expect(g.body).toMatchObject({ state: 'not_open', lane: null });
      general.push(g.ticket);
    }
    // Before the public start the whole budget goes to the presale lane.
    await tick(eventId);
    expect(await states(eventId, presale)).toEqual({ admitted: 10, waiting: 20 });
    expect(await states(eventId, general)).toEqual({ not_open: 30 });
    let view = await adminView(eventId);
    expect(view.queue.lanes).toEqual([expect.objectContaining({ lane: 'presale', releaseSharePercent: 50, waiting: 20, released: 10 })]);
    expect(view.queue.waiting).toBe(50);
    // What binds: the presale is on sale, whatever the public start says.
    expect(view.queue.binding.binds).not.toBe('not_on_sale');
    // The second presale visitor's status now counts only the presale line ahead of them.
    expect(await poll(eventId, presale[15]!)).toMatchObject({ state: 'waiting', position: 6 });

    // The public queue opens (the organizer moves its start to now): from the next tick both lines
    // share the budget, 5 + 5, and the public queue releases in its own order.
    expect((await putPresaleEvent(eventId, T0 - 1_000)).status).toBeLessThan(300);
    await tick(eventId, 2);
    expect(await states(eventId, presale)).toEqual({ admitted: 20, waiting: 10 });
    expect(await states(eventId, general.slice(0, 10))).toEqual({ admitted: 10 });
    expect(await states(eventId, general.slice(10))).toEqual({ waiting: 20 });
    view = await adminView(eventId);
    expect(view.queue.lanes[0]).toMatchObject({ waiting: 10, released: 20 });
    expect(view.queue.admittedTotal).toBe(30);

    // The lane runs dry: its unused share flows on to the public queue (10 presale left: 5, 5, then 0 + 10).
    await tick(eventId, 3);
    expect(await states(eventId, presale)).toEqual({ admitted: 30 });
    expect(await states(eventId, general)).toEqual({ admitted: 30 });
  });

  it('refuses a lane the event does not have with 403 and creates nothing; a lane account’s second device gets the same place', async () => {
    const eventId = freshEventId('presale');
    await presaleEvent(eventId);
    const first = await join(eventId, 'member@example.com', 'presale');
    expect(first.body).toMatchObject({ state: 'waiting', lane: 'presale', position: 1 });
    const before = await shardRows(eventId);
    expect(before).toEqual([expect.objectContaining({ lane: 'presale' })]);

    const unknown = await join(eventId, 'vip@example.com', 'vip');
    expect(unknown.status).toBe(403);
    expect(unknown.body.code).toBe('LANE_NOT_CONFIGURED');
    expect(unknown.ticket).toBe('');
    expect(await shardRows(eventId)).toEqual(before);

    // Another device of the same account, with a fresh token (even one without the lane): the same place.
    for (const lane of ['presale', undefined]) {
      const again = await join(eventId, 'member@example.com', lane);
      expect(again.body).toMatchObject({ state: 'waiting', lane: 'presale', position: 1 });
      const claims = (t: string) =>
        JSON.parse(atob(t.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string; pl: unknown };
      expect(claims(again.ticket)).toMatchObject({ sub: claims(first.ticket).sub, pl: claims(first.ticket).pl });
      expect((claims(again.ticket).pl as unknown[])[3]).toBe('presale');
    }
    expect(await shardRows(eventId)).toEqual(before);
    expect((await join(eventId, 'fan@example.com')).body).toMatchObject({ state: 'not_open', lane: null });
    await tick(eventId);
    // The lane ran dry and the public visitor cannot be released before the public start: the room sleeps
    // until it instead of ticking for nobody (RELEASE_TICK_MS is an hour in tests, so a tick would
    // be due about 5 s later than the start).
    const alarm = await runInDurableObject(env.WAITING_ROOM.getByName(eventId), (_o, state) => state.storage.getAlarm());
    expect(alarm).toBe(T0 + 3_600_000);
    expect(await poll(eventId, first.ticket)).toMatchObject({ state: 'admitted' });
  });

  // On a lottery event a lane visitor was shown the public sale start and
  // countdown, the lottery's rule and an entrant id in a draw they are not in.
  it('tells a lane visitor of a lottery their own line: its start, first come first served, no draw', async () => {
    const eventId = freshEventId('lanelot');
    const laneStartMs = T0 + 600_000;
    const publicStartMs = T0 + 1_200_000;
    const res = await createEvent(eventId, {
      ...RATE,
      policy: 'random',
      saleStartsAt: iso(publicStartMs),
      entry: {
        require: 'account',
        signInUrl: '/login',
        lanes: [{ lane: 'presale', saleStartsAt: iso(laneStartMs), releaseSharePercent: 50 }],
      },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const fan = await new Visitor().json<Body & Record<string, unknown>>(`/_wr/events/${eventId}/join`, {
      method: 'POST',
      headers: { 'x-entry-token': await entryToken(eventId, 'fan-1', 'presale') },
    });
    expect(fan.body).toMatchObject({ lane: 'presale', policy: 'fifo', saleStartsAt: iso(laneStartMs), entrantId: null, commitment: null });
    const pub = await new Visitor().json<Body & Record<string, unknown>>(`/_wr/events/${eventId}/join`, {
      method: 'POST',
      headers: { 'x-entry-token': await entryToken(eventId, 'public-1') },
    });
    expect(pub.body).toMatchObject({ lane: null, policy: 'random', saleStartsAt: iso(publicStartMs) });
    expect(pub.body.entrantId).toEqual(expect.any(String));
    expect(pub.body.commitment).toEqual(expect.any(String));
  });

  it('refuses a ticket whose lane was tampered with, and a change that removes a lane visitors joined', async () => {
    const eventId = freshEventId('presale');
    await presaleEvent(eventId);
    const first = await join(eventId, 'member@example.com', 'presale');
    const [h, p, s] = first.ticket.split('.');
    const payload = JSON.parse(atob(p!.replace(/-/g, '+').replace(/_/g, '/'))) as { pl: unknown[] };
    payload.pl[3] = 'other';
    const forged = [h, btoa(JSON.stringify(payload)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), s].join('.');
    const res = await new Visitor().json<Body>(`/_wr/events/${eventId}/status`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
    const removed = await createEvent(eventId, { ...RATE, entry: { require: 'account', signInUrl: '/login' } });
    expect(removed.status).toBe(409);
    expect((await adminView(eventId)).queue.lanes).toHaveLength(1);
  });
});
