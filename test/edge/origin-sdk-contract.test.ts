// The origin SDK against the real gateway inside workerd: the same constants, its tokens verify
// with verifyAdmission over the gateway's own JWKS, and the gateway accepts the SDK's signatures.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../origin-sdk/src/index';
import { MAX_FUTURE_SKEW_S, SIGNATURE_WINDOW_S, verifyOriginSignature } from '../../contracts/hmac';
import { ADMISSION_HEADER, ADMISSION_TYP, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../contracts/names';
import { CLOCK_TOLERANCE_S, MAX_ADMISSION_AGE_S } from '../../src/lib/token';
import { BASE, createEvent, freshEventId, tick, Visitor } from '../helpers/client';

const gatewayFetch = (r: Request) => exports.default.fetch(r);

describe('origin SDK against the gateway', () => {
  it('uses exactly the gateway constants (header names, typ, clock tolerance, lifetime cap, signature window)', () => {
    expect({
      ADMISSION_HEADER: sdk.ADMISSION_HEADER,
      ADMISSION_TYP: sdk.ADMISSION_TYP,
      CLOCK_TOLERANCE_S: sdk.CLOCK_TOLERANCE_S,
      MAX_ADMISSION_AGE_S: sdk.MAX_ADMISSION_AGE_S,
      TIMESTAMP_HEADER: sdk.TIMESTAMP_HEADER,
      SIGNATURE_HEADER: sdk.SIGNATURE_HEADER,
      SIGNATURE_WINDOW_S: sdk.SIGNATURE_WINDOW_S,
      MAX_FUTURE_SKEW_S: sdk.MAX_FUTURE_SKEW_S,
      DEFAULT_ISSUER: sdk.DEFAULT_ISSUER,
    }).toEqual({
      ADMISSION_HEADER,
      ADMISSION_TYP,
      CLOCK_TOLERANCE_S,
      MAX_ADMISSION_AGE_S,
      TIMESTAMP_HEADER,
      SIGNATURE_HEADER,
      SIGNATURE_WINDOW_S,
      MAX_FUTURE_SKEW_S,
      DEFAULT_ISSUER: env.TOKEN_ISSUER,
    });
  });

  it('verifies a real admission token over the gateway JWKS; the queue ticket and another event are refused', async () => {
    const eventId = freshEventId('sdk');
    await createEvent(eventId);
    const v = new Visitor();
    const joined = await v.json<{ queueTicket: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    const status = await v.json<{ state: string; admissionToken: string }>(`/_wr/events/${eventId}/status`);
    expect(status.body.state).toBe('admitted');
    const opts = { eventId, gatewayUrl: BASE, fetch: gatewayFetch };
    const a = await sdk.verifyAdmission(status.body.admissionToken, opts);
    expect(a.eventId).toBe(eventId);
    expect(a.expiresAtMs).toBeGreaterThan(Date.now());
    await expect(sdk.verifyAdmission(joined.body.queueTicket, opts)).rejects.toMatchObject({ code: 'ADMISSION_INVALID' });
    await expect(sdk.verifyAdmission(status.body.admissionToken, { ...opts, eventId: 'other' })).rejects.toMatchObject({
      code: 'ADMISSION_INVALID',
    });
  });

  it('signs requests the gateway accepts (a health report answers 204), and verifies the gateway reference signature', async () => {
    const eventId = freshEventId('sdk');
    await createEvent(eventId);
    const health = new sdk.HealthReporter({ gatewayUrl: BASE, eventId, secret: env.ORIGIN_HMAC_SECRET, fetch: gatewayFetch });
    health.record(40, true);
    expect(await health.report()).toMatchObject({ kind: 'accepted' });
    const wrong = new sdk.HealthReporter({ gatewayUrl: BASE, eventId, secret: 'not-the-secret', fetch: gatewayFetch });
    expect(await wrong.report()).toMatchObject({ kind: 'refused', status: 401, code: 'SIGNATURE_INVALID' });
    const req = { method: 'POST', path: `/_wr/origin/events/${eventId}/health`, body: '{}' };
    const h = await sdk.signOriginRequest(env.ORIGIN_HMAC_SECRET, req.method, req.path, req.body, Date.now());
    expect(await verifyOriginSignature(env.ORIGIN_HMAC_SECRET, req, h[TIMESTAMP_HEADER], h[SIGNATURE_HEADER], Date.now())).toBe(true);
  });

  // A crowd run: reports read "p99 0 ms" over 0 requests while 234 were in flight for up to 10+ s.
  it('a report counting requests still in flight is accepted, stored with inFlight, and cuts the rate', async () => {
    const eventId = freshEventId('sdk');
    await createEvent(eventId, { releaseRatePerMinute: 1000, minReleaseRatePerMinute: 100, targetP99Ms: 500 });
    // Reports signed 2 s apart (the law acts once per report, by its signed second); latencies on a timer of their own.
    let [t, skew] = [0, -2_000];
    const clock = () => Date.now() + skew;
    const health = new sdk.HealthReporter({
      gatewayUrl: BASE,
      eventId,
      secret: env.ORIGIN_HMAC_SECRET,
      fetch: gatewayFetch,
      clock,
      timer: () => t,
    });
    for (let i = 0; i < 40; i++) health.record(100, true);
    expect(await health.report()).toMatchObject({ kind: 'accepted', report: { p99LatencyMs: 100, sampleCount: 40 } });
    await tick(eventId);
    const room = env.WAITING_ROOM.getByName(eventId);
    const grown = (await room.stats())!.releaseRatePerMinute;
    for (let i = 0; i < 200; i++) health.begin();
    [t, skew] = [12_000, 0];
    expect(await health.report()).toMatchObject({ kind: 'accepted', report: { p99LatencyMs: 12_000, sampleCount: 240, inFlight: 200 } });
    await tick(eventId);
    const stats = (await room.stats())!;
    expect(stats.lastHealth).toMatchObject({ p99LatencyMs: 12_000, sampleCount: 240, inFlight: 200 });
    expect(stats.releaseRatePerMinute).toBeLessThan(grown);
    expect(stats.rateLog[0]!.reason).toMatch(/^p99 12,000 ms over 500 ms target/);
  });

  it('GatewayClient: hold read, payment-pending, confirm and its idempotent repeat, typed refusals, list', async () => {
    const eventId = freshEventId('sdk');
    await createEvent(eventId);
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    await v.json(`/_wr/events/${eventId}/status`);
    const held = await v.hold(eventId, ['A1']);
    const holdId = held.body.holdId as string;
    const gw = new sdk.GatewayClient({ gatewayUrl: BASE, eventId, secret: env.ORIGIN_HMAC_SECRET, fetch: gatewayFetch });
    const read = await gw.getHold(holdId);
    expect(read).toMatchObject({ kind: 'ok', hold: { holdId, status: 'HELD', seatIds: ['A1'] } });
    const price = read.kind === 'ok' ? read.hold.priceMinor : -1;
    expect((await gw.paymentPending(holdId)).kind).toBe('ok');
    expect(await gw.confirm(holdId, { orderId: 'o-1', amountMinor: price + 1 })).toMatchObject({ kind: 'refused', code: 'PRICE_MISMATCH' });
    expect(await gw.confirm(holdId, { orderId: 'o-1', amountMinor: price })).toMatchObject({
      kind: 'ok',
      hold: { status: 'SOLD', orderId: 'o-1' },
    });
    expect(await gw.confirm(holdId, { orderId: 'o-1', amountMinor: price })).toMatchObject({ kind: 'ok', hold: { status: 'SOLD' } });
    expect(await gw.confirm(holdId, { orderId: 'o-2', amountMinor: price })).toMatchObject({
      kind: 'refused',
      code: 'HOLD_ALREADY_CONFIRMED',
      hold: { orderId: 'o-1' },
    });
    expect(await gw.release('no-such-hold')).toMatchObject({ kind: 'refused', code: 'HOLD_NOT_FOUND', status: 404 });
    expect(await gw.listHolds()).toMatchObject({ kind: 'ok', holds: [{ holdId, status: 'SOLD' }], next: null });
  });

  it('GatewayClient.extendHold: the new deadline and the extension typed, the same key replayed, a refusal typed', async () => {
    const eventId = freshEventId('sdk');
    await createEvent(eventId, { holdTtlSeconds: 60, holdExtension: { maxExtensions: 1, extensionSeconds: 30, maxTotalSeconds: 600 } });
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    await v.json(`/_wr/events/${eventId}/status`);
    const held = await v.hold(eventId, ['A1']);
    const holdId = held.body.holdId as string;
    const placedUntil = Date.parse(held.body.expiresAt as string);
    const gw = new sdk.GatewayClient({ gatewayUrl: BASE, eventId, secret: env.ORIGIN_HMAC_SECRET, fetch: gatewayFetch });
    const extended = await gw.extendHold(holdId, { idempotencyKey: 'sdk-ext-1' });
    expect(extended).toEqual({
      kind: 'ok',
      hold: expect.objectContaining({ holdId, status: 'HELD', expiresAtMs: placedUntil + 30_000 }),
      extension: { used: 1, max: 1, latestExpiresAtMs: placedUntil - 60_000 + 600_000 },
    });
    expect(await gw.extendHold(holdId, { idempotencyKey: 'sdk-ext-1' })).toEqual(extended);
    expect(await gw.extendHold(holdId, { idempotencyKey: 'sdk-ext-2' })).toMatchObject({
      kind: 'refused',
      code: 'HOLD_EXTENSION_LIMIT',
      status: 409,
      hold: { holdId, expiresAtMs: placedUntil + 30_000 },
    });
  });
});
