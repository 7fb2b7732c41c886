// The room table at the edge: read from the EventDirectory, kept per isolate and in the data
// centre's Cache API, so routing a request (room or pass-through) costs no object call in steady
// state.
import type { RoomTable } from '../../contracts/room-table';
import { compileTable, type CompiledTable } from '../../contracts/room-patterns';

/** How long an isolate routes by its copy without looking again, ms. */
export const ROOM_TABLE_ISOLATE_MS = 2_000;
/** How old a copy in the Cache API may be when an isolate takes it, ms (from the directory read). */
export const ROOM_TABLE_SHARED_MS = 3_000;
/**
 * A change reaches every isolate within this long, ms: the isolate and data centre that made it at
 * once (the organizer API drops both copies), any other within ROOM_TABLE_SHARED_MS +
 * ROOM_TABLE_ISOLATE_MS.
 */
export const ROOM_TABLE_MAX_STALE_MS = ROOM_TABLE_SHARED_MS + ROOM_TABLE_ISOLATE_MS;
/** When the directory cannot be read, a copy up to this old keeps routing (the site stays up), ms. */
export const ROOM_TABLE_ON_ERROR_MS = 60_000;

const CACHE_KEY = 'https://wr-room-table.internal/v1';

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
  /** Keeps a Cache API write alive after the response. */
  waitUntil(p: Promise<unknown>): void;
}

/**
 * One isolate's copy of the room table, compiled for matching. Create one per app (per isolate).
 * While one request refreshes, the isolate's other requests keep routing by the copy they have (it
 * is within the staleness bound), so an isolate looks at most once per ROOM_TABLE_ISOLATE_MS and
 * the directory sees about one read per data centre per ROOM_TABLE_SHARED_MS.
 */
export class RoomTableCache {
  private compiled: CompiledTable | null = null;
  /** When this isolate last took a copy (from the Cache API or the directory), epoch ms. */
  private takenAtMs = -Infinity;
  private fetchedAtMs = -Infinity;
  private refreshingSinceMs: number | null = null;

  /**
   * The compiled table, fresh within the bounds above.
   *
   * @throws the directory read's error (GatewayError OVERLOADED from do-call) when there is no copy
   *   younger than ROOM_TABLE_ON_ERROR_MS to fall back on
   */
  async table(source: RoomTableSource, nowMs: number): Promise<CompiledTable> {
    const mine = this.fresh(nowMs);
    if (mine) return mine;
    return this.refresh(source, nowMs);
  }

  /**
   * This isolate's copy when it was taken under ROOM_TABLE_ISOLATE_MS ago, else null (then call
   * `table`). Synchronous, so the routing of a request that needs no refresh (nearly all) builds
   * no source and awaits nothing.
   */
  fresh(nowMs: number): CompiledTable | null {
    const mine = this.compiled;
    return mine && nowMs >= this.takenAtMs && nowMs - this.takenAtMs < ROOM_TABLE_ISOLATE_MS ? mine : null;
  }

  private async refresh(source: RoomTableSource, nowMs: number): Promise<CompiledTable> {
    const mine = this.compiled;
    const refreshing = this.refreshingSinceMs !== null && nowMs - this.refreshingSinceMs < ROOM_TABLE_ISOLATE_MS;
    if (mine && refreshing && nowMs - this.fetchedAtMs < ROOM_TABLE_MAX_STALE_MS) return mine;
    const marker = nowMs;
    this.refreshingSinceMs = marker;
    try {
      const hit = await source.cache?.match(CACHE_KEY);
      if (hit) {
        const shared = (await hit.json()) as Snapshot;
        // Never step back to an older version (a slow request may have put one after a change).
        const current = nowMs >= shared.fetchedAtMs && nowMs - shared.fetchedAtMs < ROOM_TABLE_SHARED_MS;
        if (current && shared.table.version >= (mine?.version ?? 0)) return this.take(shared, nowMs);
      }
      let fresh: Snapshot;
      try {
        fresh = { table: await source.read(), fetchedAtMs: nowMs };
      } catch (err) {
        if (mine && nowMs - this.fetchedAtMs < ROOM_TABLE_ON_ERROR_MS) return mine;
        throw err;
      }
      if (source.cache) {
        const body = new Response(JSON.stringify(fresh), {
          headers: { 'content-type': 'application/json', 'cache-control': `max-age=${Math.ceil(ROOM_TABLE_SHARED_MS / 1000)}` },
        });
        source.waitUntil(source.cache.put(CACHE_KEY, body).catch(() => {}));
      }
      return this.take(fresh, nowMs);
    } finally {
      if (this.refreshingSinceMs === marker) this.refreshingSinceMs = null;
    }
  }

  /**
   * Drops this isolate's copy and the data centre's (after an organizer change), so both route by
   * the new table on their next request.
   */
  async forget(cache: Cache | null): Promise<void> {
    this.compiled = null;
    this.takenAtMs = -Infinity;
    this.fetchedAtMs = -Infinity;
    await cache?.delete(CACHE_KEY).catch(() => false);
  }

  private take(snapshot: Snapshot, nowMs: number): CompiledTable {
    // The same version compiles to the same table: keep the one we have.
    if (!this.compiled || this.compiled.version !== snapshot.table.version) {
      this.compiled = compileTable(snapshot.table.rooms, snapshot.table.version);
    }
    this.takenAtMs = nowMs;
    this.fetchedAtMs = snapshot.fetchedAtMs;
    return this.compiled;
  }
}

/** The data centre's Cache API, when the runtime offers one. */
export function defaultCache(): Cache | null {
  return typeof caches === 'undefined' ? null : (caches as unknown as { default: Cache }).default;
}
