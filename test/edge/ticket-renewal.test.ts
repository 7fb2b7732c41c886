// Queue tickets are re-issued with the same place on a poll past half their life (a
// place taken more than TICKET_TTL_S before a far sale start was lost when the ticket expired):
// both edges of the half-life rule, the same visitor and place in the new ticket, and a lottery
// entrant 50 h before the sale keeping one entry.
import { env } from 'cloudflare:workers';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { Place } from '../../contracts/queue/cursor';
import { ticketCookie } from '../../src/lib/cookies';
import { TICKET_TTL_S, signQueueTicket, tokenSettings } from '../../src/lib/token';
import { Visitor, createEvent, freshEventId } from '../helpers/client';

const HALF_MS = (TICKET_TTL_S * 1000) / 2;
const MINUTE_MS = 60_000;

interface Status {
  state: string;
  position: number | null;
  entrantId: string | null;
  queueTicket?: string;
}

/** The place a ticket's `pl` claim names. */
function placeOf(ticket: string): Place {
  const pl = decodeJwt(ticket).pl;
  if (pl === 'pre') return { pre: true };
  const [bucket, idx, shard] = pl as [number, number, number];
  return { bucket, idx, shard };
}

/** A visitor holding the same place as `ticket`, in a ticket issued `ageMs` ago. */
async function olderTicket(eventId: string, ticket: string, ageMs: number): Promise<Visitor> {
  const v = new Visitor();
  const aged = await signQueueTicket(tokenSettings(env), eventId, decodeJwt(ticket).sub!, placeOf(ticket), Date.now() - ageMs);
  v.cookies.set(ticketCookie(eventId, true), aged);
  return v;
}

describe('queue ticket renewal', () => {
  it('a poll with just over half the life left gets no new ticket; just under half, the same place in a new one', async () => {
    const eventId = freshEventId('renew');
    expect((await createEvent(eventId)).status).toBe(201);
    const joined = await new Visitor().json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const ticket = joined.body.queueTicket!;

    const young = await olderTicket(eventId, ticket, HALF_MS - MINUTE_MS);
    const kept = await young.json<Status>(`/_wr/events/${eventId}/status`);
    expect(kept.status).toBe(200);
    expect(kept.body.queueTicket).toBeUndefined();
    expect(kept.res.headers.getSetCookie()).toEqual([]);

    const old = await olderTicket(eventId, ticket, HALF_MS + MINUTE_MS);
    const renewed = await old.json<Status>(`/_wr/events/${eventId}/status`);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ state: joined.body.state, position: joined.body.position });
    const fresh = renewed.body.queueTicket!;
    expect(decodeJwt(fresh).sub).toBe(decodeJwt(ticket).sub);
    expect(placeOf(fresh)).toEqual(placeOf(ticket));
    expect(decodeJwt(fresh).exp! * 1000).toBeGreaterThan(Date.now() + TICKET_TTL_S * 1000 - MINUTE_MS);
    const cookie = renewed.res.headers.getSetCookie().find((c) => c.startsWith(`${ticketCookie(eventId, true)}=`));
    expect(cookie).toContain(`=${fresh};`);
    expect(Number(/Max-Age=(\d+)/i.exec(cookie!)?.[1])).toBeGreaterThan(TICKET_TTL_S - 60);
  });

  it('a lottery entrant 50 h before the sale keeps one entry across renewals', async () => {
    const eventId = freshEventId('far');
    const saleStartsAt = new Date(Date.now() + 50 * 3_600_000).toISOString();
    expect((await createEvent(eventId, { policy: 'random', saleStartsAt })).status).toBe(201);
    const joined = await new Visitor().json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(joined.body.state).toBe('not_open');
    // 13 h later the page polls: the same entrant in a new ticket that outlives the old one.
    const v = await olderTicket(eventId, joined.body.queueTicket!, 13 * 3_600_000);
    const polled = await v.json<Status>(`/_wr/events/${eventId}/status`);
    expect(polled.body).toMatchObject({ state: 'not_open', entrantId: joined.body.entrantId });
    expect(placeOf(polled.body.queueTicket!)).toEqual({ pre: true });
    // The browser now holds the new ticket: the next poll keeps it and the entrant.
    const again = await v.json<Status>(`/_wr/events/${eventId}/status`);
    expect(again.body).toMatchObject({ state: 'not_open', entrantId: joined.body.entrantId });
    expect(again.body.queueTicket).toBeUndefined();
  });
});
