// The WaitingRoom's SQL for what the cursor publishes about positions: the seal of the counted
// arrivals, and the draw's marks that let the edge read an entrant's exact rank (or its range).
import type { DrawMarks } from '../../contracts/queue/cursor';
import { MARK_HEX } from '../../contracts/queue/place-view';
import type { Sql } from '../shared/sql';

/** The draw's next ranks the cursor lists key by key (exact ranks for them). */
const DRAW_NEXT_MARKS = 256;
/** About how many fixed marks the cursor lists beyond the next ranks (ranges for the rest). */
const DRAW_FIXED_MARKS = 256;

/** Position queries over the synchronous SQLite API (no await inside any of them). */
export class PositionStore {
  constructor(private readonly sql: Sql) {}

  /**
   * The first bucket some shard may still add to: the lowest seal the room's `shards` shards
   * reported; 0 until every one of them has reported (nothing is final yet).
   */
  sealedBefore(shards: number): number {
    const s = this.sql.one<{ n: number; min: number | null }>`
      SELECT COUNT(*) AS n, MIN(sealed_before) AS min FROM wr_shards WHERE shard < ${shards}`;
    return s && s.n === shards && s.min !== null ? s.min : 0;
  }

  /**
   * The draw's marks after `released` of `size` ranks (contracts/queue/cursor.ts DrawMarks): the
   * next DRAW_NEXT_MARKS ranks' key prefixes, and past them every `step`-th rank's and the last
   * one's, `step` fixed by the size so that about DRAW_FIXED_MARKS cover the whole draw.
   */
  drawMarks(released: number, size: number): DrawMarks {
    const step = Math.max(1, Math.ceil(size / DRAW_FIXED_MARKS));
    const next = this.sql.all<{ key: string }>`SELECT key FROM wr_draw WHERE rank > ${released} ORDER BY rank LIMIT ${DRAW_NEXT_MARKS}`.map(
      (r) => r.key.slice(0, MARK_HEX),
    );
    const from = released + next.length;
    const first = (Math.floor(from / step) + 1) * step;
    const fixed =
      from >= size
        ? []
        : this.sql.all<{ rank: number; key: string }>`
              WITH RECURSIVE r(n) AS (SELECT ${first} UNION ALL SELECT n + ${step} FROM r WHERE n + ${step} <= ${size})
              SELECT rank, key FROM wr_draw WHERE rank IN (SELECT n FROM r) OR rank = ${size} ORDER BY rank`.map((r): [number, string] => [
            r.rank,
            r.key.slice(0, MARK_HEX),
          ]);
    return { released, next, step, fixed };
  }
}
