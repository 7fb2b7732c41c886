// The parts the default waiting page and an organizer's template page share: the head, the steps,
// the lottery note, and the data block and script that poll and update either page.
import { raw } from 'hono/html';
import type { Lang } from '../../contracts/i18n';
import type { StatusBody } from '../lib/status-body';
import { tightHtml } from './page-top';
import type { WaitingTexts } from './page-texts';
import type { Messages } from './waiting-messages';
import type { WaitingView } from './waiting-view';

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
 * The page's data (the status without its tokens, the script's words, the language) as a JSON
 * block, and the script that reads it, polls and updates the elements by their ids: the same
 * for the default page and a template page, so a CSP hash allows it on both.
 */
export function dataAndScript(eventId: string, status: StatusBody, lang: Lang, texts: WaitingTexts, preview: boolean) {
  const initial = { ...status, queueTicket: undefined, admissionToken: undefined };
  const t = texts.t;
  return tightHtml`<script type="application/json" id="wr-data">
    ${raw(embed({ eventId, t: Object.fromEntries(SCRIPT_KEYS.map((k) => [k, t[k]])), lang, preview, s: initial }))}
  </script>
  ${raw(`<script>${texts.script}</script>`)}`;
}
