// The parts the default waiting page and an organizer's template page share: the head, the steps,
// the lottery note, and the data block and script that poll and update either page.
import { raw } from 'hono/html';
import type { Lang } from '../../contracts/i18n';
import type { StatusBody } from '../lib/status-body';
import { tightHtml } from './page-top';
import type { WaitingTexts } from './page-texts';
import type { Messages } from './waiting-messages';
import type { Phase, WaitingView } from './waiting-view';
import { WAITLIST_STYLE, waitlistView } from './waitlist-view';

/** Options of `waitingPage` and `templatePage`. */
export interface WaitingPageOptions {
  /** Organizer preview: a banner says so, and the script renders but never polls or reloads. */
  preview?: boolean;
  /** Clock of the first render, epoch ms (default now). */
  nowMs?: number;
}

/** The messages the script needs (the rest is rendered once, on the server). */
const SCRIPT_KEYS = [
  ...(['h_', 's_'] as const).flatMap((p) =>
    (['not_open', 'prequeue', 'drawing', 'waiting', 'paused', 'closed', 'sold_out', 'admitted'] as const).map((k) => `${p}${k}` as const),
  ),
  ...(['placeLabel', 'startsIn', 'countdown', 'ahead', 'aheadOne', 'next', 'moved'] as const),
  ...(['placeRange', 'placeAfter', 'aheadRange', 'aheadMore', 'counting', 'stockLeft', 'stockWarn', 'stockWarnOne'] as const),
  ...(['waitUnknown', 'waitPaused', 'waitUnderMinute', 'waitRange', 'waitAbout', 'updated', 'retrying'] as const),
] satisfies (keyof Messages)[];

/** The waitlist's words the script needs (an offer's time left), only on a page whose status has a waitlist. */
const WAITLIST_KEYS = [
  'wlOpen',
  'wlPlace',
  'wlOffer',
  'wlOfferLeft',
  'wlTakeElse',
  'wlLapsed',
  'wlTaken',
] as const satisfies (keyof Messages)[];

/** JSON safe to embed inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Seconds of the no-JavaScript `<meta refresh>`: the poll interval, at least 2. */
export function refreshSeconds(status: StatusBody): number {
  return Math.max(2, Math.ceil(status.pollAfterMs / 1000));
}

/** The `<head>` of a waiting page: charset, viewport, no indexing, the no-JavaScript refresh (not in a preview), the title and `style`. */
export function waitingHead(status: StatusBody, t: Messages, style: string, preview: boolean) {
  return tightHtml`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    ${preview ? '' : tightHtml`<noscript><meta http-equiv="refresh" content="${refreshSeconds(status)}" /></noscript>`}
    <title>${status.eventName} - ${t.title}</title>
    <style>
      ${raw(style)}
    </style>
  </head>`;
}

/** The steps Sale opens (or Draw) / In line / Your turn, the current one marked (hidden once the sale is over); `marker`: its `data-wr`. */
export function stepsList(status: StatusBody, t: Messages, v: WaitingView, marker?: string) {
  const steps = [status.policy === 'random' ? t.stepDraw : t.stepOpen, t.stepLine, t.stepTurn];
  return tightHtml`<ol id="steps" ${marker ? raw(`data-wr="${marker}" `) : ''}aria-label="${t.steps}" ${v.step < 0 ? raw('hidden') : ''}>
    ${steps.map(
      (label, i) =>
        tightHtml`<li class="${i < v.step ? 'done' : i === v.step ? 'now' : ''}" ${i === v.step ? raw('aria-current="step"') : ''}>
          ${label}
        </li>`,
    )}
  </ol>`;
}

/** The key of the words that say how the line is ordered (a lottery's later arrival is in line first come, first served behind the draw). */
export function policyKey(status: StatusBody): 'fifo' | 'random' | 'afterDraw' {
  const afterDraw = status.policy === 'random' && status.entrantId === null && status.state !== 'closed';
  return afterDraw ? 'afterDraw' : status.policy;
}

/** A lottery's commitment and the visitor's entrant id, each with its link to check the draw ('' for neither); `tag`: the element of each. */
export function drawNotes(eventId: string, status: StatusBody, t: Messages, tag: 'p' | 'span' = 'p') {
  const open = raw(`<${tag} class="muted" style="font-size:.8rem;overflow-wrap:anywhere"`);
  const close = raw(`</${tag}>`);
  return tightHtml`${
    status.commitment
      ? tightHtml`${open} data-testid="commitment">
          ${t.commitment} <code>${status.commitment}</code> (<a href="/_wr/events/${eventId}/draw">${t.verify}</a>)
        ${close}`
      : ''
  }
  ${
    status.entrantId
      ? tightHtml`${open} data-testid="entrant">
          ${t.yourEntrant} <code>${status.entrantId}</code> (<a
            href="/_wr/events/${eventId}/draw?entrant=${encodeURIComponent(status.entrantId)}"
            >${t.findRank}</a
          >)
        ${close}`
      : ''
  }`;
}

/**
 * The waitlist card of a sold-out event with resale (only on a page whose status has a waitlist):
 * the note and the join form (a plain POST to the visitor's join route, which answers with a 303
 * back here, so it works without JavaScript), the visitor's place, and a live offer with its
 * price, the time left (a `timer`, not read out each second) and the link to take it on the origin.
 */
export function waitlistPart(eventId: string, status: StatusBody, phase: Phase, t: Messages, lang: string, nowMs: number) {
  const w = waitlistView(status.waitlist, phase, t, lang, nowMs);
  const p = (id: string, text: string, extra = '') =>
    tightHtml`<p id="${id}" data-testid="${id}"${raw(extra)}${text ? '' : raw(' hidden')}>${text}</p>`;
  return tightHtml`<style>
      ${raw(WAITLIST_STYLE)}
    </style>
    <section class="card" id="wl" aria-live="polite">
    ${p('wlNote', w.note, ' class="muted"')} ${p('wlPlace', w.place)} ${p('wlInfo', w.info)} ${p('wlOffer', w.offer)}
    ${w.left ? tightHtml`<p id="wlLeft" data-testid="wlLeft" role="timer" class="warn">${w.left}</p>` : ''}
    ${w.takeUrl ? tightHtml`<a id="wlTake" data-testid="wlTake" class="act" href="${w.takeUrl}">${t.wlTake}</a>` : ''}
    ${p('wlTakeElse', w.takeElse, ' class="muted"')}
    ${
      w.join
        ? tightHtml`<form id="wlForm" data-testid="wlForm" method="post" action="/_wr/events/${eventId}/waitlist">
          <label for="wlQty">${t.wlSeats}</label
          ><input id="wlQty" name="quantity" type="number" min="1" max="6" value="1" inputmode="numeric" required /><button
            class="act"
            type="submit"
          >
            ${t.wlJoin}
          </button>
        </form>`
        : ''
    }
  </section>`;
}

/**
 * The page's data (the status without its tokens, the script's words, the language) as a JSON
 * block, and the script that reads it, polls and updates the elements by their ids: the same
 * for the default page and a template page, so a CSP hash allows it on both.
 */
export function dataAndScript(eventId: string, status: StatusBody, lang: Lang, texts: WaitingTexts, preview: boolean) {
  const initial = { ...status, queueTicket: undefined, admissionToken: undefined };
  const t = texts.t;
  const keys: (keyof Messages)[] = status.waitlist ? [...SCRIPT_KEYS, ...WAITLIST_KEYS] : SCRIPT_KEYS;
  return tightHtml`<script type="application/json" id="wr-data">
    ${raw(embed({ eventId, t: Object.fromEntries(keys.map((k) => [k, t[k]])), lang, preview, s: initial }))}
  </script>
  ${raw(`<script>${texts.script}</script>`)}`;
}
