// Regression (second review): "a closed sale hands out no places": the check in takeTurn covers only visitors without a place.
// A visitor whose place is spent (admission ended, or lapsed) is re-queued by joinShard even while
// the sale is closed: a new arrival at the shard and a fresh queue ticket for a sale that is over.
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

it('a spent ticket polled after the sale closed gets no new place', async () => {
  const eventId = freshEventId('review2');
  expect((await createEvent(eventId)).status).toBe(201);
  const v = await admittedVisitor(eventId);
  const oldTicket = [...v.cookies].find(([k]) => k.includes('wr_t_'))![1];
  expect((await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' })).status).toBe(200);
  const closed = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin/events/${eventId}/close`, { method: 'POST', headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }),
  );
  expect(closed.status).toBe(200);
  const before = await shardArrivals(eventId);
  const r = await new Visitor().json<{ state: string; queueTicket?: string }>(`/_wr/events/${eventId}/status`, {
    headers: { authorization: `Bearer ${oldTicket}`, 'cf-connecting-ip': '203.0.113.7' },
  });
  expect(r.status).toBe(200);
  expect(r.body.state).toBe('closed');
  // Expected: no place handed out in a closed sale. Observed: a new arrival and a new ticket.
  expect(r.body.queueTicket).toBeUndefined();
  expect(await shardArrivals(eventId)).toBe(before);
});
