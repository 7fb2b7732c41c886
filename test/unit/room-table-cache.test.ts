// An isolate's room table copy: `fresh` answers without a source or an await while the copy is
// under ROOM_TABLE_ISOLATE_MS old (never for a clock that stepped back), `table` reads again after.
import { describe, expect, it } from 'vitest';
import { ROOM_TABLE_ISOLATE_MS, RoomTableCache, type RoomTableSource } from '../../src/lib/room-table';
import type { RoomTable } from '../../contracts/room-table';

const T0 = 1_800_000_000_000;

/** A directory that counts its reads; no Cache API. */
function source(table: RoomTable): RoomTableSource & { reads: number } {
  const s = {
    reads: 0,
    read: async () => (s.reads++, table),
    cache: null,
    waitUntil: () => {},
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
    // Within the window `table` reads nothing; after it, it reads again.
    await rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS - 1);
    expect(dir.reads).toBe(1);
    await rooms.table(dir, T0 + ROOM_TABLE_ISOLATE_MS);
    expect(dir.reads).toBe(2);
    expect(rooms.fresh(T0 + ROOM_TABLE_ISOLATE_MS)).not.toBeNull();
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
