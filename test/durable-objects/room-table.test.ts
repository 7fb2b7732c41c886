// The room table in the EventDirectory: claims are all or nothing and one owner per pattern key,
// undo only while the claim stands, every change bumps the version, and the upgrade gives every
// event created before rooms existed its old `/events/{id}/*`.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { EventDirectory } from '../../durable-objects/event-directory';
import { DIRECTORY_MIGRATIONS } from '../../durable-objects/event-directory-schema';
import { migrate } from '../../durable-objects/shared/sql';
import { roomClaim } from '../../src/lib/room-claims';
import { freshEventId } from '../helpers/client';
import { NO_BYPASS } from '../helpers/rooms';

const directory = () => env.DIRECTORY.getByName(`table-${crypto.randomUUID()}`);
const claimOf = (eventId: string, patterns: string[]) => roomClaim(eventId, { patterns, bypass: NO_BYPASS });

describe('EventDirectory room table', () => {
  it('claims all of a room’s patterns or none, one owner per key, each change a new version', async () => {
    const dir = directory();
    const v0 = (await dir.roomTable()).version;
    expect(await dir.claimRoom(claimOf('a', ['/a/*', '/shared']))).toMatchObject({ kind: 'claimed', previous: null, version: v0 + 1 });
    expect(await dir.claimRoom(claimOf('b', ['/b/*', '/SHARED/']))).toEqual({ kind: 'taken', key: '/shared', eventId: 'a' });
    const table = await dir.roomTable();
    expect(table.version).toBe(v0 + 1);
    expect(table.rooms.map((r) => r.eventId)).toEqual(['a']);
    expect(await dir.checkRoom('b', ['/b/*'])).toBeNull();
    // Replacing a room frees its old keys for others.
    const moved = await dir.claimRoom(claimOf('a', ['/a2/*']));
    expect(moved).toMatchObject({ kind: 'claimed', previous: { room: { patterns: ['/a/*', '/shared'] } } });
    expect(await dir.claimRoom(claimOf('b', ['/shared']))).toMatchObject({ kind: 'claimed' });
  });

  it('puts the previous room back only while the claim that replaced it stands', async () => {
    const dir = directory();
    await dir.claimRoom(claimOf('e', ['/old/*']));
    const first = claimOf('e', ['/first/*']);
    const answer = await dir.claimRoom(first);
    if (answer.kind !== 'claimed') throw new Error('claim refused');
    // A later change of the same event wins over the first one's undo.
    await dir.claimRoom(claimOf('e', ['/later/*']));
    expect(await dir.restoreRoom('e', answer.previous, first)).toBe(false);
    expect((await dir.room('e'))!.patterns).toEqual(['/later/*']);
    const later = claimOf('e', ['/again/*']);
    const again = await dir.claimRoom(later);
    if (again.kind !== 'claimed') throw new Error('claim refused');
    expect(await dir.restoreRoom('e', again.previous, later)).toBe(true);
    expect((await dir.room('e'))!.patterns).toEqual(['/later/*']);
  });

  it('upgrades a directory of version 1: every listed event covers /events/{id}/* as before', async () => {
    const dir = directory();
    const ids = [freshEventId('old'), freshEventId('old')];
    await runInDurableObject(dir, (_obj: EventDirectory, state) => {
      for (const t of [
        'dir_keys',
        'dir_audit',
        'dir_config_versions',
        'dir_room_keys',
        'dir_rooms',
        'dir_room_version',
        'dir_events',
        'dir_migrations',
      ])
        state.storage.sql.exec(`DROP TABLE IF EXISTS ${t}`);
      migrate(state.storage, 'dir', DIRECTORY_MIGRATIONS.slice(0, 1));
      for (const id of ids) state.storage.sql.exec(`INSERT INTO dir_events VALUES (?, ?, 1, 1)`, id, id);
      migrate(state.storage, 'dir', DIRECTORY_MIGRATIONS);
    });
    const table = await dir.roomTable();
    expect(table.rooms).toEqual([...ids].sort().map((eventId) => ({ eventId, patterns: [`/events/${eventId}/*`], bypass: NO_BYPASS })));
    // The keys are claimed too: another event cannot take an upgraded event's URLs.
    expect(await dir.checkRoom('thief', [`/events/${ids[0]}/*`])).toEqual({ key: `/events/${ids[0]}/*`, eventId: ids[0] });
  });
});
