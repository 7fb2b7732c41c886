// Drives one event's WaitingRoom and QueueShards at the RPC level with a test clock, through the
// edge's own turn (src/lib/visitor-turn.ts takeTurn) over the RPC stubs: no copy of its rules here.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import type { AdmissionCursor, Place } from '../../contracts/queue/cursor';
import { shardJoin } from '../../contracts/queue/shard-join';
import { shardName } from '../../contracts/names';
import type { AdmitAnswer, PassAnswer } from '../../contracts/room-answers';
import { takeTurn, type TurnPorts } from '../../src/lib/visitor-turn';
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

  /** The turn's ports over the RPC stubs (no edge cache, no rate limit). */
  private readonly ports: TurnPorts = {
    cursor: () => this.cursor(),
    join: async (cursor, visitorId, replaces) => {
      const req = shardJoin(cursor, visitorId, replaces, { lane: null });
      return (await this.shard(req.shard).join(req)) as Place;
    },
    admit: async (_eventId, visitorId, place) => (await this.room.admit(visitorId, place)) as AdmitAnswer,
    passThrough: async (_eventId, visitorId) => (await this.room.passThrough(visitorId)) as PassAnswer,
  };

  /** Joins at the visitor's shard (their place again if they have one); remembers the place. */
  async join(visitorId: string): Promise<Place> {
    const place = await this.ports.join(await this.cursor(), visitorId, null);
    this.places.set(visitorId, place);
    return place;
  }

  /** Fires one release tick at `nowMs` (all clocks set there). */
  async tick(nowMs: number): Promise<void> {
    await this.at(nowMs);
    await runInDurableObject(this.room, (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
    if (!(await runDurableObjectAlarm(this.room))) throw new Error('the release tick did not run');
  }

  /**
   * One status poll of a joined visitor, as the edge answers it (takeTurn): `admitted`, `waiting`
   * (with the position), or `requeued` to the back (the new place is remembered).
   */
  async poll(visitorId: string): Promise<{ kind: 'admitted' | 'waiting' | 'requeued'; position: number | null }> {
    const place = this.places.get(visitorId);
    if (!place) throw new Error(`${visitorId} has not joined`);
    const turn = await takeTurn(this.ports, {
      eventId: this.eventId,
      ticket: { visitorId, place },
      newVisitorId: visitorId,
      nowMs: this.nowMs,
    });
    switch (turn.kind) {
      case 'admitted':
        this.places.set(visitorId, turn.place);
        return { kind: 'admitted', position: null };
      case 'waiting':
        this.places.set(visitorId, turn.place);
        return turn.requeued ? { kind: 'requeued', position: null } : { kind: 'waiting', position: turn.view.position };
      case 'closed':
      case 'maintenance':
      case 'event_not_found':
        throw new Error(`${visitorId}: ${turn.kind}`);
    }
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
