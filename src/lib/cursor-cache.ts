// The admission cursor at the edge: cached per isolate and in the Cache API for about a second, so
// a waiting visitor's poll costs no Durable Object call (DESIGN.md section 7).
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { callDurableObject } from './do-call';

/** How long an isolate (and the Cache API) reuses a cursor, ms. */
export const CURSOR_CACHE_MS = 1_000;
/** A cursor fetched longer ago than this is never used, whatever the cache says, ms. */
export const CURSOR_MAX_STALE_MS = 2_000;

interface Cached {
  cursor: AdmissionCursor | null;
  fetchedAtMs: number;
}

const local = new Map<string, Cached>();
/** The request of this isolate refreshing an event's cursor, and when it started (epoch ms). */
const refreshing = new Map<string, { since: number }>();
const LOCAL_MAX = 10_000;

function cacheKey(eventId: string): string {
  return `https://wr-cursor.internal/${encodeURIComponent(eventId)}`;
}

/** The Cache API of this data centre, when the runtime offers one. */
function sharedCache(): Cache | null {
  return typeof caches === 'undefined' ? null : (caches as unknown as { default: Cache }).default;
}

/**
 * The event's admission cursor, or null when the event does not exist: from this isolate's
 * memory if fetched under CURSOR_CACHE_MS ago, else from the Cache API if fetched under
 * CURSOR_MAX_STALE_MS ago, else from the WaitingRoom (then stored in both). While one request of
 * the isolate refreshes, the others answer from the copy they have if it is under
 * CURSOR_MAX_STALE_MS old, so an isolate reads the object about once a second however busy it is.
 * The staleness of any answer is thus at most CURSOR_MAX_STALE_MS plus one release tick; it can
 * only delay an admission, never grant one (the WaitingRoom checks every admission itself).
 *
 * @param fetchCursor the WaitingRoom's `cursor()` call
 * @param waitUntil keeps the Cache API write alive after the response
 * @throws GatewayError OVERLOADED when the object is overloaded (never retried; see do-call.ts)
 */
export async function readCursor(
  eventId: string,
  nowMs: number,
  fetchCursor: () => Promise<AdmissionCursor | null>,
  waitUntil: (p: Promise<unknown>) => void = () => {},
): Promise<AdmissionCursor | null> {
  const mine = local.get(eventId);
  const age = mine ? nowMs - mine.fetchedAtMs : Infinity;
  if (mine && age >= 0 && age < CURSOR_CACHE_MS) return mine.cursor;
  // One request per isolate refreshes; the others keep the copy they have while it is within the
  // staleness bound (no promise is shared across requests: Workers ties I/O to its request).
  const since = refreshing.get(eventId)?.since;
  if (mine && age >= 0 && age < CURSOR_MAX_STALE_MS && since !== undefined && nowMs - since < CURSOR_MAX_STALE_MS) return mine.cursor;
  const marker = { since: nowMs };
  refreshing.set(eventId, marker);
  try {
    const cache = sharedCache();
    // A Cache API that fails is a miss: the WaitingRoom answers instead.
    const cached = await cache
      ?.match(cacheKey(eventId))
      .then((hit) => (hit ? (hit.json() as Promise<Cached>) : null))
      .catch(() => null);
    if (cached && nowMs - cached.fetchedAtMs < CURSOR_MAX_STALE_MS && nowMs >= cached.fetchedAtMs) {
      remember(eventId, cached);
      return cached.cursor;
    }
    const fresh: Cached = {
      cursor: await callDurableObject(fetchCursor, { idempotent: true, name: 'waitingRoom.cursor', eventId }),
      fetchedAtMs: nowMs,
    };
    remember(eventId, fresh);
    if (cache && fresh.cursor) {
      const res = new Response(JSON.stringify(fresh), {
        headers: { 'content-type': 'application/json', 'cache-control': `max-age=${Math.ceil(CURSOR_CACHE_MS / 1000)}` },
      });
      waitUntil(cache.put(cacheKey(eventId), res).catch(() => {}));
    }
    return fresh.cursor;
  } finally {
    // Only this request's own marker: a later refresher's stays.
    if (refreshing.get(eventId) === marker) refreshing.delete(eventId);
  }
}

/** Drops the event's cursor from this isolate and the Cache API (after an organizer change). */
export async function forgetCursor(eventId: string): Promise<void> {
  local.delete(eventId);
  refreshing.delete(eventId);
  await sharedCache()
    ?.delete(cacheKey(eventId))
    .catch(() => false);
}

function remember(eventId: string, entry: Cached): void {
  if (local.size >= LOCAL_MAX) local.clear();
  local.set(eventId, entry);
}
