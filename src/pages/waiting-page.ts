// The waiting page: phase, steps, place in line, people ahead, estimated wait, policy note; polls with jitter.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import type { StatusBody } from '../lib/status-body';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, topBar } from './page-top';
import type { WaitingTexts } from './page-texts';
import type { Messages } from './waiting-messages';
import { waitingView } from './waiting-view';

/**
 * The page's style, compact (it is sent with every waiting page). Short lines wrap evenly, so no
 * lone character ends up on a line of its own (issue 18: 順 / 位 split over two lines); Japanese
 * breaks between phrases, not inside words.
 */
export const css = (accent: string) => `
:root {color-scheme: light dark; --accent: ${accent}; --line: color-mix(in srgb, CanvasText 14%, transparent); font-family: system-ui, sans-serif; line-height: 1.45;}
body {margin: 0; background: Canvas; color: CanvasText;}
.top {display: flex; justify-content: space-between; align-items: center; gap: 1rem; max-width: 34rem; margin: 0 auto; padding: 0.75rem 1.25rem;}
.top img {max-height: 2.5rem; max-width: 50%;}
details {position: relative; margin-left: auto;}
summary {cursor: pointer; padding: 0.4rem 0.7rem; border: 1px solid var(--line); border-radius: 2rem; font-size: 0.9rem;}
details ul {position: absolute; right: 0; z-index: 1; margin: 0.3rem 0 0; padding: 0.3rem; list-style: none; background: Canvas; border: 1px solid var(--line); border-radius: 0.6rem; min-width: 9rem;}
details a {display: block; padding: 0.45rem 0.7rem; color: inherit; text-decoration: none; border-radius: 0.4rem;}
details a[aria-current] {font-weight: 700; background: color-mix(in srgb, var(--accent) 15%, transparent);}
main {max-width: 34rem; margin: 0 auto; padding: 0.5rem 1.25rem 2.5rem; text-align: center;}
p, h1 {text-wrap: balance; overflow-wrap: anywhere;}
:lang(ja) {word-break: auto-phrase;}
:lang(ko) {word-break: keep-all;}
h1 {font-size: 1.6rem; margin: 0.75rem 0 0.4rem; text-wrap: balance;}
.muted {opacity: 0.78;}
.banner {background: #fef3c7; color: #78350f; border-radius: 0.5rem; padding: 0.5rem;}
ol {display: flex; gap: 0.25rem; padding: 0; margin: 1rem 0 0; list-style: none; font-size: 0.85rem;}
ol li {flex: 1; padding-top: 0.5rem; border-top: 0.3rem solid var(--line); opacity: 0.7;}
ol li.done {border-color: var(--accent);}
ol li.now {border-color: var(--accent); font-weight: 700; opacity: 1;}
.card {border: 1px solid var(--line); border-radius: 1rem; padding: 1rem 1.25rem; margin: 1.25rem 0;}
.card:not(:has(> :not([hidden]))) {display: none;}
.card p {margin: 0.35rem 0;}
.big {font-size: 3.2rem; font-weight: 750; line-height: 1.1; font-variant-numeric: tabular-nums; color: var(--accent);}
.bar {height: 0.5rem; background: var(--line); border-radius: 1rem; overflow: hidden; margin: 0.75rem 0;}
.bar > div {height: 100%; width: 0; background: var(--accent); transition: width 0.6s;}
.note {font-size: 0.9rem; border-top: 1px solid var(--line); padding-top: 1rem;}
[hidden] {display: none !important;}`;

/** The messages the script needs (the rest is rendered once, on the server). */
const SCRIPT_KEYS = [
  ...(['h_', 's_'] as const).flatMap((p) =>
    (['not_open', 'prequeue', 'drawing', 'waiting', 'paused', 'closed', 'sold_out', 'admitted'] as const).map((k) => `${p}${k}` as const),
  ),
  ...(['placeLabel', 'startsIn', 'countdown', 'ahead', 'aheadOne', 'next', 'moved'] as const),
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
  const shown = (id: string, text: string, cls = '') =>
    html`<p id="${id}" data-testid="${id}" ${cls ? raw(` class="${cls}"`) : ''}${text ? '' : raw(' hidden')}>${text}</p>`;
  return html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        ${opts.preview ? '' : html`<noscript><meta http-equiv="refresh" content="${refreshS}" /></noscript>`}
        <title>${status.eventName} - ${t.title}</title>
        <style>
          ${raw(css(accent))}
        </style>
      </head>
      <body>
        ${topBar(lang, page, `${t.lang}: ${LANG_NAMES[lang]}`)}
        <main>
          ${opts.preview ? html`<p class="banner" data-testid="preview">${t.preview}</p>` : ''}
          <p class="muted" data-testid="event-name">${status.eventName}</p>
          <ol id="steps" aria-label="${t.steps}" ${v.step < 0 ? raw('hidden') : ''}>
            ${steps.map(
              (label, i) =>
                html`<li class="${i < v.step ? 'done' : i === v.step ? 'now' : ''}" ${i === v.step ? raw('aria-current="step"') : ''}>
                  ${label}
                </li>`,
            )}
          </ol>
          <h1 id="headline" data-testid="headline">${v.headline}</h1>
          ${shown('sub', v.sub, 'muted')} ${page.message ? html`<p data-testid="message">${page.message}</p>` : ''}
          <section class="card" aria-live="polite">
            ${shown('bigLabel', v.bigLabel, 'muted')} ${shown('big', v.big, 'big')} ${shown('ahead', v.ahead)}
            <div id="bar" class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-label="${t.steps}" hidden>
              <div id="progress"></div>
            </div>
            ${shown('moved', '', 'muted')} ${shown('wait', v.wait)} ${shown('countdown', v.countdown, 'muted')}
          </section>
          <p class="note muted" id="policy" data-testid="policy">${t[status.policy]}</p>
          ${
            status.commitment
              ? html`<p class="muted" style="font-size:.8rem;overflow-wrap:anywhere" data-testid="commitment">
                  ${t.commitment} <code>${status.commitment}</code> (<a href="/_wr/events/${eventId}/draw">${t.verify}</a>)
                </p>`
              : ''
          }
          ${
            status.entrantId
              ? html`<p class="muted" style="font-size:.8rem;overflow-wrap:anywhere" data-testid="entrant">
                  ${t.yourEntrant} <code>${status.entrantId}</code> (<a
                    href="/_wr/events/${eventId}/draw?entrant=${encodeURIComponent(status.entrantId)}"
                    >${t.findRank}</a
                  >)
                </p>`
              : ''
          }
          <p class="muted" id="updated" aria-live="polite"></p>
          ${opts.preview ? '' : html`<noscript><p class="muted">${t.noScript.replace('{s}', String(refreshS))}</p></noscript>`}
        </main>
        <script type="application/json" id="wr-data">
          ${raw(embed({ eventId, t: Object.fromEntries(SCRIPT_KEYS.map((k) => [k, t[k]])), lang, preview: opts.preview === true, s: initial }))}
        </script>
        ${raw(`<script>${texts.script}</script>`)}
      </body>
    </html>`;
}
