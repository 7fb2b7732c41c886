// A visitor for tests: its own cookie jar, requests through the gateway's real fetch handler.
import { env, exports } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { BUCKET_MS } from '../../contracts/queue/cursor';
import { shardName } from '../../contracts/names';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { BASE, adminHeaders } from './gateway';

export { BASE };

/** One browser: keeps the cookies the gateway sets. */
export class Visitor {
  readonly cookies = new Map<string, string>();

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await exports.default.fetch(new Request(BASE + path, { ...init, headers }));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    return res;
  }

  async json<T = Record<string, unknown>>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; res: Response }> {
    const res = await this.fetch(path, {
      ...init,
      headers: { accept: 'application/json', 'content-type': 'application/json', ...init.headers },
    });
    return { status: res.status, body: (await res.json()) as T, res };
  }

  /** Places a hold through the gateway. */
  hold(eventId: string, seatIds: string[], key: string = crypto.randomUUID()) {
    return this.json<Record<string, unknown>>(`/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { 'idempotency-key': key },
      body: JSON.stringify({ seatIds }),
    });
  }
}

/** A fresh, unique event id per test. */
export function freshEventId(prefix = 'ev'): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Creates an event through the admin API; returns the response body. */
export async function createEvent(eventId: string, config: Record<string, unknown> = {}): Promise<Response> {
  return exports.default.fetch(
    new Request(`${BASE}/_wr/admin/events/${eventId}`, {
      method: 'PUT',
      headers: adminHeaders(),
      body: JSON.stringify({
        releaseRatePerMinute: 600,
        minReleaseRatePerMinute: 600,
        maxActiveVisitors: 1000,
        seats: 100,
        seatsPerRow: 10,
        ...config,
      }),
    }),
  );
}

/**
 * Moves the clocks of the event's queue shards one bucket ahead, so every arrival so far is sealed
 * at the next count (in production that is simply the next second).
 */
export async function sealArrivals(eventId: string): Promise<void> {
  const room = env.WAITING_ROOM.getByName(eventId);
  const shards = await runInDurableObject(
    room,
    (_obj, state) => state.storage.sql.exec<{ shards: number }>('SELECT shards FROM wr_room').toArray()[0]?.shards ?? 1,
  );
  for (let k = 0; k < shards; k++) {
    await runInDurableObject(env.QUEUE_SHARD.getByName(shardName(eventId, k)), (obj: QueueShard) => {
      const skewed = obj as QueueShard & { skewMs?: number };
      skewed.skewMs = (skewed.skewMs ?? 0) + BUCKET_MS;
      obj.clock = () => Date.now() + skewed.skewMs!;
    });
  }
}

/**
 * Runs the waiting room's release tick `n` times (the object's alarm), as the platform would, with
 * every arrival so far sealed, and drops the edge's cached cursor so the next poll sees the result.
 */
export async function tick(eventId: string, n = 1): Promise<void> {
  const stub = env.WAITING_ROOM.getByName(eventId);
  for (let i = 0; i < n; i++) {
    await sealArrivals(eventId);
    // No sleeping: pretend the last tick was 5 s ago (the most one tick may earn), arm the alarm
    // for now, and fire it the way the runtime would.
    await runInDurableObject(stub, async (_room, state) => {
      state.storage.sql.exec('UPDATE wr_room SET last_tick_at = last_tick_at - 5000');
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    if (!(await runDurableObjectAlarm(stub))) throw new Error('the release tick did not run');
  }
  await forgetCursor(eventId);
}

/**
 * Has the room count every arrival so far (sealed, as a second later), without a release tick,
 * and drops the edge's cached cursor: the next poll shows each visitor's counted place.
 */
export async function countArrivals(eventId: string): Promise<void> {
  await sealArrivals(eventId);
  await env.WAITING_ROOM.getByName(eventId).stats();
  await forgetCursor(eventId);
}

/** Joins a new visitor and ticks until they are admitted. */
export async function admittedVisitor(eventId: string): Promise<Visitor> {
  const v = new Visitor();
  const joined = await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
  if (joined.status !== 200) throw new Error(`join failed: ${JSON.stringify(joined.body)}`);
  for (let i = 0; i < 20; i++) {
    const s = await v.json<{ state: string }>(`/_wr/events/${eventId}/status`);
    if (s.body.state === 'admitted') return v;
    await tick(eventId);
  }
  throw new Error('visitor was never admitted');
}
