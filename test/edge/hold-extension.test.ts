// Extending a hold through the gateway: the visitor's route (Idempotency-Key, the admission moved to
// the new deadline) and the origin's signed route; every refusal a 4xx with its code and the hold
// unchanged, never a 5xx.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { admissionCookie } from '../../src/lib/cookies';
import { tokenSettings, verifyToken } from '../../src/lib/token';
import { admittedVisitor, createEvent, freshEventId, type Visitor } from '../helpers/client';
import { signedCall } from '../helpers/gateway';
import { organizer } from '../helpers/organizer';

const EXTENSION = { maxExtensions: 2, extensionSeconds: 60, maxTotalSeconds: 150 };
const settings = tokenSettings(env);
const admissionOf = (v: Visitor, eventId: string) =>
  verifyToken(settings, 'admission', v.cookies.get(admissionCookie(eventId, true))!, eventId, Date.now());

type HoldBody = {
  holdId: string;
  status: string;
  expiresAt: string;
  extension?: { used: number; max: number; latestExpiresAt: string | null };
};

function extend(v: Visitor, eventId: string, holdId: string, key?: string) {
  return v.json<HoldBody & { code?: string; admissionToken?: string; hold?: HoldBody }>(`/_wr/events/${eventId}/holds/${holdId}/extend`, {
    method: 'POST',
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

function originExtend(eventId: string, holdId: string, body: Record<string, unknown>) {
  return signedCall('POST', `/_wr/origin/events/${eventId}/holds/${holdId}/extend`, JSON.stringify(body));
}

async function heldBy(eventId: string, config: Record<string, unknown>): Promise<{ v: Visitor; hold: HoldBody }> {
  expect((await createEvent(eventId, config)).status).toBe(201);
  const v = await admittedVisitor(eventId);
  const res = await v.hold(eventId, ['A1', 'A2']);
  expect(res.status).toBe(201);
  return { v, hold: res.body as unknown as HoldBody };
}

describe('POST /_wr/events/{eventId}/holds/{holdId}/extend', () => {
  it('extends by extensionSeconds, replays the same key, moves the admission, and stops at the cap', async () => {
    const eventId = freshEventId('extend');
    const { v, hold } = await heldBy(eventId, { admissionTtlSeconds: 30, holdTtlSeconds: 60, holdExtension: EXTENSION });
    const placed = Date.parse(hold.expiresAt);
    // The hold's own answer says what the event allows, so a page can offer more time from the start.
    expect(hold.extension).toEqual({ used: 0, max: 2, latestExpiresAt: new Date(placed - 60_000 + 150_000).toISOString() });
    const first = await extend(v, eventId, hold.holdId, 'ext-1');
    expect(first.status).toBe(200);
    expect(first.res.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toMatchObject({ holdId: hold.holdId, status: 'HELD', extension: { used: 1, max: 2 } });
    expect(Date.parse(first.body.expiresAt)).toBe(placed + 60_000);
    // The admission follows the new deadline plus the payment grace (120 s by default).
    expect(first.body.admissionToken).toBe(v.cookies.get(admissionCookie(eventId, true)));
    expect((await admissionOf(v, eventId)).expiresAtMs).toBe(Math.floor((placed + 60_000 + 120_000) / 1000) * 1000);

    const replay = await extend(v, eventId, hold.holdId, 'ext-1');
    expect(replay.status).toBe(200);
    expect(replay.res.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toMatchObject({ expiresAt: first.body.expiresAt, extension: { used: 1 } });

    const second = await extend(v, eventId, hold.holdId, 'ext-2');
    // 60 s TTL + 60 s, then only 30 s more under the 150 s cap.
    expect(Date.parse(second.body.expiresAt)).toBe(placed + 90_000);
    expect(second.body.extension).toMatchObject({ used: 2, latestExpiresAt: second.body.expiresAt });
    const third = await extend(v, eventId, hold.holdId, 'ext-3');
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ code: 'HOLD_EXTENSION_LIMIT', hold: { expiresAt: second.body.expiresAt } });
  });

  it('refuses with 4xx codes and changes nothing: no key, a bad key, no extensions, another visitor, no such hold', async () => {
    const eventId = freshEventId('extend');
    const { v, hold } = await heldBy(eventId, {});
    expect(hold.extension).toBeUndefined();
    expect(await extend(v, eventId, hold.holdId)).toMatchObject({ status: 400, body: { code: 'IDEMPOTENCY_KEY_REQUIRED' } });
    expect(await extend(v, eventId, hold.holdId, 'bad key')).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await extend(v, eventId, hold.holdId, 'k')).toMatchObject({
      status: 409,
      body: { code: 'HOLD_EXTENSIONS_OFF', hold: { expiresAt: hold.expiresAt }, extension: { used: 0, max: 0, latestExpiresAt: null } },
    });
    const other = await admittedVisitor(eventId);
    expect(await extend(other, eventId, hold.holdId, 'k')).toMatchObject({ status: 404, body: { code: 'HOLD_NOT_FOUND' } });
    expect(await extend(v, eventId, 'no-such-hold', 'k')).toMatchObject({ status: 404, body: { code: 'HOLD_NOT_FOUND' } });
    const now = await v.json<HoldBody>(`/_wr/events/${eventId}/holds/${hold.holdId}`);
    expect(now.body.expiresAt).toBe(hold.expiresAt);
  });
});

describe('POST /_wr/origin/events/{eventId}/holds/{holdId}/extend (signed)', () => {
  it('extends under the key in the signed body, replays it, and refuses a hold in payment', async () => {
    const eventId = freshEventId('extend');
    const { hold } = await heldBy(eventId, { holdTtlSeconds: 60, holdExtension: EXTENSION });
    const first = await originExtend(eventId, hold.holdId, { idempotencyKey: 'o-1' });
    expect(first.status).toBe(200);
    expect(Date.parse(first.body.expiresAt as string)).toBe(Date.parse(hold.expiresAt) + 60_000);
    const again = await originExtend(eventId, hold.holdId, { idempotencyKey: 'o-1' });
    expect(again).toMatchObject({ status: 200, body: { expiresAt: first.body.expiresAt, extension: { used: 1 } } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    expect(await originExtend(eventId, hold.holdId, { idempotencyKey: 'o-2', account: 'someone-else' })).toMatchObject({
      status: 403,
      body: { code: 'NOT_HOLD_OWNER' },
    });
    expect((await signedCall('POST', `/_wr/origin/events/${eventId}/holds/${hold.holdId}/payment-pending`, '{}')).status).toBe(200);
    expect(await originExtend(eventId, hold.holdId, { idempotencyKey: 'o-3' })).toMatchObject({
      status: 409,
      body: { code: 'PAYMENT_IN_PROGRESS', hold: { status: 'PAYMENT_PENDING' } },
    });
  });

  it('refuses a body without a key, with unknown fields, or unsigned, with 400/401', async () => {
    const eventId = freshEventId('extend');
    const { hold } = await heldBy(eventId, { holdTtlSeconds: 60, holdExtension: EXTENSION });
    expect(await originExtend(eventId, hold.holdId, {})).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await originExtend(eventId, hold.holdId, { idempotencyKey: 'k', extraSeconds: 999 })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REQUEST' },
    });
    expect(await originExtend(eventId, hold.holdId, { idempotencyKey: 'k'.repeat(129) })).toMatchObject({ status: 400 });
    const unsigned = await signedCall(
      'POST',
      `/_wr/origin/events/${eventId}/holds/${hold.holdId}/extend`,
      '{"idempotencyKey":"k"}',
      Date.now(),
      'wrong-secret',
    );
    expect(unsigned).toMatchObject({ status: 401, body: { code: 'SIGNATURE_INVALID' } });
  });
});

describe('holdExtension in the event configuration', () => {
  it('can be turned on for an event with holds: a PATCH, shown by GET in seconds, and the hold made before may be extended', async () => {
    const eventId = freshEventId('extend');
    const { v, hold } = await heldBy(eventId, { holdTtlSeconds: 60 });
    const patched = await organizer(`/events/${eventId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { holdExtension: EXTENSION },
    });
    expect(patched.status).toBe(200);
    expect((await organizer(`/events/${eventId}`)).body).toMatchObject({ config: { holdExtension: EXTENSION } });
    const extended = await extend(v, eventId, hold.holdId, 'after-patch');
    expect(extended).toMatchObject({ status: 200, body: { extension: { used: 1, max: 2 } } });
    expect(Date.parse(extended.body.expiresAt)).toBe(Date.parse(hold.expiresAt) + 60_000);
  });

  it('refuses a total cap not longer than the hold TTL, naming the field', async () => {
    const res = await createEvent(freshEventId('extend'), { holdTtlSeconds: 300, holdExtension: { ...EXTENSION, maxTotalSeconds: 300 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('holdExtension.maxTotalSeconds');
  });
});
