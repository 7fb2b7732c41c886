// Requests whose cost would grow with a client-chosen size are refused before any work, with a
// problem answer; paths under the limit are routed as usual.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_PATH_LENGTH } from '../../contracts/room-patterns';
import { BASE, createEvent, freshEventId } from '../helpers/client';

describe('path length', () => {
  it.each([
    ['a pass-through GET', 'GET', '/a'],
    ['a gateway route', 'POST', '/_wr/events/e/join/a'],
    ['a room page', 'GET', '/events/e/a'],
  ])('refuses %s with a path over MAX_PATH_LENGTH as 414 URI_TOO_LONG, before routing', async (_name, method, prefix) => {
    const path = prefix + '/a'.repeat(MAX_PATH_LENGTH / 2);
    const res = await exports.default.fetch(new Request(BASE + path, { method }));
    expect(res.status).toBe(414);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({
      code: 'URI_TOO_LONG',
      status: 414,
      detail: `the path is ${path.length} characters; at most ${MAX_PATH_LENGTH}`,
    });
  });

  it('routes a path of exactly MAX_PATH_LENGTH characters', async () => {
    const path = '/' + 'a'.repeat(MAX_PATH_LENGTH - 1);
    const res = await exports.default.fetch(new Request(BASE + path));
    expect(res.status).not.toBe(414);
    await res.body?.cancel();
  });
});

describe('malformed request fields', () => {
  it('serves the waiting page to a browser whose language cookie holds a malformed percent escape', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    const res = await exports.default.fetch(
      new Request(`${BASE}/events/${eventId}/`, { headers: { accept: 'text/html', cookie: 'wr_lang=%E0%A4', 'accept-language': 'ja' } }),
    );
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).toContain('lang="ja"');
  });
});
