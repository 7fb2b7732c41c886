// The page of the `reject` queueing method: the sale is down for maintenance. Static: no script,
// no place, no cookie; it says when to come back (the same time as its Retry-After).
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import { accentOf, accentStyle } from './page-top';

/**
 * The maintenance page.
 * @param opts.retryAfterS seconds until it is worth coming back (the answer's `Retry-After`)
 * @param opts.nowMs the edge's clock, epoch ms (the page shows the return time in UTC)
 * @param opts.style the pages' shared style (page-texts.ts `pageStyle`)
 */
export function maintenancePage(opts: { eventName: string; page: PageTemplate; retryAfterS: number; nowMs: number; style: string }) {
  const back = new Date(opts.nowMs + opts.retryAfterS * 1000).toISOString().slice(11, 16);
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${opts.eventName} - down for maintenance</title>
        <style>
          ${raw(accentStyle(accentOf(opts.page), opts.style))}
        </style>
      </head>
      <body>
        <main>
          ${opts.page.logoUrl ? html`<img src="${opts.page.logoUrl}" alt="" />` : ''}
          <p class="muted" data-testid="event-name">${opts.eventName}</p>
          <h1 data-testid="headline">Down for maintenance</h1>
          ${opts.page.message ? html`<p data-testid="message">${opts.page.message}</p>` : ''}
          <p data-testid="come-back">Please come back after ${back} UTC. Your place in line, if you had one, is kept.</p>
        </main>
      </body>
    </html>`;
}
