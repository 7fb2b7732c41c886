// Every method the gateway receives gets a clear answer: a gateway path with routes for other
// methods is 405 with Allow and a problem body; a path with none is 404.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, createEvent, freshEventId } from '../helpers/client';

async function call(method: string, path: string) {
  const res = await exports.default.fetch(new Request(BASE + path, { method }));
  return {
    status: res.status,
    allow: res.headers.get('allow'),
    type: res.headers.get('content-type'),
    body: (await res.json()) as { code: string; detail?: string },
  };
}

describe('methods', () => {
  it('answers a wrong method on a gateway route with 405, Allow and a problem body', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    for (const [method, path, allow] of [
      ['POST', '/.well-known/jwks.json', 'GET, HEAD'],
      ['GET', `/_wr/events/${eventId}/join`, 'POST'],
      ['PROPFIND', `/_wr/events/${eventId}/join`, 'POST'],
      ['PATCH', `/_wr/events/${eventId}/status`, 'GET, HEAD'],
    ] as const) {
      const res = await call(method, path);
      expect({ method, path, ...res }).toMatchObject({
        method,
        path,
        status: 405,
        allow,
        type: 'application/problem+json',
        body: { code: 'METHOD_NOT_ALLOWED', detail: `${path} takes ${allow}` },
      });
    }
  });

  it('answers a path no route has with 404 whatever the method', async () => {
    for (const method of ['GET', 'POST', 'PROPFIND']) {
      expect((await call(method, '/_wr/nowhere')).body.code).toBe('NOT_FOUND');
    }
  });

  it('answers 404, not 405, on a path only middleware covers', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    expect(await call('GET', `/_wr/events/${eventId}/nothing-here`)).toMatchObject({ status: 404, allow: null });
  });
});
