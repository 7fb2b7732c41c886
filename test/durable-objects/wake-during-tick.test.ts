// Regression: a join whose wake() reaches the WaitingRoom while a release tick is in flight (after the tick has
// collected the shard counts, before it re-arms) is lost: the tick, not counting the new arrival,
// deletes the alarm the wake just armed, and the shard stays "announced", so no later join wakes
// the room either. The queue stalls with visitors waiting and the sale open.
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';
import { shardName } from '../../contracts/names';

it('a join that wakes the room during a tick still gets a release tick', async () => {
  const eventId = freshEventId();
  const q = new QueueHarness(eventId);
  await q.room.configure(queueConfig(eventId, { maxActiveVisitors: 100 }));
  const t0 = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await q.at(t0);
  // While the tick awaits the shards' counts (other requests run at that await), a visitor joins;
  // the shard's announce() wakes the room.
  await runInDurableObject(q.room, (obj: WaitingRoom) => {
    // The tick's own step (room-runtime.ts RoomRuntime.collectArrivals), wrapped.
    const o = (obj as unknown as { runtime: { collectArrivals: (room: unknown) => Promise<void> } }).runtime;
    const real = o.collectArrivals.bind(o);
    let once = true;
    o.collectArrivals = async (room: unknown) => {
      await real(room);
      if (once) {
        once = false;
        // The join as the edge sends it, from inside this object's I/O context.
        const e = (obj as unknown as { env: Env }).env;
        await e.QUEUE_SHARD.getByName(shardName(eventId, 0)).join({
          eventId,
          shard: 0,
          visitorId: 'late',
          lottery: false,
          saleStartsAtMs: 0,
          again: false,
        });
      }
    };
  });
  await q.tick(t0 + 100);
  // More visitors join the same shard afterwards.
  await q.at(t0 + 5_000);
  for (let i = 0; i < 3; i++) await q.join(`later-${i}`);
  // Expected: a release tick is armed (4 visitors wait). Observed: no alarm at all.
  expect(await runInDurableObject(q.room, (_o, s) => s.storage.getAlarm())).not.toBeNull();
});
