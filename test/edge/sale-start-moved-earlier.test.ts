// Regression: WaitingRoom.ensureAlarm (not from the alarm) returns as soon as *any* alarm is armed. An
// idle room before its sale start arms its alarm at the sale start. When the organizer moves the
// sale start earlier (or opens the sale now), configure() and every shard wake() leave that far
// alarm in place: nobody is released (nor the lottery drawn) until the old sale start.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { Visitor, createEvent, freshEventId } from '../helpers/client';

it('opening the sale earlier re-arms the release tick for the new start', async () => {
  const eventId = freshEventId();
  const oldStart = Date.now() + 24 * 3_600_000;
  expect((await createEvent(eventId, { saleStartsAt: new Date(oldStart).toISOString() })).status).toBe(201);
  const room = env.WAITING_ROOM.getByName(eventId);
  // First tick (a second after creation in production): nobody there, so the alarm waits for the start.
  expect(await runDurableObjectAlarm(room)).toBe(true);
  expect(await runInDurableObject(room, (_o, s) => s.storage.getAlarm())).toBe(oldStart);
  // The organizer opens the sale now; visitors arrive and see "waiting".
  expect((await createEvent(eventId, {})).status).toBe(200);
  const v = new Visitor();
  const joined = await v.json<{ state: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
  expect(joined.body.state).toBe('waiting');
  const alarm = await runInDurableObject(room, (_o, s) => s.storage.getAlarm());
  // Expected: a release tick within RELEASE_TICK_MS (an hour in tests) of now, i.e. before the old start.
  // Observed: the alarm still fires at the old sale start only.
  expect(alarm!).toBeLessThan(oldStart - 3_600_000);
});
