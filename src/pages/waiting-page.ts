// The waiting page: phase, steps, place in line, people ahead, estimated wait, policy note; polls with jitter.
import { raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import type { StatusBody } from '../lib/status-body';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, accentStyle, tightHtml, topBar } from './page-top';
import type { WaitingTexts } from './page-texts';
import { templatePage } from './template-page';
import {
  dataAndScript,
  drawNotes,
  policyKey,
  refreshSeconds,
  stepsList,
  waitingHead,
  waitlistPart,
  type WaitingPageOptions,
} from './waiting-parts';
import { waitingView } from './waiting-view';

/**
 * Renders the waiting page for one event, in `lang`, with the organizer's template (every value
 * escaped; the logo only from an HTTPS URL, as validated in the event config). The server renders
 * every text (`waitingView`), so the page reads the same without JavaScript. With JavaScript the
 * page polls `/_wr/events/{eventId}/status` every `pollAfterMs` (x0.8-1.2 jitter, so a crowd does
 * not poll in lockstep), backs off on errors and on 429/503 `Retry-After`, stops after 30 minutes
 * in a hidden tab and resumes on focus, and reloads the sale URL once admitted. Without
 * JavaScript a `<meta refresh>` reloads it. The cookies carry the place, so reloads and tabs keep
 * it. A language switch (links with `?lang=`) sits at the top; only `lang`'s words are embedded.
 * An event with `page.template` gets its own page instead (`templatePage`), with the same data
 * and script.
 */
export function waitingPage(
  eventId: string,
  status: StatusBody,
  lang: Lang,
  page: PageTemplate,
  texts: WaitingTexts,
  opts: WaitingPageOptions = {},
) {
  if (page.template) return templatePage(eventId, status, lang, page, texts, opts);
  const { t } = texts;
  const preview = opts.preview === true;
  const v = waitingView(status, t, lang, opts.nowMs ?? Date.now());
  const shown = (id: string, text: string, cls = '') =>
    tightHtml`<p id="${id}" data-testid="${id}" ${cls ? raw(` class="${cls}"`) : ''}${text ? '' : raw(' hidden')}>${text}</p>`;
  return tightHtml`<!doctype html>
    <html lang="${lang}">
      ${waitingHead(status, t, accentStyle(accentOf(page), texts.style), preview)}
      <body>
        ${topBar(lang, page, `${t.lang}: ${LANG_NAMES[lang]}`)}
        <main>
          ${preview ? tightHtml`<p class="banner" data-testid="preview">${t.preview}</p>` : ''}
          <p class="muted" data-testid="event-name">${status.eventName}</p>
          ${stepsList(status, t, v)}
          <h1 id="headline" data-testid="headline">${v.headline}</h1>
          ${shown('sub', v.sub, 'muted')} ${page.message ? tightHtml`<p data-testid="message">${page.message}</p>` : ''}
          <section class="card" aria-live="polite">
            ${shown('bigLabel', v.bigLabel, 'muted')} ${shown('big', v.big, 'big')} ${shown('ahead', v.ahead)}
            <div id="bar" class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-label="${t.steps}" hidden>
              <div id="progress"></div>
            </div>
            ${shown('moved', '', 'muted')} ${shown('wait', v.wait)} ${shown('countdown', v.countdown, 'muted')} ${shown('stock', v.stock)}
            ${shown('stockWarn', v.stockWarn, 'warn')}
          </section>
          ${status.waitlist ? waitlistPart(eventId, status, v.phase, t, lang, opts.nowMs ?? Date.now()) : ''}
          <p class="note muted" id="policy" data-testid="policy">${t[policyKey(status)]}</p>
          ${drawNotes(eventId, status, t)}
          <p class="muted" id="updated" aria-live="polite"></p>
          ${preview ? '' : tightHtml`<noscript><p class="muted">${t.noScript.replace('{s}', String(refreshSeconds(status)))}</p></noscript>`}
        </main>
        ${dataAndScript(eventId, status, lang, texts, preview)}
      </body>
    </html>`;
}
