// One admission cursor fixture for the unit tests of the edge's poll answers and the visitor's turn.
import type { AdmissionCursor } from '../../contracts/queue/cursor';

/** An open FIFO cursor of event `ev` (1 shard, 60 admissions a minute), with `o` laid over it. */
export function testCursor(o: Partial<AdmissionCursor> = {}): AdmissionCursor {
  return {
    eventId: 'ev',
    eventName: 'Ev',
    policy: 'fifo',
    saleStartsAtMs: 0,
    page: {},
    pageStatus: 200,
    commitment: null,
    mode: 'open',
    soldOut: false,
    shards: 1,
    idleTimeoutMs: 300_000,
    fifo: { bucket: 10, idx: 0, shard: 0 },
    draw: null,
    queue: [],
    admitPerMinute: 60,
    publishedAtMs: 0,
    ...o,
  };
}
