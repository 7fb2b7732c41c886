// Regression (review finding): replaying one queue ticket whose admission has ended (or whose place lapsed) adds a new
// arrival at the queue shard on every status poll. Status polls are not rate limited, so a single
// client inflates the queue without limit, bypassing the per-IP join limit.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { shardName } from '../../contracts/names';
import { Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

async function shardArrivals(eventId: string): Promise<number> {
  return runInDurableObject(
    env.QUEUE_SHARD.getByName(shardName(eventId, 0)),
    (_o, state) => state.storage.sql.exec<{ n: number }>('SELECT COALESCE(SUM(count), 0) AS n FROM qs_buckets').toArray()[0]!.n,
  );
}

it('replaying one ended ticket 20 times adds no arrivals to the queue', async () => {
  const eventId = freshEventId('review');
  expect((await createEvent(eventId)).status).toBe(201);
  const v = await admittedVisitor(eventId);
  const ticketCookie = [...v.cookies].find(([k]) => k.includes('wr_t_'))!;
  const oldTicket = ticketCookie[1];
  // The visitor leaves: their admission ends. They keep the (still signed, 24 h) ticket string.
  const left = await v.json(`/_wr/events/${eventId}/leave`, { method: 'POST' });
  expect(left.status).toBe(200);
  const before = await shardArrivals(eventId);
  for (let i = 0; i < 20; i++) {
    const attacker = new Visitor();
    const r = await attacker.json<{ state: string }>(`/_wr/events/${eventId}/status`, {
      headers: { authorization: `Bearer ${oldTicket}`, 'cf-connecting-ip': '203.0.113.9' },
    });
    expect(r.status).toBe(200);
  }
  const after = await shardArrivals(eventId);
  // Expected: at most one new place for this one visitor. Observed: one per poll.
  expect(after - before).toBeLessThanOrEqual(1);
});
