// Scale plan at the edge (DESIGN.md section 7): polls answered from the ticket and the cached
// cursor without an object call, bounded cursor staleness, overload answered 503 without retry,
// joins spread over queue shards.
import { env } from 'cloudflare:workers';
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { shardName } from '../../contracts/names';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { CURSOR_CACHE_MS, CURSOR_MAX_STALE_MS, forgetCursor, readCursor } from '../../src/lib/cursor-cache';
import { callDurableObject } from '../../src/lib/do-call';
import { GatewayError, problemResponse } from '../../src/lib/errors';
import { createApp } from '../../src/app';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';
import { claimRoomDirectly } from '../helpers/rooms';

const roomRequests = (eventId: string) => runInDurableObject(env.WAITING_ROOM.getByName(eventId), (obj: WaitingRoom) => obj.requests);

describe('polls at the edge', () => {
  it('answers 200 polls of waiting visitors with at most one object call per second', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { maxActiveVisitors: 1 });
    const visitors = [new Visitor(), new Visitor(), new Visitor()];
    for (const v of visitors) await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId); // the first visitor takes the only slot; the others wait
    expect((await visitors[0]!.json(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');
    const shard = env.QUEUE_SHARD.getByName(shardName(eventId, 0));
    const before = { room: await roomRequests(eventId), shard: await runInDurableObject(shard, (s: QueueShard) => s.requests) };
    const started = Date.now();
    for (let polls = 0; polls < 200; polls += 2) {
      for (const v of visitors.slice(1)) {
        const s = await v.json<{ state: string; position: number }>(`/_wr/events/${eventId}/status`);
        expect(s.body.state).toBe('waiting');
      }
    }
    const calls = (await roomRequests(eventId)) - before.room;
    const shardCalls = (await runInDurableObject(shard, (s: QueueShard) => s.requests)) - before.shard;
    // One cursor read per isolate per CURSOR_CACHE_MS at most, however long the 200 polls took.
    const allowed = 1 + Math.floor((Date.now() - started) / CURSOR_CACHE_MS);
    console.log(`200 polls, ${calls} WaitingRoom calls (at most ${allowed} allowed), ${shardCalls} QueueShard calls`);
    expect(calls).toBeLessThanOrEqual(allowed);
    expect(shardCalls).toBe(0);
  });

  it('reuses a cursor for CURSOR_CACHE_MS in the isolate, then up to CURSOR_MAX_STALE_MS from the Cache API, never longer', async () => {
    const eventId = freshEventId();
    let fetches = 0;
    const fake = { eventId, publishedAtMs: 0 } as AdmissionCursor;
    const fetchCursor = async () => {
      fetches++;
      return { ...fake, publishedAtMs: fetches };
    };
    const writes: Promise<unknown>[] = [];
    const read = (t: number) => readCursor(eventId, t, fetchCursor, (p) => writes.push(p));
    const t0 = Date.now();
    expect((await read(t0))!.publishedAtMs).toBe(1);
    await Promise.all(writes);
    expect((await read(t0 + CURSOR_CACHE_MS - 1))!.publishedAtMs).toBe(1);
    expect(fetches).toBe(1);
    // Past the isolate's second: the data centre's copy still serves, up to the staleness bound.
    expect((await read(t0 + CURSOR_MAX_STALE_MS - 1))!.publishedAtMs).toBe(1);
    expect(fetches).toBe(1);
    expect((await read(t0 + CURSOR_MAX_STALE_MS))!.publishedAtMs).toBe(2);
    expect(fetches).toBe(2);
    // A clock that went backwards never trusts the cache.
    await read(t0 - 10);
    expect(fetches).toBe(3);
    await forgetCursor(eventId);
  });

  it('lets one request per isolate refresh a stale cursor while the others answer from their copy', async () => {
    const eventId = freshEventId();
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fetchCursor = async () => {
      fetches++;
      await gate;
      return { eventId, publishedAtMs: fetches } as AdmissionCursor;
    };
    const t0 = Date.now();
    release();
    const writes: Promise<unknown>[] = [];
    await readCursor(eventId, t0, fetchCursor, (p) => writes.push(p));
    await Promise.all(writes);
    expect(fetches).toBe(1);
    // 1.5 s later the isolate copy is past CURSOR_CACHE_MS: 50 concurrent polls, one refresh.
    await caches.default.delete(`https://wr-cursor.internal/${eventId}`);
    const slow = new Promise<void>((r) => (release = r));
    const fetchSlow = async () => {
      fetches++;
      await slow;
      return { eventId, publishedAtMs: fetches } as AdmissionCursor;
    };
    const polls = Array.from({ length: 50 }, () => readCursor(eventId, t0 + 1500, fetchSlow));
    release();
    const answers = await Promise.all(polls);
    expect(fetches).toBe(2);
    expect(answers.every((a) => a !== null)).toBe(true);
    await forgetCursor(eventId);
  });

  it('maps an overloaded queue object to 503 OVERLOADED with Retry-After, calling it exactly once', async () => {
    let calls = 0;
    const overloaded = async () => {
      calls++;
      throw Object.assign(new Error('Durable Object is overloaded. Too many requests queued.'), { overloaded: true, retryable: false });
    };
    const err = await callDurableObject(overloaded, { idempotent: true, name: 'waitingRoom.cursor' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(calls).toBe(1);
    const res = problemResponse(err as GatewayError);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
    expect(await res.json()).toMatchObject({ code: 'OVERLOADED' });
    // The cursor read goes through the same rule.
    await expect(readCursor(freshEventId(), Date.now(), overloaded)).rejects.toMatchObject({ code: 'OVERLOADED' });
    expect(calls).toBe(2);
    // Anything else is not an overload and is not dressed up as one.
    await expect(callDurableObject(async () => Promise.reject(new Error('boom')), { idempotent: true, name: 'x' })).rejects.toThrow('boom');
  });
});

describe('the seat map at the edge', () => {
  it('serves 100 reads by 10 admitted visitors with at most two inventory reads per second', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { seats: 2000, seatsPerRow: 50 });
    const readers: Visitor[] = [];
    for (let i = 0; i < 10; i++) readers.push(await admittedVisitor(eventId));
    const inventory = env.INVENTORY.getByName(eventId);
    const reads = () => runInDurableObject(inventory, (obj: Inventory) => obj.mapReads);
    const before = await reads();
    const started = Date.now();
    let version = 0;
    for (let i = 0; i < 100; i++) {
      const r = readers[i % 10]!;
      const res = await r.json<{ version: number }>(`/_wr/events/${eventId}/seats${i % 2 ? `?since=${version}` : ''}`);
      expect(res.status).toBe(200);
      if (i === 0) version = res.body.version;
    }
    const seconds = Math.max(1, Math.ceil((Date.now() - started) / 1000));
    // One snapshot and one delta key per second at most.
    expect((await reads()) - before).toBeLessThanOrEqual(2 * seconds);
  });
});

describe('an overloaded waiting room', () => {
  it('answers joins and polls with 503 OVERLOADED + Retry-After (a page for browsers), calling the object once per request', async () => {
    let calls = 0;
    const overloaded = async (): Promise<never> => {
      calls++;
      throw Object.assign(new Error('Durable Object is overloaded. Requests queued for too long.'), { overloaded: true });
    };
    const busyEnv = { ...env, WAITING_ROOM: { getByName: () => ({ cursor: overloaded, admit: overloaded }) } } as unknown as Env;
    const app = createApp();
    const send = async (path: string, init: RequestInit) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(BASE + path, init), busyEnv, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    // A real event (the edge refuses ids its room table does not list before any object call), and
    // a room claimed before this app's first request reads the table.
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    const roomId = freshEventId();
    await claimRoomDirectly(roomId, [`/events/${roomId}/*`]);
    const api = await send(`/_wr/events/${eventId}/join`, { method: 'POST', headers: { accept: 'application/json' } });
    expect(api.status).toBe(503);
    expect(Number(api.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await api.json()).toMatchObject({ code: 'OVERLOADED' });
    expect(calls).toBe(1);
    const page = await send(`/events/${roomId}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).not.toBeNull();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(calls).toBe(2);
  });
});

describe('unknown events', () => {
  it('answers polls, joins and draw requests for an event nobody configured with 404, storing nothing', async () => {
    const eventId = freshEventId('nobody');
    const v = new Visitor();
    expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(404);
    // No room covers its sale URL: that is the origin's page, and the gateway sets no cookie.
    expect((await v.fetch(`/events/${eventId}/`)).headers.getSetCookie()).toEqual([]);
    expect((await v.json(`/_wr/events/${eventId}/draw`)).status).toBe(404);
    const tables = await runInDurableObject(env.WAITING_ROOM.getByName(eventId), (_o, state) =>
      state.storage.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).toArray(),
    );
    expect(tables).toEqual([]);
  });
});

describe('queue shards through the gateway', () => {
  it('spreads joins over 4 shards and admits every visitor exactly once', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { queueShards: 4, releaseRatePerMinute: 600 });
    const visitors = Array.from({ length: 40 }, () => new Visitor());
    for (const v of visitors) expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
    const perShard = [];
    for (let k = 0; k < 4; k++)
      perShard.push(await runInDurableObject(env.QUEUE_SHARD.getByName(shardName(eventId, k)), (s: QueueShard) => s.requests));
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(40);
    await tick(eventId);
    const states = [];
    for (const v of visitors) states.push((await v.json<{ state: string }>(`/_wr/events/${eventId}/status`)).body.state);
    expect(states.every((s) => s === 'admitted')).toBe(true);
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!).toMatchObject({ shards: 4, active: 40, admittedTotal: 40, waiting: 0 });
  });
});
