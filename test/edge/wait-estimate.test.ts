// The waiting page's estimate while a slot bound is full: with the
// organizer's max active taken and nobody leaving, nothing frees for up to the admission TTL, so
// the estimate must say it cannot estimate yet, not "less than a minute" from the release rate.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { Visitor, createEvent, freshEventId, tick } from '../helpers/client';

type Status = { state: string; position: number | null; estimatedWaitSeconds: number | null };

/** Runs the room `offsetMs` ahead of the real clock (its samples are taken every 5 s of its time), then ticks. */
async function tickAt(eventId: string, offsetMs: number): Promise<void> {
  await runInDurableObject(env.WAITING_ROOM.getByName(eventId), (obj: WaitingRoom) => (obj.clock = () => Date.now() + offsetMs));
  await tick(eventId);
}

describe('wait estimate when a slot bound is full', () => {
  it('says it cannot estimate while max active is full and nobody leaves, and measures the pace once slots free', async () => {
    const eventId = freshEventId('est');
    // The failing input: 600/min, max active 2, admissions of 600 s; 7 join at once, the first 2
    // are admitted and stay, 5 wait.
    expect((await createEvent(eventId, { releaseRatePerMinute: 600, maxActiveVisitors: 2, admissionTtlSeconds: 600 })).status).toBe(201);
    const all: Visitor[] = [];
    for (let i = 0; i < 7; i++) {
      const v = new Visitor();
      expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
      all.push(v);
    }
    await tickAt(eventId, 0);
    const inside = all.slice(0, 2);
    const line = all.slice(2);
    for (const v of inside) expect((await v.json<Status>(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');
    // At once (under 10 s measured): before the fix the release rate gave "5 s" to the 5th in line.
    const first = await line[4]!.json<Status>(`/_wr/events/${eventId}/status`);
    expect(first.body).toMatchObject({ state: 'waiting', position: 5, estimatedWaitSeconds: null });
    // 30 s of the room's time with max active full: nobody is released.
    for (let k = 1; k <= 6; k++) await tickAt(eventId, k * 5_000);
    const last = await line[4]!.json<Status>(`/_wr/events/${eventId}/status`);
    expect(last.body).toMatchObject({ state: 'waiting', position: 5 });
    // Before the fix: a number from the 2 releases made while the room filled (48 s).
    expect(last.body.estimatedWaitSeconds).toBeNull();

    // Slots free at a measured pace: one admitted visitor leaves every 10 s and the next claims.
    let k = 6;
    for (const who of [inside[0]!, line[0]!, line[1]!]) {
      expect((await who.json(`/_wr/events/${eventId}/leave`, { method: 'POST' })).status).toBe(200);
      for (let j = 0; j < 2; j++) {
        await tickAt(eventId, ++k * 5_000);
        for (const v of line) await v.json(`/_wr/events/${eventId}/status`);
      }
    }
    const now = await line[4]!.json<Status>(`/_wr/events/${eventId}/status`);
    expect(now.body.state).toBe('waiting');
    // Position 2 behind the full max active: 3 released and 3 left over the last minute (3/min, the
    // 2 slots freeing about 3.5/min): 40 s (queue-policy estimateWait).
    expect(now.body.estimatedWaitSeconds).not.toBeNull();
    expect(now.body.estimatedWaitSeconds!).toBeGreaterThanOrEqual(10);
    expect(now.body.estimatedWaitSeconds!).toBeLessThanOrEqual(90);
    // What the room published for it, and the organizer's figure (GET /_wr/admin/events/{id}).
    const published = await runInDurableObject(env.WAITING_ROOM.getByName(eventId), async (obj: WaitingRoom) => ({
      cursor: await obj.cursor(),
      stats: await obj.stats(),
    }));
    // About 3 a minute each (the room's clock runs a little past the test's 5 s steps).
    expect(published.cursor!.freeSlots).toBe(0);
    for (const perMinute of [published.cursor!.admitPerMinute, published.stats!.departuresPerMinute!]) {
      expect(perMinute).toBeGreaterThan(2.5);
      expect(perMinute).toBeLessThanOrEqual(3.5);
    }
    // 2 slots, about 1.7 of them taken on average over the minute: they free a little faster when full.
    expect(published.cursor!.slotsFreedPerMinute).toBeGreaterThan(published.stats!.departuresPerMinute!);
  });
});
