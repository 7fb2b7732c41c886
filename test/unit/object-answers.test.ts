// The edge's one mapping from Durable Object answers to results and GatewayErrors, as a table.
import { describe, expect, it } from 'vitest';
import { GatewayError, problemResponse } from '../../src/lib/errors';
import type { HoldView } from '../../contracts/inventory-answers';
import { fixedRateResult, healthResult, holdExtendResult, holdResult, modeResult, requireEvent } from '../../src/lib/object-answers';

const HOLD: HoldView = {
  holdId: 'h',
  account: 'a',
  status: 'HELD',
  seatIds: ['A1'],
  tier: null,
  quantity: 1,
  priceMinor: 5000,
  currency: 'EUR',
  expiresAtMs: 1_800_000_000_000,
  orderId: null,
};
const EXTENSION = { used: 2, max: 2, latestExpiresAtMs: 1_800_000_000_000 };

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return err.code;
  }
}

describe('object answers at the edge', () => {
  it.each([
    ['requireEvent event_not_found', () => requireEvent({ kind: 'event_not_found' }, 'e'), 'EVENT_NOT_FOUND'],
    ['requireEvent ok', () => requireEvent({ kind: 'ok' }, 'e'), null],
    ['mode ok', () => modeResult({ kind: 'ok', previous: 'open' }, 'e'), null],
    ['mode event_not_found', () => modeResult({ kind: 'event_not_found' }, 'e'), 'EVENT_NOT_FOUND'],
    ['fixed rate above maximum', () => fixedRateResult({ kind: 'above_maximum', maxPerMinute: 100 }, 'e'), 'INVALID_REQUEST'],
    ['fixed rate event_not_found', () => fixedRateResult({ kind: 'event_not_found' }, 'e'), 'EVENT_NOT_FOUND'],
    ['health out of order', () => healthResult({ kind: 'out_of_order' }, 'e'), 'STALE_REPORT'],
    ['health ok', () => healthResult({ kind: 'ok' }, 'e'), null],
    ['hold event_not_found', () => holdResult({ kind: 'event_not_found' }, 'e'), 'EVENT_NOT_FOUND'],
    ['hold idempotency conflict', () => holdResult({ kind: 'idempotency_conflict' }, 'e'), 'IDEMPOTENCY_KEY_REUSED'],
    ['hold unknown tier', () => holdResult({ kind: 'unknown_tier', tier: 'vip' }, 'e'), 'TIER_NOT_FOUND'],
    ['extend not_found', () => holdExtendResult({ kind: 'not_found' }), 'HOLD_NOT_FOUND'],
    [
      'extend refused',
      () => holdExtendResult({ kind: 'refused', code: 'HOLD_EXTENSION_LIMIT', detail: 'd', hold: HOLD, extension: EXTENSION }),
      'HOLD_EXTENSION_LIMIT',
    ],
    [
      'extend extended',
      () => holdExtendResult({ kind: 'extended', hold: HOLD, extension: EXTENSION, replayed: false, paymentGraceMs: 0 }),
      null,
    ],
  ])('%s', (_name, run, code) => {
    expect(codeOf(run)).toBe(code);
  });

  it('keeps Retry-After of a rate-limited hold', () => {
    try {
      holdResult({ kind: 'rate_limited', retryAfterS: 7 }, 'e');
    } catch (err) {
      expect((err as GatewayError).retryAfterS).toBe(7);
    }
    expect.assertions(1);
  });
});

describe('holdExtendResult', () => {
  it('sends the unchanged hold and its extensions with a refusal', async () => {
    try {
      holdExtendResult({ kind: 'refused', code: 'HOLD_AT_LONGEST', detail: 'at the cap', hold: HOLD, extension: EXTENSION });
    } catch (err) {
      const body = (await problemResponse(err as GatewayError).json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        code: 'HOLD_AT_LONGEST',
        status: 409,
        hold: { holdId: 'h', expiresAt: new Date(HOLD.expiresAtMs).toISOString() },
        extension: { used: 2, max: 2, latestExpiresAt: new Date(EXTENSION.latestExpiresAtMs).toISOString() },
      });
    }
    expect.assertions(1);
  });
});

describe('GatewayError', () => {
  it('renders detail, extra members and Retry-After, and keeps the cause out of the body', async () => {
    const cause = new Error('stub said: secret-ish internals');
    const err = new GatewayError('SEATS_UNAVAILABLE', { detail: 'not available: A1', extra: { seatIds: ['A1'] }, retryAfterS: 3, cause });
    expect(err.cause).toBe(cause);
    const res = problemResponse(err);
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('3');
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'SEATS_UNAVAILABLE', detail: 'not available: A1', seatIds: ['A1'] });
    expect(text).not.toContain('internals');
  });
});
