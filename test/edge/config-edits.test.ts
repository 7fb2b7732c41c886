// Edits that never overwrite each other: the configuration's version as ETag, PATCH (JSON Merge
// Patch) and PUT conditional on If-Match, and bad edits that change nothing and record nothing.
import { describe, expect, it } from 'vitest';
import { Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { organizer } from '../helpers/organizer';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const patch = (eventId: string, body: unknown, ifMatch?: string) =>
  organizer(`/events/${eventId}`, { method: 'PATCH', body, headers: { ...MERGE, ...(ifMatch ? { 'if-match': ifMatch } : {}) } });
const changes = async (eventId: string) => (await organizer(`/events/${eventId}/changes`)).body['entries'] as { action: string }[];

describe('configuration edits', () => {
  it('answers GET with an ETag, applies a PATCH with that If-Match, and refuses the old version afterwards with 412 and the current one', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Spring' });
    const read = await organizer(`/events/${eventId}`);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"v\d+"$/);
    const patched = await patch(eventId, { name: 'Spring tour', releaseRatePerMinute: 900 }, etag);
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(etag);
    expect(patched.body['config']).toMatchObject({ name: 'Spring tour', releaseRatePerMinute: 900, maxActiveVisitors: 1000 });
    const again = await organizer(`/events/${eventId}`);
    expect(again.headers.get('etag')).toBe(patched.headers.get('etag'));
    expect(again.body['config']).toMatchObject({ name: 'Spring tour', releaseRatePerMinute: 900 });

    const stale = await patch(eventId, { name: 'Overwritten' }, etag);
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'VERSION_MISMATCH', etag: patched.headers.get('etag') });
    expect(stale.headers.get('etag')).toBe(patched.headers.get('etag'));
    const put = await organizer(`/events/${eventId}`, {
      method: 'PUT',
      body: { releaseRatePerMinute: 60, minReleaseRatePerMinute: 6, maxActiveVisitors: 1, seats: 10 },
      headers: { 'if-match': etag },
    });
    expect(put.status).toBe(412);
    expect((await organizer(`/events/${eventId}`)).body['config']).toMatchObject({ name: 'Spring tour', releaseRatePerMinute: 900 });
    expect((await changes(eventId)).map((e) => e.action)).toEqual(['event.create', 'event.update']);
  });

  it('lets exactly one of two concurrent PATCHes with the same If-Match win: one 200, one 412, and the stored configuration is the winner’s', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    const bodies = [
      { name: 'Edit by Ana', releaseRatePerMinute: 700 },
      { name: 'Edit by Ben', maxActiveVisitors: 222 },
    ];
    const answers = await Promise.all(bodies.map((b) => patch(eventId, b, etag)));
    const statuses = answers.map((a) => a.status).sort();
    console.log(`two concurrent PATCHes with If-Match ${etag}: ${answers.map((a, i) => `${bodies[i]!.name} -> ${a.status}`).join(', ')}`);
    expect(statuses).toEqual([200, 412]);
    const winner = bodies[answers.findIndex((a) => a.status === 200)]!;
    const stored = (await organizer(`/events/${eventId}`)).body['config'] as Record<string, unknown>;
    expect(stored).toMatchObject(winner);
    expect(stored['name']).toBe(winner.name);
    expect(stored).toMatchObject(winner.name === 'Edit by Ana' ? { maxActiveVisitors: 1000 } : { releaseRatePerMinute: 600 });
    expect((await changes(eventId)).filter((e) => e.action === 'event.update')).toHaveLength(1);
  });

  it('refuses a PATCH that would make the configuration invalid with 400, changing and recording nothing, and frees the edit', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    for (const body of [{ releaseRatePerMinute: -5 }, { maxActiveVisitors: null }, { surprise: 1 }]) {
      const res = await patch(eventId, body, etag);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body['code']).toBe('INVALID_REQUEST');
    }
    expect((await patch(eventId, '[1]', etag)).status).toBe(400);
    expect(
      (await organizer(`/events/${eventId}`, { method: 'PATCH', body: { name: 'x' }, headers: { 'content-type': 'text/plain' } })).status,
    ).toBe(400);
    expect((await organizer(`/events/${eventId}`)).headers.get('etag')).toBe(etag);
    expect((await changes(eventId)).map((e) => e.action)).toEqual(['event.create']);
    // Nothing was left holding the event: the same version still edits.
    expect((await patch(eventId, { name: 'Fine' }, etag)).status).toBe(200);
  });

  it('refuses a PATCH to a field that cannot change once visitors joined with 409, changing and recording nothing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    await new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    const res = await patch(eventId, { queueShards: 2 }, etag);
    expect(res.status).toBe(409);
    expect(res.body['code']).toBe('CONFIG_CONFLICT');
    expect((await organizer(`/events/${eventId}`)).body['config']).toMatchObject({ queueShards: 1 });
    expect((await organizer(`/events/${eventId}`)).headers.get('etag')).toBe(etag);
    expect((await changes(eventId)).map((e) => e.action)).toEqual(['event.create']);
  });

  it('refuses a PATCH that moves the start of a sale under way into the future with 409, changing nothing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    await admittedVisitor(eventId);
    const read = await organizer(`/events/${eventId}`);
    const etag = read.headers.get('etag')!;
    const res = await patch(eventId, { saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() }, etag);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFIG_CONFLICT' });
    expect(String(res.body['detail'] ?? res.body['message'])).toMatch(/pause the event/);
    expect((await organizer(`/events/${eventId}`)).headers.get('etag')).toBe(etag);
    expect((await changes(eventId)).map((e) => e.action)).toEqual(['event.create']);
  });

  it('answers 404 to a PATCH of no event, and 412 to If-Match: * on a PUT that would create one', async () => {
    const eventId = freshEventId();
    expect((await patch(eventId, { name: 'x' })).status).toBe(404);
    const put = await organizer(`/events/${eventId}`, {
      method: 'PUT',
      body: { releaseRatePerMinute: 60, minReleaseRatePerMinute: 6, maxActiveVisitors: 10, seats: 10 },
      headers: { 'if-match': '*' },
    });
    expect(put.status).toBe(412);
    expect((await organizer(`/events/${eventId}`)).status).toBe(404);
    expect((await createEvent(eventId)).status).toBe(201);
    expect(
      (
        await organizer(`/events/${eventId}`, {
          method: 'PUT',
          body: { releaseRatePerMinute: 60, minReleaseRatePerMinute: 6, maxActiveVisitors: 1000, seats: 100, seatsPerRow: 10 },
          headers: { 'if-match': '*' },
        })
      ).status,
    ).toBe(200);
  });
});
