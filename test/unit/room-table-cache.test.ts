// An isolate's room table copy: `fresh` answers without a source or an await while the copy is
// under ROOM_TABLE_ISOLATE_MS old (never for a clock that stepped back); for ROOM_TABLE_REVALIDATE_MS
// more the copy is served while one refresh runs in waitUntil (stale-while-revalidate); when the
// directory read fails the newest copy known keeps routing, and with none at all the
// answer is ROOM_TABLE_UNAVAILABLE.
import { describe, expect, it, vi } from 'vitest';
import {
  ROOM_TABLE_CACHE_KEYS,
  ROOM_TABLE_ISOLATE_MS,
  ROOM_TABLE_REVALIDATE_MS,
  ROOM_TABLE_SHARED_MS,
  RoomTableCache,
  type RoomTableSource,
} from '../../src/lib/room-table';
import { GatewayError } from '../../src/lib/errors';
import type { RoomTable } from '../../contracts/room-table';

const T0 = 1_800_000_000_000;
const room = (eventId: string) => ({
  eventId,
  patterns: [`/events/${eventId}/*`],
  bypass: { pathPrefixes: [], extensions: [], methods: [] },
});

const quiet = async <T>(run: () => Promise<T>): Promise<T> => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    return await run();
  } finally {
    log.mockRestore();
  }
};

/** A Cache API over a Map (no clock of its own: the snapshot's fetchedAtMs is what the code reads). */
function memoryCache(): Cache {
  const entries = new Map<string, string>();
  return {
    match: async (key: string) => (entries.has(key) ? new Response(entries.get(key)) : undefined),
    put: async (key: string, res: Response) => void entries.set(key, await res.text()),
    delete: async (key: string) => entries.delete(key),
  } as unknown as Cache;
}

/** A directory that counts its reads and can be made to fail; its waitUntil work is kept for `settle`. */
interface TestSource extends RoomTableSource {
  table: RoomTable;
  reads: number;
  failing: boolean;
  settle(): Promise<void>;
}

function source(table: RoomTable, cache: Cache | null = null): TestSource {
  const pending: Promise<unknown>[] = [];
  const s: TestSource = {
    table,
    reads: 0,
    failing: false,
    read: async () => {
      s.reads++;
      if (s.failing) throw new Error('directory unreachable');
      return s.table;
    },
    cache,
    waitUntil: (p: Promise<unknown>) => void pending.push(p),
    settle: async () => {
      while (pending.length) await pending.shift();
    },
  };
  return s;
}

describe('RoomTableCache.fresh', () => {
  it('is null before the first read, then the copy until ROOM_TABLE_ISOLATE_MS, then null again', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 3, rooms: [] });
    expect(rooms.fresh(T0)).toBeNull();
    const table = await rooms.table(dir, T0);
    expect(dir.reads).toBe(1);
    expect(table.version).toBe(3);
    expect(rooms.fresh(T0)).toBe(table);
    expect(rooms.fresh(T0 + ROOM_TABLE_ISOLATE_MS - 1)).toBe(table);
    expect(rooms.fresh(T0 + ROOM_TABLE_ISOLATE_MS)).toBeNull();
    // A clock that steps back does not make an old copy look young.
    expect(rooms.fresh(T0 - 1)).toBeNull();
    await rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS - 1);
    expect(dir.reads).toBe(1);
  });

  it('is null again after forget (an organizer change), so the next request reads the new table', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 1, rooms: [] });
    await rooms.table(dir, T0);
    await rooms.forget(null);
    expect(rooms.fresh(T0 + 1)).toBeNull();
    await rooms.table(dir, T0 + 1);
    expect(dir.reads).toBe(2);
  });
});

describe('RoomTableCache.table: stale-while-revalidate', () => {
  it('serves the old copy at once while one refresh runs in waitUntil, then the new one', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 1, rooms: [] });
    await rooms.table(dir, T0);
    dir.table = { version: 2, rooms: [room('new')] };
    const t = T0 + ROOM_TABLE_ISOLATE_MS;
    // Three requests just past the window: all routed by version 1, one refresh between them.
    for (let i = 0; i < 3; i++) expect((await rooms.table(dir, t + i)).version).toBe(1);
    await dir.settle();
    expect(dir.reads).toBe(2);
    expect(rooms.fresh(t + 3)?.version).toBe(2);
    expect(rooms.fresh(t + 3)?.events.has('new')).toBe(true);
  });

  it('makes the request wait for the refresh once the copy is past the revalidate window', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 1, rooms: [] });
    await rooms.table(dir, T0);
    dir.table = { version: 2, rooms: [] };
    expect((await rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS)).version).toBe(2);
    expect(dir.reads).toBe(2);
  });

  it('a refresh that started before forget does not put the dropped table back', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 1, rooms: [] });
    await rooms.table(dir, T0);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = { ...dir, read: async () => (await gate, { version: 1, rooms: [] }) };
    const late = rooms.table(slow, T0 + ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS);
    await rooms.forget(null);
    release();
    await late;
    expect(rooms.fresh(T0 + ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS)).toBeNull();
  });
});

describe('RoomTableCache.table: the directory read fails', () => {
  it("routes by the isolate's copy of any age, logs its age, and asks the directory again only after ROOM_TABLE_ISOLATE_MS", async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 4, rooms: [room('a')] });
    await rooms.table(dir, T0);
    dir.failing = true;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const later = T0 + 10 * 60_000;
    expect((await rooms.table(dir, later)).version).toBe(4);
    const line = JSON.parse(String(log.mock.calls.at(-1)?.[0])) as Record<string, unknown>;
    log.mockRestore();
    expect(line).toMatchObject({ decision: 'room_table.stale', copy: 'isolate', ageMs: 10 * 60_000 });
    expect(dir.reads).toBe(2);
    expect(rooms.fresh(later + ROOM_TABLE_ISOLATE_MS - 1)?.version).toBe(4);
    expect(dir.reads).toBe(2);
  });

  it("a new isolate routes by the data centre's last-known-good copy, long after the shared copy expired", async () => {
    const cache = memoryCache();
    const first = source({ version: 7, rooms: [room('b')] }, cache);
    await new RoomTableCache().table(first, T0);
    await first.settle();
    const dir = source({ version: 7, rooms: [] }, cache);
    dir.failing = true;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const table = await new RoomTableCache().table(dir, T0 + ROOM_TABLE_SHARED_MS + 3_600_000);
    log.mockRestore();
    expect(dir.reads).toBe(1);
    expect(table.version).toBe(7);
    expect(table.events.has('b')).toBe(true);
  });

  it('with no copy anywhere, answers ROOM_TABLE_UNAVAILABLE (503) instead of guessing', async () => {
    const dir = source({ version: 1, rooms: [] }, memoryCache());
    dir.failing = true;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const rooms = new RoomTableCache();
    const err = await rooms.table(dir, T0).catch((e: unknown) => e);
    log.mockRestore();
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('ROOM_TABLE_UNAVAILABLE');
    expect((err as GatewayError).retryAfterS).toBeGreaterThan(0);
    // The next request within ROOM_TABLE_ISOLATE_MS gets the same answer without asking again.
    await expect(quiet(() => rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS - 1))).rejects.toMatchObject({ code: 'ROOM_TABLE_UNAVAILABLE' });
    expect(dir.reads).toBe(1);
    dir.failing = false;
    expect((await rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS)).version).toBe(1);
  });
});

describe('RoomTableCache.lists', () => {
  it('a miss looks again once (so an event created since is found), then not again within ROOM_TABLE_ISOLATE_MS', async () => {
    const rooms = new RoomTableCache();
    const dir = source({ version: 1, rooms: [room('old')] });
    expect(await rooms.lists(dir, 'old', T0)).toBe(true);
    dir.table = { version: 2, rooms: [room('old'), room('new')] };
    expect(await rooms.lists(dir, 'new', T0 + 1)).toBe(true);
    expect(dir.reads).toBe(2);
    // Made-up ids: one look for all of them per ROOM_TABLE_ISOLATE_MS (the one above counts).
    for (let i = 0; i < 50; i++) expect(await rooms.lists(dir, `made-up-${i}`, T0 + 2 + i)).toBe(false);
    expect(dir.reads).toBe(2);
    expect(await rooms.lists(dir, 'made-up-x', T0 + 1 + ROOM_TABLE_ISOLATE_MS)).toBe(false);
    expect(dir.reads).toBe(3);
  });

  it('a refresh answers only once its copy is in the data centre cache, so a change after it is never undone by it', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const inner = memoryCache();
    // A data centre cache whose puts land only when released (a slow cache write).
    const cache = {
      ...inner,
      match: inner.match.bind(inner),
      delete: inner.delete.bind(inner),
      put: async (k: string, r: Response) => (await held, inner.put(k, r)),
    } as unknown as Cache;
    const dir = source({ version: 1, rooms: [room('old')] }, cache);
    const other = new RoomTableCache();
    let answered = false;
    const first = other.table(dir, T0).then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBe(false);
    release();
    await first;
    // The organizer's change, made through another isolate: it drops the data centre's copy.
    const creator = new RoomTableCache();
    dir.table = { version: 2, rooms: [room('old'), room('new')] };
    await creator.forget(cache);
    expect(await creator.lists(dir, 'new', T0 + 10)).toBe(true);
    expect(await other.lists(dir, 'new', T0 + 11)).toBe(true);
  });

  it('after its own change an isolate reads the directory, not a data centre copy from before the change', async () => {
    const cache = memoryCache();
    const dir = source({ version: 1, rooms: [room('old')] }, cache);
    const creator = new RoomTableCache();
    await creator.table(dir, T0);
    dir.table = { version: 2, rooms: [room('old'), room('new')] };
    await creator.forget(cache);
    // Another isolate's refresh from before the change lands its copy after the delete.
    const before = JSON.stringify({ table: { version: 1, rooms: [room('old')] }, fetchedAtMs: T0 });
    await cache.put(ROOM_TABLE_CACHE_KEYS.shared, new Response(before));
    expect(await creator.lists(dir, 'new', T0 + 10)).toBe(true);
  });
});
