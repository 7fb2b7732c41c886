// Per-isolate memory for the admission session check (src/middleware/credentials.ts): sessions the
// WaitingRoom confirmed active (used only when the cursor carries no complete list of ended
// sessions), and visitors who left through this isolate (checked with the object until every
// cursor this isolate may still use was published after the leave).
import { CURSOR_MAX_STALE_MS } from './cursor-cache';

/** How long a confirmed session is trusted without asking the WaitingRoom again, ms. */
const SESSION_CACHE_MS = 5_000;
/**
 * How long a leave through this isolate sends the visitor's session checks to the WaitingRoom, ms:
 * longer than any cursor the isolate may use was fetched before the leave (CURSOR_MAX_STALE_MS).
 */
export const LEFT_HERE_MS = CURSOR_MAX_STALE_MS + 1_000;
/** Entries kept at most per map; a map is cleared when it grows past this (cheap, and refills quickly). */
const MAX_ENTRIES = 50_000;

const confirmed = new Map<string, number>();
const leftHere = new Map<string, number>();

const key = (eventId: string, visitorId: string, sessionId: string) => `${eventId}\n${visitorId}\n${sessionId}`;

/** True if this isolate confirmed the session within the last SESSION_CACHE_MS. */
export function sessionRecentlyActive(eventId: string, visitorId: string, sessionId: string, nowMs: number): boolean {
  const until = confirmed.get(key(eventId, visitorId, sessionId));
  return until !== undefined && until > nowMs;
}

/** Records that the WaitingRoom just confirmed the session active. */
export function rememberActiveSession(eventId: string, visitorId: string, sessionId: string, nowMs: number): void {
  if (confirmed.size >= MAX_ENTRIES) confirmed.clear();
  confirmed.set(key(eventId, visitorId, sessionId), nowMs + SESSION_CACHE_MS);
}

/**
 * The visitor left (or was revoked) through this isolate at `nowMs` (epoch ms): forgets their
 * confirmed sessions, and for LEFT_HERE_MS `leftRecently` says so, so this isolate ends the session
 * at once although its cursor may predate the leave. Other isolates see the leave in the cursor.
 */
export function forgetSessions(eventId: string, visitorId: string, nowMs: number): void {
  const prefix = `${eventId}\n${visitorId}\n`;
  for (const k of confirmed.keys()) if (k.startsWith(prefix)) confirmed.delete(k);
  if (leftHere.size >= MAX_ENTRIES) leftHere.clear();
  leftHere.set(`${eventId}\n${visitorId}`, nowMs + LEFT_HERE_MS);
}

/** True if the visitor left through this isolate within the last LEFT_HERE_MS. */
export function leftRecently(eventId: string, visitorId: string, nowMs: number): boolean {
  const until = leftHere.get(`${eventId}\n${visitorId}`);
  return until !== undefined && until > nowMs;
}
