// The waiting page: phase, steps, place in line, people ahead, estimated wait, policy note; polls with jitter.
import { raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import type { StatusBody } from '../lib/status-body';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, accentStyle, tightHtml, topBar } from './page-top';
import type { WaitingTexts } from './page-texts';
import type { Messages } from './waiting-messages';
import { waitingView } from './waiting-view';

/** The messages the script needs (the rest is rendered once, on the server). */
const SCRIPT_KEYS = [
  ...(['h_', 's_'] as const).flatMap((p) =>
    (['not_open', 'prequeue', 'drawing', 'waiting', 'paused', 'closed', 'sold_out', 'admitted'] as const).map((k) => `${p}${k}` as const),
  ),
  ...(['placeLabel', 'startsIn', 'countdown', 'ahead', 'aheadOne', 'next', 'moved'] as const),
  ...(['placeRange', 'placeAfter', 'aheadRange', 'aheadMore', 'counting', 'stockLeft', 'stockWarn', 'stockWarnOne'] as const),
  ...(['waitUnknown', 'waitPaused', 'waitUnderMinute', 'waitRange', 'waitAbout', 'updated', 'retrying'] as const),
] satisfies (keyof Messages)[];

/** JSON safe to embed inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Options of `waitingPage`. */
export interface WaitingPageOptions {
  /** Organizer preview: a banner says so, and the script renders but never polls or reloads. */
  preview?: boolean;
  /** Clock of the first render, epoch ms (default now). */
  nowMs?: number;
}

/**
 * Renders the waiting page for one event, in `lang`, with the organizer's template (every value
 * escaped; the logo only from an HTTPS URL, as validated in the event config). The server renders
 * every text (`waitingView`), so the page reads the same without JavaScript. With JavaScript the
 * page polls `/_wr/events/{eventId}/status` every `pollAfterMs` (x0.8-1.2 jitter, so a crowd does
 * not poll in lockstep), backs off on errors and on 429/503 `Retry-After`, stops after 30 minutes
 * in a hidden tab and resumes on focus, and reloads the sale URL once admitted. Without
 * JavaScript a `<meta refresh>` reloads it. The cookies carry the place, so reloads and tabs keep
 * it. A language switch (links with `?lang=`) sits at the top; only `lang`'s words are embedded.
 */
export function waitingPage(
  eventId: string,
  status: StatusBody,
  lang: Lang,
  page: PageTemplate,
  texts: WaitingTexts,
  opts: WaitingPageOptions = {},
) {
  const { t } = texts;
  const initial = { ...status, queueTicket: undefined, admissionToken: undefined };
  const v = waitingView(status, t, lang, opts.nowMs ?? Date.now());
  const refreshS = Math.max(2, Math.ceil(status.pollAfterMs / 1000));
  const accent = accentOf(page);
  const steps = [status.policy === 'random' ? t.stepDraw : t.stepOpen, t.stepLine, t.stepTurn];
  // A lottery's later arrival has no entrant id: it is in line first come, first served behind the draw.
  const afterDraw = status.policy === 'random' && status.entrantId === null && status.state !== 'closed';
  const shown = (id: string, text: string, cls = '') =>
    tightHtml`<p id="${id}" data-testid="${id}" ${cls ? raw(` class="${cls}"`) : ''}${text ? '' : raw(' hidden')}>${text}</p>`;
  return tightHtml`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        ${opts.preview ? '' : tightHtml`<noscript><meta http-equiv="refresh" content="${refreshS}" /></noscript>`}
        <title>${status.eventName} - ${t.title}</title>
        <style>
          ${raw(accentStyle(accent, texts.style))}
        </style>
      </head>
      <body>
        ${topBar(lang, page, `${t.lang}: ${LANG_NAMES[lang]}`)}
        <main>
          ${opts.preview ? tightHtml`<p class="banner" data-testid="preview">${t.preview}</p>` : ''}
          <p class="muted" data-testid="event-name">${status.eventName}</p>
          <ol id="steps" aria-label="${t.steps}" ${v.step < 0 ? raw('hidden') : ''}>
            ${steps.map(
              (label, i) =>
                tightHtml`<li class="${i < v.step ? 'done' : i === v.step ? 'now' : ''}" ${i === v.step ? raw('aria-current="step"') : ''}>
                  ${label}
                </li>`,
            )}
          </ol>
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
          <p class="note muted" id="policy" data-testid="policy">${t[afterDraw ? 'afterDraw' : status.policy]}</p>
          ${
            status.commitment
              ? tightHtml`<p class="muted" style="font-size:.8rem;overflow-wrap:anywhere" data-testid="commitment">
                  ${t.commitment} <code>${status.commitment}</code> (<a href="/_wr/events/${eventId}/draw">${t.verify}</a>)
                </p>`
              : ''
          }
          ${
            status.entrantId
              ? tightHtml`<p class="muted" style="font-size:.8rem;overflow-wrap:anywhere" data-testid="entrant">
                  ${t.yourEntrant} <code>${status.entrantId}</code> (<a
                    href="/_wr/events/${eventId}/draw?entrant=${encodeURIComponent(status.entrantId)}"
                    >${t.findRank}</a
                  >)
                </p>`
              : ''
          }
          <p class="muted" id="updated" aria-live="polite"></p>
          ${opts.preview ? '' : tightHtml`<noscript><p class="muted">${t.noScript.replace('{s}', String(refreshS))}</p></noscript>`}
        </main>
        <script type="application/json" id="wr-data">
          ${raw(embed({ eventId, t: Object.fromEntries(SCRIPT_KEYS.map((k) => [k, t[k]])), lang, preview: opts.preview === true, s: initial }))}
        </script>
        ${raw(`<script>${texts.script}</script>`)}
      </body>
    </html>`;
}
