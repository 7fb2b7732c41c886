// The room table as the EventDirectory stores it and the edge caches it: which event covers which
// URL patterns (grammar and matcher: contracts/room-patterns.ts).
import type { RoomRules } from './room-patterns';

/** The room table: every room, and a version that grows with every change. */
export interface RoomTable {
  version: number;
  rooms: RoomRules[];
}

/** A room's rules with the normal-form keys of its patterns (two patterns with one key cover the same URLs). */
export interface RoomClaim {
  room: RoomRules;
  keys: string[];
}

/**
 * Outcome of `EventDirectory.claimRoom`: claimed (with what the event had before, for
 * `restoreRoom`), or a pattern key another event already holds (nothing changed).
 */
export type ClaimAnswer =
  { kind: 'claimed'; previous: RoomClaim | null; version: number } | { kind: 'taken'; key: string; eventId: string };
