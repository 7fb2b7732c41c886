// A section the event does not have is refused at the edge before any object call:
// `seats?section=S9` and `audit?section=S9` answered 404 EVENT_NOT_FOUND (docs/reference/api.md says 400),
// and every made-up section name (seat map, hold, hold id) started a Durable Object of its own.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { signOriginRequest } from '../../contracts/hmac';
import { sectionObjectName } from '../../contracts/inventory-names';
import { BASE, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

/** One app whose INVENTORY binding records the object names asked for. */
function isolate() {
  const app = createApp();
  const names: string[] = [];
  const bindings = {
    ...env,
    INVENTORY: { getByName: (name: string) => (names.push(name), env.INVENTORY.getByName(name)) },
  } as unknown as Env;
  const send = async (path: string, init: RequestInit = {}) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(BASE + path, init), bindings, ctx);
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  return { names, send };
}

const SECTIONS = [
  { section: 'A', seats: 4, seatsPerRow: 4, priceMinor: 1000 },
  { section: 'B', seats: 4, seatsPerRow: 4, priceMinor: 1000 },
];

describe('a section the event does not have', () => {
  it('is refused with 400/404/422 and a code, and no object of that section is ever asked for', async () => {
    const eventId = freshEventId('usec');
    expect((await createEvent(eventId, { seats: 0, sections: SECTIONS })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    const cookie = [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ');
    const visitor = { cookie, accept: 'application/json', 'content-type': 'application/json' };
    const { names, send } = isolate();
    const holdId = `S9.${crypto.randomUUID()}`;

    expect(await send(`/_wr/events/${eventId}/seats?section=S9`, { headers: visitor })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REQUEST' },
    });
    const audit = await send(`/_wr/admin/events/${eventId}/audit?section=S9`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
    expect(audit).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    const hold = await send(`/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { ...visitor, 'idempotency-key': 'k-s9' },
      body: JSON.stringify({ seatIds: ['S9-A1', 'S9-A2'] }),
    });
    expect(hold).toMatchObject({ status: 422, body: { code: 'SEAT_NOT_FOUND', seatIds: ['S9-A1', 'S9-A2'] } });
    expect(await send(`/_wr/events/${eventId}/holds/${holdId}`, { headers: visitor })).toMatchObject({
      status: 404,
      body: { code: 'HOLD_NOT_FOUND' },
    });
    expect(await send(`/_wr/events/${eventId}/holds/${holdId}`, { method: 'DELETE', headers: visitor })).toMatchObject({
      status: 404,
      body: { code: 'HOLD_NOT_FOUND' },
    });
    const originPath = `/_wr/origin/events/${eventId}/holds/${holdId}/release`;
    const originBody = JSON.stringify({});
    const origin = await send(originPath, {
      method: 'POST',
      body: originBody,
      headers: {
        'content-type': 'application/json',
        ...(await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'POST', originPath, originBody, Date.now())),
      },
    });
    expect(origin).toMatchObject({ status: 404, body: { code: 'HOLD_NOT_FOUND' } });

    expect(names).not.toContain(sectionObjectName(eventId, 'S9'));
    // One read of the event's own object told this isolate the sections; the rest came from its copy.
    expect(names.filter((n) => n === eventId)).toHaveLength(1);

    // The sections it has still answer.
    expect(await send(`/_wr/events/${eventId}/seats?section=A`, { headers: visitor })).toMatchObject({ status: 200 });
    const held = await send(`/_wr/events/${eventId}/holds`, {
      method: 'POST',
      headers: { ...visitor, 'idempotency-key': 'k-b' },
      body: JSON.stringify({ seatIds: ['B-A1'] }),
    });
    expect(held).toMatchObject({ status: 201, body: { seatIds: ['B-A1'] } });
  });

  it('is any section at all on an event without sections', async () => {
    const eventId = freshEventId('uflat');
    expect((await createEvent(eventId, { seats: 4, seatsPerRow: 4 })).status).toBe(201);
    const v = await admittedVisitor(eventId);
    expect(await v.json(`/_wr/events/${eventId}/seats?section=A`)).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await v.json(`/_wr/events/${eventId}/seats`)).toMatchObject({ status: 200 });
  });
});
