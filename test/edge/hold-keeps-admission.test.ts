// A seat hold keeps its visitor's admission alive until the hold's deadline (with a 30 s
// admission and a 120 s hold, the sale page turned into the waiting room 25 s
// after the hold, checkout was 401 ADMISSION_REQUIRED, the visitor went to the back of the queue,
// and the held seats stayed locked for nobody).
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { MAX_HOLD_COVER_MS } from '../../durable-objects/waiting-room/room-rows';
import type { RoomStore } from '../../durable-objects/waiting-room/room-store';
import { admissionCookie, ticketCookie } from '../../src/lib/cookies';
import { tokenSettings, verifyToken } from '../../src/lib/token';
import { admittedVisitor, createEvent, freshEventId, type Visitor } from '../helpers/client';

const settings = tokenSettings(env);
const admissionOf = (v: Visitor, eventId: string) =>
  verifyToken(settings, 'admission', v.cookies.get(admissionCookie(eventId, true))!, eventId, Date.now());
const room = (eventId: string) => env.WAITING_ROOM.getByName(eventId);

describe('a seat hold and the admission', () => {
  it('moves the admission’s end out to the hold’s deadline: the room keeps the session active, and a new token carries it', async () => {
    const eventId = freshEventId('cover');
    await createEvent(eventId, { admissionTtlSeconds: 30, holdTtlSeconds: 120 });
    const v = await admittedVisitor(eventId);
    const before = await admissionOf(v, eventId);
    const res = await v.hold(eventId, ['A1', 'A2']);
    expect(res.status).toBe(201);
    const body = res.body as { expiresAt: string; admissionToken?: string };
    const hold = { ...body, expiresAtMs: Date.parse(body.expiresAt) };
    expect(hold.expiresAtMs).toBeGreaterThan(before.expiresAtMs + 60_000);
    // The cookie and the body carry the new end (JWT exp: whole seconds), same visitor and session.
    const after = await admissionOf(v, eventId);
    expect(hold.admissionToken).toBe(v.cookies.get(admissionCookie(eventId, true)));
    expect(after).toMatchObject({ visitorId: before.visitorId, sessionId: before.sessionId });
    // The hold's deadline plus the payment grace (120 s by default): a payment started at the
    // hold's last moment still ends inside the admission.
    const covered = Math.floor((hold.expiresAtMs + 120_000) / 1000) * 1000;
    expect(after.expiresAtMs).toBe(covered);
    // The room counts the session active past the old end, up to the cover's end.
    await runInDurableObject(room(eventId), async (obj: WaitingRoom) => {
      obj.clock = () => before.expiresAtMs + 1_000;
      expect(await obj.isActive(before.visitorId, before.sessionId!)).toBe(true);
      obj.clock = () => hold.expiresAtMs + 60_000;
      expect(await obj.isActive(before.visitorId, before.sessionId!)).toBe(true);
      obj.clock = () => covered + 1;
      expect(await obj.isActive(before.visitorId, before.sessionId!)).toBe(false);
      // Back to real time: the second hold below must find the session active. Left at the cover's
      // end, the room refused to extend it, which showed only when the two holds' covers fell in
      // different seconds.
      obj.clock = () => Date.now();
    });
    // A second hold moves the end only as far as its own cover (the same second, or the next).
    const second = await v.hold(eventId, ['A3']);
    expect(second.status).toBe(201);
    const secondCover = Math.floor((Date.parse(second.body.expiresAt as string) + 120_000) / 1000) * 1000;
    expect((await admissionOf(v, eventId)).expiresAtMs).toBe(Math.max(covered, secondCover));
  });

  it('covers a payment started at the end of a hold that ends before the admission', async () => {
    // The failing input: a 30 s admission, a 10 s hold, 120 s of payment grace: the hold ends
    // before the admission, but a payment started at its last moment runs to +130 s.
    const eventId = freshEventId('cover');
    await createEvent(eventId, { admissionTtlSeconds: 30, holdTtlSeconds: 10, paymentGraceSeconds: 120 });
    const v = await admittedVisitor(eventId);
    const before = await admissionOf(v, eventId);
    const res = await v.hold(eventId, ['A1']);
    expect(res.status).toBe(201);
    const body = res.body as { expiresAt: string; admissionToken?: string };
    expect(Date.parse(body.expiresAt)).toBeLessThan(before.expiresAtMs);
    expect(body.admissionToken).toBeDefined();
    const after = await admissionOf(v, eventId);
    expect(after.expiresAtMs).toBe(Math.floor((Date.parse(body.expiresAt) + 120_000) / 1000) * 1000);
  });

  it('extends only an active session, never shortens one, and never past one hold TTL and grace after the admission', async () => {
    const eventId = freshEventId('cover');
    await createEvent(eventId, { admissionTtlSeconds: 30, holdTtlSeconds: 60, paymentGraceSeconds: 20 });
    const v = await admittedVisitor(eventId);
    const a = await admissionOf(v, eventId);
    const ticket = await verifyToken(settings, 'ticket', v.cookies.get(ticketCookie(eventId, true))!, eventId, Date.now());
    expect(ticket.visitorId).toBe(a.visitorId);
    await runInDurableObject(room(eventId), async (obj: WaitingRoom) => {
      const now = obj.clock();
      const stored = () => (obj as unknown as { store: RoomStore }).store.admission(a.visitorId)!.expires_at;
      const end = stored();
      // A hold ending 30 s before the session (20 s grace after it: still before) changes nothing.
      expect(await obj.extendAdmission(a.visitorId, a.sessionId!, end - 30_000)).toBe(end);
      expect(await obj.extendAdmission(a.visitorId, 'another-session', end + 60_000)).toBeNull();
      expect(await obj.extendAdmission('someone-else', a.sessionId!, end + 60_000)).toBeNull();
      const capped = await obj.extendAdmission(a.visitorId, a.sessionId!, now + 10 * MAX_HOLD_COVER_MS);
      // admitted + 30 s admission + 60 s hold + 20 s grace, whatever the hold asks.
      expect(capped).toBe(Math.floor((Number(a.sessionId) + 110_000) / 1000) * 1000);
      expect(capped).toBeLessThanOrEqual(now + MAX_HOLD_COVER_MS);
      // Once the session ended, nothing brings it back.
      obj.clock = () => capped! + 1;
      expect(await obj.extendAdmission(a.visitorId, a.sessionId!, capped! + 60_000)).toBeNull();
    });
  });

  it('cannot be chained: holds released at once keep a slot at most one hold TTL and grace past the admission', async () => {
    // The failing input: a 30 s admission, 60 s holds, max active 1; a hold and an instant
    // release every 50 s kept the slot for 212 s and more while the next visitor waited.
    const eventId = freshEventId('chain');
    await createEvent(eventId, { admissionTtlSeconds: 30, holdTtlSeconds: 60, paymentGraceSeconds: 20, maxActiveVisitors: 1 });
    const v = await admittedVisitor(eventId);
    const a = await admissionOf(v, eventId);
    const admittedAt = Number(a.sessionId);
    await runInDurableObject(room(eventId), async (obj: WaitingRoom) => {
      let end = a.expiresAtMs;
      for (const at of [20_000, 70_000, 120_000, 170_000]) {
        if (admittedAt + at >= end) break;
        obj.clock = () => admittedAt + at;
        end = (await obj.extendAdmission(a.visitorId, a.sessionId!, admittedAt + at + 60_000)) ?? end;
      }
      expect(end).toBe(Math.floor((admittedAt + 30_000 + 60_000 + 20_000) / 1000) * 1000);
      obj.clock = () => admittedAt + 212_000;
      expect(await obj.isActive(a.visitorId, a.sessionId!)).toBe(false);
    });
  });
});
