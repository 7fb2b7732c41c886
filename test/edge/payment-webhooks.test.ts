// The stub's payment webhooks lived inside the sale's room (`/events/{id}/webhooks/...`),
// where the gateway answers the provider (which has no admission) 401 ADMISSION_REQUIRED. They are
// now beside the room, so through the gateway they reach the origin, which checks their signature.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE, createEvent, freshEventId } from '../helpers/client';

describe("the origin stub's payment webhooks through the gateway", () => {
  it('pass through to the origin (its own 401 SIGNATURE_INVALID for an unsigned one), not the room', async () => {
    const eventId = freshEventId('hook');
    expect((await createEvent(eventId)).status).toBe(201);
    const res = await exports.default.fetch(
      new Request(`${BASE}/webhooks/events/${eventId}/payments`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });
});
