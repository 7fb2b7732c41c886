// The waiting page's inline script, an asset the Worker reads (src/lib/page-assets.ts), not part of its bundle.
import { waitingView } from './waiting-view';

/**
 * The page's script: static (its data is in a JSON block), so a CSP hash can allow exactly it. It
 * renders with `waitingView`'s own source, so the first (server) render and each poll agree. It
 * finds the elements by id, on the default page and on an organizer's template page alike; an
 * element a template leaves out gets a detached stand-in, which takes its updates unseen.
 */
export const WAITING_SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('wr-data').textContent);
  const { eventId, t, lang, preview } = data;
  const view = ${waitingView.toString()};
  let s = data.s;
  let failures = 0,
    hiddenSince = null,
    timer = null;
  const $ = (id) => document.getElementById(id) || document.createElement('p');
  const show = (id, text) => {
    const e = $(id);
    e.textContent = text;
    e.hidden = !text;
  };
  const fill = (k, vals) => Object.entries(vals).reduce((a, [n, v]) => a.replace('{' + n + '}', v), t[k]);
  // The most people ever ahead of this browser's place (kept across reloads): the bar's start.
  const firstKey = 'wr_first_' + eventId;
  const remember = (ahead) => {
    try {
      const first = Number(localStorage.getItem(firstKey)) || 0;
      if (ahead > first) localStorage.setItem(firstKey, String(ahead));
      return Math.max(first, ahead);
    } catch {
      return ahead;
    }
  };
  function render() {
    const v = view(s, t, lang, Date.now());
    $('headline').textContent = v.headline;
    show('sub', v.sub);
    show('bigLabel', v.bigLabel);
    show('big', v.big);
    show('ahead', v.ahead);
    show('wait', v.wait);
    show('countdown', v.countdown);
    show('stock', v.stock);
    show('stockWarn', v.stockWarn);
    // The waitlist is rendered on the server (src/pages/waitlist-view.ts): here only an offer's time left.
    const o = s.waitlist && s.waitlist.offer;
    const l = o && Math.max(0, Math.round((Date.parse(o.expiresAt) - Date.now()) / 1000));
    if (o) show('wlLeft', fill('wlOfferLeft', { t: ((l / 60) | 0) + ':' + String(l % 60).padStart(2, '0') }));
    $('steps').hidden = v.step < 0;
    document.querySelectorAll('#steps li').forEach((li, i) => {
      li.className = i < v.step ? 'done' : i === v.step ? 'now' : '';
      if (i === v.step) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    });
    const inLine = (v.phase === 'waiting' || v.phase === 'paused') && s.ahead !== null;
    const first = inLine ? remember(s.ahead) : 0;
    const moved = first - (s.ahead || 0);
    $('bar').hidden = !(inLine && moved > 0);
    if (moved > 0) {
      const pct = Math.round((100 * moved) / first);
      $('progress').style.width = pct + '%';
      $('bar').setAttribute('aria-valuenow', String(pct));
    }
    show('moved', inLine && moved > 0 ? fill('moved', { n: moved.toLocaleString(lang) }) : '');
    if (!preview) $('updated').textContent = fill('updated', { t: new Date().toLocaleTimeString(lang) });
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
        const next = await r.json();
        // An answer read from an older cursor (another edge isolate's cache) would show an older,
        // higher place: only a newer or equal one replaces what is shown (an admission always does).
        if (next.state === 'admitted' || !s.asOf || !next.asOf || next.asOf >= s.asOf) {
          // A changed waitlist (a place, an offer, its end) is rendered by the server: reload.
          if (JSON.stringify(next.waitlist) != JSON.stringify(s.waitlist)) return location.reload();
          s = next;
        }
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
    if (preview) return;
    if (document.hidden) hiddenSince = Date.now();
    else {
      hiddenSince = null;
      schedule(200);
    }
  });
  render();
  setInterval(() => {
    // The sale's countdown, and an offer's time left.
    if (s.state === 'not_open' || (s.waitlist && s.waitlist.offer)) render();
  }, 1000);
  if (!preview) schedule(s.pollAfterMs || 5000);
})();
`;
