// Decision logs: one valid JSON line each, with no token, signature, key, IP or visitor id in it.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logDecision, redactValue } from '../../contracts/log';

const JWT = 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ2aXNpdG9yLTEiLCJhdWQiOiJldiJ9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU';
const HMAC = `sha256=${'ab'.repeat(32)}`;

function capture(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe('logDecision', () => {
  it('writes one JSON line with the decision and allowed fields', () => {
    const lines = capture();
    logDecision('hold.refused', { eventId: 'gala', code: 'SEATS_UNAVAILABLE', ms: 12, replayed: false, holdId: null });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      decision: 'hold.refused',
      eventId: 'gala',
      code: 'SEATS_UNAVAILABLE',
      ms: 12,
      replayed: false,
      holdId: null,
    });
    expect(typeof line.at).toBe('string');
  });

  it('drops credential and personal fields by name, and token-shaped text inside any value', () => {
    const lines = capture();
    logDecision('error', {
      admissionToken: JWT,
      cookie: 'a=b',
      clientIp: '203.0.113.9',
      visitorId: 'v-1',
      account: 'v-1',
      signature: HMAC,
      error: `verify failed for ${JWT} with ${HMAC}`,
    });
    const text = lines.join('\n');
    for (const secret of [JWT, HMAC, '203.0.113.9', 'v-1', 'a=b']) expect(text).not.toContain(secret);
    expect(JSON.parse(lines[0]!)).toEqual({
      at: expect.any(String),
      decision: 'error',
      error: 'verify failed for [redacted] with [redacted]',
    });
  });

  it('keeps every line one valid JSON line for any input, with no JWT in it', () => {
    const lines = capture();
    fc.assert(
      fc.property(
        fc.string(),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(JWT))),
        (event, fields) => {
          lines.length = 0;
          logDecision(event, { ...fields });
          expect(lines).toHaveLength(1);
          expect(lines[0]!.includes('\n')).toBe(false);
          expect(() => JSON.parse(lines[0]!)).not.toThrow();
          expect(lines[0]!.includes(JWT)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps ids we do log (event ids up to 64 characters, hold UUIDs)', () => {
    const eventId = `e${'x'.repeat(63)}`;
    const holdId = crypto.randomUUID();
    expect(redactValue(eventId)).toBe(eventId);
    expect(redactValue(holdId)).toBe(holdId);
  });
});
