// Regression: "policy: fixed once anyone joined". The WaitingRoom decides "joined" from the counts it
// last collected from its shards. Before a lottery's sale start an idle room only ticks once (then
// its alarm waits for the sale start, and a shard's wake() does not move an armed alarm), so
// pre-queue entrants are never counted and the organizer may switch the policy to FIFO. Their
// "pre" tickets are then never released: admit() answers `waiting` forever.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { ticketCookie } from '../../src/lib/cookies';
import { signQueueTicket, tokenSettings } from '../../src/lib/token';
import { Visitor, createEvent, freshEventId, tick } from '../helpers/client';

it('refuses to change a lottery to FIFO once pre-queue entrants have joined', async () => {
  const eventId = freshEventId();
  const saleStartsAt = new Date(Date.now() + 3_600_000).toISOString();
  expect((await createEvent(eventId, { policy: 'random', saleStartsAt })).status).toBe(201);
  // The room's first tick (one second after creation in production) finds nobody: from then on
  // its alarm waits for the sale start.
  const room = env.WAITING_ROOM.getByName(eventId);
  expect(await runDurableObjectAlarm(room)).toBe(true);
  expect(await runInDurableObject(room, (_o, s) => s.storage.getAlarm())).toBe(Date.parse(saleStartsAt));
  const visitors = [new Visitor(), new Visitor(), new Visitor()];
  for (const v of visitors) {
    const r = await v.json<{ state: string; position: number | null }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(r.body).toMatchObject({ state: 'not_open', position: null });
  }
  // The organizer switches to FIFO an hour before the sale.
  const put = await createEvent(eventId, { policy: 'fifo', saleStartsAt });
  // Expected: 409 CONFIG_CONFLICT (visitors have joined). Observed: 200.
  expect(put.status).toBe(409);
});

it('a pre-queue ticket that reaches a FIFO event (a switch racing a join) is re-queued and admitted, not left waiting', async () => {
  const eventId = freshEventId();
  expect((await createEvent(eventId)).status).toBe(201);
  const settings = tokenSettings(env);
  const v = new Visitor();
  const ticket = await signQueueTicket(settings, eventId, crypto.randomUUID(), { pre: true }, Date.now());
  v.cookies.set(ticketCookie(eventId, true), ticket);
  const first = await v.json<{ state: string; queueTicket?: string }>(`/_wr/events/${eventId}/status`);
  // A new FIFO place at the back, with a new ticket.
  expect(first.body.state).toBe('waiting');
  expect(first.body.queueTicket).toBeDefined();
  await tick(eventId);
  expect((await v.json<{ state: string }>(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');
});
