// signEntryToken: the token is exactly what the gateway verifies (header, claims, lifetime), and bad input throws.
import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENTRY_ISSUER, ENTRY_TYP, MAX_ENTRY_TOKEN_TTL_S, entryUrl, safeReturnUrl, signEntryToken } from '../src/index.ts';

const SECRET = 'origin-shared-secret';
const NOW = Date.UTC(2026, 11, 1, 9);

describe('signEntryToken', () => {
  it('signs an HS256 JWT with typ, iss, aud, sub, jti, iat, exp and the lane, verifiable with the shared secret', async () => {
    const token = await signEntryToken(
      { account: 'fan@example.com', eventId: 'taipei-2027', lane: 'presale', ttlS: 120, nowMs: NOW },
      SECRET,
    );
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: ENTRY_TYP });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      typ: ENTRY_TYP,
      issuer: DEFAULT_ENTRY_ISSUER,
      audience: 'taipei-2027',
      currentDate: new Date(NOW),
    });
    expect(payload).toMatchObject({ sub: 'fan@example.com', lane: 'presale', iat: NOW / 1000, exp: NOW / 1000 + 120 });
    expect(typeof payload.jti).toBe('string');
  });

  it('leaves the lane out when none is given, uses the given issuer, and gives every token its own jti', async () => {
    const a = decodeJwt(await signEntryToken({ account: '42', eventId: 'demo', ttlS: 60, issuer: 'shop', nowMs: NOW }, SECRET));
    const b = decodeJwt(await signEntryToken({ account: '42', eventId: 'demo', ttlS: 60, issuer: 'shop', nowMs: NOW }, SECRET));
    expect(a).not.toHaveProperty('lane');
    expect(a.iss).toBe('shop');
    expect(a.jti).not.toBe(b.jti);
  });

  it('throws a TypeError for every bad input, naming the field', async () => {
    const ok = { account: 'a', eventId: 'demo', ttlS: 60 };
    const cases: [Parameters<typeof signEntryToken>[0], string, RegExp][] = [
      [ok, '', /secret/],
      [{ ...ok, account: '' }, SECRET, /account/],
      [{ ...ok, account: 'x'.repeat(257) }, SECRET, /account/],
      [{ ...ok, eventId: 'Demo' }, SECRET, /eventId/],
      [{ ...ok, lane: 'Pre Sale' }, SECRET, /lane/],
      [{ ...ok, ttlS: 0 }, SECRET, /ttlS/],
      [{ ...ok, ttlS: MAX_ENTRY_TOKEN_TTL_S + 1 }, SECRET, /ttlS/],
      [{ ...ok, ttlS: 1.5 }, SECRET, /ttlS/],
    ];
    for (const [input, secret, message] of cases) await expect(signEntryToken(input, secret)).rejects.toThrow(message);
  });
});

describe('entryUrl', () => {
  it('adds wr_entry to the room URL, keeping its query', () => {
    expect(entryUrl('https://tickets.example.com/concerts/x/?lang=ja', 'T.O.K')).toBe(
      'https://tickets.example.com/concerts/x/?lang=ja&wr_entry=T.O.K',
    );
    expect(() => entryUrl('javascript:alert(1)', 't')).toThrow(TypeError);
  });
});

// The README's check (starts with "/", not "//") let `/\\evil.com/x` and
// `/\t/evil.com` through, which the URL parser reads as https://evil.com/...
describe('safeReturnUrl', () => {
  const site = 'https://tickets.example.com';
  const home = `${site}/concerts/x/`;
  it.each([
    ['/concerts/x/seats?lang=ja', `${site}/concerts/x/seats?lang=ja`],
    ['/concerts/x/', home],
    ['/\\evil.com/x', home],
    ['/\t/evil.com', home],
    ['//evil.com/x', home],
    // Dot segments resolve to a path of //evil.com.
    ['/.//evil.com', home],
    ['/..//evil.com/x', home],
    ['/a/..//evil.com', home],
    ['/%5Cevil.com/x', `${site}/%5Cevil.com/x`],
    ['https://evil.com/', home],
    ['javascript:alert(1)', home],
    ['concerts/x/', home],
    ['', home],
    [null, home],
    [undefined, home],
  ])('%j -> %s', (wrReturn, expected) => {
    expect(safeReturnUrl(wrReturn, site, '/concerts/x/').href).toBe(expected);
  });

  it('never leaves the site, for any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => '/' + s),
          fc.tuple(fc.constantFrom('/\\', '//', '/\t/', '/\n/', '\\\\', '/.//', '/..//', '/x/..//'), fc.string()).map(([a, b]) => a + b),
        ),
        (wrReturn) => {
          const back = new URL(entryUrl(safeReturnUrl(wrReturn, site, '/concerts/x/'), 'T'));
          expect(back.origin).toBe(site);
          expect(back.pathname.startsWith('//')).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a site that is not http(s) and a fallback off the site', () => {
    expect(() => safeReturnUrl('/x', 'ftp://tickets.example.com', '/x')).toThrow(TypeError);
    expect(() => safeReturnUrl('/x', site, '//evil.com/')).toThrow(TypeError);
  });
});
