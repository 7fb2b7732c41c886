// Request signing and the origin command header: round trips, every tampered part refused, bad input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_HEADER, revokeSession, signOriginRequest, verifyOriginSignature } from '../src/index.ts';

const SECRET = 'test-secret';
const NOW = Date.UTC(2026, 11, 1, 9);

describe('signOriginRequest / verifyOriginSignature', () => {
  it('verifies what it signs, for any method, path and body (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'put'),
        fc.stringMatching(/^\/[a-z0-9/_-]{0,40}$/),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        async (method, path, body) => {
          const h = await signOriginRequest(SECRET, method, path, body, NOW);
          expect(await verifyOriginSignature(SECRET, { method, path, body }, h['x-wr-timestamp'], h['x-wr-signature'], NOW)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses a changed method, path, body, timestamp, secret, a stale or future time, and malformed signatures', async () => {
    const req = { method: 'POST', path: '/_wr/origin/events/demo/health', body: '{"a":1}' };
    const h = await signOriginRequest(SECRET, req.method, req.path, req.body, NOW);
    const ts = h['x-wr-timestamp']!;
    const sig = h['x-wr-signature']!;
    const cases: [string, Promise<boolean>][] = [
      ['method', verifyOriginSignature(SECRET, { ...req, method: 'GET' }, ts, sig, NOW)],
      ['path', verifyOriginSignature(SECRET, { ...req, path: '/_wr/origin/events/other/health' }, ts, sig, NOW)],
      ['body', verifyOriginSignature(SECRET, { ...req, body: '{"a":2}' }, ts, sig, NOW)],
      ['timestamp', verifyOriginSignature(SECRET, req, String(Number(ts) + 1), sig, NOW)],
      ['secret', verifyOriginSignature('other', req, ts, sig, NOW)],
      ['stale (301 s)', verifyOriginSignature(SECRET, req, ts, sig, NOW + 301_000)],
      ['future (6 s: more than the clock skew)', verifyOriginSignature(SECRET, req, ts, sig, NOW - 6_000)],
      ['no sha256= prefix', verifyOriginSignature(SECRET, req, ts, sig.slice(7), NOW)],
      ['short hex', verifyOriginSignature(SECRET, req, ts, sig.slice(0, -2), NOW)],
      ['upper-case hex', verifyOriginSignature(SECRET, req, ts, `sha256=${sig.slice(7).toUpperCase()}`, NOW)],
      ['missing signature', verifyOriginSignature(SECRET, req, ts, undefined, NOW)],
      ['missing timestamp', verifyOriginSignature(SECRET, req, undefined, sig, NOW)],
      ['empty secret', verifyOriginSignature('', req, ts, sig, NOW)],
    ];
    for (const [name, result] of cases) expect([name, await result]).toEqual([name, false]);
    expect(await verifyOriginSignature(SECRET, req, ts, sig, NOW + 299_000)).toBe(true);
    expect(await verifyOriginSignature(SECRET, req, ts, sig, NOW - 5_000)).toBe(true);
  });

  it('refuses to sign with an empty secret or a path with a query', async () => {
    await expect(signOriginRequest('', 'GET', '/x', '', NOW)).rejects.toBeInstanceOf(TypeError);
    await expect(signOriginRequest(SECRET, 'GET', '/x?after=1', '', NOW)).rejects.toBeInstanceOf(TypeError);
    await expect(signOriginRequest(SECRET, 'GET', 'x', '', NOW)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('revokeSession', () => {
  it('sets X-WR-Command: revoke on Headers, a Response and a Node-style response', () => {
    const h = new Headers();
    revokeSession(h);
    expect(h.get('X-WR-Command')).toBe('revoke');
    const res = new Response('ok');
    revokeSession(res);
    expect(res.headers.get(COMMAND_HEADER)).toBe('revoke');
    const set: Record<string, string> = {};
    revokeSession({ setHeader: (k: string, v: string) => (set[k] = v) });
    expect(set).toEqual({ 'x-wr-command': 'revoke' });
    expect(() => revokeSession({} as Headers)).toThrow(TypeError);
  });
});
