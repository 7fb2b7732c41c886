// Pass-through when something behind it fails: a directory that cannot be read
// leaves new isolates routing by the data centre's last-known-good room table (only with no copy
// anywhere is the answer 503 ROOM_TABLE_UNAVAILABLE); an origin whose headers do not come within
// ORIGIN_TIMEOUT_MS gives 504 ORIGIN_TIMEOUT, while a body that streams longer is left alone.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app';
import { ROOM_TABLE_CACHE_KEYS, RoomTableCache, defaultCache } from '../../src/lib/room-table';
import { BASE, createEvent, freshEventId } from '../helpers/client';
import { viaFreshApp } from '../helpers/rooms';

/** A directory whose every call throws, as an unreachable object would. */
const brokenDirectory = {
  getByName: () =>
    new Proxy(
      {},
      {
        get: () => async () => {
          throw new Error('Durable Object storage is unavailable');
        },
      },
    ),
};
const origin = (answer: () => Response | Promise<Response>) => ({ fetch: async () => answer() });
const quietly = async <T>(run: () => Promise<T>): Promise<T> => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    return await run();
  } finally {
    log.mockRestore();
  }
};

describe('the EventDirectory cannot be read', () => {
  it("a new isolate still passes requests through and serves rooms, by the data centre's last-known-good table", async () => {
    const eventId = freshEventId('lkg');
    expect((await createEvent(eventId)).status).toBe(201);
    // One isolate reads the table while the directory answers (this writes the last-known-good copy),
    // then the shared 3 s copy is gone: a later isolate has to ask the directory, which fails.
    expect((await viaFreshApp('/about', {}, { ORIGIN: origin(() => new Response('about')) })).status).toBe(200);
    await new RoomTableCache().forget(defaultCache());
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const home = await viaFreshApp('/', {}, { DIRECTORY: brokenDirectory, ORIGIN: origin(() => new Response('origin home')) });
    const sale = await viaFreshApp(`/events/${eventId}/`, { headers: { accept: 'application/json' } }, { DIRECTORY: brokenDirectory });
    log.mockRestore();
    expect(home.status).toBe(200);
    expect(await home.text()).toBe('origin home');
    // The room is still a room: its waiting room answers, not the origin.
    expect(sale.status).toBe(200);
    expect(await sale.json()).toMatchObject({ state: expect.any(String) });
    const stale = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.decision === 'room_table.stale');
    expect(stale).toMatchObject({ copy: 'data_centre', ageMs: expect.any(Number) });
  });

  it('with no copy in the isolate or the data centre, answers 503 ROOM_TABLE_UNAVAILABLE with Retry-After, not the origin', async () => {
    const cache = defaultCache()!;
    await cache.delete(ROOM_TABLE_CACHE_KEYS.shared);
    await cache.delete(ROOM_TABLE_CACHE_KEYS.lastGood);
    let reached = 0;
    const res = await quietly(() =>
      viaFreshApp('/', {}, { DIRECTORY: brokenDirectory, ORIGIN: origin(() => (reached++, new Response('origin home'))) }),
    );
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ code: 'ROOM_TABLE_UNAVAILABLE' });
    expect(reached).toBe(0);
    // The next isolate with a working directory routes again (and writes a new last-known-good copy).
    expect((await viaFreshApp('/', {}, { ORIGIN: origin(() => new Response('back')) })).status).toBe(200);
  });
});

describe('pass-through origin timeout', () => {
  it('answers 504 ORIGIN_TIMEOUT with Retry-After when the origin sends no headers within ORIGIN_TIMEOUT_MS', async () => {
    const started = Date.now();
    const res = await quietly(() =>
      viaFreshApp('/slow', {}, { ORIGIN_TIMEOUT_MS: '150', ORIGIN: origin(() => new Promise<Response>(() => {})) }),
    );
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(await res.json()).toMatchObject({ code: 'ORIGIN_TIMEOUT' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('leaves a body that streams past ORIGIN_TIMEOUT_MS alone once the headers came in time', async () => {
    const chunks = ['one ', 'two ', 'three'];
    const streaming = () => {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      const writer = writable.getWriter();
      void (async () => {
        for (const chunk of chunks) {
          await new Promise((r) => setTimeout(r, 120));
          await writer.write(new TextEncoder().encode(chunk));
        }
        await writer.close();
      })();
      return new Response(readable, { headers: { 'content-type': 'text/plain' } });
    };
    const started = Date.now();
    const res = await viaFreshApp('/download', {}, { ORIGIN_TIMEOUT_MS: '100', ORIGIN: origin(streaming) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('one two three');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  // The bound counted the upload, so a 30 MB body at 4 MB/s got 504 at 3 s
  // from a healthy origin.
  it('counts an upload as progress: a body sent slowly in chunks reaches an origin that reads it', async () => {
    const chunks = ['part-1 ', 'part-2 ', 'part-3 ', 'part-4'];
    const upload = new ReadableStream<Uint8Array>({
      async pull(c) {
        const next = chunks.shift();
        if (next === undefined) return c.close();
        await new Promise((r) => setTimeout(r, 80));
        c.enqueue(new TextEncoder().encode(next));
      },
    });
    const received: string[] = [];
    const reading = { fetch: async (req: Request) => (received.push(await req.text()), new Response('stored')) };
    const started = Date.now();
    const res = await viaFreshApp('/upload', { method: 'POST', body: upload, duplex: 'half' } as RequestInit, {
      ORIGIN_TIMEOUT_MS: '150',
      ORIGIN: reading,
    });
    expect([res.status, await res.text()]).toEqual([200, 'stored']);
    expect(received).toEqual(['part-1 part-2 part-3 part-4']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('a POST through pass-through is bounded the same way', async () => {
    const res = await quietly(() =>
      viaFreshApp(
        '/form',
        { method: 'POST', body: 'a=1' },
        { ORIGIN_TIMEOUT_MS: '100', ORIGIN: origin(() => new Promise<Response>(() => {})) },
      ),
    );
    expect(res.status).toBe(504);
  });

  it('forwards a GET or HEAD that carries a body without it, never 500', async () => {
    // Real HTTP lets a client send a body with GET (curl -X GET --data-binary); the runtime refuses
    // to build a GET Request with one, so the forwarded request threw and every URL answered 500.
    // A Request cannot be made like that here either: a POST that calls itself GET stands in.
    const app = createApp();
    for (const method of ['GET', 'HEAD']) {
      const seen: { method: string; body: string; length: string | null }[] = [];
      const echo = {
        fetch: async (req: Request) => (
          seen.push({ method: req.method, body: await req.text(), length: req.headers.get('content-length') }),
          new Response('ok')
        ),
      };
      const real = new Request(BASE + '/api/x', { method: 'POST', body: 'a\u0000\u0001binary', headers: { 'content-length': '10' } });
      const asGet = new Proxy(real, {
        get: (target, key) => {
          if (key === 'method') return method;
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      const ctx = createExecutionContext();
      const res = await app.fetch(asGet, { ...env, ORIGIN: echo } as unknown as Env, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status, method).toBe(200);
      expect(seen, method).toEqual([{ method, body: '', length: null }]);
    }
  });
});
