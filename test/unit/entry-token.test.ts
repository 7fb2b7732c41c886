// Entry tokens, pure parts: every bad token refused with its own code, the account's hashed visitor
// id (stable, per event, keyed), the pinned key across a secret rotation, the sign-in URL rule, and
// a lottery over hashed accounts that is still uniform.
import fc from 'fast-check';
import { SignJWT, createLocalJWKSet, errors, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { signEntryToken } from '../../origin-sdk/src/entry';
import {
  ACCOUNT_VISITOR_PREFIX,
  accountHashKey,
  accountKeyId,
  accountVisitorId,
  isAccountVisitorId,
  signInUrlProblem,
  type CursorEntry,
} from '../../contracts/entry';
import { lotteryOrder } from '../../contracts/queue/queue-policy';
import { keepAccountKey, parseRoomConfig } from '../../durable-objects/waiting-room/room-config';
import { decideEntry, verifyEntryToken, type AccountSecrets } from '../../src/lib/entry-token';
import { GatewayError } from '../../src/lib/errors';
import { CHI_SQUARE_P001, chiSquareUniform } from '../helpers/chi-square';
import { queueConfig } from '../helpers/configs';

const ORIGIN_SECRET = 'origin-secret-for-entry-token-tests';
const SECRETS: AccountSecrets = { current: 'a'.repeat(40), previous: '' };
const NOW = Date.UTC(2026, 11, 1, 12);
const HMAC = { kind: 'hmac', secret: ORIGIN_SECRET } as const;
const RULE: CursorEntry = { signInUrl: '/login', issuer: 'waiting-room-origin', lanes: ['presale', 'members'], accountKeyId: null };

const token = (o: Partial<Parameters<typeof signEntryToken>[0]> = {}, secret = ORIGIN_SECRET) =>
  signEntryToken({ account: 'fan@example.com', eventId: 'ev', ttlS: 120, nowMs: NOW, ...o }, secret);

/** The code a refusal carries (or 'ok'). */
async function codeOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return 'ok';
  } catch (err) {
    if (err instanceof GatewayError) return err.code;
    throw err;
  }
}

describe('verifyEntryToken', () => {
  it('accepts a token the SDK signed and returns account, lane, jti and expiry', async () => {
    const claims = await verifyEntryToken(await token({ lane: 'presale' }), RULE, 'ev', HMAC, NOW);
    expect(claims).toMatchObject({ account: 'fan@example.com', lane: 'presale', expiresAtMs: NOW + 120_000 });
    expect(claims.tokenId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses each bad token with its own code', async () => {
    const raw = (header: Record<string, unknown>, claims: Record<string, unknown>, secret = ORIGIN_SECRET) =>
      new SignJWT({ iss: 'waiting-room-origin', aud: 'ev', sub: 'a', jti: 'j', iat: NOW / 1000, exp: NOW / 1000 + 60, ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'wr-entry+jwt', ...header } as { alg: string })
        .sign(new TextEncoder().encode(secret));
    const good = await token();
    const [h, p, sig] = good.split('.');
    const cases: [string, Promise<string> | string, string, number?][] = [
      ['expired (past exp + 5 s)', token(), 'ENTRY_TOKEN_EXPIRED', NOW + 126_000],
      ['forged (another secret)', token({}, 'not-the-origin-secret'), 'ENTRY_TOKEN_INVALID'],
      ['tampered payload', `${h}.${btoa(JSON.stringify({ sub: 'other' })).replace(/=+$/, '')}.${sig}`, 'ENTRY_TOKEN_INVALID'],
      ['another event', token({ eventId: 'other-event' }), 'ENTRY_TOKEN_OTHER_EVENT'],
      ['an aud listing this event and another', raw({}, { aud: ['ev', 'other-event'] }), 'ENTRY_TOKEN_INVALID'],
      ['an aud listing this event twice', raw({}, { aud: ['ev', 'ev'] }), 'ENTRY_TOKEN_INVALID'],
      ['an aud listing only this event', raw({}, { aud: ['ev'] }), 'ok'],
      ['malformed', 'not.a.jwt', 'ENTRY_TOKEN_INVALID'],
      ['empty segments', `${h}..${sig}`, 'ENTRY_TOKEN_INVALID'],
      ['an unknown lane', token({ lane: 'vip' }), 'LANE_NOT_CONFIGURED'],
      ['a lane that is not a string', raw({}, { lane: 7 }), 'LANE_NOT_CONFIGURED'],
      ['another typ (an admission token)', raw({ typ: 'wr-admission+jwt' }, {}), 'ENTRY_TOKEN_INVALID'],
      ['alg none', `${btoa(JSON.stringify({ alg: 'none', typ: 'wr-entry+jwt' })).replace(/=+$/, '')}.${p}.`, 'ENTRY_TOKEN_INVALID'],
      ['another issuer', token({ issuer: 'someone-else' }), 'ENTRY_TOKEN_INVALID'],
      ['no jti', raw({}, { jti: undefined }), 'ENTRY_TOKEN_INVALID'],
      ['no account', raw({}, { sub: '' }), 'ENTRY_TOKEN_INVALID'],
      ['an account over 256 characters', raw({}, { sub: 'x'.repeat(257) }), 'ENTRY_TOKEN_INVALID'],
      ['a lifetime over 300 s', raw({}, { exp: NOW / 1000 + 301 }), 'ENTRY_TOKEN_INVALID'],
      [
        'issued over 300 s ago (too old, whatever exp says)',
        raw({}, { iat: NOW / 1000 - 3600, exp: NOW / 1000 + 60 }),
        'ENTRY_TOKEN_EXPIRED',
      ],
      ['not yet valid (iat 60 s ahead)', raw({}, { iat: NOW / 1000 + 60, exp: NOW / 1000 + 120 }), 'ENTRY_TOKEN_INVALID'],
    ];
    for (const [name, tok, code, at] of cases) {
      expect(await codeOf(verifyEntryToken(await tok, RULE, 'ev', HMAC, at ?? NOW)), name).toBe(code);
    }
    // Inside the 5 s skew it still counts.
    expect(await codeOf(verifyEntryToken(await token(), RULE, 'ev', HMAC, NOW + 124_000))).toBe('ok');
  });
});

describe('verifyEntryToken with the origin’s JWKS', () => {
  it('accepts ES256 from the JWKS, refuses HS256 and unknown keys, and tells a JWKS failure apart (503)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'origin-1', alg: 'ES256' };
    const keys = { kind: 'jwks', keys: createLocalJWKSet({ keys: [jwk] }) } as const;
    const es256 = (kid: string) =>
      new SignJWT({ iss: 'waiting-room-origin', aud: 'ev', sub: 'fan', jti: 'j1', iat: NOW / 1000, exp: NOW / 1000 + 60 })
        .setProtectedHeader({ alg: 'ES256', typ: 'wr-entry+jwt', kid })
        .sign(privateKey);
    expect(await verifyEntryToken(await es256('origin-1'), RULE, 'ev', keys, NOW)).toMatchObject({ account: 'fan' });
    expect(await codeOf(verifyEntryToken(await es256('other-kid'), RULE, 'ev', keys, NOW))).toBe('ENTRY_TOKEN_INVALID');
    expect(await codeOf(verifyEntryToken(await token(), RULE, 'ev', keys, NOW))).toBe('ENTRY_TOKEN_INVALID');
    const down = { kind: 'jwks', keys: () => Promise.reject(new errors.JWKSTimeout()) } as const;
    expect(await codeOf(verifyEntryToken(await es256('origin-1'), RULE, 'ev', down, NOW))).toBe('ORIGIN_UNAVAILABLE');
  });
});

describe('account visitor ids', () => {
  it('are stable per (event, account), differ across events and keys, and look like no random visitor id', async () => {
    const k1 = await accountHashKey(SECRETS.current);
    const k2 = await accountHashKey('b'.repeat(40));
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 256 }), async (account) => {
        const id = await accountVisitorId(k1, 'ev', account);
        expect(isAccountVisitorId(id)).toBe(true);
        expect(id.startsWith(ACCOUNT_VISITOR_PREFIX)).toBe(true);
        expect(await accountVisitorId(k1, 'ev', account)).toBe(id);
        expect(await accountVisitorId(k1, 'ev2', account)).not.toBe(id);
        expect(await accountVisitorId(k2, 'ev', account)).not.toBe(id);
      }),
      { numRuns: 100 },
    );
    expect(isAccountVisitorId(crypto.randomUUID())).toBe(false);
  });

  it('keep a lottery uniform: first place by account over 2,000 seeded draws (chi-square, 3 df)', async () => {
    const key = await accountHashKey(SECRETS.current);
    const accounts = ['ana@example.com', 'bo@example.com', 'chen@example.com', 'dee@example.com'];
    const ids = await Promise.all(accounts.map((a) => accountVisitorId(key, 'ev', a)));
    const firsts = new Map(ids.map((id) => [id, 0]));
    for (let i = 0; i < 2000; i++) {
      const [first] = await lotteryOrder(`seed-${i}`, ids);
      firsts.set(first!, firsts.get(first!)! + 1);
    }
    const chi2 = chiSquareUniform([...firsts.values()]);
    console.log(
      `lottery first place by account over 2,000 draws: ${[...firsts.values()].join(' / ')}, chi-square = ${chi2.toFixed(2)} (3 df)`,
    );
    expect(chi2).toBeLessThan(CHI_SQUARE_P001[3]!);
  });
});

describe('decideEntry', () => {
  const base = {
    entry: RULE,
    closed: false,
    eventId: 'ev',
    ticketVisitorId: null,
    token: null,
    keys: () => HMAC,
    accountSecrets: SECRETS,
    nowMs: NOW,
  };

  it('leaves open events and closed sales alone, even with a token', async () => {
    expect(await decideEntry({ ...base, entry: null, token: await token() })).toEqual({ kind: 'open' });
    expect(await decideEntry({ ...base, closed: true })).toEqual({ kind: 'open' });
  });

  it('gives two devices of one account the same visitor id, and keeps a ticket of that account', async () => {
    const a = await decideEntry({ ...base, token: await token() });
    const b = await decideEntry({ ...base, token: await token() });
    if (a.kind !== 'account' || b.kind !== 'account') throw new Error('expected account decisions');
    expect(a.visitorId).toBe(b.visitorId);
    expect(a.tokenId).not.toBe(b.tokenId);
    expect(await decideEntry({ ...base, token: await token(), ticketVisitorId: a.visitorId })).toEqual({ kind: 'ticket' });
    expect(await decideEntry({ ...base, ticketVisitorId: a.visitorId })).toEqual({ kind: 'ticket' });
    // Another account's token replaces this browser's ticket with that account's place.
    const other = await decideEntry({ ...base, token: await token({ account: 'other' }), ticketVisitorId: a.visitorId });
    expect(other).toMatchObject({ kind: 'account', visitorId: expect.not.stringMatching(a.visitorId) });
  });

  it('refuses a visitor without a token, or with an anonymous ticket from before the requirement, saying where to sign in', async () => {
    for (const ticketVisitorId of [null, crypto.randomUUID()]) {
      const err = await decideEntry({ ...base, ticketVisitorId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ code: 'ENTRY_REQUIRED', extra: { signInUrl: '/login' } });
    }
    const bad = await decideEntry({ ...base, token: 'x.y.z' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'ENTRY_TOKEN_INVALID', extra: { signInUrl: '/login' } });
  });

  it('hashes under the pinned key across a rotation, so an account keeps its one place', async () => {
    const oldSecret = SECRETS.current;
    const pinned = await accountKeyId(oldSecret);
    const before = await decideEntry({ ...base, entry: { ...RULE, accountKeyId: pinned }, token: await token() });
    const rotated = { current: 'c'.repeat(40), previous: oldSecret };
    const after = await decideEntry({ ...base, entry: { ...RULE, accountKeyId: pinned }, accountSecrets: rotated, token: await token() });
    expect(after).toMatchObject({ kind: 'account', visitorId: (before as { visitorId: string }).visitorId });
    // The previous secret removed while the event still uses it: no place under another key.
    const removed = { current: 'c'.repeat(40), previous: '' };
    await expect(
      decideEntry({ ...base, entry: { ...RULE, accountKeyId: pinned }, accountSecrets: removed, token: await token() }),
    ).rejects.toThrow(/ACCOUNT_HASH_PREVIOUS_SECRET/);
  });
});

describe('keepAccountKey (the room keeps its pin once visitors joined)', () => {
  const pinnedTo = (accountKeyId: string) => {
    const config = queueConfig('ev', { entry: { require: 'account', signInUrl: '/login' } });
    return { ...config, entry: { ...config.entry!, accountKeyId } };
  };
  it('keeps the old pin after joins and takes the new one before', () => {
    const old = parseRoomConfig(JSON.stringify(pinnedTo('old')));
    expect(keepAccountKey(old, pinnedTo('new'), { joined: true }).entry!.accountKeyId).toBe('old');
    expect(keepAccountKey(old, pinnedTo('new'), { joined: false }).entry!.accountKeyId).toBe('new');
    expect(keepAccountKey(null, pinnedTo('new'), { joined: false }).entry!.accountKeyId).toBe('new');
  });
});

describe('signInUrlProblem', () => {
  it('accepts paths and https URLs on a host the room names; refuses everything that could leave the site', () => {
    const hosted = ['tickets.example.com/concerts/x/*'];
    const ok: [string, string[]][] = [
      ['/login', []],
      ['/account/login?next=1', []],
      ['https://tickets.example.com/login', hosted],
      ['https://TICKETS.example.com/login', hosted],
    ];
    for (const [url, patterns] of ok) expect(signInUrlProblem(url, patterns), url).toBeNull();
    const bad: [string, string[]][] = [
      ['//evil.example/login', []],
      ['/\\evil.example', []],
      ['/ login', []],
      ['/_wr/events/x/join', []],
      ['https://evil.example/login', hosted],
      ['https://tickets.example.com.evil.example/', hosted],
      ['https://tickets.example.com/login', []],
      ['http://tickets.example.com/login', hosted],
      ['https://user:pw@tickets.example.com/', hosted],
      ['https://tickets.example.com:8443/', hosted],
      ['javascript:alert(1)', hosted],
      ['login', []],
      ['', []],
      ['/' + 'x'.repeat(500), []],
    ];
    for (const [url, patterns] of bad) expect(signInUrlProblem(url, patterns), url).not.toBeNull();
  });
});
