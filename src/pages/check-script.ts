// The check page's inline script, an asset the Worker reads (src/lib/page-assets.ts), not part of its bundle.
import { PROOF_HEADER } from '../../contracts/names';
import { solvePow } from './pow-solver';

/**
 * The page's script: static (its data is in a JSON block), so a CSP hash allows exactly it. It
 * solves the embedded challenge with `solvePow`'s own source, posts the solution to
 * `/_wr/events/{id}/join` (which sets the queue-ticket cookie) and reloads the room URL, which then
 * shows the waiting page. A challenge that expired, was used or became too easy meanwhile is
 * replaced by a fresh one (at most 4 rounds); 429/503/network failures are retried with the same
 * solution after `Retry-After` or a backoff. Back on this page within a minute of a successful
 * join means the browser dropped the cookie: it says so instead of solving forever.
 */
export const CHECK_SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('wr-data').textContent);
  const { eventId, t } = data;
  const solve = ${solvePow.toString()};
  const $ = (id) => document.getElementById(id);
  const say = (text) => ($('status').textContent = text);
  const fill = (k, vals) => Object.entries(vals).reduce((a, [n, v]) => a.replace('{' + n + '}', v), t[k]);
  const mark = 'wr_pow_joined_' + eventId;
  $('bar').hidden = false;
  try {
    const at = Number(sessionStorage.getItem(mark));
    sessionStorage.removeItem(mark);
    if (at && Date.now() - at < 60_000) {
      $('bar').hidden = true;
      say(t.cookies);
      return;
    }
  } catch {}
  const fresh = async () => {
    const r = await fetch('/_wr/events/' + eventId + '/challenge', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!r.ok) throw new Error('challenge ' + r.status);
    return r.json();
  };
  const progress = (pct) => {
    $('progress').style.width = pct + '%';
    $('bar').setAttribute('aria-valuenow', String(pct));
  };
  async function run() {
    let challenge = data.challenge;
    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        say(t.again);
        challenge = await fresh();
      }
      const max = 2 ** challenge.parameters.data.bits;
      const started = performance.now();
      const solution = await solve(challenge.parameters, max, (n) => {
        const pct = Math.min(99, Math.floor((100 * n) / max));
        progress(pct);
        say(fill('working', { p: pct }));
      });
      if (!solution) continue;
      solution.time = Math.round(performance.now() - started);
      progress(100);
      say(t.joining);
      const payload = btoa(JSON.stringify({ challenge, solution }));
      for (let attempt = 0; attempt < 5; attempt++) {
        let r = null;
        try {
          r = await fetch('/_wr/events/' + eventId + '/join', {
            method: 'POST',
            headers: { accept: 'application/json', '${PROOF_HEADER}': payload },
            credentials: 'same-origin',
          });
        } catch {}
        if (r && r.ok) {
          try {
            sessionStorage.setItem(mark, String(Date.now()));
          } catch {}
          location.reload();
          return;
        }
        const code = r ? ((await r.json().catch(() => ({}))).code || '') : '';
        if (/^PROOF_OF_WORK_(EXPIRED|USED|TOO_EASY|OTHER_EVENT|INVALID)$/.test(code)) break;
        if (r && r.status < 500 && r.status !== 429) {
          say(t.failed);
          return;
        }
        const wait = Number(r && r.headers.get('retry-after')) * 1000 || Math.min(30_000, 2000 * 2 ** attempt);
        say(fill('retrying', { s: Math.round(wait / 1000) }));
        await new Promise((done) => setTimeout(done, wait));
      }
    }
    say(t.failed);
  }
  run().catch(() => say(t.failed));
})();
`;
