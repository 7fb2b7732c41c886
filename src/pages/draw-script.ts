// The draw page's inline script, an asset the Worker reads (src/lib/page-assets.ts): fetches the
// record as JSON and checks it in the browser (draw-check.ts), then says "verified" or the first mismatch.
import { checkDraw } from './draw-check';

/** The script: static (its words are in a JSON block), so the page's CSP allows exactly it by hash. */
export const DRAW_SCRIPT = `
(async () => {
  const out = document.getElementById('verify');
  const { t, lang } = JSON.parse(document.getElementById('wr-draw').textContent);
  const check = ${checkDraw.toString()};
  const say = (text, result) => {
    out.textContent = text;
    out.dataset.result = result;
  };
  say(t.drawVerifying, 'checking');
  try {
    const url = new URL(location.href);
    url.search = '?format=json';
    const r = await check(await (await fetch(url, { headers: { accept: 'application/json' } })).json(), crypto.subtle);
    if (r.kind === 'pending') say('', 'pending');
    else if (r.kind === 'bad_seed') say(t.drawBadSeed, 'mismatch');
    else if (r.kind === 'mismatch')
      say(t.drawMismatch.replace('{rank}', r.rank.toLocaleString(lang)).replace('{listed}', r.listed).replace('{expected}', r.expected), 'mismatch');
    else say(t.drawVerified.replace('{n}', r.entrants.toLocaleString(lang)), 'verified');
  } catch {
    say(t.drawVerifyFailed, 'failed');
  }
})();
`;
