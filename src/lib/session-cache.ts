// Per-isolate memory of admission sessions the WaitingRoom confirmed active, for a few seconds.

/** How long a confirmed session is trusted without asking the WaitingRoom again, ms. */
export const SESSION_CACHE_MS = 5_000;
/** Entries kept at most; the map is cleared when it grows past this (cheap, and refills quickly). */
const MAX_ENTRIES = 50_000;

const confirmed = new Map<string, number>();

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

/** Forgets every cached session of a visitor (they left). Other isolates forget within SESSION_CACHE_MS. */
export function forgetSessions(eventId: string, visitorId: string): void {
  const prefix = `${eventId}\n${visitorId}\n`;
  for (const k of confirmed.keys()) if (k.startsWith(prefix)) confirmed.delete(k);
}
