// The organizer API of scheduled changes: a change is stored, listed and cancelled through it, and
// each bad change (overlap on a field, end before start, start in the past, no setting, unknown
// event or change) gets its own 4xx and leaves the schedule as it was.
import { describe, expect, it } from 'vitest';
import { organizer } from '../helpers/channels';
import { createEvent, freshEventId } from '../helpers/client';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function eventWithChange(): Promise<{ eventId: string; t0: number }> {
  const eventId = freshEventId('sapi');
  expect((await createEvent(eventId)).status).toBe(201);
  const t0 = Date.now();
  const res = await organizer('PUT', `/events/${eventId}/schedule/rate-up`, {
    reason: 'second wave',
    startsAt: iso(t0 + 60 * MIN),
    endsAt: iso(t0 + 120 * MIN),
    releaseRatePerMinute: 1200,
  });
  expect(res.status).toBe(201);
  return { eventId, t0 };
}

describe('scheduled changes through the organizer API', () => {
  it('stores a change (201), answers the same PUT again with 200, lists it in the API names and cancels it', async () => {
    const { eventId, t0 } = await eventWithChange();
    const again = await organizer('PUT', `/events/${eventId}/schedule/rate-up`, {
      reason: 'second wave',
      startsAt: iso(t0 + 60 * MIN),
      endsAt: iso(t0 + 120 * MIN),
      releaseRatePerMinute: 1200,
    });
    expect(again.status).toBe(200);
    // The audit records the change once, and its cancel once.
    const actions = async () =>
      ((await organizer<{ entries: { action: string }[] }>('GET', `/events/${eventId}/changes`)).body.entries ?? []).map((e) => e.action);
    expect((await actions()).filter((a) => a.startsWith('schedule.'))).toEqual(['schedule.create']);
    const list = await organizer<{ schedule: unknown[] }>('GET', `/events/${eventId}/schedule`);
    expect(list.body.schedule).toEqual([
      {
        id: 'rate-up',
        state: 'scheduled',
        reason: 'second wave',
        startsAt: iso(t0 + 60 * MIN),
        endsAt: iso(t0 + 120 * MIN),
        releaseRatePerMinute: 1200,
      },
    ]);
    expect((await organizer('DELETE', `/events/${eventId}/schedule/rate-up`)).status).toBe(200);
    expect((await actions()).filter((a) => a.startsWith('schedule.')).sort()).toEqual(['schedule.cancel', 'schedule.create']);
    expect((await organizer<{ schedule: unknown[] }>('GET', `/events/${eventId}/schedule`)).body.schedule).toEqual([]);
  });

  it.each<{ name: string; id: string; body: (t0: number) => Record<string, unknown>; status: number; code: string; detail: RegExp }>([
    {
      name: 'an overlap with a change of the same field: 409 SCHEDULE_CONFLICT',
      id: 'other',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 90 * MIN), endsAt: iso(t0 + 150 * MIN), releaseRatePerMinute: 900 }),
      status: 409,
      code: 'SCHEDULE_CONFLICT',
      detail: /overlaps the scheduled change .{1,2}rate-up.{1,2} \(second wave\), which also sets releaseRatePerMinute/,
    },
    {
      name: "a minimum above the event's release rate: 422 SCHEDULE_INVALID",
      id: 'min-high',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 200 * MIN), endsAt: iso(t0 + 210 * MIN), minReleaseRatePerMinute: 5000 }),
      status: 422,
      code: 'SCHEDULE_INVALID',
      detail: /minReleaseRatePerMinute 5000 is above the release rate in effect/,
    },
    {
      name: 'an end before the start: 400 INVALID_REQUEST naming endsAt',
      id: 'other',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 90 * MIN), endsAt: iso(t0 + 80 * MIN), maxActiveVisitors: 5 }),
      status: 400,
      code: 'INVALID_REQUEST',
      detail: /endsAt must be after startsAt/,
    },
    {
      name: 'a start in the past: 422 SCHEDULE_INVALID',
      id: 'other',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 - 10 * MIN), endsAt: iso(t0 + 10 * MIN), maxActiveVisitors: 5 }),
      status: 422,
      code: 'SCHEDULE_INVALID',
      detail: /in the past/,
    },
    {
      name: 'an end in the past with no start (it would start now): 422 SCHEDULE_INVALID',
      id: 'other',
      body: (t0) => ({ reason: 'x', endsAt: iso(t0 - 10 * MIN), maxActiveVisitors: 5 }),
      status: 422,
      code: 'SCHEDULE_INVALID',
      detail: /endsAt is in the past/,
    },
    {
      name: 'no setting to change: 400 INVALID_REQUEST',
      id: 'other',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 200 * MIN), endsAt: iso(t0 + 210 * MIN) }),
      status: 400,
      code: 'INVALID_REQUEST',
      detail: /at least one setting/,
    },
    {
      name: 'the id of another change: 409 SCHEDULE_CONFLICT',
      id: 'rate-up',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 200 * MIN), endsAt: iso(t0 + 210 * MIN), maxActiveVisitors: 5 }),
      status: 409,
      code: 'SCHEDULE_CONFLICT',
      detail: /exists with other settings/,
    },
    {
      name: 'an id that is not a slug: 400 INVALID_REQUEST',
      id: 'Not_A_Slug',
      body: (t0) => ({ reason: 'x', startsAt: iso(t0 + 200 * MIN), endsAt: iso(t0 + 210 * MIN), maxActiveVisitors: 5 }),
      status: 400,
      code: 'INVALID_REQUEST',
      detail: /overrideId/,
    },
  ])('$name, and the schedule stays as it was', async ({ id, body, status, code, detail }) => {
    const { eventId, t0 } = await eventWithChange();
    const before = await organizer('GET', `/events/${eventId}/schedule`);
    const res = await organizer<{ code: string; detail: string }>('PUT', `/events/${eventId}/schedule/${id}`, body(t0));
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(JSON.stringify(res.body)).toMatch(detail);
    expect(await organizer('GET', `/events/${eventId}/schedule`)).toEqual(before);
  });

  it('refuses an event maximum under a scheduled minimum with 409, changing nothing, and names the change', async () => {
    const eventId = freshEventId('sapi');
    expect((await createEvent(eventId, { minReleaseRatePerMinute: 60 })).status).toBe(201);
    const t0 = Date.now();
    const floor = { reason: 'floor', startsAt: iso(t0 + 60 * MIN), endsAt: iso(t0 + 120 * MIN), minReleaseRatePerMinute: 300 };
    expect((await organizer('PUT', `/events/${eventId}/schedule/floor`, floor)).status).toBe(201);
    const lower = await createEvent(eventId, { minReleaseRatePerMinute: 60, releaseRatePerMinute: 200 });
    expect(lower.status).toBe(409);
    expect(await lower.json()).toMatchObject({
      code: 'CONFIG_CONFLICT',
      detail: expect.stringMatching(/"floor" sets a minimum of 300\/min/),
    });
    expect(
      (await organizer<{ config: { releaseRatePerMinute: number } }>('GET', `/events/${eventId}`)).body.config.releaseRatePerMinute,
    ).toBe(600);
  });

  it('answers 404 for an unknown event and for cancelling an unknown change', async () => {
    const t0 = Date.now();
    const unknown = await organizer<{ code: string }>('PUT', `/events/${freshEventId('none')}/schedule/x`, {
      reason: 'x',
      startsAt: iso(t0 + MIN),
      endsAt: iso(t0 + 2 * MIN),
      maxActiveVisitors: 5,
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const { eventId } = await eventWithChange();
    const gone = await organizer<{ code: string }>('DELETE', `/events/${eventId}/schedule/nope`);
    expect([gone.status, gone.body.code]).toEqual([404, 'SCHEDULE_NOT_FOUND']);
  });
});
