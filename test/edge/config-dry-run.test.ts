// Edits checked without writing (`?dryRun=true` on PUT and PATCH): every problem with its field
// path, a stale If-Match, a taken URL, and what a valid edit would change; nothing is ever written.
import { describe, expect, it } from 'vitest';
import { createEvent, freshEventId } from '../helpers/client';
import { organizer } from '../helpers/organizer';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const dryPatch = (eventId: string, body: unknown, ifMatch?: string) =>
  organizer(`/events/${eventId}?dryRun=true`, {
    method: 'PATCH',
    body,
    headers: { ...MERGE, ...(ifMatch ? { 'if-match': ifMatch } : {}) },
  });
const changes = async (eventId: string) => (await organizer(`/events/${eventId}/changes`)).body['entries'] as unknown[];

describe('configuration dry runs', () => {
  it('lists every problem of a patched configuration with its field path, and changes nothing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Spring' });
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    const res = await dryPatch(eventId, { releaseRatePerMinute: 0, page: { accentColor: 'red' } }, etag);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_REQUEST' });
    const paths = (res.body['errors'] as { path: string; message: string }[]).map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['releaseRatePerMinute', 'page.accentColor']));
    expect(String(res.body['detail'])).toMatch(/^(releaseRatePerMinute|page\.accentColor): /);
    const after = await organizer(`/events/${eventId}`);
    expect(after.headers.get('etag')).toBe(etag);
    expect(await changes(eventId)).toHaveLength(1);
  });

  it('answers a valid patch with the configuration it would store and the fields it would change, writing nothing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Spring' });
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    const res = await dryPatch(eventId, { name: 'Spring tour' }, etag);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.body).toMatchObject({ eventId, dryRun: true, created: false, config: { name: 'Spring tour', releaseRatePerMinute: 600 } });
    expect(res.body['changes']).toEqual([{ field: 'name', from: 'Spring', to: 'Spring tour' }]);
    expect((await organizer(`/events/${eventId}`)).body['config']).toMatchObject({ name: 'Spring' });
    expect(await changes(eventId)).toHaveLength(1);
  });

  it('answers a stale If-Match with 412 and the current ETag, a fixed seat plan with 409, a bad dryRun value with 400', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    expect(
      (await organizer(`/events/${eventId}`, { method: 'PATCH', body: { name: 'B' }, headers: { ...MERGE, 'if-match': etag } })).status,
    ).toBe(200);
    const stale = await dryPatch(eventId, { name: 'C' }, etag);
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'VERSION_MISMATCH' });
    expect(stale.headers.get('etag')).not.toBe(etag);
    expect((await dryPatch(eventId, { seats: 50 })).body).toMatchObject({ code: 'CONFIG_CONFLICT' });
    const bad = await organizer(`/events/${eventId}?dryRun=yes`, { method: 'PATCH', body: { name: 'D' }, headers: MERGE });
    expect(bad.status).toBe(400);
    expect((await organizer(`/events/${eventId}`)).body['config']).toMatchObject({ name: 'B' });
  });

  it('checks a copy under a new id (PUT) without creating it, and refuses URLs another event covers', async () => {
    const source = freshEventId();
    await createEvent(source, { name: 'Source', patterns: [`/shows/${source}/*`] });
    const config = (await organizer(`/events/${source}`)).body['config'] as Record<string, unknown>;
    const copy = freshEventId();
    const { patterns: _patterns, ...rest } = config;
    const ok = await organizer(`/events/${copy}?dryRun=true`, { method: 'PUT', body: { ...rest, name: 'Copy' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      eventId: copy,
      dryRun: true,
      created: true,
      config: { name: 'Copy', patterns: [`/events/${copy}/*`] },
    });
    expect((await organizer(`/events/${copy}`)).status).toBe(404);
    const taken = await organizer(`/events/${copy}?dryRun=true`, { method: 'PUT', body: config });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'ROUTE_TAKEN' });
  });
});
