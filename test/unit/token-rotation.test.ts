// Key rotation: tokens signed with the previous key keep verifying while it is published; removed, they fail.
import { generateKeyPair, exportJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { publicJwks, signAdmission, verifyToken, type TokenSettings } from '../../src/lib/token';

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

    // Once the old key is removed, its tokens fail (a token verified in the last VERIFIED_CACHE_MS
    // by this isolate may still pass until then: use one this isolate has never seen).
    const after: TokenSettings = { signingJwk: fresh.priv, issuer: 'wr' };
    const unseen = await signAdmission(before, { ...claims, visitorId: 'v2' }, now);
    await expect(verifyToken(after, 'admission', unseen, 'ev', now)).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
    expect(await verifyToken(after, 'admission', newer, 'ev', now)).toMatchObject({ visitorId: 'v1' });
  });
});
