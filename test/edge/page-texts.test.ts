// An event's own words (`page.texts`) through the gateway: on the waiting, draw and maintenance pages and in the preview, escaped; bad ones refused.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { organizer } from '../helpers/channels';
import { BASE, Visitor, createEvent, freshEventId } from '../helpers/client';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const HOSTILE = '<script>alert(1)</script> & "quoted"';
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;';

describe("an event's own words", () => {
  it('replace ours on the waiting page in their language only, escaped in the page and in its script data', async () => {
    const eventId = freshEventId('texts');
    const texts = { en: { h_waiting: HOSTILE }, de: { h_waiting: 'Willkommen in der Schlange', ahead: 'Vor Ihnen: {n}' } };
    expect((await createEvent(eventId, { page: { texts } })).status).toBe(201);

    const en = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'en-US' } })).text();
    expect(en).toContain(`<h1 id="headline" data-testid="headline">${ESCAPED}</h1>`);
    expect(en).not.toContain('<script>alert(1)');
    // The script's copy of the words is JSON inside <script>: its `<` is escaped there too.
    expect(en).toContain('"h_waiting":"\\u003cscript>alert(1)\\u003c/script> & \\"quoted\\""');
    expect(en).toContain(MESSAGES.en.s_waiting);

    const de = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'de-AT' } })).text();
    expect(de).toContain('<html lang="de">');
    expect(de).toContain('Willkommen in der Schlange');
    expect(de).toContain(MESSAGES.de.s_waiting);
    expect(de).not.toContain('alert(1)');

    const fr = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'fr' } })).text();
    expect(fr).toContain(MESSAGES.fr.h_waiting);
  });

  it('show in the organizer preview of every phase', async () => {
    const eventId = freshEventId('texts');
    const texts = { 'pt-BR': { h_paused: 'Pausa rápida, já voltamos', h_sold_out: HOSTILE } };
    expect((await createEvent(eventId, { page: { texts } })).status).toBe(201);
    const preview = async (phase: string) => (await organizerPage(`/events/${eventId}/preview?phase=${phase}&lang=pt-BR`)).text();
    expect(await preview('paused')).toContain('Pausa rápida, já voltamos');
    const soldOut = await preview('sold_out');
    expect(soldOut).toContain(ESCAPED);
    expect(soldOut).not.toContain('<script>alert(1)');
    expect(await (await organizerPage(`/events/${eventId}/preview?phase=paused&lang=en`)).text()).toContain(MESSAGES.en.h_paused);
  });

  it('show on the draw page', async () => {
    const eventId = freshEventId('texts');
    const texts = { it: { drawTitle: 'Estrazione del concerto', drawPending: HOSTILE } };
    expect((await createEvent(eventId, { policy: 'random', saleStartsAt: inAnHour(), page: { texts } })).status).toBe(201);
    const html = await (
      await new Visitor().fetch(`/_wr/events/${eventId}/draw`, { headers: { ...browser, 'accept-language': 'it-IT' } })
    ).text();
    expect(html).toContain('<html lang="it">');
    expect(html).toContain('Estrazione del concerto');
    expect(html).toContain(ESCAPED);
    expect(html).not.toContain('<script>alert(1)');
  });

  it('show on the maintenance page, which speaks the visitor language', async () => {
    const eventId = freshEventId('texts');
    const texts = { th: { maintTitle: 'ปิดปรับปรุงระบบขายบัตร', maintBack: HOSTILE + ' {t}' } };
    expect((await createEvent(eventId, { method: 'reject', page: { texts } })).status).toBe(201);
    const th = await new Visitor().fetch(`/events/${eventId}/`, { headers: { ...browser, 'accept-language': 'th-TH' } });
    expect(th.status).toBe(503);
    const html = await th.text();
    expect(html).toContain('<html lang="th">');
    expect(html).toContain('<h1 data-testid="headline">ปิดปรับปรุงระบบขายบัตร</h1>');
    expect(html).toMatch(/&quot;quoted&quot; \d\d:\d\d UTC<\/p>/);
    expect(html).toContain(ESCAPED);
    expect(html).not.toContain('<script>alert(1)');
    const vi = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { ...browser, 'accept-language': 'vi' } })).text();
    expect(vi).toContain(`<h1 data-testid="headline">${MESSAGES.vi.maintTitle}</h1>`);
  });

  const refused: [string, unknown, string][] = [
    ['an unknown language', { 'en-XX': { h_waiting: 'x' } }, 'page.texts: Unrecognized key: "en-XX"'],
    ['an unknown key', { es: { h_waitng: 'x' } }, 'page.texts.es: Unrecognized key: "h_waitng"'],
    ['a dropped placeholder', { id: { ahead: 'Banyak orang di depan Anda' } }, 'page.texts.id.ahead: must keep the placeholders {n}'],
  ];
  for (const [name, texts, detail] of refused) {
    it(`refuses a replacement with ${name} with 400 naming it, and changes nothing`, async () => {
      const eventId = freshEventId('texts');
      const kept = { id: { h_waiting: 'Anda sedang mengantre untuk konser' } };
      expect((await createEvent(eventId, { page: { texts: kept } })).status).toBe(201);
      const before = await organizer('GET', `/events/${eventId}`);
      const res = await exports.default.fetch(
        new Request(`${BASE}/_wr/admin/events/${eventId}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ releaseRatePerMinute: 600, maxActiveVisitors: 1000, seats: 100, seatsPerRow: 10, page: { texts } }),
        }),
      );
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('INVALID_REQUEST');
      expect(body.detail).toContain(detail);
      expect(await organizer('GET', `/events/${eventId}`)).toEqual(before);
      const page = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'id' } })).text();
      expect(page).toContain('Anda sedang mengantre untuk konser');
    });
  }
});

function organizerPage(path: string): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}/_wr/admin${path}`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } }));
}
