// An organizer's own waiting page (an event's `page.template`): their body with our elements in
// place of the placeholders, inside the document, data and script of the default page.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import type { Lang } from '../../contracts/i18n';
import { LANG_NAMES } from '../../contracts/i18n';
import { templateParts, type PlaceholderName } from '../../contracts/page-template';
import type { StatusBody } from '../lib/status-body';
import { accentOf, accentStyle, languageSwitch, tightHtml } from './page-top';
import type { WaitingTexts } from './page-texts';
import type { Messages } from './waiting-messages';
import { dataAndScript, drawNotes, policyKey, refreshSeconds, stepsList, waitingHead, type WaitingPageOptions } from './waiting-parts';
import { waitingView } from './waiting-view';

/**
 * The waiting page from the event's template (`page.template`, checked by the organizer API with
 * contracts/page-template.ts templateProblem): the template's own text as it is, each placeholder
 * replaced by our element with its value escaped. The live ones carry the ids of the default page,
 * so its script (`dataAndScript`) updates them on each poll; every one carries `data-wr="{name}"`
 * for the organizer's style. The document around it (head, title, no-JavaScript refresh, the
 * preview's banner, the data and script) is the default page's; the CSP is too. `texts.style`
 * is the template page's own small style (`TEMPLATE_STYLE`, read with `waitingTexts(..., true)`).
 */
export function templatePage(
  eventId: string,
  status: StatusBody,
  lang: Lang,
  page: PageTemplate,
  texts: WaitingTexts,
  opts: WaitingPageOptions = {},
) {
  const { t } = texts;
  const preview = opts.preview === true;
  const v = waitingView(status, t, lang, opts.nowMs ?? Date.now());
  // The tag is built as one string: its id and names are our own constants (no character to escape).
  const live = (name: PlaceholderName, id: string, text: string) =>
    html`${raw(`<span id="${id}" data-wr="${name}" data-testid="${id}"${text ? '' : ' hidden'}>`)}${text}</span>`;
  const parts: Record<PlaceholderName, () => unknown> = {
    ...ownParts(status.eventName, page, lang, t),
    headline: () => html`<span id="headline" data-wr="headline" data-testid="headline">${v.headline}</span>`,
    phaseText: () => live('phaseText', 'sub', v.sub),
    positionLabel: () => live('positionLabel', 'bigLabel', v.bigLabel),
    position: () => live('position', 'big', v.big),
    ahead: () => live('ahead', 'ahead', v.ahead),
    wait: () => live('wait', 'wait', v.wait),
    countdown: () => live('countdown', 'countdown', v.countdown),
    progress: () =>
      tightHtml`<span data-wr="progress"><span id="bar" class="wr-bar" role="progressbar" aria-valuemin="0" aria-valuemax="100"
        aria-label="${t.steps}" hidden><span id="progress"></span></span><span id="moved" data-testid="moved" hidden></span></span>`,
    stock: () => live('stock', 'stock', v.stock),
    stockWarning: () => live('stockWarning', 'stockWarn', v.stockWarn),
    steps: () => stepsList(status, t, v, 'steps'),
    policy: () => html`<span id="policy" data-wr="policy" data-testid="policy">${t[policyKey(status)]}</span>`,
    draw: () => html`<span data-wr="draw">${drawNotes(eventId, status, t, 'span')}</span>`,
    updated: () => html`<span id="updated" data-wr="updated" aria-live="polite"></span>`,
  };
  const body = filled(page.template ?? '', parts);
  const style = accentStyle(accentOf(page), texts.style);
  return tightHtml`<!doctype html>
    <html lang="${lang}">
      ${waitingHead(status, t, style, preview)}
      <body>
        ${
          preview
            ? tightHtml`<aside aria-label="${t.preview}" data-testid="preview" style="margin:0;padding:.5rem;text-align:center;background:#fef3c7;color:#78350f">
                ${t.preview}
              </aside>`
            : ''
        }
        ${body}
        ${preview ? '' : tightHtml`<noscript><p>${t.noScript.replace('{s}', String(refreshSeconds(status)))}</p></noscript>`}
        ${dataAndScript(eventId, status, lang, texts, preview)}
      </body>
    </html>`;
}

/** The placeholders of the event itself: its name, logo, language switch and message. */
function ownParts(eventName: string, page: PageTemplate, lang: Lang, t: Messages) {
  return {
    eventName: () => html`<span data-wr="eventName" data-testid="event-name">${eventName}</span>`,
    logo: () => (page.logoUrl ? html`<img data-wr="logo" src="${page.logoUrl}" alt="" />` : ''),
    languageSwitch: () => languageSwitch(lang, `${t.lang}: ${LANG_NAMES[lang]}`, 'languageSwitch'),
    message: () => (page.message ? html`<span data-wr="message" data-testid="message">${page.message}</span>` : ''),
  };
}

/** The template's text as it is, each placeholder replaced by its part ('' for one `parts` leaves out). */
function filled(template: string, parts: Partial<Record<PlaceholderName, () => unknown>>) {
  return templateParts(template).map((part, i) => (i % 2 === 0 ? raw(part) : (parts[part as PlaceholderName]?.() ?? '')));
}

/**
 * The maintenance page (the `reject` queueing method) from the event's template: the headline
 * says the sale is down, the phase text when to come back; the event's name, logo, language
 * switch and message as on the waiting page; every other placeholder is left empty. Static, like
 * the default maintenance page: no data, no script.
 * @param opts as maintenancePage's; `style` the template page's (`TEMPLATE_STYLE`), `back` the return time as shown
 */
export function maintenanceTemplatePage(opts: {
  eventName: string;
  page: PageTemplate;
  lang: Lang;
  t: Messages;
  style: string;
  back: string;
}) {
  const { t, lang, page } = opts;
  const body = filled(page.template ?? '', {
    ...ownParts(opts.eventName, page, lang, t),
    headline: () => html`<span data-wr="headline" data-testid="headline">${t.maintTitle}</span>`,
    phaseText: () => html`<span data-wr="phaseText" data-testid="come-back">${t.maintBack.replace('{t}', opts.back)}</span>`,
  });
  return tightHtml`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${opts.eventName} - ${t.maintTitle}</title>
        <style>
          ${raw(accentStyle(accentOf(page), opts.style))}
        </style>
      </head>
      <body>
        ${body}
      </body>
    </html>`;
}
