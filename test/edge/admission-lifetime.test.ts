// Token lifetimes through the gateway's real fetch handler: an admission is valid
// for a useful time when handed out or not handed out at all, and no credential cookie outlives
// the token inside it (queue ticket and admission token alike).
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { MIN_USEFUL_ADMISSION_MS } from '../../contracts/queue/lifetimes';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { Visitor, createEvent, freshEventId, tick } from '../helpers/client';

/** The Max-Age of the Set-Cookie whose name contains `part`, or null when none was set. */
function maxAge(res: Response, part: string): number | null {
  const line = res.headers.getSetCookie().find((l) => l.split('=')[0]!.includes(part));
  if (!line) return null;
  const m = /;\s*Max-Age=(\d+)/i.exec(line);
  return m ? Number(m[1]) : null;
}

type Status = { state: string; admissionToken?: string; queueTicket?: string };

/** Polls, ticking between polls, until admitted; returns the admitting answer. */
async function pollUntilAdmitted(v: Visitor, eventId: string): Promise<{ body: Status; res: Response; beforeMs: number }> {
  for (let i = 0; i < 20; i++) {
    const beforeMs = Date.now();
    const s = await v.json<Status>(`/_wr/events/${eventId}/status`);
    if (s.body.state === 'admitted') return { body: s.body, res: s.res, beforeMs };
    await tick(eventId);
  }
  throw new Error('never admitted');
}

describe('admission lifetimes', () => {
  it('never answers 200 admitted with an admission that ends within MIN_USEFUL_ADMISSION_MS: the visitor goes to the back instead', async () => {
    const eventId = freshEventId('life');
    const room = env.WAITING_ROOM.getByName(eventId);
    // The failing input: the admission this visitor gets ends 600 ms from now (the room runs as if
    // its 30 s had nearly passed); before the fix the poll said `admitted` with `Max-Age=0` and a
    // token whose exp, rounded down to the second, had already passed.
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => Date.now() - 30_000 + 600));
    expect((await createEvent(eventId, { admissionTtlSeconds: 30 })).status).toBe(201);
    const v = new Visitor();
    expect((await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(200);
    await tick(eventId);
    const near = await v.json<Status>(`/_wr/events/${eventId}/status`);
    expect(near.status).toBe(200);
    expect(near.body.state).not.toBe('admitted');
    expect(near.body.admissionToken).toBeUndefined();
    expect(maxAge(near.res, 'wr_a_')).toBeNull();

    // With the clock right again the nearly ended admission is not handed out either: a new place.
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => Date.now()));
    const after = await v.json<Status>(`/_wr/events/${eventId}/status`);
    expect(after.body.state).not.toBe('admitted');
    expect(after.body.queueTicket).toBeDefined();
    // ... from which the visitor is admitted for the whole TTL (less the rounding to a second).
    const { body, res, beforeMs } = await pollUntilAdmitted(v, eventId);
    const exp = decodeJwt(body.admissionToken!).exp!;
    expect(exp * 1000 - beforeMs).toBeGreaterThan(29_000);
    expect(maxAge(res, 'wr_a_')).toBeGreaterThanOrEqual(29);
  });

  it('an admission cookie never outlives its token, and the token names the session end to the millisecond', async () => {
    const eventId = freshEventId('life');
    expect((await createEvent(eventId)).status).toBe(201);
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const { body, res, beforeMs } = await pollUntilAdmitted(v, eventId);
    const claims = decodeJwt(body.admissionToken!);
    const age = maxAge(res, 'wr_a_')!;
    expect(age * 1000).toBeGreaterThanOrEqual(MIN_USEFUL_ADMISSION_MS);
    expect(beforeMs + age * 1000).toBeLessThanOrEqual(claims.exp! * 1000);
    // The session ends exactly at exp: active 1 ms before, ended at it.
    const room = env.WAITING_ROOM.getByName(eventId);
    const sid = claims.sid as string;
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => claims.exp! * 1000 - 1));
    expect(await room.isActive(claims.sub!, sid)).toBe(true);
    await runInDurableObject(room, (obj: WaitingRoom) => (obj.clock = () => claims.exp! * 1000));
    expect(await room.isActive(claims.sub!, sid)).toBe(false);
  });

  it('a queue-ticket cookie never outlives its ticket (Max-Age was the full 24 h, the exp rounded down)', async () => {
    const eventId = freshEventId('life');
    expect((await createEvent(eventId)).status).toBe(201);
    // Several joins: each lands at some millisecond within its second.
    for (let i = 0; i < 5; i++) {
      const beforeMs = Date.now();
      const joined = await new Visitor().json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
      const exp = decodeJwt(joined.body.queueTicket!).exp!;
      expect(beforeMs + maxAge(joined.res, 'wr_t_')! * 1000).toBeLessThanOrEqual(exp * 1000);
    }
  });
});
