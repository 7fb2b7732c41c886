// The "checking your browser" step: a new visitor of an event that asks for a proof of work solves
// the join challenge here, joins, and reloads into the waiting page.
import { html, raw } from 'hono/html';
import type { Challenge } from 'altcha-lib';
import type { PageTemplate } from '../../contracts/event-config';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, accentStyle, topBar } from './page-top';
import type { CheckTexts } from './page-texts';

/** JSON safe to embed inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Renders the check step for one event in `lang`, in the waiting page's style and with the
 * organizer's template (every value escaped), with `challenge` embedded for the script. Without
 * JavaScript it says that the check needs it (there is nothing to poll: no place exists yet).
 *
 * @param eventName the event's name as the waiting page shows it
 * @param challenge a fresh join challenge (src/lib/proof-of-work.ts `newChallenge`)
 */
export function checkPage(eventId: string, eventName: string, challenge: Challenge, lang: Lang, page: PageTemplate, texts: CheckTexts) {
  const { t } = texts;
  const accent = accentOf(page);
  return html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${eventName} - ${t.headline}</title>
        <style>
          ${raw(accentStyle(accent, texts.style))}
        </style>
      </head>
      <body>
        ${topBar(lang, page, LANG_NAMES[lang])}
        <main>
          <p class="muted" data-testid="event-name">${eventName}</p>
          <h1 data-testid="headline">${t.headline}</h1>
          <p class="muted">${t.sub}</p>
          ${page.message ? html`<p data-testid="message">${page.message}</p>` : ''}
          <section class="card" aria-live="polite">
            <div id="bar" class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-label="${t.headline}" hidden>
              <div id="progress"></div>
            </div>
            <p id="status" data-testid="check-status"></p>
            <noscript><p data-testid="no-script">${t.noScript}</p></noscript>
          </section>
        </main>
        <script type="application/json" id="wr-data">
          ${raw(embed({ eventId, t, challenge }))}
        </script>
        ${raw(`<script>${texts.script}</script>`)}
      </body>
    </html>`;
}
