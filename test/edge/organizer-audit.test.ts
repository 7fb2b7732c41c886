// The audit record of organizer writes: a scripted sale day by named keys (create, patch, pause,
// resume, rate fix, close) exported as CSV and JSON; refused writes and key secrets never in it.
import { describe, expect, it } from 'vitest';
import { freshEventId } from '../helpers/client';
import { newKey, organizer } from '../helpers/organizer';
import type { AuditEntry } from '../../contracts/organizer-access';

const EVENT = {
  name: 'Spring tour',
  releaseRatePerMinute: 600,
  minReleaseRatePerMinute: 60,
  maxActiveVisitors: 1000,
  seats: 100,
  seatsPerRow: 10,
};

describe('organizer audit', () => {
  it('records a scripted sale day by who did what, exports it as CSV and JSON, and leaves refused writes out', async () => {
    const eventId = freshEventId();
    const admin = await newKey('admin', 'Ana (admin)');
    const operator = await newKey('operator', 'Ben (operator)');
    const viewer = await newKey('viewer', 'Cleo (box office)');
    const as = (key: { key: string }, path: string, method = 'POST', body?: unknown, headers?: Record<string, string>) =>
      organizer(path, { method, body, token: key.key, ...(headers ? { headers } : {}) });

    expect((await as(admin, `/events/${eventId}`, 'PUT', EVENT)).status).toBe(201);
    const etag = (await as(viewer, `/events/${eventId}`, 'GET')).headers.get('etag')!;
    const merge = { 'content-type': 'application/merge-patch+json', 'if-match': etag };
    expect(
      (await as(admin, `/events/${eventId}`, 'PATCH', { releaseRatePerMinute: 900, name: 'Spring tour (extra date)' }, merge)).status,
    ).toBe(200);
    // Refused: stale version, invalid config, a viewer's pause, a bad rate. None is a change.
    expect((await as(admin, `/events/${eventId}`, 'PATCH', { name: 'late' }, merge)).status).toBe(412);
    expect(
      (await as(admin, `/events/${eventId}`, 'PATCH', { maxActiveVisitors: 0 }, { 'content-type': 'application/merge-patch+json' })).status,
    ).toBe(400);
    expect((await as(viewer, `/events/${eventId}/pause`)).status).toBe(403);
    expect((await as(operator, `/events/${eventId}/rate`, 'POST', { fixedPerMinute: -1 })).status).toBe(400);
    for (const [path, body] of [
      ['pause', undefined],
      // A second pause changes nothing: no entry.
      ['pause', undefined],
      ['resume', undefined],
      ['rate', { fixedPerMinute: 120 }],
      // The same rate again changes nothing: no entry.
      ['rate', { fixedPerMinute: 120 }],
      ['close', undefined],
    ] as const) {
      expect((await as(operator, `/events/${eventId}/${path}`, 'POST', body)).status, path).toBe(200);
    }

    const json = await as(viewer, `/events/${eventId}/changes?format=json`, 'GET');
    expect(json.headers.get('content-disposition')).toContain(`audit-${eventId}.json`);
    const entries = json.body['entries'] as AuditEntry[];
    expect(entries.map((e) => [e.action, e.actor.label])).toEqual([
      ['event.create', 'Ana (admin)'],
      ['event.update', 'Ana (admin)'],
      ['event.pause', 'Ben (operator)'],
      ['event.resume', 'Ben (operator)'],
      ['event.rate', 'Ben (operator)'],
      ['event.close', 'Ben (operator)'],
    ]);
    expect(entries[0]!.actor).toEqual({ kind: 'key', id: admin.keyId, label: 'Ana (admin)' });
    expect(entries[1]!.changes).toEqual([
      { field: 'name', from: 'Spring tour', to: 'Spring tour (extra date)' },
      { field: 'releaseRatePerMinute', from: 600, to: 900 },
    ]);
    expect(entries[2]!.changes).toEqual([{ field: 'mode', from: 'open', to: 'paused' }]);
    expect(entries[4]!.changes).toEqual([{ field: 'fixedRatePerMinute', from: null, to: 120 }]);
    for (const e of entries) expect(e.requestId).toMatch(/.{8,}/);

    const csv = await as(viewer, `/events/${eventId}/changes?format=csv`, 'GET');
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = csv.text.trimEnd().split('\r\n');
    expect(rows[0]).toBe('id,at,eventId,actorKind,actorId,actorLabel,action,field,from,to,requestId');
    expect(rows.some((r) => r.includes(',event.update,releaseRatePerMinute,600,900,'))).toBe(true);
    console.log(`audit export (CSV) of a scripted sale day, ${entries.length} entries:\n${csv.text}`);

    // Paged: two at a time, in order, to the end.
    const paged: number[] = [];
    for (let after = 0; ;) {
      const page = await as(viewer, `/events/${eventId}/changes?limit=2&after=${after}`, 'GET');
      paged.push(...(page.body['entries'] as AuditEntry[]).map((e) => e.id));
      if (page.body['next'] === null) break;
      after = page.body['next'] as number;
    }
    expect(paged).toEqual(entries.map((e) => e.id));
  });

  it('offers no way to edit or delete an entry', async () => {
    const eventId = freshEventId();
    for (const method of ['PUT', 'PATCH', 'POST', 'DELETE']) {
      // The logs are read-only routes (405, `Allow: GET, HEAD`); single entries have no route at all.
      for (const path of [`/events/${eventId}/changes`, '/changes']) {
        expect((await organizer(path, { method, body: {} })).status, `${method} ${path}`).toBe(405);
      }
      for (const path of [`/events/${eventId}/changes/1`, '/changes/1']) {
        expect((await organizer(path, { method, body: {} })).status, `${method} ${path}`).toBe(404);
      }
    }
  });

  it('records key creation and revocation organization-wide, by whom, never with the key', async () => {
    const { keyId, key } = await newKey('viewer', 'Temp staff');
    await organizer(`/keys/${keyId}`, { method: 'DELETE' });
    const all = await organizer('/changes?format=json');
    const mine = (all.body['entries'] as AuditEntry[]).filter((e) => e.changes.some((c) => c.to === keyId || c.from === keyId));
    expect(mine.map((e) => [e.action, e.actor.kind])).toEqual([
      ['key.create', 'bootstrap'],
      ['key.revoke', 'bootstrap'],
    ]);
    const revoke = mine.find((e) => e.action === 'key.revoke')!;
    expect(revoke.changes).toEqual([
      { field: 'keyId', from: keyId },
      { field: 'label', from: expect.any(String) },
      { field: 'role', from: expect.stringMatching(/^(viewer|operator|admin)$/) },
      { field: 'revokedAt', to: new Date(revoke.at).toISOString() },
    ]);
    expect(all.text).not.toContain(key.slice(17));
    // A second revoke is no change.
    await organizer(`/keys/${keyId}`, { method: 'DELETE' });
    const again = (await organizer('/changes?format=json')).body['entries'] as AuditEntry[];
    expect(again.filter((e) => e.action === 'key.revoke' && e.changes.some((c) => c.from === keyId))).toHaveLength(1);
  });
});
