// A spent queue ticket (its admission ended) replayed at status: it re-queues the visitor at most
// once, and never in a closed sale. Status polls are not rate limited, so each extra place would be
// a way around the per-IP join limit.
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { shardName } from '../../contracts/names';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

async function shardArrivals(eventId: string): Promise<number> {
  return runInDurableObject(
    env.QUEUE_SHARD.getByName(shardName(eventId, 0)),
    (_o, state) => state.storage.sql.exec<{ n: number }>('SELECT COALESCE(SUM(count), 0) AS n FROM qs_buckets').toArray()[0]!.n,
  );
}

/** An event with one visitor who was admitted and left: returns their (still signed, 24 h) ticket. */
async function spentTicket(eventId: string): Promise<string> {
  expect((await createEvent(eventId)).status).toBe(201);
  const v = await admittedVisitor(eventId);
  const ticket = [...v.cookies].find(([k]) => k.includes('wr_t_'))![1];
  expect((await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' })).status).toBe(200);
  return ticket;
}

function pollWith(eventId: string, ticket: string, ip: string) {
  return new Visitor().json<{ state: string; queueTicket?: string }>(`/_wr/events/${eventId}/status`, {
    headers: { authorization: `Bearer ${ticket}`, 'cf-connecting-ip': ip },
  });
}

// Regression: every replay of the spent ticket added an arrival at the shard.
it('replaying one ended ticket 20 times adds no arrivals to the queue', async () => {
  const eventId = freshEventId('spent');
  const oldTicket = await spentTicket(eventId);
  const before = await shardArrivals(eventId);
  for (let i = 0; i < 20; i++) expect((await pollWith(eventId, oldTicket, '203.0.113.9')).status).toBe(200);
  // At most one new place for this one visitor.
  expect((await shardArrivals(eventId)) - before).toBeLessThanOrEqual(1);
});

// Regression: the "closed sale hands out no places" check covered only
// visitors without a place; a spent ticket was re-queued with a fresh ticket for a sale that is over.
it('a spent ticket polled after the sale closed gets no new place', async () => {
  const eventId = freshEventId('spent');
  const oldTicket = await spentTicket(eventId);
  const closed = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin/events/${eventId}/close`, { method: 'POST', headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }),
  );
  expect(closed.status).toBe(200);
  const before = await shardArrivals(eventId);
  const r = await pollWith(eventId, oldTicket, '203.0.113.7');
  expect(r.status).toBe(200);
  expect(r.body.state).toBe('closed');
  expect(r.body.queueTicket).toBeUndefined();
  expect(await shardArrivals(eventId)).toBe(before);
});
