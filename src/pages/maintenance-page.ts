// The page of the `reject` queueing method: the sale is down for maintenance. Static: no script,
// no place, no cookie; it says when to come back (the same time as its Retry-After).
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, accentStyle, topBar } from './page-top';
import { maintenanceTemplatePage } from './template-page';
import type { Messages } from './waiting-messages';

/**
 * The maintenance page, in `lang`, with the organizer's template (every value escaped).
 * @param opts.retryAfterS seconds until it is worth coming back (the answer's `Retry-After`)
 * @param opts.nowMs the edge's clock, epoch ms (the page shows the return time in UTC)
 * @param opts.t the pages' words in `lang`, the event's own words applied (page-texts.ts `waitingWords`)
 * @param opts.style the pages' shared style (page-texts.ts `pageStyle`), or for an event with
 *   `page.template` the template page's (its page is then `maintenanceTemplatePage`)
 */
export function maintenancePage(opts: {
  eventName: string;
  page: PageTemplate;
  retryAfterS: number;
  nowMs: number;
  lang: Lang;
  t: Messages;
  style: string;
}) {
  const { t, lang } = opts;
  // In UTC, not the visitor's zone: the page is static and the server does not know it.
  const back = `${new Date(opts.nowMs + opts.retryAfterS * 1000).toISOString().slice(11, 16)} UTC`;
  if (opts.page.template) return maintenanceTemplatePage({ ...opts, back });
  return html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${opts.eventName} - ${t.maintTitle}</title>
        <style>
          ${raw(accentStyle(accentOf(opts.page), opts.style))}
        </style>
      </head>
      <body>
        ${topBar(lang, opts.page, `${t.lang}: ${LANG_NAMES[lang]}`)}
        <main>
          <p class="muted" data-testid="event-name">${opts.eventName}</p>
          <h1 data-testid="headline">${t.maintTitle}</h1>
          ${opts.page.message ? html`<p data-testid="message">${opts.page.message}</p>` : ''}
          <p data-testid="come-back">${t.maintBack.replace('{t}', back)}</p>
        </main>
      </body>
    </html>`;
}
