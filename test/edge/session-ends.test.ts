// The admission session check through the gateway's real fetch handler: an admitted visitor's
// requests cost no WaitingRoom call (the ended sessions come with the cached cursor), and a leave,
// a revoke elsewhere or a re-admission still ends the old admission before its `exp`, at once once
// the edge's cursor is refreshed (at most CURSOR_MAX_STALE_MS later in production).
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ENDED_SESSIONS_MAX, sessionTag } from '../../contracts/queue/ended-sessions';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import type { RoomStore } from '../../durable-objects/waiting-room/room-store';
import { admissionCookie, ticketCookie } from '../../src/lib/cookies';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { signAdmission, tokenSettings, verifyToken } from '../../src/lib/token';
import { Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

const settings = tokenSettings(env);

/** The visitor's id and admission session id, from their cookies. */
async function sessionOf(v: Visitor, eventId: string): Promise<{ visitorId: string; sessionId: string }> {
  const now = Date.now();
  const ticket = await verifyToken(settings, 'ticket', v.cookies.get(ticketCookie(eventId, true))!, eventId, now);
  const admission = await verifyToken(settings, 'admission', v.cookies.get(admissionCookie(eventId, true))!, eventId, now);
  return { visitorId: ticket.visitorId, sessionId: admission.sessionId! };
}

/** A second browser with a copy of `v`'s cookies. */
function copyOf(v: Visitor): Visitor {
  const copy = new Visitor();
  for (const [k, val] of v.cookies) copy.cookies.set(k, val);
  return copy;
}

/** The per-visitor session checks (`isActive`) the event's WaitingRoom has served so far. */
const sessionChecks = (eventId: string) => runInDurableObject(env.WAITING_ROOM.getByName(eventId), (obj: WaitingRoom) => obj.sessionChecks);

describe('the admission session check', () => {
  it("costs an admitted visitor's seat reads and holds no WaitingRoom call (the cursor's list answers)", async () => {
    const eventId = freshEventId('se');
    await createEvent(eventId);
    const visitors = [await admittedVisitor(eventId), await admittedVisitor(eventId), await admittedVisitor(eventId)];
    const before = await sessionChecks(eventId);
    for (const [i, v] of visitors.entries()) {
      expect((await v.json(`/_wr/events/${eventId}/seats`)).status).toBe(200);
      expect((await v.hold(eventId, [`A${i + 1}`])).status).toBe(201);
      expect((await v.json(`/_wr/events/${eventId}/seats`)).status).toBe(200);
    }
    // Before the list, each visitor's first request asked `isActive` (3 calls here).
    expect((await sessionChecks(eventId)) - before).toBe(0);
  });

  it('ends the admission when the WaitingRoom ended it elsewhere (a leave through another isolate): listed in the cursor', async () => {
    const eventId = freshEventId('se');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const stays = await admittedVisitor(eventId);
    const { visitorId, sessionId } = await sessionOf(v, eventId);
    const room = env.WAITING_ROOM.getByName(eventId);
    expect(await room.leave(visitorId)).toBe(true);
    const cursor = await room.cursor();
    expect(cursor!.endedSessions).toEqual({ tags: [sessionTag(visitorId, sessionId)], complete: true });
    // Another isolate's leave reaches this one with its next cursor (here: at once).
    await forgetCursor(eventId);
    const res = await v.json<{ code: string }>(`/_wr/events/${eventId}/seats`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SESSION_ENDED');
    expect((await v.hold(eventId, ['A1'])).status).toBe(401);
    // Nobody else's session is touched.
    expect((await stays.hold(eventId, ['A2'])).status).toBe(201);
  });

  it('ends the old session when the visitor is admitted again, and honours the new one', async () => {
    const eventId = freshEventId('se');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const old = copyOf(v);
    const { visitorId } = await sessionOf(v, eventId);
    const room = env.WAITING_ROOM.getByName(eventId);
    // A re-admission as the room stores it (a new place claimed while the old admission had time left).
    const admittedAtMs = Date.now() + 1;
    const expiresAtMs = admittedAtMs + 600_000;
    await runInDurableObject(room, (obj: WaitingRoom, state) => {
      const store = (obj as unknown as { store: RoomStore }).store;
      state.storage.transactionSync(() => store.claim(visitorId, '999:0:0', { id: -1, atMs: admittedAtMs }, admittedAtMs, expiresAtMs));
    });
    await forgetCursor(eventId);
    const refused = await old.json<{ code: string }>(`/_wr/events/${eventId}/seats`);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('SESSION_ENDED');
    const renewed = await signAdmission(settings, { eventId, visitorId, expiresAtMs, sessionId: String(admittedAtMs) }, Date.now());
    v.cookies.set(admissionCookie(eventId, true), renewed);
    expect((await v.hold(eventId, ['A1'])).status).toBe(201);
  });

  it('ends the admission at once in the isolate the visitor left through, before its cursor is refreshed', async () => {
    const eventId = freshEventId('se');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const copy = copyOf(v);
    // The cursor is cached here before the leave and not dropped after it.
    expect((await copy.json(`/_wr/events/${eventId}/seats`)).status).toBe(200);
    await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' });
    const res = await copy.json<{ code: string }>(`/_wr/events/${eventId}/seats`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SESSION_ENDED');
  });

  it('asks the WaitingRoom per visitor when more sessions ended than the cursor lists, and still ends a left one', async () => {
    const eventId = freshEventId('se');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const gone = await admittedVisitor(eventId);
    const room = env.WAITING_ROOM.getByName(eventId);
    await runInDurableObject(room, (_obj, state) => {
      const until = Date.now() + 600_000;
      for (let i = 0; i <= ENDED_SESSIONS_MAX; i++)
        state.storage.sql.exec('INSERT INTO wr_ended (tag, expires_at) VALUES (?, ?)', i, until);
    });
    expect((await room.cursor())!.endedSessions).toEqual({ tags: [], complete: false });
    expect(await room.leave((await sessionOf(gone, eventId)).visitorId)).toBe(true);
    await forgetCursor(eventId);
    const before = await sessionChecks(eventId);
    expect((await v.json(`/_wr/events/${eventId}/seats`)).status).toBe(200);
    // One isActive for the visitor; its confirmation is then trusted for SESSION_CACHE_MS.
    expect((await sessionChecks(eventId)) - before).toBe(1);
    expect((await v.hold(eventId, ['A1'])).status).toBe(201);
    expect((await sessionChecks(eventId)) - before).toBe(1);
    const res = await gone.json<{ code: string }>(`/_wr/events/${eventId}/seats`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('SESSION_ENDED');
  });
});
