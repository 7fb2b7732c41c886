// Claims after a released place stopped holding a slot: the organizer's
// max active visitors is a ceiling for every claim, a late claim waits for a free slot with its
// place kept, and the next free slots go to the visitors who asked first, before new releases.
import { describe, expect, it } from 'vitest';
import { freshEventId } from '../helpers/client';
import { QueueHarness, queueConfig } from '../helpers/queue';

describe('late claims', () => {
  // Failing input: max active 5, 150 joins whose tickets did not poll for 2 minutes, then all
  // polled: 150 admitted (`active 150, activeLimit 5, maxActiveVisitors 5`).
  it(
    'visitors who come back after their places stopped holding slots are admitted up to the max, the rest wait first-come',
    { timeout: 60_000 },
    async () => {
      const eventId = freshEventId();
      const q = new QueueHarness(eventId);
      await q.room.configure(queueConfig(eventId, { releaseRatePerMinute: 120, minReleaseRatePerMinute: 120, maxActiveVisitors: 5 }));
      const t0 = Date.now();
      await q.at(t0);
      const ids = Array.from({ length: 40 }, (_, i) => `late${String(i).padStart(2, '0')}-${crypto.randomUUID().slice(0, 6)}`);
      for (const id of ids) await q.join(id);
      // Two minutes of ticks with nobody polling: unclaimed places stop being expected and more are released.
      for (let s = 1; s <= 120; s++) await q.tick(t0 + s * 1000);
      const released = (await q.cursor()).fifo;
      expect(released.idx).toBeGreaterThan(5);

      const now = t0 + 121_000;
      await q.at(now);
      const first = new Map<string, string>();
      for (const id of ids) first.set(id, (await q.poll(id)).kind);
      const admitted = ids.filter((id) => first.get(id) === 'admitted');
      expect(admitted).toHaveLength(5);
      expect([...first.values()].filter((k) => k === 'requeued')).toHaveLength(0);
      expect((await q.room.stats())!.active).toBe(5);

      // New arrivals do not take the slots the waiting visitors asked for.
      const newcomers = Array.from({ length: 5 }, (_, i) => `new${i}-${crypto.randomUUID().slice(0, 6)}`);
      for (const id of newcomers) await q.join(id);
      for (const id of admitted.slice(0, 2)) expect(await q.room.leave(id)).toBe(true);
      await q.tick(now + 1_000);
      const waitingInAskOrder = ids.filter((id) => first.get(id) === 'waiting');
      // Asked in `ids` order: the first two who asked get the two free slots, whoever polls first.
      const second = new Map<string, string>();
      for (const id of [...waitingInAskOrder].reverse()) second.set(id, (await q.poll(id)).kind);
      expect(waitingInAskOrder.filter((id) => second.get(id) === 'admitted')).toEqual(waitingInAskOrder.slice(0, 2));
      for (const id of newcomers) expect((await q.poll(id)).kind).toBe('waiting');
      expect((await q.room.stats())!.active).toBe(5);
    },
  );

  // Failing input: max active 1, idle timeout 30 s, six joins; the
  // first, told "next" and polling every 2.5 s, got a new place at the back 30 s after its release.
  it(
    'a visitor waiting for a slot keeps the place past the idle timeout while polling, also past the release record, and gets the next slot',
    { timeout: 60_000 },
    async () => {
      const eventId = freshEventId();
      const q = new QueueHarness(eventId);
      await q.room.configure(
        queueConfig(eventId, { releaseRatePerMinute: 120, minReleaseRatePerMinute: 120, maxActiveVisitors: 1, idleTimeoutSeconds: 30 }),
      );
      const t0 = Date.now();
      await q.at(t0);
      const ids = Array.from({ length: 6 }, (_, i) => `keep${i}-${crypto.randomUUID().slice(0, 6)}`);
      for (const id of ids) await q.join(id);
      for (let s = 1; s <= 20; s++) await q.tick(t0 + s * 1000);
      await q.at(t0 + 20_500);
      const first = [];
      for (const id of ids) first.push((await q.poll(id)).kind);
      expect(first.filter((k) => k === 'admitted')).toHaveLength(1);
      expect(first[0]).toBe('waiting');
      // Past the idle timeout, and past the 5 min the release records are kept: polled every 2.5 s.
      let now = t0 + 20_500;
      while (now < t0 + 330_000) {
        now += 2_500;
        if (now % 5_000 < 2_500) await q.tick(now);
        else await q.at(now);
        expect(await q.poll(ids[0]!)).toEqual({ kind: 'waiting', position: 1 });
      }
      expect((await q.room.stats())!.active).toBe(1);
      const holder = ids[first.indexOf('admitted')]!;
      expect(await q.room.leave(holder)).toBe(true);
      expect((await q.poll(ids[0]!)).kind).toBe('admitted');
      // (One who stops polling past the idle timeout still goes to the back: room-asleep.test.ts.)
    },
  );
});
