// The page a visitor without a valid entry token gets at a room that requires one: where to sign in, never a place.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import { LANG_NAMES, type Lang } from '../../contracts/i18n';
import { accentOf, accentStyle, topBar } from './page-top';
import type { SignInMessages } from './sign-in-messages';

/** Query parameter the sign-in link adds: the room path (and query) to come back to after signing in. */
const RETURN_PARAM = 'wr_return';

/** The entry codes this page explains (src/lib/errors.ts). */
export const SIGN_IN_REASONS = [
  'ENTRY_REQUIRED',
  'ENTRY_TOKEN_EXPIRED',
  'ENTRY_TOKEN_INVALID',
  'ENTRY_TOKEN_OTHER_EVENT',
  'ENTRY_TOKEN_USED',
  'LANE_NOT_CONFIGURED',
] as const;

/** One of SIGN_IN_REASONS. */
export type SignInReason = (typeof SIGN_IN_REASONS)[number];

/**
 * The sign-in link: the organizer's sign-in URL (validated to be on the room's own site) with
 * `wr_return=<room path and query>` added, so the origin knows where to send the visitor back
 * with their entry token. A relative path stays relative (the room's own host).
 */
export function signInHref(signInUrl: string, returnTo: string): string {
  const url = new URL(signInUrl, 'https://room.invalid');
  url.searchParams.set(RETURN_PARAM, returnTo);
  return url.host === 'room.invalid' ? url.pathname + url.search + url.hash : url.toString();
}

/**
 * Renders the sign-in page in `lang`, in the waiting page's style and with the organizer's
 * template (every value escaped): why there is no place (`reason`) and one link to sign in. No
 * script, nothing polls: it hands out nothing.
 */
export function signInPage(opts: {
  eventName: string;
  reason: SignInReason;
  href: string;
  lang: Lang;
  page: PageTemplate;
  /** The page's words in `lang` (`signInWords`). */
  t: SignInMessages;
  /** The pages' shared style (`pageStyle`). */
  style: string;
}) {
  const { t } = opts;
  const accent = accentOf(opts.page);
  return html`<!doctype html>
    <html lang="${opts.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${opts.eventName} - ${t.title}</title>
        <style>
          ${raw(accentStyle(accent, opts.style))} .button {
            display: inline-block;
            margin-top: 0.5rem;
            padding: 0.7rem 1.6rem;
            border-radius: 2rem;
            background: var(--accent);
            color: #fff;
            font-weight: 700;
            text-decoration: none;
          }
        </style>
      </head>
      <body>
        ${topBar(opts.lang, opts.page, LANG_NAMES[opts.lang])}
        <main>
          <p class="muted" data-testid="event-name">${opts.eventName}</p>
          <h1 data-testid="headline">${t.title}</h1>
          <p data-testid="reason">${t[opts.reason]}</p>
          <p class="muted">${t.intro}</p>
          ${opts.page.message ? html`<p data-testid="message">${opts.page.message}</p>` : ''}
          <p><a class="button" data-testid="sign-in" href="${opts.href}">${t.button}</a></p>
          <p class="muted"><code>${opts.reason}</code></p>
        </main>
      </body>
    </html>`;
}
