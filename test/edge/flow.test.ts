// The main path through the Worker's HTTP interface: queue, admission, origin, holds, checkout.
import { createLocalJWKSet, jwtVerify } from 'jose';
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { BASE, Visitor, admittedVisitor, countArrivals, createEvent, freshEventId, tick } from '../helpers/client';
import { seatMapOf } from '../helpers/inventory';

describe('visitor flow', () => {
  it('queues a new visitor on the sale URL with a waiting page and a queue ticket cookie', async () => {
    const eventId = freshEventId();
    expect((await createEvent(eventId)).status).toBe(201);
    const v = new Visitor();
    const res = await v.fetch(`/events/${eventId}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const setCookie = res.headers.getSetCookie().join('\n');
    expect(setCookie).toContain(`__Host-wr_t_${eventId}=`);
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Domain');
    expect(res.headers.getSetCookie()).toHaveLength(1);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Secure');
    const page = await res.text();
    expect(page).toContain('You are in line');
    expect(page).toContain('<p class="muted" data-testid="event-name">' + eventId + '</p>');
    // Its second's arrivals are not counted yet: no number, said as such.
    expect(page).toContain(`"position":null`);
    expect(page).toContain(`"counting":true`);
  });

  it('keeps the same place across reloads and a second tab, and counts arrivals in order', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const first = new Visitor();
    const second = new Visitor();
    expect((await first.json(`/events/${eventId}/`)).body).toMatchObject({ state: 'waiting', counting: true, position: null });
    expect((await second.json(`/events/${eventId}/`)).body).toMatchObject({ state: 'waiting', counting: true });
    // The edge knows arrivals once the shards have counted them (each tick; stats asks too).
    await countArrivals(eventId);
    expect((await first.json(`/events/${eventId}/`)).body).toMatchObject({ position: 1, ahead: 0, counting: false });
    expect((await second.json(`/events/${eventId}/`)).body).toMatchObject({ position: 2, ahead: 1 });
    for (let i = 0; i < 3; i++) {
      expect((await second.json(`/_wr/events/${eventId}/status`)).body).toMatchObject({ position: 2 });
      expect((await second.json(`/_wr/events/${eventId}/join`, { method: 'POST' })).body).toMatchObject({ position: 2 });
    }
  });

  it('serves JSON to apps that send the queue ticket as a bearer token', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const app = new Visitor();
    const joined = await app.json<{ queueTicket: string; state: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(joined.body.state).toBe('waiting');
    await countArrivals(eventId);
    app.cookies.clear();
    const status = await app.json(`/_wr/events/${eventId}/status`, { headers: { authorization: `Bearer ${joined.body.queueTicket}` } });
    expect(status.body).toMatchObject({ state: 'waiting', position: 1, ahead: 0 });
    expect(status.body.pollAfterMs).toBeGreaterThan(0);
    // The scheme is case-insensitive (RFC 9110 section 11.1); `bearer` was refused with 401.
    for (const scheme of ['bearer', 'BEARER']) {
      const again = await app.json(`/_wr/events/${eventId}/status`, { headers: { authorization: `${scheme} ${joined.body.queueTicket}` } });
      expect(again.status, scheme).toBe(200);
      expect(again.body).toMatchObject({ state: 'waiting', position: 1 });
    }
  });

  it('admits at the release tick, mints an admission token that verifies against the JWKS, and proxies to the origin', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = new Visitor();
    await v.fetch(`/events/${eventId}/`);
    await tick(eventId);
    const status = await v.json<{ state: string; admissionToken: string }>(`/_wr/events/${eventId}/status`);
    expect(status.body.state).toBe('admitted');

    const jwks = await (await v.fetch('/.well-known/jwks.json')).json();
    const { payload, protectedHeader } = await jwtVerify(status.body.admissionToken, createLocalJWKSet(jwks as never), {
      algorithms: ['ES256'],
      audience: eventId,
      issuer: 'waiting-room-gateway',
    });
    expect(protectedHeader.kid).toBeTruthy();
    expect(protectedHeader.typ).toBe('wr-admission+jwt');
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(15 * 60);
    expect(payload.jti).toBeTruthy();

    const sale = await v.fetch(`/events/${eventId}/`);
    expect(sale.status).toBe(200);
    expect(await sale.text()).toContain('id="sale-data"');
  });

  it('holds seats all or nothing, refuses a held seat with 409, replays an idempotent retry, and expiry frees the seats', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const alice = await admittedVisitor(eventId);
    const bob = await admittedVisitor(eventId);

    const held = await alice.hold(eventId, ['A1', 'A2'], 'alice-1');
    expect(held.status).toBe(201);
    expect(held.body).toMatchObject({ status: 'HELD', seatIds: ['A1', 'A2'] });

    const retry = await alice.hold(eventId, ['A2', 'A1'], 'alice-1');
    expect(retry.status).toBe(201);
    expect(retry.res.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.holdId).toBe(held.body.holdId);

    // Released, then taken by someone else: the replay says RELEASED.
    const carol = await admittedVisitor(eventId);
    const c1 = await carol.hold(eventId, ['A5'], 'carol-1');
    expect((await carol.fetch(`/_wr/events/${eventId}/holds/${c1.body.holdId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await bob.hold(eventId, ['A5'], 'bob-0')).status).toBe(201);
    expect(await carol.hold(eventId, ['A5'], 'carol-1')).toMatchObject({
      status: 201,
      body: { holdId: c1.body.holdId, status: 'RELEASED' },
    });

    const reused = await alice.hold(eventId, ['A3'], 'alice-1');
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const conflict = await bob.hold(eventId, ['A2', 'A3'], 'bob-1');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'SEATS_UNAVAILABLE', seatIds: ['A2'] });
    const map = await bob.json<{ seats: { id: string; status: string }[] }>(`/_wr/events/${eventId}/seats`);
    expect(map.body.seats.find((s) => s.id === 'A3')!.status).toBe('AVAILABLE');

    // Expiry: move the inventory's clock past the hold TTL and fire its alarm.
    const inventory = env.INVENTORY.getByName(eventId);
    await runInDurableObject(inventory, (obj: { clock: () => number }) => {
      obj.clock = () => Date.now() + 301_000;
    });
    expect(await runDurableObjectAlarm(inventory)).toBe(true);
    const after = await bob.hold(eventId, ['A2', 'A3'], 'bob-2');
    expect(after.status).toBe(201);
    const old = await alice.json(`/_wr/events/${eventId}/holds/${held.body.holdId}`);
    expect(old.body.status).toBe('EXPIRED');
    // The replay names the same hold as it is now; it said HELD while Bob held A2.
    const late = await alice.hold(eventId, ['A1', 'A2'], 'alice-1');
    expect(late).toMatchObject({ status: 201, body: { holdId: held.body.holdId, status: 'EXPIRED' } });
    expect(late.res.headers.get('idempotent-replayed')).toBe('true');
    expect(late.body.admissionToken).toBeUndefined();
    // A duplicate, late alarm must not free the seats Bob holds now.
    await runInDurableObject(inventory, async (_obj, state) => state.storage.setAlarm(Date.now() + 60_000));
    expect(await runDurableObjectAlarm(inventory)).toBe(true);
    expect((await bob.json(`/_wr/events/${eventId}/holds/${after.body.holdId}`)).body.status).toBe('HELD');
    // Read the object itself: the gateway may serve a seat map up to a second old.
    const map2 = await seatMapOf(inventory);
    expect(map2.kind === 'snapshot' && map2.seats.filter((s) => s.status !== 'AVAILABLE').map((s) => s.id)).toEqual(['A2', 'A3']);
  });

  it('answers 50 concurrent overlapping holds all or nothing, with no seat in two holds', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, {
      seats: 20,
      seatsPerRow: 10,
      maxActiveVisitors: 100,
      releaseRatePerMinute: 6000,
      minReleaseRatePerMinute: 6000,
    });
    const visitors: Visitor[] = [];
    for (let i = 0; i < 50; i++) {
      const v = new Visitor();
      await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
      visitors.push(v);
    }
    await tick(eventId, 2);
    for (const v of visitors) expect((await v.json(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');

    const seatIds = Array.from({ length: 20 }, (_, i) => `${i < 10 ? 'A' : 'B'}${(i % 10) + 1}`);
    const requests = visitors.map((v, i) => {
      const n = 1 + (i % 4);
      const start = (i * 3) % 17;
      return { v, seats: seatIds.slice(start, start + n) };
    });
    const results = await Promise.all(requests.map(({ v, seats }) => v.hold(eventId, seats)));
    const owner = new Map<string, string>();
    for (const [i, r] of results.entries()) {
      if (r.status === 201) {
        expect(r.body.seatIds).toEqual([...requests[i]!.seats].sort());
        for (const s of r.body.seatIds as string[]) {
          expect(owner.has(s), `seat ${s} held twice`).toBe(false);
          owner.set(s, r.body.holdId as string);
        }
      } else {
        expect(r.status).toBe(409);
      }
    }
    expect(owner.size).toBeGreaterThan(0);
    const map = await visitors[0]!.json<{ seats: { id: string; status: string }[] }>(`/_wr/events/${eventId}/seats`);
    const heldOnMap = map.body.seats.filter((s) => s.status === 'HELD').map((s) => s.id);
    expect(heldOnMap.sort()).toEqual([...owner.keys()].sort());
  });

  it('checks out at the origin stub: the hold becomes SOLD and every visitor sees the seats sold', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const buyer = await admittedVisitor(eventId);
    const other = await admittedVisitor(eventId);
    const held = await buyer.hold(eventId, ['B1', 'B2']);
    const paid = await buyer.json<{ status: string; seatIds: string[]; amountMinor: number }>(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: '4242 4242 4242 4242' }),
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'PAID', seatIds: ['B1', 'B2'], amountMinor: 10000 });
    const map = await other.json<{ seats: { id: string; status: string }[] }>(`/_wr/events/${eventId}/seats`);
    expect(map.body.seats.filter((s) => s.status === 'SOLD').map((s) => s.id)).toEqual(['B1', 'B2']);
    // The stub's PAID answer ended the buyer's admission (X-WR-Command: revoke): the hold is theirs no more to read.
    expect((await buyer.json(`/_wr/events/${eventId}/holds/${held.body.holdId}`)).status).toBe(401);
  });

  it('declines the test card without selling or charging, and releases the seats', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const buyer = await admittedVisitor(eventId);
    const held = await buyer.hold(eventId, ['C1']);
    const declined = await buyer.json(`/events/${eventId}/checkout`, {
      method: 'POST',
      body: JSON.stringify({ holdId: held.body.holdId, card: '4000 0000 0000 0002' }),
    });
    expect(declined.status).toBe(409);
    expect(declined.body.status).toBe('FAILED');
    expect((await buyer.json(`/_wr/events/${eventId}/holds/${held.body.holdId}`)).body.status).toBe('RELEASED');
    expect((await buyer.hold(eventId, ['C1'])).status).toBe(201);
  });
});

describe('leaving', () => {
  it('frees the active slot at once, so the next visitor is admitted without waiting for the admission TTL', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { maxActiveVisitors: 1 });
    const first = await admittedVisitor(eventId);
    const second = new Visitor();
    await second.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    expect((await second.json(`/_wr/events/${eventId}/status`)).body.state).toBe('waiting');
    expect((await first.json(`/_wr/events/${eventId}/leave`, { method: 'POST' })).body).toEqual({ left: true });
    expect((await first.json(`/_wr/events/${eventId}/seats`)).status).toBe(401);
    await tick(eventId);
    expect((await second.json(`/_wr/events/${eventId}/status`)).body.state).toBe('admitted');
  });
});

describe('the waiting page', () => {
  it('speaks Traditional Chinese to zh-TW browsers, French to fr-CH, and English to a language it does not have', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const zh = await (
      await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'zh-TW,zh;q=0.9,en;q=0.8' } })
    ).text();
    expect(zh).toContain('<html lang="zh-Hant">');
    expect(zh).toContain('您正在排隊');
    const fr = await (
      await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' } })
    ).text();
    expect(fr).toContain('<html lang="fr">');
    const en = await (
      await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'sv-SE, sv;q=0.9, en;q=0.8' } })
    ).text();
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('You are in line');
  });

  it('works without JavaScript (meta refresh), stays small, and uses the configured status code', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { waitingPageStatus: 429 });
    const res = await new Visitor().fetch(`/events/${eventId}/`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const page = await res.text();
    expect(page).toMatch(/<noscript><meta http-equiv="refresh" content="\d+" ?\/?><\/noscript>/);
    const bytes = new TextEncoder().encode(page).byteLength;
    console.log(`waiting page: ${bytes} bytes with its script`);
    expect(bytes).toBeLessThan(30 * 1024);
    // Apps asking for JSON get 200 with the same fields the page uses.
    const json = await new Visitor().json(`/events/${eventId}/`);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ state: 'waiting', counting: true, position: null, pollAfterMs: expect.any(Number) });
  });

  it('shows a lottery its draw commitment, the same one the draw record publishes, and one entry per visitor', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { policy: 'random', saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() });
    const v = new Visitor();
    const html = await (await v.fetch(`/events/${eventId}/`)).text();
    const record = (await v.json<{ commitment: string; drawn: boolean }>(`/_wr/events/${eventId}/draw`)).body;
    expect(record.drawn).toBe(false);
    expect(html).toContain(`<code>${record.commitment}</code>`);
    for (let i = 0; i < 3; i++) await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.waiting).toBe(1);
  });

  it('never redirects off the sale URL, whatever return or next parameters say', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    for (const next of ['//evil.com', '/\\evil.com', 'https%3A%2F%2Fevil.com', 'javascript:alert(1)', '%2F%2Fevil.com']) {
      const res = await new Visitor().fetch(`/events/${eventId}/?next=${next}&return=${next}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).not.toContain('evil.com');
    }
  });

  it('does not spend two release slots on one visitor who joins twice', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await v.fetch(`/events/${eventId}/`);
    await tick(eventId);
    expect((await v.json(`/_wr/events/${eventId}/status`)).body).toMatchObject({ state: 'admitted' });
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!).toMatchObject({ admittedTotal: 1, active: 1, waiting: 0 });
  });

  it("escapes the organizer's template and accepts only an HTTPS logo", async () => {
    const eventId = freshEventId();
    const page = {
      accentColor: '#ff0088',
      logoUrl: 'https://cdn.example/logo.png',
      message: '<script>alert(1)</script> Doors open at 19:00',
    };
    expect((await createEvent(eventId, { name: 'Gala <b>night</b>', page })).status).toBe(201);
    const html = await (await new Visitor().fetch(`/events/${eventId}/`)).text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Doors open at 19:00');
    expect(html).toContain('Gala &lt;b&gt;night&lt;/b&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toMatch(/<img src="https:\/\/cdn.example\/logo.png" alt="" ?\/?>/);
    expect(html).toContain('--accent: #ff0088');
    for (const bad of [
      { logoUrl: 'javascript:alert(1)' },
      { logoUrl: 'http://cdn.example/x.png' },
      { accentColor: 'red;}body{display:none' },
    ]) {
      expect((await createEvent(freshEventId(), { page: bad })).status).toBe(400);
    }
  });
});

describe('security headers on gateway pages', () => {
  it('pins the waiting page script by hash, forbids framing and sniffing', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const res = await new Visitor().fetch(`/events/${eventId}/`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).not.toMatch(/script-src [^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    const html = await res.text();
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script));
    expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  });
});

describe('cross-site requests', () => {
  it('refuses state changes from another site, accepts same-origin browsers and apps', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const join = (headers: Record<string, string>) => new Visitor().json(`/_wr/events/${eventId}/join`, { method: 'POST', headers });
    for (const h of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }] as Record<
      string,
      string
    >[]) {
      const res = await join(h);
      expect(res.status, JSON.stringify(h)).toBe(403);
      expect(res.body.code).toBe('CROSS_SITE_REQUEST');
    }
    expect((await join({ origin: BASE, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await join({})).status).toBe(200);
    expect((await env.WAITING_ROOM.getByName(eventId).stats())!.waiting).toBe(2);
  });
});
