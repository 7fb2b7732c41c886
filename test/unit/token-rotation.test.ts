// Key rotation: tokens signed with the previous key (admission) or secret (ticket) keep verifying while it is set; removed, they fail.
import { generateKeyPair, exportJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { publicJwks, signAdmission, signQueueTicket, verifyToken, type TokenSettings } from '../../src/lib/token';

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { priv: JSON.stringify({ ...(await exportJWK(privateKey)), kid }), pub: JSON.stringify({ ...(await exportJWK(publicKey)), kid }) };
}

describe('signing key rotation', () => {
  it('keeps tokens of the previous key valid while it is published, and refuses them once removed', async () => {
    const old = await keyPair('k-old');
    const fresh = await keyPair('k-new');
    const now = Date.now();
    const claims = { eventId: 'ev', visitorId: 'v1', expiresAtMs: now + 600_000, sessionId: '1' };
    const before: TokenSettings = { signingJwk: old.priv, issuer: 'wr' };
    const token = await signAdmission(before, claims, now);

    const during: TokenSettings = { signingJwk: fresh.priv, previousPublicJwk: old.pub, issuer: 'wr' };
    expect((await publicJwks(during)).keys.map((k) => k.kid)).toEqual(['k-new', 'k-old']);
    expect(await verifyToken(during, 'admission', token, 'ev', now)).toMatchObject({ visitorId: 'v1', sessionId: '1' });
    // New tokens carry the new kid.
    const newer = await signAdmission(during, claims, now);
    expect(JSON.parse(atob(newer.split('.')[0]!)).kid).toBe('k-new');

    // Once the old key is removed, its tokens fail at once: the one this isolate just verified
    // (and remembers) as well as one it has never seen.
    const after: TokenSettings = { signingJwk: fresh.priv, issuer: 'wr' };
    const unseen = await signAdmission(before, { ...claims, visitorId: 'v2' }, now);
    for (const old of [token, unseen]) {
      await expect(verifyToken(after, 'admission', old, 'ev', now)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
    }
    expect(await verifyToken(after, 'admission', newer, 'ev', now)).toMatchObject({ visitorId: 'v1' });
  });
});

describe('an admission token at its exp', () => {
  it('ends exactly at exp, without the skew tolerance the origin SDK allows (a checkout 3 s past exp is refused)', async () => {
    const settings: TokenSettings = { signingJwk: (await keyPair('k-exp')).priv, issuer: 'wr' };
    const now = Date.now();
    const claims = { eventId: 'ev', visitorId: 'v-exp', expiresAtMs: now + 30_000, sessionId: '1' };
    const token = await signAdmission(settings, claims, now);
    expect(await verifyToken(settings, 'admission', token, 'ev', now + 29_000)).toMatchObject({ visitorId: 'v-exp' });
    // Seconds: exp is now + 30 s rounded down, so 1 s and 3 s past it are both after exp.
    for (const late of [31_000, 33_000]) {
      await expect(verifyToken(settings, 'admission', token, 'ev', now + late)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    }
  });
});

describe('queue tickets under the ticket secret', () => {
  const secret = (c: string) => c.repeat(40);
  const place = { bucket: 7, idx: 3, shard: 1 };

  it('are standard HS256 JWTs that jose verifies with the secret, carrying the place', async () => {
    const now = Date.now();
    const settings: TokenSettings = { ...(await es256Settings('k-a')), ticketSecret: secret('a') };
    const ticket = await signQueueTicket(settings, 'ev', 'v1', place, now);
    const { payload, protectedHeader } = await jwtVerify(ticket, new TextEncoder().encode(secret('a')), {
      algorithms: ['HS256'],
      issuer: 'wr',
      audience: 'ev',
      typ: 'wr-ticket+jwt',
      currentDate: new Date(now),
    });
    expect(protectedHeader.kid).toMatch(/^t-[\w-]{8}$/);
    expect(payload).toMatchObject({ sub: 'v1', pl: [7, 3, 1], iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 86_400 });
    expect(await verifyToken(settings, 'ticket', ticket, 'ev', now)).toMatchObject({ visitorId: 'v1', place });
  });

  it('keep verifying under the previous secret while it is set, and fail at once when it is removed', async () => {
    const now = Date.now();
    const base = await es256Settings('k-b');
    const before: TokenSettings = { ...base, ticketSecret: secret('b') };
    const during: TokenSettings = { ...base, ticketSecret: secret('c'), previousTicketSecret: secret('b') };
    const after: TokenSettings = { ...base, ticketSecret: secret('c') };
    const old = await signQueueTicket(before, 'ev', 'v1', place, now);
    expect(await verifyToken(during, 'ticket', old, 'ev', now)).toMatchObject({ visitorId: 'v1' });
    const fresh = await signQueueTicket(during, 'ev', 'v2', place, now);
    expect(fresh.split('.')[0]).not.toBe(old.split('.')[0]); // new tickets name the new secret's kid
    // Verified moments ago in this isolate, yet refused: the key set changed.
    await expect(verifyToken(after, 'ticket', old, 'ev', now)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
    expect(await verifyToken(after, 'ticket', fresh, 'ev', now)).toMatchObject({ visitorId: 'v2' });
  });

  it('refuse a ticket MACed with another secret under the same header, a tampered one, and one past its lifetime', async () => {
    const now = Date.now();
    const base = await es256Settings('k-c');
    const settings: TokenSettings = { ...base, ticketSecret: secret('d') };
    const genuine = await signQueueTicket(settings, 'ev', 'v1', place, now);
    const [h, p] = genuine.split('.');
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret('e')), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${h}.${p}`)));
    const otherSecret = `${h}.${p}.${btoa(String.fromCharCode(...mac))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '')}`;
    const tampered = `${h}.${p!.slice(0, -2)}${p!.slice(-2) === 'fQ' ? 'fX' : 'fQ'}.${genuine.split('.')[2]}`;
    for (const token of [otherSecret, tampered, `${h}.${p}.`, `${h}.${p}`, `${h}.!!.${genuine.split('.')[2]}`]) {
      await expect(verifyToken(settings, 'ticket', token, 'ev', now), token.slice(-12)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
    }
    const stale = await signQueueTicket(settings, 'ev', 'v1', place, now - 25 * 3600_000);
    await expect(verifyToken(settings, 'ticket', stale, 'ev', now)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    await expect(verifyToken(settings, 'ticket', genuine, 'other', now)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
    await expect(verifyToken(settings, 'admission', genuine, 'ev', now)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });

  it('still accepts ES256 tickets (minted before the secret was set), so a deploy keeps every place', async () => {
    const now = Date.now();
    const base = await es256Settings('k-d');
    const legacy = await signQueueTicket(base, 'ev', 'v1', place, now);
    expect(JSON.parse(atob(legacy.split('.')[0]!)).alg).toBe('ES256');
    expect(await verifyToken({ ...base, ticketSecret: secret('f') }, 'ticket', legacy, 'ev', now)).toMatchObject({
      visitorId: 'v1',
      place,
    });
  });

  it('refuses a ticket secret shorter than 32 characters, naming the variable', async () => {
    const settings: TokenSettings = { ...(await es256Settings('k-e')), ticketSecret: 'short' };
    await expect(signQueueTicket(settings, 'ev', 'v1', place, Date.now())).rejects.toThrow(/QUEUE_TICKET_SECRET must be at least 32/);
  });
});

async function es256Settings(kid: string): Promise<TokenSettings> {
  return { signingJwk: (await keyPair(kid)).priv, issuer: 'wr' };
}
