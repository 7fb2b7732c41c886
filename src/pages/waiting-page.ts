// The waiting page: place in line, people ahead, estimated wait, policy note; polls with jitter.
import { html, raw } from 'hono/html';
import type { StatusBody } from '../routes/queue';

/** JSON safe to embed inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Renders the waiting page for one event. The page polls `/_wr/events/{eventId}/status` every
 * `pollAfterMs` (x0.8-1.2 jitter, so a crowd does not poll in lockstep) and reloads the sale URL
 * once admitted; the cookies already carry the visitor's place, so reloads and tabs keep it.
 */
export function waitingPage(eventId: string, status: StatusBody) {
  const initial = { ...status, queueTicket: undefined, admissionToken: undefined };
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${status.eventName} - waiting room</title>
        <style>
          :root {
            color-scheme: light dark;
            --accent: #2563eb;
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
          .big {
            font-size: 3.5rem;
            font-weight: 700;
            margin: 1rem 0 0;
            font-variant-numeric: tabular-nums;
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
          <p class="muted" data-testid="event-name">${status.eventName}</p>
          <h1 id="headline">You are in line</h1>
          <p class="muted" id="sub">Keep this page open. It updates by itself.</p>
          <p class="big" id="position" data-testid="position">-</p>
          <p id="ahead" data-testid="ahead"></p>
          <div class="bar" aria-hidden="true"><div id="progress"></div></div>
          <p id="wait" data-testid="wait"></p>
          <p class="note muted" id="policy" data-testid="policy"></p>
          <p class="muted" id="updated" aria-live="polite"></p>
        </main>
        <script>
          (() => {
            const eventId = ${raw(embed(eventId))};
            let s = ${raw(embed(initial))};
            let firstAhead = null;
            const $ = (id) => document.getElementById(id);
            const fmtWait = (sec) => {
              if (sec === null) return 'Estimated wait: unknown while releases are paused';
              if (sec < 60) return 'Estimated wait: less than a minute';
              const lo = Math.max(1, Math.floor((sec / 60) * 0.8)),
                hi = Math.ceil((sec / 60) * 1.25);
              return 'Estimated wait: about ' + lo + (hi > lo ? '-' + hi : '') + ' min';
            };
            const policyNote = {
              fifo: 'First come, first served: your place is set by when you arrived. Reloading or opening more tabs does not change it.',
              random:
                'Fair lottery: everyone who arrives before the sale starts gets a random place at the start; later arrivals join behind them. More tabs do not add chances.',
            };
            const headlines = {
              not_open: 'The sale has not started yet',
              waiting: 'You are in line',
              paused: 'The queue is paused',
              closed: 'The sale is closed',
              sold_out: 'Sold out',
              admitted: 'It is your turn!',
            };
            function render() {
              $('headline').textContent = headlines[s.state] || 'You are in line';
              $('policy').textContent = policyNote[s.policy] || '';
              if (s.position !== null) {
                $('position').textContent = '#' + s.position.toLocaleString();
                $('ahead').textContent =
                  s.ahead === 0 ? 'You are next.' : s.ahead.toLocaleString() + (s.ahead === 1 ? ' person' : ' people') + ' ahead of you';
                if (firstAhead === null) firstAhead = Math.max(s.ahead, 1);
                $('progress').style.width = Math.round(100 * (1 - s.ahead / firstAhead)) + '%';
              } else {
                $('position').textContent = s.state === 'not_open' ? 'Soon' : '-';
                $('ahead').textContent =
                  s.policy === 'random' && s.state === 'not_open' ? 'Places are drawn at random when the sale starts.' : '';
              }
              if (s.state === 'not_open' && s.saleStartsAt)
                $('sub').textContent = 'The sale starts at ' + new Date(s.saleStartsAt).toLocaleString() + '. Keep this page open.';
              else if (s.state === 'paused') $('sub').textContent = 'The organizer paused the queue. Nobody loses their place.';
              else if (s.state === 'closed' || s.state === 'sold_out') $('sub').textContent = 'No more tickets will be released.';
              $('wait').textContent = s.state === 'waiting' || s.state === 'not_open' ? fmtWait(s.estimatedWaitSeconds) : '';
              $('updated').textContent = 'Updated ' + new Date().toLocaleTimeString();
            }
            async function poll() {
              try {
                const r = await fetch('/_wr/events/' + eventId + '/status', {
                  headers: { accept: 'application/json' },
                  credentials: 'same-origin',
                });
                if (r.ok) s = await r.json();
              } catch {}
              render();
              if (s.state === 'admitted') {
                location.reload();
                return;
              }
              if (s.state === 'closed' || s.state === 'sold_out') return;
              const base = s.pollAfterMs || 5000;
              setTimeout(poll, base * (0.8 + Math.random() * 0.4));
            }
            render();
            setTimeout(poll, (s.pollAfterMs || 5000) * (0.8 + Math.random() * 0.4));
          })();
        </script>
      </body>
    </html>`;
}
