// Regression: a queue shard marked itself "announced" before its wake() call to the WaitingRoom returned.
// If that one wake fails (overloaded room, reset, network), the flag stays set and no later join
// ever wakes the room again: an idle room with no alarm never ticks, and the queue stalls.
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

it('a single failed wake() does not leave later arrivals without a release tick', async () => {
  const eventId = freshEventId();
  const q = new QueueHarness(eventId);
  await q.room.configure(queueConfig(eventId, { maxActiveVisitors: 100 }));
  const t0 = Date.now();
  // The room goes idle: a tick with nobody waiting deletes its alarm (ensureAlarm fromAlarm).
  await q.tick(t0);
  expect(await runInDurableObject(q.room, (_o, s) => s.storage.getAlarm())).toBeNull();

  // The first arrival's wake() fails once (e.g. the room is briefly overloaded).
  await runInDurableObject(q.room, (obj: WaitingRoom) => {
    // The alarm as `wake` arms it (room-runtime.ts RoomRuntime.ensureAlarm).
    const o = (obj as unknown as { runtime: { ensureAlarm: (now: number) => Promise<void> } }).runtime;
    const real = o.ensureAlarm.bind(o);
    let failures = 1;
    o.ensureAlarm = async (now: number) => {
      if (failures-- > 0) throw new Error('injected: the room did not answer the wake');
      return real(now);
    };
  });
  await q.at(t0 + 10);
  // The join itself succeeds: the place is stored whatever the wake did.
  const first = await q.join('first');
  expect(await q.join('first')).toEqual(first);
  // More visitors arrive afterwards; one of their joins wakes the room.
  for (let i = 0; i < 5; i++) await q.join(`later-${i}`);
  // Expected: some wake got through, so the release tick is armed. Observed: no alarm at all.
  expect(await runInDurableObject(q.room, (_o, s) => s.storage.getAlarm())).not.toBeNull();
});
