// Seat maps served lately, by this isolate and through the Cache API by its data centre: keyed only
// by values the gateway normalizes, bounded in bytes.
import type { SeatMapAnswer } from '../../contracts/inventory-answers';

/** A seat map is reused by this isolate and its data centre for this long, ms (it is the same for every visitor). */
export const SNAPSHOT_CACHE_MS = 1_000;
/**
 * A delta's `since` is rounded down to a multiple of this many versions, so at most a few hundred
 * distinct deltas per event can be asked for (a lower `since` is still right: the answer is a
 * superset of the changes, each with its latest status).
 */
export const SINCE_STEP = 256;
/** Cached seat-map bodies of this isolate together stay below this many bytes (a 100,000-seat snapshot is ~3.6 MB). */
export const MAP_CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** Deltas reaching further back than this get the snapshot (as the Inventory, which prunes its deltas there). */
export const DELTA_WINDOW = 20_000;

interface Entry {
  /** When it was read from the Inventory, epoch ms (edge clock). */
  at: number;
  body: string | null;
  bytes: number;
}

const MAX_EVENTS = 1_000;
/** At most this many cached answers, whatever their size (not-found answers weigh 0 bytes). */
const MAX_ENTRIES = 4_096;

/**
 * The cache key a client's `since` maps to: undefined = the snapshot. A `since` at or above the
 * newest version this isolate saw is served the delta from that version; one further back than
 * DELTA_WINDOW gets the snapshot; anything between is rounded down to SINCE_STEP. So whatever a
 * client sends, an event has at most DELTA_WINDOW / SINCE_STEP + 2 keys.
 *
 * @param since the client's `since` (a whole number), or undefined
 * @param known the newest version seen for the event, or undefined
 */
export function normalizeSince(since: number | undefined, known: number | undefined): number | undefined {
  if (since === undefined) return undefined;
  if (known !== undefined) {
    if (since >= known) return known;
    if (known - since > DELTA_WINDOW) return undefined;
  }
  return since - (since % SINCE_STEP);
}

/** The Cache API of this data centre, when the runtime offers one. */
function sharedCache(): Cache | null {
  return typeof caches === 'undefined' ? null : (caches as unknown as { default: Cache }).default;
}

/** When a shared copy was read from the Inventory (epoch ms), and its map version. */
const AT_HEADER = 'x-wr-map-at';
const VERSION_HEADER = 'x-wr-map-version';

/**
 * The data centre's copy at `url` while it is fresh, else null; a Cache API that fails is a miss
 * (the Inventory answers instead), never the visitor's error.
 */
async function readShared(cache: Cache | null, url: string, nowMs: number): Promise<{ at: number; body: string; version: number } | null> {
  try {
    const res = await cache?.match(url);
    if (!res) return null;
    const at = Number(res.headers.get(AT_HEADER));
    if (!fresh(at, nowMs)) {
      await res.body?.cancel();
      return null;
    }
    return { at, body: await res.text(), version: Number(res.headers.get(VERSION_HEADER)) };
  } catch {
    return null;
  }
}

/** Whether a copy read at `at` may still be served at `nowMs` (a clock that went back reads again). */
function fresh(at: number, nowMs: number): boolean {
  return nowMs >= at && nowMs - at < SNAPSHOT_CACHE_MS;
}

/** The seat maps one isolate keeps (the gateway has one per isolate: `cachedSeatMap`). */
export class IsolateSeatMaps {
  private readonly entries = new Map<string, Entry>();
  private cachedBytes = 0;
  /** The highest map version this isolate saw per event: a `since` above it is served from it. */
  private readonly latestVersion = new Map<string, number>();
  /** Events with sections: their map is always the merged snapshot, whatever `since` says, so one key. */
  private readonly merged = new Set<string>();

  /**
   * The serialized seat map for (event, since): from this isolate's memory when read under
   * SNAPSHOT_CACHE_MS ago, else from the data centre's Cache API when read under SNAPSHOT_CACHE_MS
   * ago, else from `load` (the Inventory), then kept in both. So an Inventory object answers each
   * key about once a second per data centre, not per isolate. Null when the event does not exist
   * (kept in this isolate only).
   *
   * @param eventId the object's name (an event, or an event's section)
   * @param load reads the map for the normalized `since` (undefined = snapshot)
   * @param nowMs the edge clock, epoch ms
   * @param waitUntil keeps the Cache API write alive after the response
   */
  async get(
    eventId: string,
    since: number | undefined,
    load: (since: number | undefined) => Promise<SeatMapAnswer>,
    nowMs: number,
    waitUntil: (p: Promise<unknown>) => void,
  ): Promise<string | null> {
    const key = this.merged.has(eventId) ? undefined : normalizeSince(since, this.latestVersion.get(eventId));
    const cacheKey = `${eventId}\n${key ?? ''}`;
    const hit = this.entries.get(cacheKey);
    if (hit && fresh(hit.at, nowMs)) return hit.body;
    const cache = sharedCache();
    const url = `https://wr-seatmap.internal/${encodeURIComponent(eventId)}/${key ?? 'snapshot'}`;
    const shared = await readShared(cache, url, nowMs);
    if (shared) {
      this.remember(eventId, cacheKey, { at: shared.at, body: shared.body, bytes: shared.body.length }, shared.version, nowMs);
      return shared.body;
    }
    const answer = await load(key);
    if (answer.kind !== 'map') {
      this.store(cacheKey, { at: nowMs, body: null, bytes: 0 }, nowMs);
      return null;
    }
    if (answer.sections.length && key !== undefined) {
      if (this.merged.size >= MAX_EVENTS) this.merged.clear();
      this.merged.add(eventId);
    }
    this.remember(eventId, cacheKey, { at: nowMs, body: answer.json, bytes: answer.json.length }, answer.version, nowMs);
    if (cache) {
      const res = new Response(answer.json, {
        headers: {
          'content-type': 'application/json',
          'cache-control': `max-age=${Math.ceil(SNAPSHOT_CACHE_MS / 1000)}`,
          [AT_HEADER]: String(nowMs),
          [VERSION_HEADER]: String(answer.version),
        },
      });
      waitUntil(cache.put(url, res).catch(() => {}));
    }
    return answer.json;
  }

  /** Bytes of seat maps this isolate keeps now. */
  bytes(): number {
    return this.cachedBytes;
  }

  /** Keeps a map and notes its version as the event's newest seen. */
  private remember(eventId: string, cacheKey: string, entry: Entry, version: number, nowMs: number): void {
    if (!this.latestVersion.has(eventId) && this.latestVersion.size >= MAX_EVENTS) this.latestVersion.clear();
    if (Number.isSafeInteger(version)) this.latestVersion.set(eventId, Math.max(version, this.latestVersion.get(eventId) ?? 0));
    this.store(cacheKey, entry, nowMs);
  }

  private store(key: string, entry: Entry, nowMs: number): void {
    this.drop(key);
    if (entry.bytes > MAP_CACHE_MAX_BYTES) return;
    // Oldest first (Map keeps insertion order): stale entries go, then the oldest live ones.
    for (const [k, e] of this.entries) {
      if (this.cachedBytes + entry.bytes <= MAP_CACHE_MAX_BYTES && this.entries.size < MAX_ENTRIES && fresh(e.at, nowMs)) break;
      this.drop(k);
    }
    this.entries.set(key, entry);
    this.cachedBytes += entry.bytes;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.cachedBytes -= e.bytes;
  }
}

const isolate = new IsolateSeatMaps();

/** This isolate's `IsolateSeatMaps.get`. */
export function cachedSeatMap(
  eventId: string,
  since: number | undefined,
  load: (since: number | undefined) => Promise<SeatMapAnswer>,
  nowMs: number,
  waitUntil: (p: Promise<unknown>) => void = () => {},
): Promise<string | null> {
  return isolate.get(eventId, since, load, nowMs, waitUntil);
}

/** Bytes of seat maps this isolate keeps now (for tests and the benchmark). */
export function seatMapCacheBytes(): number {
  return isolate.bytes();
}
