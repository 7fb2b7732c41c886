// Benchmark build for the cost of the per-minute history: the real WaitingRoom with methods that
// seed admissions straight into its tables and then write the history of many minutes back to
// back inside the object (the object's own work), plus a no-op object RPC as the floor.
import { DurableObject } from 'cloudflare:workers';
import { eventConfigInput } from '../contracts/event-input';
import { splitConfig } from '../contracts/event-config';
import { recordHistory } from '../durable-objects/waiting-room/history-tick';
import type { HistoryStore } from '../durable-objects/waiting-room/history-store';
import type { Room } from '../durable-objects/waiting-room/room-reads';
import type { RoomStore } from '../durable-objects/waiting-room/room-store';
import { WaitingRoom } from '../durable-objects/waiting-room/waiting-room';

const MINUTE_MS = 60_000;

/** The WaitingRoom with a seeding method and a loop over the history's minute write. */
export class HistoryRoom extends WaitingRoom {
  /** No release tick here: the bench writes the history itself. */
  override async alarm(): Promise<void> {}

  /**
   * `backlog` admissions that ended an hour before `t0` (a sale's earlier buyers: the table keeps
   * every admission), then `perMinute` admissions in each of `minutes` minutes from `t0`.
   */
  async seed(backlog: number, perMinute: number, minutes: number, t0: number): Promise<number> {
    const sql = this.ctx.storage.sql;
    const insert = (id: string, bucket: number, admittedAt: number, state: string) =>
      sql.exec(
        'INSERT INTO wr_admissions (visitor_id, place, released_at, admitted_at, expires_at, state) VALUES (?, ?, ?, ?, ?, ?)',
        id,
        `${bucket}:0:0`,
        admittedAt - 1_000,
        admittedAt,
        admittedAt + 600_000,
        state,
      );
    for (let i = 0; i < backlog; i++) insert(`b${i}`, Math.floor((t0 - 7_200_000) / 1000), t0 - 3_600_000 - i, 'left');
    for (let m = 0; m < minutes; m++)
      for (let i = 0; i < perMinute; i++) {
        const at = t0 + m * MINUTE_MS + Math.floor((i * MINUTE_MS) / perMinute);
        insert(`m${m}-${i}`, Math.floor((at - 300_000 - i * 10) / 1000), at, 'admitted');
      }
    return backlog + perMinute * minutes;
  }

  /** The history rows of `minutes` minutes from `t0`, written one after another as the alarm would. */
  async historyMinutes(minutes: number, t0: number): Promise<number> {
    const self = this as unknown as { store: RoomStore; history: HistoryStore; runtime: { room(atMs?: number): Room | null } };
    let written = 0;
    for (let m = 1; m <= minutes; m++) {
      const now = t0 + m * MINUTE_MS + 1_000;
      if (recordHistory(self.store, self.history, self.runtime.room(now)!, now, 1_000)) written++;
    }
    return written;
  }
}

/** An object whose method does nothing: the round trip the bench's floor is. */
export class Noop extends DurableObject {
  async noop(): Promise<number> {
    return 0;
  }
}

export default {
  async fetch(request: Request, env: { WAITING_ROOM: DurableObjectNamespace<HistoryRoom>; NOOP: DurableObjectNamespace<Noop> }) {
    const url = new URL(request.url);
    const q = (k: string) => Number(url.searchParams.get(k));
    const event = url.searchParams.get('event') ?? 'history';
    const room = env.WAITING_ROOM.getByName(event);
    switch (url.pathname) {
      case '/configure': {
        const input = eventConfigInput.parse({ releaseRatePerMinute: 10_000, maxActiveVisitors: 100_000, seats: 50_000 });
        return Response.json((await room.configure(splitConfig(event, input).queue)).kind);
      }
      case '/seed':
        return Response.json(await room.seed(q('backlog'), q('perMinute'), q('minutes'), q('t0')));
      case '/history':
        return Response.json(await room.historyMinutes(q('minutes'), q('t0')));
      case '/noop-rpc': {
        const stub = env.NOOP.getByName('noop');
        for (let i = 0; i < q('n'); i++) await stub.noop();
        return Response.json(q('n'));
      }
      default:
        return new Response('not found', { status: 404 });
    }
  },
};
