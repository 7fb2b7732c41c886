// A proof of work on join: the challenge, a solved join's place, and every guarantee
// the queue had before (a ticket holder is never asked again, polls stay at the edge, reloads keep
// the place); the browser's check step as the gateway serves it.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Challenge } from 'altcha-lib';
import { LANGS } from '../../contracts/i18n';
import { shardName } from '../../contracts/names';
import { CHALLENGE_TTL_MS } from '../../contracts/proof-of-work';
import type { QueueShard } from '../../durable-objects/waiting-room/queue-shard';
import type { WaitingRoom } from '../../durable-objects/waiting-room/waiting-room';
import { CURSOR_CACHE_MS } from '../../src/lib/cursor-cache';
import { scriptHash } from '../../src/lib/security-headers';
import { CHECK_MESSAGES } from '../../src/pages/check-messages';
import { SCRIPT_PATHS } from '../../src/lib/page-assets';
import { Visitor, createEvent, freshEventId } from '../helpers/client';
import { fetchChallenge, solvedHeader } from '../helpers/proof-of-work';

const POW = { proofOfWork: { difficultyBits: 8 } };
const shard = (eventId: string) => env.QUEUE_SHARD.getByName(shardName(eventId, 0));
const shardRows = (eventId: string) =>
  runInDurableObject(
    shard(eventId),
    (_o, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM qs_visitors').toArray()[0]!.n,
  );
const claims = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string };

async function joined(eventId: string, v = new Visitor()) {
  const { header, challenge } = await solvedHeader(eventId);
  const r = await v.json<{ state: string; queueTicket?: string; position: number }>(`/_wr/events/${eventId}/join`, {
    method: 'POST',
    headers: { 'x-wr-proof-of-work': header },
  });
  return { v, r, challenge, header };
}

describe('the join challenge', () => {
  it('is a fresh ALTCHA v2 SHA-256 challenge bound to the event, a new visitor id and the difficulty, expiring in 120 s; nothing is stored', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, { proofOfWork: { difficultyBits: 12 } });
    const before = Date.now();
    const v = new Visitor();
    const r = await v.json<Challenge>(`/_wr/events/${eventId}/challenge`);
    expect(r.status).toBe(200);
    expect(r.res.headers.get('cache-control')).toBe('no-store');
    const p = r.body.parameters;
    expect({ algorithm: p.algorithm, cost: p.cost, keyLength: p.keyLength }).toEqual({ algorithm: 'SHA-256', cost: 1, keyLength: 32 });
    expect(p.data).toMatchObject({ event: eventId, bits: 12 });
    expect(String(p.data!.visitor)).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.keyPrefix).toMatch(/^[0-9a-f]{32}$/);
    expect(p.keySignature).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(p.expiresAt! * 1000).toBeGreaterThan(before + CHALLENGE_TTL_MS - 1000);
    expect(p.expiresAt! * 1000).toBeLessThanOrEqual(Date.now() + CHALLENGE_TTL_MS);
    const other = await fetchChallenge(eventId);
    expect(other.parameters.data!.visitor).not.toBe(p.data!.visitor);
    expect(v.cookies.size).toBe(0);
    expect(await shardRows(eventId)).toBe(0);
  });
});

describe('a solved join', () => {
  it('gets a place under the challenge’s visitor id, and the ticket holder is never asked again (join, status, the room URL, a bearer app)', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, { ...POW, maxActiveVisitors: 1 });
    const { v, r, challenge } = await joined(eventId);
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('waiting');
    expect(claims(r.body.queueTicket!).sub).toBe(challenge.parameters.data!.visitor);
    const place = r.body.position;
    for (const path of [`/_wr/events/${eventId}/join`, `/_wr/events/${eventId}/status`]) {
      const again = await v.json<{ position: number; queueTicket?: string }>(path, { method: path.endsWith('join') ? 'POST' : 'GET' });
      expect(again.status).toBe(200);
      expect(again.body.position).toBe(place);
      expect(again.body.queueTicket).toBeUndefined();
    }
    expect((await v.json<{ position: number }>(`/events/${eventId}/`)).body.position).toBe(place);
    const app = await new Visitor().json<{ position: number }>(`/_wr/events/${eventId}/status`, {
      headers: { authorization: `Bearer ${r.body.queueTicket}` },
    });
    expect(app.body.position).toBe(place);
    expect(await shardRows(eventId)).toBe(1);
  });

  it('leaves polls at the edge: 100 polls cost no QueueShard call and at most one WaitingRoom call per second', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, { ...POW, maxActiveVisitors: 1 });
    const { v } = await joined(eventId);
    const shardCalls = () => runInDurableObject(shard(eventId), (s: QueueShard) => s.requests);
    const roomCalls = () => runInDurableObject(env.WAITING_ROOM.getByName(eventId), (room: WaitingRoom) => room.requests);
    const before = { shard: await shardCalls(), room: await roomCalls() };
    const started = Date.now();
    for (let i = 0; i < 100; i++) expect((await v.json(`/_wr/events/${eventId}/status`)).status).toBe(200);
    expect((await shardCalls()) - before.shard).toBe(0);
    expect((await roomCalls()) - before.room).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / CURSOR_CACHE_MS));
  });

  it('a ticket from before the organizer switched the proof of work on keeps its place, unasked', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId);
    const v = new Visitor();
    const first = await v.json<{ position: number }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await createEvent(eventId, POW)).status).toBe(200);
    const later = await v.json<{ position: number }>(`/_wr/events/${eventId}/status`);
    expect(later.status).toBe(200);
    expect(later.body.position).toBe(first.body.position);
    // A newcomer is asked now.
    expect((await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' })).status).toBe(401);
  });

  it('a lottery entrant who solved once has one entry; replaying the solution adds none', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, { ...POW, policy: 'random', saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const { r, header } = await joined(eventId);
    expect(r.body.state).toBe('not_open');
    for (let i = 0; i < 3; i++) {
      const replay = await new Visitor().json<{ code: string }>(`/_wr/events/${eventId}/join`, {
        method: 'POST',
        headers: { 'x-wr-proof-of-work': header },
      });
      expect(replay.body.code).toBe('PROOF_OF_WORK_USED');
    }
    const entrants = await runInDurableObject(
      shard(eventId),
      (_o, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM qs_visitors WHERE pre = 1').toArray()[0]!.n,
    );
    expect(entrants).toBe(1);
  });

  it('a closed sale answers closed without asking for a proof (no place either way)', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const close = await new Visitor().fetch(`/_wr/admin/events/${eventId}/close`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(close.status).toBe(200);
    const r = await new Visitor().json<{ state: string; queueTicket?: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('closed');
    expect(r.body.queueTicket).toBeUndefined();
  });
});

describe('the room URL on a proof-of-work event', () => {
  it('gives a new browser the check step (challenge embedded, script pinned by CSP hash, no cookie, no place) in each language', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, { ...POW, name: 'Check <Concert>' });
    for (const lang of LANGS) {
      const v = new Visitor();
      const res = await v.fetch(`/events/${eventId}/?lang=${lang}`, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      // The script the page embeds is the check-script asset, and the CSP allows exactly it.
      const script = await (await env.ASSETS.fetch(`https://assets.invalid${SCRIPT_PATHS.check}`)).text();
      expect(res.headers.get('content-security-policy')).toContain(await scriptHash(script));
      const page = await res.text();
      expect(page).toContain(`<script>${script}</script>`);
      expect(page).toContain(`<h1 data-testid="headline">${CHECK_MESSAGES[lang].headline}</h1>`);
      expect(page).toContain(CHECK_MESSAGES[lang].noScript);
      expect(page).toContain('Check &lt;Concert&gt;');
      expect(page).toMatch(/"parameters":\{"algorithm":"SHA-256"/);
      expect([...v.cookies.keys()]).toEqual(['wr_lang']);
    }
    expect(await shardRows(eventId)).toBe(0);
  });

  it('answers an app without a proof 401 PROOF_OF_WORK_REQUIRED, and with one the status JSON and a ticket', async () => {
    const eventId = freshEventId('pow');
    await createEvent(eventId, POW);
    const refused = await new Visitor().json<{ code: string }>(`/events/${eventId}/`);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('PROOF_OF_WORK_REQUIRED');
    const { header } = await solvedHeader(eventId);
    const ok = await new Visitor().json<{ state: string; queueTicket?: string }>(`/events/${eventId}/`, {
      headers: { 'x-wr-proof-of-work': header },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.state).toBe('waiting');
    expect(ok.body.queueTicket).toBeTruthy();
  });

  it('an event without a proof of work joins as before, with no header and no check step', async () => {
    const eventId = freshEventId('open');
    await createEvent(eventId);
    const res = await new Visitor().fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(CHECK_MESSAGES.en.headline);
    expect(await shardRows(eventId)).toBe(1);
  });
});
