// An organizer's own waiting page (`page.template`): refused with the rule and line when it breaks
// one (nothing stored), served to visitors with live values and the default page's script and CSP,
// previewed before it is saved; the default page stays as it is without one.
import { describe, expect, it } from 'vitest';
import EXAMPLE from '../../docs/how-to/custom-waiting-page.html?raw';
import { MAX_TEMPLATE_BYTES } from '../../contracts/page-template';
import { LANGS } from '../../contracts/i18n';
import { PREVIEW_PHASES } from '../../src/pages/preview';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { Visitor, countArrivals, createEvent, freshEventId } from '../helpers/client';
import { organizer } from '../helpers/organizer';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const BROKEN = '<h1>{{headline}}</h1>\n<p>{{position}}</p>\n<strong onclick="go()">Go</strong>';
/** Text as the page escapes it (hono's html escapes quotes too). */
const escaped = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
const scriptOf = (html: string) => /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;

describe('waiting page template: saving', () => {
  it('refuses a broken template on PUT, PATCH and their dry runs with the rule, line and column, storing nothing', async () => {
    const eventId = freshEventId();
    const created = await createEvent(eventId, { page: { template: BROKEN } });
    expect(created.status).toBe(400);
    expect(await created.json()).toMatchObject({
      code: 'PAGE_TEMPLATE_INVALID',
      field: 'page.template',
      rule: 'no-event-handler',
      line: 3,
      column: 9,
      detail: expect.stringMatching(/^page\.template: line 3, column 9: no onclick=.*\(rule no-event-handler\)$/),
    });
    expect((await organizer(`/events/${eventId}`)).status).toBe(404);

    await createEvent(eventId, { name: 'Plain' });
    const etag = (await organizer(`/events/${eventId}`)).headers.get('etag')!;
    const patched = await organizer(`/events/${eventId}`, { method: 'PATCH', body: { page: { template: BROKEN } }, headers: MERGE });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ code: 'PAGE_TEMPLATE_INVALID', rule: 'no-event-handler', line: 3, column: 9 });
    const dry = await organizer(`/events/${eventId}?dryRun=true`, {
      method: 'PATCH',
      body: { page: { template: '{{headline}}\n{{nope}}' } },
      headers: MERGE,
    });
    expect(dry.status).toBe(400);
    expect(dry.body).toMatchObject({
      code: 'PAGE_TEMPLATE_INVALID',
      rule: 'unknown-placeholder',
      line: 2,
      column: 1,
      errors: [{ path: 'page.template', rule: 'unknown-placeholder', line: 2, column: 1 }],
    });
    const after = await organizer(`/events/${eventId}`);
    expect(after.headers.get('etag')).toBe(etag);
    expect((after.body['config'] as { page: object }).page).toEqual({});
  });

  it('stores a template up to the size cap (a body larger than other organizer bodies) and refuses one over it', async () => {
    const eventId = freshEventId();
    const filler = (n: number) => `\n<p>${'x'.repeat(n)}</p>`;
    const fits = EXAMPLE + filler(MAX_TEMPLATE_BYTES - new TextEncoder().encode(EXAMPLE).byteLength - 8);
    expect(new TextEncoder().encode(fits).byteLength).toBe(MAX_TEMPLATE_BYTES);
    const ok = await createEvent(eventId, { page: { template: fits } });
    expect(ok.status).toBe(201);
    const over = await organizer(`/events/${eventId}`, { method: 'PATCH', body: { page: { template: `${fits}!` } }, headers: MERGE });
    expect(over.body).toMatchObject({ code: 'PAGE_TEMPLATE_INVALID', rule: 'too-large' });
    expect(((await organizer(`/events/${eventId}`)).body['config'] as { page: { template: string } }).page.template).toBe(fits);
  });
});

describe('waiting page template: scheduled changes', () => {
  it('checks a scheduled change’s template as an event’s, and keeps a good one', async () => {
    const eventId = freshEventId();
    await createEvent(eventId);
    const change = (template: string) => ({
      reason: 'Festival look for the presale',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      endsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      page: { template },
    });
    const bad = await organizer(`/events/${eventId}/schedule/look`, { method: 'PUT', body: change(BROKEN) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'PAGE_TEMPLATE_INVALID', field: 'page.template', rule: 'no-event-handler', line: 3 });
    const good = await organizer(`/events/${eventId}/schedule/look`, { method: 'PUT', body: change(EXAMPLE) });
    expect(good.status, good.text).toBeLessThan(300);
  });
});

describe('waiting page template: visitors', () => {
  it('serves the template with the live values, the same script and CSP as the default page', async () => {
    const plain = freshEventId();
    await createEvent(plain);
    const defaultPage = await new Visitor().fetch(`/events/${plain}/`);
    const defaultHtml = await defaultPage.text();
    // Without a template: the default page, none of the template's markers.
    expect(defaultHtml).toContain('<section class="card" aria-live="polite">');
    expect(defaultHtml).not.toContain('data-wr=');

    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Gala <night>', page: { template: EXAMPLE, message: 'Doors <19:00>' } });
    await new Visitor().fetch(`/events/${eventId}/`);
    const visitor = new Visitor();
    await visitor.fetch(`/events/${eventId}/`);
    await countArrivals(eventId);
    const res = await visitor.fetch(`/events/${eventId}/`);
    const html = await res.text();
    expect(html).toContain('<footer class="small">Questions? Write to tickets@example.com.');
    expect(html).toContain('<h1><span id="headline" data-wr="headline" data-testid="headline">You are in line</span></h1>');
    expect(html).toMatch(/<span id="big" data-wr="position" data-testid="big">#2<\/span>/);
    expect(html).toContain('<span data-wr="eventName" data-testid="event-name">Gala &lt;night&gt;</span>');
    expect(html).toContain('Doors &lt;19:00&gt;');
    expect(html).toContain('data-wr="languageSwitch"');
    expect(scriptOf(html)).toBe(scriptOf(defaultHtml));
    expect(res.headers.get('content-security-policy')).toBe(defaultPage.headers.get('content-security-policy'));
    expect(html).toContain('http-equiv="refresh"');
    // Our style for a template page is the small one, not the default page's.
    expect(html).toContain(':where(.wr-bar)');
    expect(html).not.toContain('.card {');
  });
});

describe('waiting page template: maintenance', () => {
  it('shows the maintenance page (the reject method) in the template: when to come back, no script', async () => {
    const eventId = freshEventId('maint');
    expect((await createEvent(eventId, { method: 'reject', page: { template: EXAMPLE, message: 'Back <soon>' } })).status).toBe(201);
    const res = await new Visitor().fetch(`/events/${eventId}/`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(503);
    const html = await res.text();
    expect(html).toContain('<footer class="small">Questions? Write to tickets@example.com.');
    expect(html).toContain('<h1><span data-wr="headline" data-testid="headline">Down for maintenance</span></h1>');
    expect(html).toMatch(/data-testid="come-back">.*\d\d:\d\d UTC/);
    expect(html).toContain('Back &lt;soon&gt;');
    expect(html).toContain(':where(.wr-bar)');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('{{');
  });
});

describe('waiting page template: preview', () => {
  it('renders a template not saved yet for every phase and language, and refuses a broken one', async () => {
    const eventId = freshEventId();
    await createEvent(eventId, { name: 'Spring' });
    for (const phase of PREVIEW_PHASES) {
      for (const lang of LANGS) {
        const res = await organizer(`/events/${eventId}/preview?phase=${phase}&lang=${lang}`, {
          method: 'POST',
          body: { page: { template: EXAMPLE } },
        });
        expect(res.status, `${phase} ${lang}`).toBe(200);
        expect(res.text).toContain(`<html lang="${lang}">`);
        expect(res.text).toContain(`data-testid="headline">${escaped(MESSAGES[lang][`h_${phase}`])}</span>`);
        expect(res.text).toContain(escaped(MESSAGES[lang].preview));
        expect(res.text).not.toContain('http-equiv="refresh"');
      }
    }
    const waiting = await organizer(`/events/${eventId}/preview?phase=waiting`, { method: 'POST', body: { page: { template: EXAMPLE } } });
    expect(waiting.text).toContain('data-testid="big">#1,234</span>');
    const broken = await organizer(`/events/${eventId}/preview`, { method: 'POST', body: { page: { template: BROKEN } } });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'PAGE_TEMPLATE_INVALID', line: 3 });
    // Nothing was saved: the event still has the default page.
    expect((await organizer(`/events/${eventId}/preview`)).text).toContain('<section class="card" aria-live="polite">');
  });
});
