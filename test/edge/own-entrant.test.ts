// A lottery visitor can find their own rank: the status JSON and the waiting page give their
// entrant id (their ticket is HttpOnly, so the page cannot read it), and the draw record finds
// that id's rank among all entrants (`?entrant=`), as JSON and on the draw page. Bad ids are 400.
import { describe, expect, it } from 'vitest';
import type { DrawRecord } from '../../contracts/queue/queue-policy';
import { Visitor, createEvent, freshEventId } from '../helpers/client';
import { QueueHarness } from '../helpers/queue';
import { forgetCursor } from '../../src/lib/cursor-cache';
import { scriptHash } from '../../src/lib/security-headers';
import { MESSAGES } from '../../src/pages/waiting-messages';

interface Status {
  state: string;
  entrantId: string | null;
  queueTicket?: string;
}

const subOf = (jwt: string) => (JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub: string }).sub;

describe('a lottery visitor’s own entrant id', () => {
  it('is in the status JSON and on the waiting page, and the draw record finds its rank', async () => {
    const eventId = freshEventId('lottery');
    const start = Date.now() + 3_600_000;
    await createEvent(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString() });
    const visitors = Array.from({ length: 5 }, () => new Visitor());
    const ids: string[] = [];
    for (const v of visitors) {
      const joined = await v.json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
      expect(joined.status).toBe(200);
      expect(joined.body.entrantId).toBe(subOf(joined.body.queueTicket!));
      ids.push(joined.body.entrantId!);
    }
    const me = visitors[2]!;
    expect((await me.json<Status>(`/_wr/events/${eventId}/status`)).body.entrantId).toBe(ids[2]);
    const page = await (await me.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(`<code>${ids[2]}</code>`);
    expect(page).toContain(`href="/_wr/events/${eventId}/draw?entrant=${ids[2]}"`);

    // Before the draw: no rank yet.
    const before = await new Visitor().json<DrawRecord & { entrant: { id: string; rank: number | null } }>(
      `/_wr/events/${eventId}/draw?entrant=${ids[2]}`,
    );
    expect(before.body.entrant).toEqual({ id: ids[2], rank: null });

    await new QueueHarness(eventId).tick(start + 1);
    const after = await new Visitor().json<DrawRecord & { entrant: { id: string; rank: number | null } }>(
      `/_wr/events/${eventId}/draw?entrant=${ids[2]}`,
    );
    const rank = after.body.entrants!.indexOf(ids[2]!) + 1;
    expect(rank).toBeGreaterThan(0);
    expect(after.body.entrant).toEqual({ id: ids[2], rank });
    const html = await (await new Visitor().fetch(`/_wr/events/${eventId}/draw?format=html&entrant=${ids[2]}`)).text();
    expect(html).toContain(`Entrant ${ids[2]} is number ${rank} of 5 in the draw order.`);
    const stranger = await new Visitor().json<{ entrant: { rank: number } }>(`/_wr/events/${eventId}/draw?entrant=not-an-entrant`);
    expect(stranger.body.entrant.rank).toBe(0);
  });

  it('is null on a FIFO event, and a malformed ?entrant= is 400 INVALID_REQUEST', async () => {
    const eventId = freshEventId('fifo');
    await createEvent(eventId);
    const joined = await new Visitor().json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(joined.body.entrantId).toBeNull();
    const lottery = freshEventId('lottery');
    await createEvent(lottery, { policy: 'random', saleStartsAt: new Date(Date.now() + 3_600_000).toISOString() });
    for (const bad of ['%3Cscript%3E', 'a'.repeat(65), '', 'a%20b']) {
      const res = await new Visitor().json<{ code: string }>(`/_wr/events/${lottery}/draw?entrant=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_REQUEST');
    }
  });
});

describe('a lottery’s later arrival', () => {
  it('gets no entrant id and no rank link, and is told it queues first come, first served after the draw; the draw page checks itself', async () => {
    const eventId = freshEventId('lottery');
    const start = Date.now() + 3_600_000;
    await createEvent(eventId, { policy: 'random', saleStartsAt: new Date(start).toISOString() });
    const entrant = new Visitor();
    const joined = await entrant.json<Status>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(joined.body.entrantId).not.toBeNull();
    await new QueueHarness(eventId).tick(start + 1);
    await forgetCursor(eventId);

    const late = new Visitor();
    const answer = await late.json<Status & { policy: string }>(`/_wr/events/${eventId}/join`, { method: 'POST' });
    expect(answer.status).toBe(200);
    // Before the fix: "Your entrant id in the draw: ..." for an id the draw does not list.
    expect(answer.body).toMatchObject({ policy: 'random', entrantId: null });
    const page = await (await late.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(MESSAGES.en.afterDraw);
    expect(page).not.toContain(MESSAGES.en.yourEntrant);
    expect(page).not.toContain('draw?entrant=');
    // The entrant keeps theirs (admitted at the draw's first release here).
    expect((await entrant.json<Status>(`/_wr/events/${eventId}/status`)).body.entrantId).toBe(joined.body.entrantId);

    const draw = await new Visitor().fetch(`/_wr/events/${eventId}/draw?format=html`);
    const html = await draw.text();
    expect(html).toContain('id="verify"');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(draw.headers.get('content-security-policy')).toContain(await scriptHash(script));
    expect(html).toContain('npm run verify-draw --');
  });
});
