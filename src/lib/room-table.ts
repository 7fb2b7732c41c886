// The room table at the edge: read from the EventDirectory, kept per isolate and in the data
// centre's Cache API, so routing a request (room or pass-through) costs no object call in steady
// state; a last-known-good copy keeps the site routing while the directory cannot be read.
import type { RoomTable } from '../../contracts/room-table';
import { compileTable, type CompiledTable } from '../../contracts/room-patterns';
import { logDecision } from '../../contracts/log';
import { GatewayError } from './errors';
import { callDurableObject } from './do-call';
import { DIRECTORY_NAME } from '../../contracts/names';

/** How long an isolate routes by its copy without looking again, ms. */
export const ROOM_TABLE_ISOLATE_MS = 1_000;
/**
 * After ROOM_TABLE_ISOLATE_MS, for this much longer a request is still routed by the isolate's
 * copy while one refresh runs after the response (`waitUntil`): stale-while-revalidate (RFC 5861
 * section 3), so a busy isolate never makes a request wait for the table, ms.
 */
export const ROOM_TABLE_REVALIDATE_MS = 1_000;
/** How old a copy in the Cache API may be when an isolate takes it, ms (from the directory read). */
export const ROOM_TABLE_SHARED_MS = 3_000;
/**
 * A change reaches every isolate within this long, ms: the isolate and data centre that made it at
 * once (the organizer API drops both copies), any other within ROOM_TABLE_SHARED_MS +
 * ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS, while the directory answers.
 */
const ROOM_TABLE_MAX_STALE_MS = ROOM_TABLE_SHARED_MS + ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS;
/**
 * How long the data centre keeps its last-known-good copy, s: read only when the directory read
 * fails, so a new isolate routes by the table it last saw instead of
 * answering 503 to every request of the site.
 */
const ROOM_TABLE_LAST_GOOD_S = 7 * 24 * 60 * 60;
/** Retry-After of ROOM_TABLE_UNAVAILABLE, seconds. */
const ROOM_TABLE_RETRY_AFTER_S = 5;

/** The Cache API keys: the shared copy (max-age ROOM_TABLE_SHARED_MS) and the last-known-good one (ROOM_TABLE_LAST_GOOD_S). */
export const ROOM_TABLE_CACHE_KEYS = {
  shared: 'https://wr-room-table.internal/v1',
  lastGood: 'https://wr-room-table.internal/last-good/v1',
} as const;
const CACHE_KEY = ROOM_TABLE_CACHE_KEYS.shared;
const LAST_GOOD_KEY = ROOM_TABLE_CACHE_KEYS.lastGood;

interface Snapshot {
  table: RoomTable;
  /** When the directory was read, epoch ms. */
  fetchedAtMs: number;
}

/** The seams: the directory read, the Cache API, the clock. */
export interface RoomTableSource {
  /** The EventDirectory's `roomTable()` call. */
  read(): Promise<RoomTable>;
  /** The data centre's cache (`caches.default`), or null where there is none. */
  cache: Cache | null;
  /** Keeps work (a Cache API write, a refresh) alive after the response. */
  waitUntil(p: Promise<unknown>): void;
}

/**
 * One isolate's copy of the room table, compiled for matching. Create one per app (per isolate).
 * A copy under ROOM_TABLE_ISOLATE_MS old is used as it is; one under ROOM_TABLE_ISOLATE_MS +
 * ROOM_TABLE_REVALIDATE_MS is used while one refresh runs in `waitUntil`; an older one (or none)
 * makes the request wait for the refresh. The directory sees about one read per data centre per
 * ROOM_TABLE_SHARED_MS. When the read fails, the newest copy known (the isolate's, else the data
 * centre's last-known-good) keeps routing, and a `room_table.stale` line says how old it is.
 */
export class RoomTableCache {
  private compiled: CompiledTable | null = null;
  /** When this isolate last took a copy (or last failed to get one), epoch ms. */
  private takenAtMs = -Infinity;
  private fetchedAtMs = -Infinity;
  private refreshingSinceMs = -Infinity;
  /** Bumped by `forget`: a refresh that started before it must not put back the table it dropped. */
  private generation = 0;
  /** When a miss of `lists` last looked again, epoch ms. */
  private missLookedAtMs = -Infinity;
  /** Set by `forget` until the directory is read again: the data centre's copy may predate the change. */
  private changedSinceRead = false;

  /**
   * The compiled table, as described on the class.
   *
   * @throws GatewayError ROOM_TABLE_UNAVAILABLE (503, Retry-After 5) when the directory read fails
   *   and neither this isolate nor the data centre has ever had a copy
   */
  async table(source: RoomTableSource, nowMs: number): Promise<CompiledTable> {
    const mine = this.fresh(nowMs);
    if (mine) return mine;
    const refreshing = within(nowMs, this.refreshingSinceMs, ROOM_TABLE_ISOLATE_MS);
    if (this.compiled && within(nowMs, this.takenAtMs, ROOM_TABLE_ISOLATE_MS + ROOM_TABLE_REVALIDATE_MS)) {
      if (!refreshing) source.waitUntil(this.refresh(source, nowMs).catch(() => {}));
      return this.compiled;
    }
    if (this.compiled && refreshing && nowMs - this.fetchedAtMs < ROOM_TABLE_MAX_STALE_MS) return this.compiled;
    // With no copy at all, a directory that just failed is not asked again by every request.
    if (!this.compiled && within(nowMs, this.takenAtMs, ROOM_TABLE_ISOLATE_MS)) throw unavailable();
    return this.refresh(source, nowMs);
  }

  /**
   * Whether the table lists `eventId` (visitor routes of other ids are refused without
   * an object call). A miss looks again once, the data centre's copy first (at most once per
   * ROOM_TABLE_ISOLATE_MS for all misses of the isolate, so made-up ids add no directory reads):
   * an event created in this data centre is listed at once, elsewhere within ROOM_TABLE_SHARED_MS.
   *
   * @throws GatewayError ROOM_TABLE_UNAVAILABLE as `table` does
   */
  async lists(source: RoomTableSource, eventId: string, nowMs: number): Promise<boolean> {
    const table = this.fresh(nowMs) ?? (await this.table(source, nowMs));
    if (table.events.has(eventId)) return true;
    // A refresh already under way (stale-while-revalidate) counts as the look.
    if (within(nowMs, Math.max(this.refreshingSinceMs, this.missLookedAtMs), ROOM_TABLE_ISOLATE_MS)) return false;
    this.missLookedAtMs = nowMs;
    return (await this.refresh(source, nowMs)).events.has(eventId);
  }

  /**
   * This isolate's copy when it was taken under ROOM_TABLE_ISOLATE_MS ago, else null (then call
   * `table`). Synchronous, so the routing of a request that needs no refresh (nearly all) builds
   * no source and awaits nothing.
   */
  fresh(nowMs: number): CompiledTable | null {
    return within(nowMs, this.takenAtMs, ROOM_TABLE_ISOLATE_MS) ? this.compiled : null;
  }

  private async refresh(source: RoomTableSource, nowMs: number): Promise<CompiledTable> {
    const marker = nowMs;
    const generation = this.generation;
    this.refreshingSinceMs = marker;
    // Right after this isolate's own change, the directory is the only copy known to have it.
    const afterChange = this.changedSinceRead;
    try {
      const shared = afterChange ? null : await readSnapshot(source.cache, CACHE_KEY);
      // Never step back to an older version (a slow request may have put one after a change).
      if (shared && within(nowMs, shared.fetchedAtMs, ROOM_TABLE_SHARED_MS) && shared.table.version >= (this.compiled?.version ?? 0))
        return this.take(shared, nowMs, generation);
      let fresh: Snapshot;
      try {
        fresh = { table: await source.read(), fetchedAtMs: nowMs };
        if (generation === this.generation) this.changedSinceRead = false;
      } catch (err) {
        // The newest copy known: the isolate's, else the data centre's last-known-good.
        const saved = await readSnapshot(source.cache, LAST_GOOD_KEY);
        const mine = this.compiled;
        const useSaved = saved && (!mine || saved.table.version > mine.version);
        logDecision('room_table.stale', {
          copy: useSaved ? 'data_centre' : mine ? 'isolate' : 'none',
          ageMs: useSaved ? nowMs - saved.fetchedAtMs : mine ? nowMs - this.fetchedAtMs : null,
        });
        if (useSaved) return this.take(saved, nowMs, generation);
        // Look again after ROOM_TABLE_ISOLATE_MS (in the background while requests keep coming), not on every request.
        if (generation === this.generation) this.takenAtMs = nowMs;
        if (!mine) throw unavailable(err);
        return mine;
      }
      const body = JSON.stringify(fresh);
      // Awaited, not left to waitUntil: a put still in flight when an organizer change deletes the
      // data centre's copy (`forget`) would land after it and put the table from before the
      // change back for ROOM_TABLE_SHARED_MS, so an event just created answered 404 there.
      await Promise.all(
        (
          [
            [CACHE_KEY, ROOM_TABLE_SHARED_MS / 1000],
            [LAST_GOOD_KEY, ROOM_TABLE_LAST_GOOD_S],
          ] as const
        ).map(([key, maxAgeS]) =>
          source.cache?.put(key, new Response(body, { headers: { 'cache-control': `max-age=${maxAgeS}` } })).catch(() => {}),
        ),
      );
      return this.take(fresh, nowMs, generation);
    } finally {
      if (this.refreshingSinceMs === marker) this.refreshingSinceMs = -Infinity;
    }
  }

  /**
   * Drops this isolate's copy and the data centre's (after an organizer change), so both route by
   * the new table on their next request. The last-known-good copy stays (it is read only when the
   * directory fails, and the next read replaces it).
   */
  async forget(cache: Cache | null): Promise<void> {
    this.compiled = null;
    this.takenAtMs = -Infinity;
    this.fetchedAtMs = -Infinity;
    this.refreshingSinceMs = -Infinity;
    this.generation++;
    this.changedSinceRead = true;
    await cache?.delete(CACHE_KEY).catch(() => false);
  }

  private take(snapshot: Snapshot, nowMs: number, generation: number): CompiledTable {
    // The same version compiles to the same table: keep the one we have.
    const compiled =
      this.compiled?.version === snapshot.table.version ? this.compiled : compileTable(snapshot.table.rooms, snapshot.table.version);
    if (generation !== this.generation) return compiled;
    this.compiled = compiled;
    this.takenAtMs = nowMs;
    this.fetchedAtMs = snapshot.fetchedAtMs;
    return compiled;
  }
}

/** Whether `nowMs` is within `ms` after `sinceMs` (never for a clock that stepped back). */
const within = (nowMs: number, sinceMs: number, ms: number) => nowMs >= sinceMs && nowMs - sinceMs < ms;

function unavailable(cause?: unknown): GatewayError {
  return new GatewayError('ROOM_TABLE_UNAVAILABLE', { detail: 'no room table yet', retryAfterS: ROOM_TABLE_RETRY_AFTER_S, cause });
}

async function readSnapshot(cache: Cache | null, key: string): Promise<Snapshot | null> {
  const hit = await cache?.match(key).catch(() => undefined);
  return hit ? ((await hit.json().catch(() => null)) as Snapshot | null) : null;
}

/** Where an isolate's room table comes from: the EventDirectory, through the data centre's cache. */
export function directorySource(env: Pick<Env, 'DIRECTORY'>, ctx: Pick<ExecutionContext, 'waitUntil'>): RoomTableSource {
  return {
    read: () =>
      callDurableObject(async () => env.DIRECTORY.getByName(DIRECTORY_NAME).roomTable(), { idempotent: true, name: 'directory.roomTable' }),
    cache: defaultCache(),
    waitUntil: (p) => ctx.waitUntil(p),
  };
}

/** The data centre's Cache API, when the runtime offers one. */
export function defaultCache(): Cache | null {
  return typeof caches === 'undefined' ? null : (caches as unknown as { default: Cache }).default;
}
