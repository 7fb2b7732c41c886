// Made-up event ids: joins, polls, draws, challenges and seat maps of ids the room table
// does not list answer 404 EVENT_NOT_FOUND at the edge without asking any event object, while an
// event the organizer API has just created is reachable at once, from this isolate and from
// another one of the data centre whose copy of the table predates the event.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { BASE, freshEventId } from '../helpers/client';

/** One app (one isolate's room table) whose object bindings count the stubs asked for. */
function isolate() {
  const app = createApp();
  const calls = { WAITING_ROOM: 0, QUEUE_SHARD: 0, INVENTORY: 0, DIRECTORY: 0 };
  const counted = (name: keyof typeof calls) => ({
    getByName: (id: string) => (calls[name]++, (env[name as keyof Env] as DurableObjectNamespace).getByName(id)),
  });
  const bindings = {
    ...env,
    WAITING_ROOM: counted('WAITING_ROOM'),
    QUEUE_SHARD: counted('QUEUE_SHARD'),
    INVENTORY: counted('INVENTORY'),
    DIRECTORY: counted('DIRECTORY'),
  } as unknown as Env;
  const send = async (path: string, init: RequestInit = {}) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(BASE + path, init), bindings, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  return { calls, send };
}

const json = { accept: 'application/json' };
const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json', ...json };
const EVENT = JSON.stringify({
  releaseRatePerMinute: 600,
  minReleaseRatePerMinute: 600,
  maxActiveVisitors: 100,
  seats: 10,
  seatsPerRow: 10,
});

describe('made-up event ids', () => {
  it('answer 404 EVENT_NOT_FOUND on every visitor route, with no call to any event object', async () => {
    const { calls, send } = isolate();
    expect((await send('/_wr/events/warm-up-id/draw', { headers: json })).status).toBe(404);
    const started = Date.now();
    const routes = (id: string): [string, RequestInit][] => [
      [`/_wr/events/${id}/join`, { method: 'POST', headers: json }],
      [`/_wr/events/${id}/status`, { headers: json }],
      [`/_wr/events/${id}/draw`, { headers: json }],
      [`/_wr/events/${id}/challenge`, { headers: json }],
      [`/_wr/events/${id}/seats`, { headers: json }],
    ];
    for (let i = 0; i < 40; i++) {
      for (const [path, init] of routes(`nx-${crypto.randomUUID().slice(0, 12)}`)) {
        const res = await send(path, init);
        expect(res.status, path).toBe(404);
        expect(await res.json(), path).toMatchObject({ code: 'EVENT_NOT_FOUND' });
      }
    }
    expect({ ...calls, DIRECTORY: 0 }).toEqual({ WAITING_ROOM: 0, QUEUE_SHARD: 0, INVENTORY: 0, DIRECTORY: 0 });
    // The room table's own reads: at most one look per second for all the misses (the data
    // centre's copy first, so most of these are not even directory calls).
    expect(calls.DIRECTORY).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / 1000));
  });

  it('a malformed id is still the route’s own 404, not a table lookup', async () => {
    const { calls, send } = isolate();
    const res = await send('/_wr/events/Not_An_Id/join', { method: 'POST', headers: json });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'EVENT_NOT_FOUND' });
    expect(calls.WAITING_ROOM + calls.QUEUE_SHARD).toBe(0);
  });
});

describe('an event created a moment ago', () => {
  it('is reachable at once from the isolate that created it and from another whose table predates it', async () => {
    const creator = isolate();
    const other = isolate();
    // Both isolates hold a fresh copy of the table from before the event existed (a pass-through
    // request routes by it).
    for (const one of [creator, other]) expect((await one.send('/', { headers: { accept: 'text/html' } })).status).toBeLessThan(500);
    const eventId = freshEventId('new');
    expect((await creator.send(`/_wr/admin/events/${eventId}`, { method: 'PUT', headers: admin, body: EVENT })).status).toBe(201);
    const mine = await creator.send(`/_wr/events/${eventId}/join`, { method: 'POST', headers: json });
    expect(mine.status).toBe(200);
    const theirs = await other.send(`/_wr/events/${eventId}/join`, { method: 'POST', headers: json });
    expect(theirs.status).toBe(200);
    expect(await theirs.json()).toMatchObject({ state: expect.any(String) });
  });
});
