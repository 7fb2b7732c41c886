// An admitted page request in a room with tokens this isolate already verified (and remembers: see
// src/lib/verified-tokens.ts): a tampered copy, a token past its exp, another event's token and a
// token of a removed key never reach the origin as an admission, and verify exactly as before.
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { ADMISSION_HEADER } from '../../contracts/names';
import { createApp } from '../../src/app';
import { admissionCookie, ticketCookie } from '../../src/lib/cookies';
import { signAdmission, tokenSettings, verifyToken } from '../../src/lib/token';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

const settings = tokenSettings(env);

/** An origin that records the admission token of every request it gets. */
function recordingOrigin() {
  const tokens: (string | null)[] = [];
  const fetcher = { fetch: async (req: Request) => (tokens.push(req.headers.get(ADMISSION_HEADER)), new Response('sale page')) };
  return { tokens, overrides: { ORIGIN_URL: '', ORIGIN: fetcher as unknown as Fetcher } };
}

/** A GET of the sale page with `cookies`, through an app on the real bindings plus `overrides`. */
async function page(eventId: string, cookies: Map<string, string>, overrides: Partial<Env> & Record<string, unknown>) {
  const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${BASE}/events/${eventId}/tickets`, { headers: { cookie } }),
    { ...env, ...overrides },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await res.arrayBuffer();
  return res;
}

/** The decoded payload of a JWT (base64url, no verification). */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
}

const b64url = (s: string) => btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** An admitted visitor whose genuine admission has reached the origin (so this isolate remembers it). */
async function admittedAndRemembered(eventId: string) {
  await createEvent(eventId);
  const v = await admittedVisitor(eventId);
  const genuine = v.cookies.get(admissionCookie(eventId, true))!;
  const origin = recordingOrigin();
  for (let i = 0; i < 2; i++) await page(eventId, v.cookies, origin.overrides);
  expect(origin.tokens).toEqual([genuine, genuine]);
  return { v, genuine };
}

describe('admitted page requests with remembered tokens', () => {
  it('never passes a tampered copy of a remembered token (same signature, longer exp)', async () => {
    const eventId = freshEventId();
    const { v, genuine } = await admittedAndRemembered(eventId);
    const [h, , s] = genuine.split('.');
    const payload = claimsOf(genuine);
    const tampered = `${h}.${b64url(JSON.stringify({ ...payload, exp: (payload.exp as number) + 3600 }))}.${s}`;
    v.cookies.set(admissionCookie(eventId, true), tampered);
    const origin = recordingOrigin();
    await page(eventId, v.cookies, origin.overrides);
    expect(origin.tokens).not.toContain(tampered);
    await expect(verifyToken(settings, 'admission', tampered, eventId, Date.now())).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });

  it('stops a remembered token at its exp', async () => {
    const eventId = freshEventId();
    const { v, genuine } = await admittedAndRemembered(eventId);
    const { sub, sid } = claimsOf(genuine) as { sub: string; sid: string };
    const now = Date.now();
    // Ends on the next whole second but one: remembered while valid, then past exp.
    const expiresAtMs = (Math.floor(now / 1000) + 2) * 1000;
    const short = await signAdmission(settings, { eventId, visitorId: sub, sessionId: sid, expiresAtMs }, now);
    v.cookies.set(admissionCookie(eventId, true), short);
    const before = recordingOrigin();
    await page(eventId, v.cookies, before.overrides);
    expect(before.tokens).toEqual([short]);

    await new Promise((resolve) => setTimeout(resolve, expiresAtMs - Date.now() + 50));
    const after = recordingOrigin();
    await page(eventId, v.cookies, after.overrides);
    expect(after.tokens).not.toContain(short);
    await expect(verifyToken(settings, 'admission', short, eventId, Date.now())).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it("never passes a remembered token on another event's page", async () => {
    const eventId = freshEventId();
    const { genuine } = await admittedAndRemembered(eventId);
    const other = freshEventId();
    await createEvent(other);
    const w = new Visitor();
    await w.json(`/_wr/events/${other}/join`, { method: 'POST' });
    expect(w.cookies.get(ticketCookie(other, true))).toBeTruthy();
    w.cookies.set(admissionCookie(other, true), genuine);
    const origin = recordingOrigin();
    await page(other, w.cookies, origin.overrides);
    expect(origin.tokens).not.toContain(genuine);
    await expect(verifyToken(settings, 'admission', genuine, other, Date.now())).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });

  it('stops a remembered token at once when its key is removed from the ring', async () => {
    const eventId = freshEventId();
    const { v, genuine } = await admittedAndRemembered(eventId);
    const current = JSON.parse(env.ADMISSION_SIGNING_JWK) as Record<string, unknown>;
    const { d: _private, ...currentPublic } = current;
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const next = JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'k-next-memory' });
    const during = { ADMISSION_SIGNING_JWK: next, ADMISSION_PREVIOUS_PUBLIC_JWK: JSON.stringify(currentPublic) };
    const rotating = recordingOrigin();
    for (let i = 0; i < 2; i++) await page(eventId, v.cookies, { ...during, ...rotating.overrides });
    expect(rotating.tokens).toEqual([genuine, genuine]);

    const after = { ADMISSION_SIGNING_JWK: next, ADMISSION_PREVIOUS_PUBLIC_JWK: '' };
    const removed = recordingOrigin();
    await page(eventId, v.cookies, { ...after, ...removed.overrides });
    expect(removed.tokens).not.toContain(genuine);
    const afterSettings = tokenSettings({ ...env, ...after });
    await expect(verifyToken(afterSettings, 'admission', genuine, eventId, Date.now())).rejects.toMatchObject({ code: 'TOKEN_INVALID' });
  });
});
