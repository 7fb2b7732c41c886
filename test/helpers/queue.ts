// Drives one event's WaitingRoom and QueueShards at the RPC level with a test clock, the way the
// edge does (src/routes/queue.ts): join at the visitor's shard, poll from the cursor, admit once released.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { shardOf, viewPlace, isPre, type AdmissionCursor, type Place } from '../../contracts/queue/cursor';
import { lotteryKey } from '../../contracts/queue/queue-policy';
import { shardName } from '../../contracts/names';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { eventConfigInput, splitConfig, type QueueConfig } from '../../contracts/event-config';

export class QueueHarness {
  readonly room: DurableObjectStub<WaitingRoom>;
  readonly places = new Map<string, Place>();
  nowMs = Date.now();

  constructor(readonly eventId: string) {
    this.room = env.WAITING_ROOM.getByName(eventId);
  }

  shard(k: number): DurableObjectStub<QueueShard> {
    return env.QUEUE_SHARD.getByName(shardName(this.eventId, k));
  }

  async cursor(): Promise<AdmissionCursor> {
    return (await this.room.cursor()) as AdmissionCursor;
  }

  /** Sets the clock of the room and of all its shards, epoch ms. */
  async at(nowMs: number): Promise<void> {
    this.nowMs = nowMs;
    await runInDurableObject(this.room, (obj: WaitingRoom) => (obj.clock = () => nowMs));
    const { shards } = await this.cursor();
    for (let k = 0; k < shards; k++) await runInDurableObject(this.shard(k), (obj: QueueShard) => (obj.clock = () => nowMs));
  }

  /** Joins (or, with `again`, re-joins at the back) at the visitor's shard; remembers the place. */
  async join(visitorId: string, again = false): Promise<Place> {
    const c = await this.cursor();
    const shard = shardOf(visitorId, c.shards);
    const place = (await this.shard(shard).join({
      eventId: this.eventId,
      shard,
      visitorId,
      lottery: c.policy === 'random',
      saleStartsAtMs: c.saleStartsAtMs,
      again,
    })) as Place;
    this.places.set(visitorId, place);
    return place;
  }

  /** Fires one release tick at `nowMs` (all clocks set there). */
  async tick(nowMs: number): Promise<void> {
    await this.at(nowMs);
    await runInDurableObject(this.room, (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
    if (!(await runDurableObjectAlarm(this.room))) throw new Error('the release tick did not run');
  }

  /** One poll as the edge answers it: `admitted`, `waiting` (with the view), or `requeued` to the back. */
  async poll(visitorId: string): Promise<{ kind: 'admitted' | 'waiting' | 'requeued'; position: number | null }> {
    const c = await this.cursor();
    const place = this.places.get(visitorId)!;
    const key = isPre(place) && c.draw?.seed ? await lotteryKey(c.draw.seed, visitorId) : null;
    const view = viewPlace(c, place, key, this.nowMs);
    if (!view.released) return { kind: 'waiting', position: view.position };
    const a = await this.room.admit(visitorId, place);
    if (a.kind === 'admitted') return { kind: 'admitted', position: null };
    if (a.kind === 'requeue') {
      await this.join(visitorId, true);
      return { kind: 'requeued', position: null };
    }
    return { kind: 'waiting', position: view.position };
  }

  /** Visitors admitted so far, in admission order (time, then place order). */
  async admittedOrder(): Promise<string[]> {
    return runInDurableObject(this.room, (_obj, state) =>
      state.storage.sql
        .exec<{ visitor_id: string }>(`SELECT visitor_id FROM wr_admissions ORDER BY admitted_at, rowid`)
        .toArray()
        .map((r) => r.visitor_id),
    );
  }
}

/** A queue config for RPC-level tests: 600 a minute fixed, room for 10,000 active, then `overrides` (PUT body fields). */
export function queueConfig(eventId: string, overrides: Record<string, unknown> = {}): QueueConfig {
  const input = eventConfigInput.parse({
    releaseRatePerMinute: 600,
    minReleaseRatePerMinute: 600,
    maxActiveVisitors: 10_000,
    seats: 10,
    ...overrides,
  });
  return splitConfig(eventId, input).queue;
}
