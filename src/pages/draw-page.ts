// The lottery's public record as a page people can read; the same record stays available as JSON.
import { html } from 'hono/html';
import type { DrawRecord } from '../../contracts/queue/queue-policy';
import { LANGS, LANG_NAMES, type Lang } from '../../contracts/i18n';
import type { Messages } from './waiting-messages';
import { prefersHtml } from '../lib/negotiate';

/** What an entrant id `?entrant=` may look like: letters, digits and `-`, at most 64 characters (visitor ids are UUIDs, account ids `acct-` + 32 hex digits). */
export const ENTRANT_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/**
 * An entrant's rank in a drawn record, 1-based over all entrants; 0 when the draw does not list
 * them; null before the draw.
 */
export function entrantRank(record: DrawRecord, entrant: string): number | null {
  if (!record.drawn || !record.entrants) return null;
  return record.entrants.indexOf(entrant) + 1;
}

/** Entrants listed on the page; the JSON has all of them. */
export const DRAW_PAGE_ENTRANTS = 100;

/**
 * True when a request for the draw record wants the HTML view: `?format=html`, or a browser's
 * `Accept` (text/html preferred to JSON by q-value, then order) without `?format=json`. Scripts (`curl`, `fetch`,
 * scripts/verify-draw.ts) send no such Accept and keep getting JSON.
 */
export function wantsDrawPage(accept: string | undefined, format: string | undefined): boolean {
  if (format === 'json') return false;
  if (format === 'html') return true;
  return prefersHtml(accept);
}

/**
 * The draw record as HTML, in `lang`: what the commitment and the seed are, the rule that orders
 * the entrants, the first DRAW_PAGE_ENTRANTS of the order, how to check it, and a link to the
 * JSON (`?format=json`); with `entrant` (the visitor's own id, from their status: `?entrant=`),
 * that entrant's rank among all of them (not only those listed). Every value is escaped. No script.
 */
export function drawPage(eventId: string, record: DrawRecord, lang: Lang, t: Messages, entrant: string | null) {
  const entrants = record.entrants ?? [];
  const shown = entrants.slice(0, DRAW_PAGE_ENTRANTS);
  const rank = entrant === null ? null : entrantRank(record, entrant);
  return html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${t.drawTitle} - ${eventId}</title>
        <style>
          :root {
            color-scheme: light dark;
            font-family: system-ui, sans-serif;
            line-height: 1.5;
          }
          body {
            margin: 0 auto;
            max-width: 44rem;
            padding: 1rem 1.25rem 3rem;
          }
          nav {
            display: flex;
            flex-wrap: wrap;
            gap: 0.4rem 0.9rem;
            font-size: 0.9rem;
          }
          h1 {
            font-size: 1.6rem;
          }
          code {
            overflow-wrap: anywhere;
            font-size: 0.9rem;
          }
          dt {
            font-weight: 650;
            margin-top: 1rem;
          }
          dd {
            margin: 0.25rem 0 0;
          }
          ol {
            font-family: ui-monospace, monospace;
            font-size: 0.85rem;
            padding-left: 3rem;
          }
          li {
            overflow-wrap: anywhere;
          }
        </style>
      </head>
      <body>
        <nav aria-label="${t.lang}">${LANGS.map((l) => html`<a href="?lang=${l}" hreflang="${l}" lang="${l}">${LANG_NAMES[l]}</a>`)}</nav>
        <main>
          <h1>${t.drawTitle}</h1>
          <p>${record.drawn ? t.drawDone.replace('{n}', entrants.length.toLocaleString(lang)) : t.drawPending}</p>
          <dl>
            <dt>${t.drawCommitment}</dt>
            <dd><code data-testid="commitment">${record.commitment}</code></dd>
            ${
              record.seed
                ? html`<dt>${t.drawSeed}</dt>
                    <dd><code data-testid="seed">${record.seed}</code></dd>`
                : ''
            }
          </dl>
          <p>${t.drawRule}</p>
          ${
            rank === null || !record.drawn || entrant === null
              ? ''
              : html`<p data-testid="entrant-rank">
                  <strong
                    >${
                      rank === 0
                        ? t.drawNotIn.replace('{id}', entrant)
                        : t.drawRank
                            .replace('{id}', entrant)
                            .replace('{rank}', rank.toLocaleString(lang))
                            .replace('{total}', entrants.length.toLocaleString(lang))
                    }</strong
                  >
                </p>`
          }
          ${
            record.drawn
              ? html`<h2>
                    ${t.drawOrder.replace('{n}', shown.length.toLocaleString(lang)).replace('{total}', entrants.length.toLocaleString(lang))}
                  </h2>
                  <ol data-testid="entrants">
                    ${shown.map((id) => html`<li>${id}</li>`)}
                  </ol>`
              : ''
          }
          <p>${t.drawCheck}</p>
          <p><a href="?format=json" data-testid="json-link">${t.drawJson}</a></p>
        </main>
      </body>
    </html>`;
}
