// The report after the sale through the organizer API: counts, time in queue, the rate log with
// its reasons, the schedule, the lottery's commitment, and the minutes as CSV.
import { describe, expect, it } from 'vitest';
import { organizer } from '../helpers/channels';
import { admittedVisitor, createEvent, freshEventId } from '../helpers/client';
import { env, exports } from 'cloudflare:workers';
import { BASE } from '../helpers/client';

describe('the report after the sale', () => {
  it('counts visitors and admissions, lists rate changes with reasons and scheduled changes, and has no lottery record for FIFO', async () => {
    const eventId = freshEventId('rep');
    expect((await createEvent(eventId)).status).toBe(201);
    await admittedVisitor(eventId);
    const t = Date.now();
    await organizer('PUT', `/events/${eventId}/schedule/later`, {
      reason: 'second wave',
      startsAt: new Date(t + 3_600_000).toISOString(),
      endsAt: new Date(t + 7_200_000).toISOString(),
      releaseRatePerMinute: 900,
    });
    const res = await organizer<Record<string, unknown>>('GET', `/events/${eventId}/report`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ eventId, visitors: 1, admitted: 1, waitingAtEnd: 0, sold: 0, lottery: null, botsRefused: 0 });
    expect(res.body.queueTime).toMatchObject({ count: 1 });
    expect((res.body.rateChanges as { reason: string }[])[0]?.reason).toBe('start at the minimum until the origin reports health');
    expect(res.body.schedule).toEqual([expect.objectContaining({ id: 'later', state: 'scheduled', reason: 'second wave' })]);
  });

  it('gives a lottery its commitment (the seed only after the draw)', async () => {
    const eventId = freshEventId('rep');
    expect((await createEvent(eventId, { policy: 'random', saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() })).status).toBe(
      201,
    );
    const res = await organizer<{ lottery: { commitment: string; drawn: boolean; seed: string | null } }>(
      'GET',
      `/events/${eventId}/report`,
    );
    expect(res.body.lottery).toMatchObject({ drawn: false, seed: null, commitment: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('serves the minutes as CSV, refuses another format with 400 and an unknown event with 404', async () => {
    const eventId = freshEventId('rep');
    expect((await createEvent(eventId)).status).toBe(201);
    const csv = await exports.default.fetch(
      new Request(`${BASE}/_wr/admin/events/${eventId}/report?format=csv`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }),
    );
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect((await csv.text()).split('\r\n')[0]).toBe(
      'at,waiting,admitted,active,released,departures,queueP50Ms,queueP90Ms,originP99Ms,originErrorRate,releaseRatePerMinute,activeLimit,binds,' +
        'refusedProofOfWork,refusedEntryToken,refusedRateLimit,refusedOther',
    );
    expect((await organizer('GET', `/events/${eventId}/report?format=xml`)).status).toBe(400);
    expect((await organizer('GET', `/events/${freshEventId('none')}/report`)).status).toBe(404);
  });
});
