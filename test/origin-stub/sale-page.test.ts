// The stub's sale page as served through the gateway: the event's name (escaped), the visitor's
// language, the message tables complete; the signed origin API that tells the stub the name.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signOriginRequest } from '../../contracts/hmac';
import { LANGS, LANG_COOKIE } from '../../contracts/i18n';
import { SALE_MESSAGES } from '../../origin-stub/sale-messages';
import { BASE, admittedVisitor, createEvent, freshEventId } from '../helpers/client';

const slots = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('sale page', () => {
  for (const lang of LANGS) {
    it(`${lang}: has exactly the English keys, none empty, with the same {slots}`, () => {
      const table = SALE_MESSAGES[lang] as Record<string, string>;
      const en = SALE_MESSAGES.en as Record<string, string>;
      expect(Object.keys(table).sort()).toEqual(Object.keys(en).sort());
      for (const key of Object.keys(en)) {
        expect(table[key]!.trim(), `${lang}.${key}`).not.toBe('');
        expect(slots(table[key]!), `${lang}.${key}`).toEqual(slots(en[key]!));
      }
    });
  }

  it("titles the page with the event's name, escaped, in the visitor's language (Accept-Language, then the remembered cookie)", async () => {
    const eventId = freshEventId('sale');
    await createEvent(eventId, { name: 'Gala <script>x</script> & friends' });
    const v = await admittedVisitor(eventId);
    const ko = await (await v.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html', 'accept-language': 'ko-KR' } })).text();
    expect(ko).toContain('<html lang="ko">');
    expect(ko).toContain('<title>Gala &lt;script&gt;x&lt;/script&gt; &amp; friends - 티켓</title>');
    expect(ko).toContain('<h1 data-testid="event-name">Gala &lt;script&gt;x&lt;/script&gt; &amp; friends</h1>');
    expect(ko).not.toContain('<script>x</script>');
    expect(ko).toContain(SALE_MESSAGES.ko.stage);
    // The waiting page's switch sets wr_lang; the gateway forwards it (it is not a gateway cookie).
    v.cookies.set(LANG_COOKIE, 'es');
    const es = await (await v.fetch(`/events/${eventId}/`, { headers: { accept: 'text/html', 'accept-language': 'ko-KR' } })).text();
    expect(es).toContain('<html lang="es">');
    expect(es).toContain(SALE_MESSAGES.es.hold);
  });

  it('GET /_wr/origin/events/{id} tells a signed origin the name, and nobody else', async () => {
    const eventId = freshEventId('info');
    await createEvent(eventId, { name: 'Night at the Opera', policy: 'random', saleStartsAt: new Date(Date.now() + 60_000).toISOString() });
    const path = `/_wr/origin/events/${eventId}`;
    expect((await exports.default.fetch(new Request(BASE + path))).status).toBe(401);
    const headers = await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'GET', path, '', Date.now());
    const res = await exports.default.fetch(new Request(BASE + path, { headers }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ eventId, name: 'Night at the Opera', policy: 'random', saleStartsAt: expect.any(String) });
    const unknown = `/_wr/origin/events/${freshEventId('none')}`;
    const missing = await exports.default.fetch(
      new Request(BASE + unknown, { headers: await signOriginRequest(env.ORIGIN_HMAC_SECRET, 'GET', unknown, '', Date.now()) }),
    );
    expect(missing.status).toBe(404);
  });
});
