// The waiting room's visitor API under `/_wr/events`: join, status, leave, the draw record. Each
// answers with a visitor's turn (src/routes/turn.ts), as the room at its URLs does (src/routes/room.ts).
import { Hono, type Context } from 'hono';
import { shardOf } from '../../contracts/queue/cursor';
import { shardName } from '../../contracts/names';
import { callDurableObject } from '../lib/do-call';
import { readTicket } from '../middleware/credentials';
import { admissionCookie, clearedCookie, isSecure, ticketCookie } from '../lib/cookies';
import { GatewayError } from '../lib/errors';
import { forgetSessions } from '../lib/session-cache';
import { ENTRANT_ID_PATTERN, drawPage, entrantRank, wantsDrawPage } from '../pages/draw-page';
import { waitingWords } from '../pages/page-texts';
import { SCRIPT_PATHS } from '../lib/page-assets';
import { requestLang, type Lang } from '../../contracts/i18n';
import { pageSecurityHeaders } from '../lib/security-headers';
import { eventIdParam, type AppEnv } from '../types';
import { answerTurn, edgeCursor, statusHeaders, ticketOrNull } from './turn';

/** The visitor's language: `?lang=` (the switch), the remembered cookie, or Accept-Language. */
export function pageLang(c: Context<AppEnv>): { lang: Lang; chosen: Lang | null } {
  return requestLang({ query: c.req.query('lang'), cookie: c.req.header('cookie'), acceptLanguage: c.req.header('accept-language') });
}

/** Gateway-owned queue endpoints under `/_wr/events`. */
export const queueApi = new Hono<AppEnv>();

queueApi.post('/:eventId/join', async (c) => {
  const eventId = eventIdParam(c);
  const turn = await answerTurn(c, eventId, await ticketOrNull(c, eventId));
  statusHeaders(c, turn);
  return c.json(turn.body);
});

queueApi.get('/:eventId/status', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED', { detail: `join first: POST /_wr/events/${eventId}/join` });
  const turn = await answerTurn(c, eventId, ticket);
  statusHeaders(c, turn);
  return c.json(turn.body);
});

queueApi.post('/:eventId/leave', async (c) => {
  const eventId = eventIdParam(c);
  const ticket = await readTicket(c, eventId, Date.now());
  if (!ticket) throw new GatewayError('TICKET_REQUIRED');
  const cursor = await edgeCursor(c, eventId, Date.now());
  if (!cursor) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  const shard = shardOf(ticket.visitorId, cursor.shards);
  const opts = { idempotent: true, eventId };
  const [admission, place] = await Promise.all([
    callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).leave(ticket.visitorId), { ...opts, name: 'waitingRoom.leave' }),
    callDurableObject(() => c.env.QUEUE_SHARD.getByName(shardName(eventId, shard)).leave(ticket.visitorId), {
      ...opts,
      name: 'queueShard.leave',
    }),
  ]);
  const left = admission || place;
  forgetSessions(eventId, ticket.visitorId, Date.now());
  // Both cookies go: the next visit starts at the back of the line.
  // Cleared with the attributes they were set with (HttpOnly, SameSite), never weaker.
  c.header('set-cookie', clearedCookie(admissionCookie(eventId, isSecure(c.req.url)), c.req.url), { append: true });
  c.header('set-cookie', clearedCookie(ticketCookie(eventId, isSecure(c.req.url)), c.req.url), { append: true });
  return c.json({ left });
});

queueApi.get('/:eventId/draw', async (c) => {
  const eventId = eventIdParam(c);
  const record = await callDurableObject(() => c.env.WAITING_ROOM.getByName(eventId).drawRecord(), {
    idempotent: true,
    name: 'waitingRoom.drawRecord',
    eventId,
  });
  if (!record) throw new GatewayError('NOT_FOUND', { detail: 'this event has no lottery' });
  // `?entrant=`: the visitor's own id (their status JSON's entrantId), to find their rank.
  const entrant = c.req.query('entrant') ?? null;
  if (entrant !== null && !ENTRANT_ID_PATTERN.test(entrant))
    throw new GatewayError('INVALID_REQUEST', { detail: 'entrant must be an entrant id: 1-64 letters, digits or "-"' });
  c.header('cache-control', record.drawn ? 'public, max-age=300' : 'public, max-age=10');
  c.header('vary', 'Accept, Accept-Language, Cookie');
  if (wantsDrawPage(c.req.header('accept'), c.req.query('format'))) {
    const read = c.var.pages.reader(c.env.ASSETS);
    const script = record.drawn ? await read.text(SCRIPT_PATHS.draw) : null;
    for (const [k, v] of Object.entries(await pageSecurityHeaders(script ? [script] : []))) c.header(k, v);
    const { lang } = pageLang(c);
    // The event's own words for the page (`page.texts`): the isolate's copy of the cursor, no object call when fresh.
    const page = (await edgeCursor(c, eventId, Date.now()))?.page;
    return c.html(drawPage(eventId, record, lang, await waitingWords(read, lang, page?.texts), entrant, script));
  }
  return c.json({
    algorithm: 'order entrants by SHA-256 hex of "<seed>:<visitorId>", ascending; ties by id',
    ...record,
    ...(entrant === null ? {} : { entrant: { id: entrant, rank: entrantRank(record, entrant) } }),
  });
});
