// An isolate's memory of room matches (contracts/room-patterns.ts matchRoom) for the compiled table
// it holds: a sale's requests come back to a few paths (the sale page, its assets and API), so most
// skip the path's normal form and the table walk.
import { matchRoom, type CompiledTable, type RoomMatch } from '../../contracts/room-patterns';

/** Paths longer than this are matched every time (their keys would cost more memory than the walk). */
const MEMO_PATH_MAX = 256;

/**
 * `matchRoom` with a bounded memory per compiled table: the same method, host and path against
 * the same table object answer the same match (matchRoom is pure). Another table (a refresh)
 * forgets every entry; at `maxEntries` the memory starts over.
 */
export class RoomMatches {
  private table: CompiledTable | null = null;
  private readonly memo = new Map<string, RoomMatch>();

  /** @param maxEntries bound on the matches kept (at least 1) */
  constructor(readonly maxEntries = 1_024) {}

  /** Matches kept now. */
  get size(): number {
    return this.memo.size;
  }

  /** As `matchRoom(table, method, hostname, pathname)`. */
  match(table: CompiledTable, method: string, hostname: string, pathname: string): RoomMatch {
    if (pathname.length > MEMO_PATH_MAX) return matchRoom(table, method, hostname, pathname);
    if (table !== this.table) {
      this.table = table;
      this.memo.clear();
    }
    const key = `${method} ${hostname} ${pathname}`;
    let match = this.memo.get(key);
    if (!match) {
      match = matchRoom(table, method, hostname, pathname);
      if (this.memo.size >= this.maxEntries) this.memo.clear();
      this.memo.set(key, match);
    }
    return match;
  }
}
