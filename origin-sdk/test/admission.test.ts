// verifyAdmission against a local JWKS server: the gateway's exact rules, expired told from invalid.
import { createLocalJWKSet, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionError, gatewayKeys, verifyAdmission, type AdmissionOptions } from '../src/index.ts';
import { admissionTokenFor, gatewayKey, localServer } from './fixtures.ts';

const NOW = Date.UTC(2026, 11, 1, 9);
let key: Awaited<ReturnType<typeof gatewayKey>>;
let server: Awaited<ReturnType<typeof localServer>>;
let jwksStatus = 200;
let published: object[] = [];

beforeAll(async () => {
  key = await gatewayKey();
  published = [key.jwk];
  server = await localServer((_req, _body, res) => {
    res.writeHead(jwksStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
  });
});
afterAll(() => server.close());

const opts = (extra: Partial<AdmissionOptions> = {}): AdmissionOptions => ({
  eventId: 'demo',
  keys: createLocalJWKSet({ keys: [key.jwk] }),
  nowMs: NOW,
  ...extra,
});

async function refusal(token: string, o: AdmissionOptions = opts()): Promise<string> {
  try {
    await verifyAdmission(token, o);
    return 'accepted';
  } catch (err) {
    if (err instanceof AdmissionError) return err.code;
    throw err;
  }
}

describe('verifyAdmission', () => {
  it('returns the claims of a token signed as the gateway signs it', async () => {
    const token = await admissionTokenFor(key, { nowMs: NOW });
    const a = await verifyAdmission(token, opts());
    expect(a).toMatchObject({ eventId: 'demo', visitorId: 'visitor-1', sessionId: String(NOW) });
    expect(a.expiresAtMs).toBe(Math.floor(NOW / 1000) * 1000 + 600_000);
  });

  it('reads the token from a Request header and from a Node headers object', async () => {
    const token = await admissionTokenFor(key, { nowMs: NOW });
    const req = new Request('http://origin/events/demo/', { headers: { 'x-admission-token': token } });
    expect((await verifyAdmission(req, opts())).visitorId).toBe('visitor-1');
    expect((await verifyAdmission({ headers: { 'x-admission-token': token } }, opts())).visitorId).toBe('visitor-1');
    await expect(verifyAdmission(new Request('http://origin/'), opts())).rejects.toMatchObject({ code: 'ADMISSION_MISSING', status: 401 });
  });

  it('allows the origin 5 s of clock tolerance and no more, and tells expired from invalid', async () => {
    const justExpired = await admissionTokenFor(key, { nowMs: NOW, ttlS: -4 });
    expect(await refusal(justExpired)).toBe('accepted');
    const expired = await admissionTokenFor(key, { nowMs: NOW, ttlS: -6 });
    expect(await refusal(expired)).toBe('ADMISSION_EXPIRED');
    // Issued over 2 h ago: expired whatever its exp says (jose's maxTokenAge, as the gateway).
    const old = await admissionTokenFor(key, { nowMs: NOW, iatS: Math.floor(NOW / 1000) - 2 * 3600 - 60, ttlS: 3600 });
    expect(await refusal(old)).toBe('ADMISSION_EXPIRED');
    // A stricter origin can lower the tolerance; bad values are refused before anything is fetched.
    expect(await refusal(justExpired, opts({ clockToleranceS: 0 }))).toBe('ADMISSION_EXPIRED');
  });

  // The failing input: the stub's own check had no issuer and no clock skew.
  const forged: [string, Parameters<typeof admissionTokenFor>[1]][] = [
    ['another event', { nowMs: NOW, eventId: 'other' }],
    ['another issuer (the stub checked none)', { nowMs: NOW, iss: 'evil' }],
    ['a queue ticket (typ wr-ticket+jwt)', { nowMs: NOW, typ: 'wr-ticket+jwt' }],
    ['no session id', { nowMs: NOW, omit: ['sid'] }],
    ['no jti', { nowMs: NOW, omit: ['jti'] }],
    ['no subject', { nowMs: NOW, omit: ['sub'] }],
    ['not yet valid', { nowMs: NOW, claims: { nbf: Math.floor(NOW / 1000) + 60 } }],
  ];
  for (const [name, parts] of forged)
    it(`refuses ${name} as ADMISSION_INVALID`, async () => {
      expect(await refusal(await admissionTokenFor(key, parts))).toBe('ADMISSION_INVALID');
    });

  it('refuses alg none, HS256, a tampered payload and another key as ADMISSION_INVALID', async () => {
    const good = await admissionTokenFor(key, { nowMs: NOW });
    const [h, p, s] = good.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'wr-admission+jwt' })).toString('base64url')}.${p}.`;
    const hs = await new SignJWT({ sub: 'x', sid: '1', jti: 'j' })
      .setProtectedHeader({ alg: 'HS256', typ: 'wr-admission+jwt', kid: key.kid })
      .setIssuer('waiting-room-gateway')
      .setAudience('demo')
      .setIssuedAt(Math.floor(NOW / 1000))
      .setExpirationTime(Math.floor(NOW / 1000) + 60)
      .sign(new TextEncoder().encode('x'.repeat(32)));
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' })).toString('base64url')}.${s}`;
    const other = await admissionTokenFor(await gatewayKey(key.kid), { nowMs: NOW });
    for (const t of [none, hs, tampered, other, 'not.a.jwt', 'x']) expect(await refusal(t)).toBe('ADMISSION_INVALID');
  });

  it('fetches the gateway JWKS once, refetches for an unknown kid (rotation), and reports an unreachable JWKS as JWKS_UNAVAILABLE', async () => {
    const gatewayUrl = server.url;
    const before = server.requests.length;
    const t1 = await admissionTokenFor(key, { nowMs: Date.now() });
    await verifyAdmission(t1, { eventId: 'demo', gatewayUrl });
    await verifyAdmission(t1, { eventId: 'demo', gatewayUrl });
    expect(server.requests.length - before).toBe(1);
    expect(server.requests.at(-1)!.url).toBe('/.well-known/jwks.json');
    // A new key appears: a token with its kid makes the set fetch again (after the cooldown, 0 here).
    const keys = gatewayKeys(`${server.url}/.well-known/jwks.json`, { cooldownMs: 0 });
    await verifyAdmission(t1, { eventId: 'demo', keys });
    const next = await gatewayKey();
    published = [next.jwk, key.jwk];
    expect((await verifyAdmission(await admissionTokenFor(next, { nowMs: Date.now() }), { eventId: 'demo', keys })).visitorId).toBe(
      'visitor-1',
    );
    expect(server.requests.length - before).toBe(3);
    // A JWKS that answers 500, or nobody listening: our fault, not the visitor's (503).
    jwksStatus = 500;
    const fresh = `${server.url}/?jwks-500`;
    await expect(verifyAdmission(t1, { eventId: 'demo', jwksUrl: fresh })).rejects.toMatchObject({ code: 'JWKS_UNAVAILABLE', status: 503 });
    jwksStatus = 200;
    await expect(verifyAdmission(t1, { eventId: 'demo', gatewayUrl: 'http://127.0.0.1:9' })).rejects.toMatchObject({
      code: 'JWKS_UNAVAILABLE',
    });
  });

  it('uses a custom fetch (a Workers service binding) for the keys', async () => {
    let calls = 0;
    const token = await admissionTokenFor(key, { nowMs: Date.now() });
    const fetch = async (r: Request) => (
      calls++,
      expect(r.url).toBe('https://gateway/.well-known/jwks.json'),
      Response.json({ keys: [key.jwk] })
    );
    await verifyAdmission(token, { eventId: 'demo', gatewayUrl: 'https://gateway', fetch });
    expect(calls).toBe(1);
  });

  it('refuses bad options with a TypeError and fetches nothing', async () => {
    const before = server.requests.length;
    const token = await admissionTokenFor(key, { nowMs: NOW });
    const bad: unknown[] = [
      {},
      { eventId: '', gatewayUrl: server.url },
      { eventId: 'demo' },
      { eventId: 'demo', gatewayUrl: server.url, clockToleranceS: -1 },
      { eventId: 'demo', gatewayUrl: server.url, clockToleranceS: 3600 },
      { eventId: 'demo', gatewayUrl: server.url, issuer: '' },
      { eventId: 'demo', jwksUrl: 'ftp://x/jwks' },
    ];
    for (const o of bad) await expect(verifyAdmission(token, o as AdmissionOptions)).rejects.toBeInstanceOf(TypeError);
    expect(server.requests.length).toBe(before);
  });

  it('never puts the token in an error message', async () => {
    const token = await admissionTokenFor(key, { nowMs: NOW, eventId: 'other' });
    const err = (await verifyAdmission(token, opts()).catch((e: unknown) => e)) as Error;
    expect(err.message).not.toContain(token.split('.')[1]!);
  });
});
