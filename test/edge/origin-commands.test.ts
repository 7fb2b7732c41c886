// Origin commands: `X-WR-Command: revoke` on an origin answer ends the visitor's
// admission at once, frees the active slot and clears the cookie; the header never reaches the
// browser.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { COMMAND_HEADER } from '../../contracts/names';
import { BASE, Visitor, admittedVisitor, createEvent, freshEventId, tick } from '../helpers/client';
import { viaFreshApp } from '../helpers/rooms';

/** An origin that answers `command` on paths ending in /done and a plain page elsewhere. */
const commandingOrigin = (command: string) => ({
  fetch: async (req: Request) =>
    new URL(req.url).pathname.endsWith('/done')
      ? new Response('thanks for your order', { headers: { [COMMAND_HEADER]: command, 'cache-control': 'public, max-age=600' } })
      : new Response('sale page'),
});

const cookieOf = (v: Visitor) => [...v.cookies].map(([k, val]) => `${k}=${val}`).join('; ');

async function activeCount(eventId: string): Promise<number> {
  const res = await exports.default.fetch(
    new Request(`${BASE}/_wr/admin/events/${eventId}`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }),
  );
  return ((await res.json()) as { queue: { active: number } }).queue.active;
}

describe('X-WR-Command: revoke', () => {
  it.each(['revoke', 'REVOKE', ' other , revoke'])(
    '%j ends the session at once, frees the slot, clears the cookie and is stripped',
    async (command) => {
      const eventId = freshEventId('rv');
      await createEvent(eventId);
      const v = await admittedVisitor(eventId);
      expect(await activeCount(eventId)).toBe(1);
      const done = await viaFreshApp(
        `/events/${eventId}/checkout/done`,
        { headers: { cookie: cookieOf(v) } },
        { ORIGIN: commandingOrigin(command) },
      );
      expect(done.status).toBe(200);
      expect(await done.text()).toBe('thanks for your order');
      expect(done.headers.has(COMMAND_HEADER)).toBe(false);
      expect(done.headers.get('cache-control')).toBe('no-store');
      const cleared = done.headers.getSetCookie();
      expect(cleared).toEqual([`__Host-wr_a_${eventId}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure`]);
      expect(await activeCount(eventId)).toBe(0);
      // The old admission token is dead at once, in this isolate and any other (the object says so).
      const again = await viaFreshApp(
        `/events/${eventId}/`,
        { headers: { cookie: cookieOf(v), accept: 'application/json' } },
        { ORIGIN: commandingOrigin(command) },
      );
      expect(((await again.json()) as { state: string }).state).not.toBe('admitted');
      const hold = await v.hold(eventId, ['A1']);
      expect(hold.status).toBe(401);
    },
  );

  it('ignores unknown commands (stripped, the session goes on)', async () => {
    const eventId = freshEventId('rv');
    await createEvent(eventId);
    const v = await admittedVisitor(eventId);
    const done = await viaFreshApp(
      `/events/${eventId}/x/done`,
      { headers: { cookie: cookieOf(v) } },
      { ORIGIN: commandingOrigin('reboot-the-moon') },
    );
    expect(done.headers.has(COMMAND_HEADER)).toBe(false);
    expect(done.headers.getSetCookie()).toEqual([]);
    expect(done.headers.get('cache-control')).toBe('private, max-age=600');
    expect(await activeCount(eventId)).toBe(1);
  });

  it('on the very request that admits a visitor: no admission cookie is handed out at all', async () => {
    const eventId = freshEventId('rv');
    await createEvent(eventId);
    const v = new Visitor();
    await v.json(`/_wr/events/${eventId}/join`, { method: 'POST' });
    await tick(eventId);
    const done = await viaFreshApp(`/events/${eventId}/done`, { headers: { cookie: cookieOf(v) } }, { ORIGIN: commandingOrigin('revoke') });
    expect(await done.text()).toBe('thanks for your order');
    const cookies = done.headers.getSetCookie();
    expect(cookies.filter((c) => c.startsWith(`__Host-wr_a_${eventId}=`))).toEqual([
      `__Host-wr_a_${eventId}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure`,
    ]);
    expect(done.headers.get('cache-control')).toBe('no-store');
    expect(await activeCount(eventId)).toBe(0);
  });

  it('is stripped and ignored on pass-through paths (no room, no session to end)', async () => {
    const res = await viaFreshApp('/orders/done', {}, { ORIGIN: commandingOrigin('revoke') });
    expect(res.headers.has(COMMAND_HEADER)).toBe(false);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
  });
});
