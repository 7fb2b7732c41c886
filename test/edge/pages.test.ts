// Server-rendered visitor pages: languages and the switch, phases, the draw record as HTML or JSON, the organizer preview.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { DRAW_PAGE_ENTRANTS, drawPage, wantsDrawPage } from '../../src/pages/draw-page';
import { LANGS, LANG_NAMES, type Lang } from '../../contracts/i18n';
import { PREVIEW_PHASES } from '../../src/pages/preview';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { BASE, Visitor, createEvent, freshEventId } from '../helpers/client';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const admin = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`${BASE}/_wr/admin${path}`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, ...headers } }));
const scriptHashOf = async (html: string) => {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
};

describe('waiting page languages', () => {
  it('answers each Accept-Language in its language, with a switch listing every language, and stays under 15 KB', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const headers: Record<Lang, string> = {
      en: 'en-US',
      'zh-Hant': 'zh-TW',
      'zh-Hans': 'zh-CN',
      ja: 'ja-JP',
      ko: 'ko-KR',
      es: 'es-ES',
      de: 'de-DE,de;q=0.9,en;q=0.8',
      fr: 'fr-FR,fr;q=0.9',
      it: 'it-IT',
      'pt-BR': 'pt-BR,pt;q=0.9,en-US;q=0.8',
      th: 'th-TH,th;q=0.9',
      vi: 'vi-VN,vi;q=0.9,en;q=0.8',
      id: 'id-ID,id;q=0.9',
    };
    for (const lang of LANGS) {
      const html = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': headers[lang]! } })).text();
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(MESSAGES[lang].h_waiting);
      for (const other of LANGS) expect(html).toContain(`href="?lang=${other}" hreflang="${other}" lang="${other}"`);
      expect(html).toContain(`aria-current="true">${LANG_NAMES[lang]}</a>`);
      // Only the visitor's words are embedded: no other language's headline.
      for (const other of LANGS.filter((l) => l !== lang)) expect(html).not.toContain(`"h_waiting":"${MESSAGES[other].h_waiting}"`);
      expect(new TextEncoder().encode(html).byteLength).toBeLessThan(15 * 1024);
    }
  });

  it('remembers a language chosen with the switch (?lang=) in a cookie, over Accept-Language', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const v = new Visitor();
    const chosen = await v.fetch(`/events/${eventId}/?lang=ko`, { headers: { 'accept-language': 'ja' } });
    expect(chosen.headers.getSetCookie().find((c) => c.startsWith('wr_lang='))).toBe(
      'wr_lang=ko; Path=/; Max-Age=31536000; SameSite=Lax; Secure',
    );
    expect(await chosen.text()).toContain('<html lang="ko">');
    const again = await v.fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'ja' } });
    expect(await again.text()).toContain('<html lang="ko">');
    expect(again.headers.getSetCookie().some((c) => c.startsWith('wr_lang='))).toBe(false);
    expect(again.headers.get('vary')).toContain('Cookie');
  });

  it('renders every text on the server, so a lottery pre-queue reads right without JavaScript', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { policy: 'random', saleStartsAt: inAnHour() });
    const html = await (await new Visitor().fetch(`/events/${eventId}/`, { headers: { 'accept-language': 'zh-TW' } })).text();
    expect(html).toContain(MESSAGES['zh-Hant'].h_prequeue);
    expect(html).toContain(MESSAGES['zh-Hant'].startsIn);
    expect(html.slice(0, html.indexOf('<script'))).not.toContain('暫停');
    expect(html).toMatch(/<li class="now" aria-current="step">\s*抽籤\s*<\/li>/);
  });
});

describe('draw record', () => {
  it('is JSON for scripts and ?format=json, a readable page for browsers, with the same cache rules and Vary', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { policy: 'random', saleStartsAt: inAnHour() });
    const v = new Visitor();
    const json = await v.fetch(`/_wr/events/${eventId}/draw`);
    expect(json.headers.get('content-type')).toContain('application/json');
    const record = (await json.json()) as { commitment: string; drawn: boolean };
    expect(record.drawn).toBe(false);
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await v.fetch(`/_wr/events/${eventId}/draw`, { headers: { accept: browserAccept, 'accept-language': 'es' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('cache-control')).toBe(json.headers.get('cache-control'));
    expect(page.headers.get('vary')).toBe('Accept, Accept-Language, Cookie');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'none'");
    const html = await page.text();
    expect(html).toContain('<html lang="es">');
    expect(html).toContain(MESSAGES.es.drawPending);
    expect(html).toContain(`<code data-testid="commitment">${record.commitment}</code>`);
    expect(html).toContain('href="?format=json"');
    const forced = await v.fetch(`/_wr/events/${eventId}/draw?format=json`, { headers: { accept: browserAccept } });
    expect(forced.headers.get('content-type')).toContain('application/json');
  });

  it('chooses by Accept order and the format parameter', () => {
    expect(wantsDrawPage(undefined, undefined)).toBe(false);
    expect(wantsDrawPage('*/*', undefined)).toBe(false);
    expect(wantsDrawPage('application/json, text/html', undefined)).toBe(false);
    expect(wantsDrawPage('text/html, application/json', undefined)).toBe(true);
    expect(wantsDrawPage('text/html', 'json')).toBe(false);
    expect(wantsDrawPage(undefined, 'html')).toBe(true);
    // q-values count (`application/json;q=0` still got JSON).
    expect(wantsDrawPage('application/json;q=0.1, text/html', undefined)).toBe(true);
    expect(wantsDrawPage('text/html;q=0, application/json', undefined)).toBe(false);
  });

  it('answers the room and its errors by q-value: application/json;q=0 gets the page', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const refused = await new Visitor().fetch(`/events/${eventId}/`, { headers: { accept: 'application/json;q=0, text/html' } });
    expect(refused.headers.get('content-type')).toContain('text/html');
    const app = await new Visitor().fetch(`/events/${eventId}/`, { headers: { accept: 'text/html;q=0.5, application/json' } });
    expect(app.headers.get('content-type')).toContain('application/json');
    const missing = await new Visitor().fetch(`/_wr/events/${eventId}/status`, {
      headers: { accept: 'application/json;q=0, text/html' },
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toContain('text/html');
  });

  it('lists the first entrants of a drawn record, escaped, and says how many there are', async () => {
    const entrants = Array.from({ length: DRAW_PAGE_ENTRANTS + 5 }, (_, i) => `id-${i}`);
    entrants[0] = '<img src=x onerror=alert(1)>';
    const html = String(await drawPage('ev', { commitment: 'c0ffee', drawn: true, seed: '5eed', entrants }, 'en', MESSAGES.en, null));
    expect(html).toContain(`First ${DRAW_PAGE_ENTRANTS} of ${DRAW_PAGE_ENTRANTS + 5} in draw order`);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('<code data-testid="seed">5eed</code>');
    expect(html.match(/<li>/g)).toHaveLength(DRAW_PAGE_ENTRANTS);
  });

  it('finds an entrant’s own rank among all entrants (not only those listed), and says when the draw does not list them', async () => {
    const entrants = Array.from({ length: DRAW_PAGE_ENTRANTS + 5 }, (_, i) => `id-${i}`);
    const record = { commitment: 'c0ffee', drawn: true, seed: '5eed', entrants };
    const page = async (lang: 'en' | 'es', id: string) => String(await drawPage('ev', record, lang, MESSAGES[lang], id));
    expect(await page('en', 'id-103')).toContain(`Entrant id-103 is number 104 of ${DRAW_PAGE_ENTRANTS + 5} in the draw order.`);
    expect(await page('es', 'id-0')).toContain('El participante id-0 es el número 1 de 105');
    expect(await page('en', 'nobody')).toContain('Entrant nobody is not in this draw.');
    const pending = String(
      await drawPage('ev', { commitment: 'c0ffee', drawn: false, seed: null, entrants: null }, 'en', MESSAGES.en, 'id-1'),
    );
    expect(pending).not.toContain('data-testid="entrant-rank"');
  });
});

describe('organizer preview', () => {
  it('needs the admin token, renders the real template for each phase with sample data, pinned by the same CSP hash', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Gala <b>night</b>', page: { message: 'Doors <i>19:00</i>' } });
    expect((await exports.default.fetch(new Request(`${BASE}/_wr/admin/events/${eventId}/preview`))).status).toBe(401);
    const real = await (await new Visitor().fetch(`/events/${eventId}/`)).text();
    for (const phase of PREVIEW_PHASES) {
      for (const lang of ['en', 'ja', 'th'] as const) {
        const res = await admin(`/events/${eventId}/preview?phase=${phase}&lang=${lang}`);
        expect(res.status, phase).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const html = await res.text();
        expect(html).toContain(`<html lang="${lang}">`);
        expect(html).toContain(`data-testid="headline">${MESSAGES[lang][`h_${phase}`]}</h1>`);
        expect(html).toContain(MESSAGES[lang].preview);
        expect(html).toContain('Gala &lt;b&gt;night&lt;/b&gt;');
        expect(html).toContain('Doors &lt;i&gt;19:00&lt;/i&gt;');
        expect(html).not.toContain('http-equiv="refresh"');
        expect(res.headers.get('content-security-policy')).toContain(await scriptHashOf(html));
        expect(await scriptHashOf(html)).toBe(await scriptHashOf(real));
      }
    }
    const waiting = await (await admin(`/events/${eventId}/preview?phase=waiting`)).text();
    expect(waiting).toContain('#1,234');
    expect(waiting).toContain('1,233 people ahead of you');
    expect((await admin(`/events/${eventId}/preview?phase=admitted`)).status).toBe(400);
    expect((await admin(`/events/${eventId}/preview?lang=nl`)).status).toBe(400);
    expect((await admin(`/events/${freshEventId()}/preview`)).status).toBe(404);
  });
});
