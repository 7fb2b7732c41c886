// A plain HTML rendering of an error, for browsers navigating the sale area.
import { html } from 'hono/html';
import { ERROR_TABLE, type GatewayError } from '../lib/errors';
import { pageSecurityHeaders } from '../lib/security-headers';

/** Friendly words per status class; the problem's title and detail follow. */
function headline(status: number): string {
  if (status === 503) return 'The ticketing site is busy';
  if (status === 404) return 'Not found';
  if (status === 401 || status === 403) return 'Your session is not valid here';
  return 'Something went wrong';
}

/**
 * The error page for a browser (`Accept: text/html`). Same status, `Retry-After` and code as the
 * JSON problem, so nothing depends on which one a client gets.
 */
export async function problemPage(err: GatewayError): Promise<Response> {
  const { status, title } = ERROR_TABLE[err.code];
  const retry = err.retryAfterS !== undefined ? `Please try again in ${err.retryAfterS} seconds. Your place is kept.` : '';
  const body = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${headline(status)}</title>
        <style>
          :root {
            color-scheme: light dark;
            font-family: system-ui, sans-serif;
          }
          body {
            display: grid;
            place-items: center;
            min-height: 100vh;
            margin: 0;
          }
          main {
            max-width: 32rem;
            padding: 2rem;
            text-align: center;
          }
          code {
            opacity: 0.6;
          }
        </style>
      </head>
      <body>
        <main>
          <h1>${headline(status)}</h1>
          <p>${err.detail ?? title}</p>
          <p>${retry}</p>
          <p><code>${err.code}</code></p>
        </main>
      </body>
    </html>`;
  const headers = new Headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...(await pageSecurityHeaders([])),
  });
  if (err.retryAfterS !== undefined) headers.set('retry-after', String(err.retryAfterS));
  return new Response(String(await body), { status, headers });
}
