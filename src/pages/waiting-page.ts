// The waiting page: place in line, people ahead, estimated wait, policy note; polls with jitter.
import { html, raw } from 'hono/html';
import type { PageTemplate } from '../../contracts/event-config';
import type { StatusBody } from '../lib/status-body';
import { MESSAGES, type Lang } from './waiting-messages';

/** The page's script: static (its data is in a JSON block), so a CSP hash can allow exactly it. */
export const WAITING_SCRIPT = `
(() => {
  // Data comes from a JSON block, so this script is the same on every page and CSP can pin its hash.
  const data = JSON.parse(document.getElementById('wr-data').textContent);
  const { eventId, t, lang } = data;
  let s = data.s;
  let firstAhead = null,
    failures = 0,
    hiddenSince = null,
    timer = null;
  const $ = (id) => document.getElementById(id);
  const fill = (k, vals) => Object.entries(vals).reduce((a, [n, v]) => a.replace('{' + n + '}', v), t[k]);
  const fmtWait = (sec) => {
    if (sec === null) return t.waitUnknown;
    if (sec < 60) return t.waitUnderMinute;
    // A range, never a promise: the rate moves with the site's health.
    const lo = Math.max(1, Math.floor((sec / 60) * 0.8)),
      hi = Math.ceil((sec / 60) * 1.25);
    return hi > lo ? fill('waitRange', { lo, hi }) : fill('waitAbout', { lo });
  };
  const fmtCountdown = (ms) => {
    const total = Math.max(0, Math.round(ms / 1000)),
      h = Math.floor(total / 3600),
      m = Math.floor(total / 60) % 60,
      sec = total % 60;
    return (h ? h + ':' + String(m).padStart(2, '0') : m) + ':' + String(sec).padStart(2, '0');
  };
  function render() {
    $('headline').textContent = t[s.state] || t.waiting;
    if (s.position !== null) {
      $('position').textContent = '#' + s.position.toLocaleString(lang);
      $('ahead').textContent =
        s.ahead === 0 ? t.next : s.ahead === 1 ? t.aheadOne : fill('ahead', { n: s.ahead.toLocaleString(lang) });
      if (firstAhead === null) firstAhead = Math.max(s.ahead, 1);
      $('progress').style.width = Math.round(100 * (1 - s.ahead / firstAhead)) + '%';
    } else {
      $('position').textContent = s.state === 'not_open' ? t.soon : '-';
      $('ahead').textContent = s.policy === 'random' && s.state === 'not_open' ? t.drawnAtStart : '';
    }
    const sub = { paused: t.pausedSub, closed: t.endedSub, sold_out: t.soldOutSub }[s.state];
    if (s.state === 'not_open' && s.saleStartsAt) {
      const start = new Date(s.saleStartsAt);
      $('sub').textContent =
        fill('saleStarts', { t: start.toLocaleString(lang) }) + ' ' + fill('countdown', { t: fmtCountdown(start - Date.now()) });
    } else $('sub').textContent = sub || t.keepOpen;
    $('wait').textContent = s.state === 'waiting' || s.state === 'not_open' ? fmtWait(s.estimatedWaitSeconds) : '';
    $('updated').textContent = fill('updated', { t: new Date().toLocaleTimeString(lang) });
  }
  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms * (0.8 + Math.random() * 0.4));
  }
  async function poll() {
    // Long hidden: stop (the place is kept for the idle timeout); focus resumes at once.
    if (document.hidden && hiddenSince !== null && Date.now() - hiddenSince > 30 * 60_000) return;
    let wait = s.pollAfterMs || 5000;
    try {
      const r = await fetch('/_wr/events/' + eventId + '/status', {
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      if (r.ok) {
        s = await r.json();
        failures = 0;
      } else {
        failures++;
        const after = Number(r.headers.get('retry-after'));
        wait = after > 0 ? after * 1000 : Math.min(60_000, 2000 * 2 ** failures);
        $('updated').textContent = fill('retrying', { s: Math.round(wait / 1000) });
      }
    } catch {
      failures++;
      wait = Math.min(60_000, 2000 * 2 ** failures);
      $('updated').textContent = fill('retrying', { s: Math.round(wait / 1000) });
    }
    if (failures === 0) render();
    if (s.state === 'admitted') {
      location.reload();
      return;
    }
    if (s.state === 'closed') return;
    schedule(wait);
  }
  document.addEventListener('visibilitychange', () => {
    if (document.hidden) hiddenSince = Date.now();
    else {
      hiddenSince = null;
      schedule(200);
    }
  });
  render();
  if (s.state === 'not_open')
    setInterval(() => {
      if (s.state === 'not_open') render();
    }, 1000);
  schedule(s.pollAfterMs || 5000);
})();
`;

/** JSON safe to embed inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Renders the waiting page for one event, in `lang`, with the organizer's template (every value
 * escaped; the logo only from an HTTPS URL, as validated in the event config). With JavaScript the
 * page polls `/_wr/events/{eventId}/status` every `pollAfterMs` (x0.8-1.2 jitter, so a crowd does
 * not poll in lockstep), backs off on errors and on 429/503 `Retry-After`, stops after 30 minutes
 * in a hidden tab and resumes on focus, and reloads the sale URL once admitted. Without
 * JavaScript a `<meta refresh>` reloads it. The cookies carry the place, so reloads and tabs keep it.
 */
export function waitingPage(eventId: string, status: StatusBody, lang: Lang, page: PageTemplate) {
  const t = MESSAGES[lang];
  const initial = { ...status, queueTicket: undefined, admissionToken: undefined };
  const refreshS = Math.max(2, Math.ceil(status.pollAfterMs / 1000));
  const accent = page.accentColor ?? '#2563eb';
  return html`<!doctype html>
    <html lang="${lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <noscript><meta http-equiv="refresh" content="${refreshS}" /></noscript>
        <title>${status.eventName} - ${t.title}</title>
        <style>
          :root {
            color-scheme: light dark;
            --accent: ${accent};
            font-family: system-ui, sans-serif;
          }
          body {
            margin: 0;
            min-height: 100vh;
            display: grid;
            place-items: center;
            background: Canvas;
            color: CanvasText;
          }
          main {
            max-width: 32rem;
            padding: 2rem 1.5rem;
            text-align: center;
          }
          h1 {
            font-size: 1.5rem;
            margin: 0 0 0.5rem;
          }
          img {
            max-height: 4rem;
            max-width: 100%;
          }
          .big {
            font-size: 3.5rem;
            font-weight: 700;
            margin: 1rem 0 0;
            font-variant-numeric: tabular-nums;
            color: var(--accent);
          }
          .muted {
            opacity: 0.75;
          }
          .bar {
            height: 0.5rem;
            background: color-mix(in srgb, CanvasText 12%, transparent);
            border-radius: 1rem;
            overflow: hidden;
            margin: 1.5rem 0;
          }
          .bar > div {
            height: 100%;
            width: 0;
            background: var(--accent);
            transition: width 0.6s;
          }
          .note {
            font-size: 0.9rem;
            border-top: 1px solid color-mix(in srgb, CanvasText 15%, transparent);
            margin-top: 2rem;
            padding-top: 1rem;
          }
        </style>
      </head>
      <body>
        <main>
          ${page.logoUrl ? html`<img src="${page.logoUrl}" alt="" />` : ''}
          <p class="muted" data-testid="event-name">${status.eventName}</p>
          <h1 id="headline">${t[status.state] ?? t.waiting}</h1>
          <p class="muted" id="sub">${t.keepOpen}</p>
          ${page.message ? html`<p data-testid="message">${page.message}</p>` : ''}
          <p class="big" id="position" data-testid="position" aria-live="polite">
            ${status.position === null ? '-' : `#${status.position.toLocaleString('en-US')}`}
          </p>
          <p id="ahead" data-testid="ahead"></p>
          <div class="bar" aria-hidden="true"><div id="progress"></div></div>
          <p id="wait" data-testid="wait"></p>
          <p class="note muted" id="policy" data-testid="policy">${t[status.policy]}</p>
          ${
            status.commitment
              ? html`<p class="muted" style="font-size:.8rem;overflow-wrap:anywhere" data-testid="commitment">
                  ${t.commitment} <code>${status.commitment}</code> (<a href="/_wr/events/${eventId}/draw">${t.verify}</a>)
                </p>`
              : ''
          }
          <p class="muted" id="updated" aria-live="polite"></p>
          <noscript><p class="muted">${t.noScript.replace('{s}', String(refreshS))}</p></noscript>
        </main>
        <script type="application/json" id="wr-data">
          ${raw(embed({ eventId, t, lang, s: initial }))}
        </script>
        ${raw(`<script>${WAITING_SCRIPT}</script>`)}
      </body>
    </html>`;
}
