// Seat maps this isolate served lately: keyed only by values the gateway normalizes, bounded in bytes.
import type { SeatMapAnswer } from '../../contracts/inventory-answers';

/** A seat map is reused by this isolate for this long, ms (it is the same for every visitor). */
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
  at: number;
  body: string | null;
  bytes: number;
}

const entries = new Map<string, Entry>();
let cachedBytes = 0;
/** The highest map version this isolate saw per event: a `since` above it is served from it. */
const latestVersion = new Map<string, number>();
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

/**
 * The serialized seat map for (event, since), from this isolate's cache when younger than
 * SNAPSHOT_CACHE_MS, else from `load` (the Inventory). `body` is null when the event does not exist.
 *
 * @param load reads the map for the normalized `since` (undefined = snapshot)
 * @param nowMs the edge clock, epoch ms
 */
export async function cachedSeatMap(
  eventId: string,
  since: number | undefined,
  load: (since: number | undefined) => Promise<SeatMapAnswer>,
  nowMs: number,
): Promise<string | null> {
  const key = normalizeSince(since, latestVersion.get(eventId));
  const cacheKey = `${eventId}\n${key ?? ''}`;
  const hit = entries.get(cacheKey);
  if (hit && nowMs - hit.at < SNAPSHOT_CACHE_MS && nowMs >= hit.at) return hit.body;
  const answer = await load(key);
  const body = answer.kind === 'map' ? JSON.stringify(answer.map) : null;
  if (answer.kind === 'map') {
    if (!latestVersion.has(eventId) && latestVersion.size >= MAX_EVENTS) latestVersion.clear();
    latestVersion.set(eventId, Math.max(answer.map.version, latestVersion.get(eventId) ?? 0));
  }
  store(cacheKey, { at: nowMs, body, bytes: body?.length ?? 0 }, nowMs);
  return body;
}

/** Bytes of seat maps this isolate keeps now (for tests and the benchmark). */
export function seatMapCacheBytes(): number {
  return cachedBytes;
}

function store(key: string, entry: Entry, nowMs: number): void {
  drop(key);
  if (entry.bytes > MAP_CACHE_MAX_BYTES) return;
  // Oldest first (Map keeps insertion order): stale entries go, then the oldest live ones.
  for (const [k, e] of entries) {
    if (cachedBytes + entry.bytes <= MAP_CACHE_MAX_BYTES && entries.size < MAX_ENTRIES && nowMs - e.at < SNAPSHOT_CACHE_MS) break;
    drop(k);
  }
  entries.set(key, entry);
  cachedBytes += entry.bytes;
}

function drop(key: string): void {
  const e = entries.get(key);
  if (!e) return;
  entries.delete(key);
  cachedBytes -= e.bytes;
}
