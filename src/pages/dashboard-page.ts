// The organizer dashboard: a static page that reads the admin API with the token the organizer types.
import { LANGS, LANG_NAMES } from '../../contracts/i18n';
import { PREVIEW_PHASES } from './preview';
import { DASHBOARD_SCRIPT } from './dashboard-script';
import { DASHBOARD_ACCESS_SCRIPT, accessPanels } from './dashboard-access';

const chartBox = (id: string, title: string) => `<figure id="${id}" class="chart">
    <h3>${title}</h3><ul class="legend"></ul>
    <div class="plot"><span class="ymax"></span><span class="yzero">0</span><svg role="img" preserveAspectRatio="none"></svg></div>
    <div class="xaxis"><span class="xmin"></span><span>now</span></div>
  </figure>`;

/**
 * The dashboard HTML. It holds no data and no secret: after sign-in it keeps the admin token in
 * sessionStorage (this tab only; "Sign out" forgets it) and calls the admin API with it every 2 s;
 * it opens on the event this browser used last (localStorage, ids only). Every value is written
 * with textContent or as SVG numbers, so nothing from the API is parsed as HTML; the waiting page
 * preview is shown in a sandboxed frame that runs no script.
 */
export function dashboardPage(): string {
  const option = (value: string, label: string) => `<option value="${value}">${label}</option>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Waiting room - organizer</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --line: color-mix(in srgb, CanvasText 15%, transparent); }
  body { margin: 0 auto; max-width: 76rem; padding: .75rem 1rem 3rem; }
  header { display: flex; gap: .6rem 1rem; align-items: center; flex-wrap: wrap; }
  h1 { font-size: 1.3rem; margin: .5rem 1rem .5rem 0; }
  h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
  #bar { display: flex; gap: .6rem; align-items: center; flex: 1 1 18rem; min-width: 0; }
  #event { min-width: 0; width: 100%; flex: 1 1 auto; }
  #signout { margin-left: auto; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(10.5rem, 1fr)); gap: .6rem; margin: 1rem 0; }
  .card { border: 1px solid var(--line); border-radius: .6rem; padding: .6rem .8rem; }
  .card b { display: block; font-size: 1.45rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  .card span { font-size: .85rem; opacity: .8; }
  .card.binds { grid-column: 1 / -1; border-color: #2563eb; background: color-mix(in srgb, #2563eb 7%, transparent); }
  .card.binds small { display: block; font-size: .95rem; opacity: .85; }
  .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 22rem), 1fr)); gap: 1rem; }
  .chart { margin: 0; border: 1px solid var(--line); border-radius: .6rem; padding: .7rem .8rem; }
  .chart h3 { font-size: 1rem; margin: 0 0 .3rem; }
  .legend { display: flex; flex-wrap: wrap; gap: .2rem 1rem; list-style: none; padding: 0; margin: 0 0 .4rem; font-size: .9rem; }
  .legend i { display: inline-block; width: .9rem; height: .25rem; margin-right: .35rem; vertical-align: middle; border-radius: 1px; }
  .legend .target { color: #dc2626; }
  .plot { position: relative; padding-left: 3.6rem; }
  .plot span { position: absolute; left: 0; font-size: .85rem; font-variant-numeric: tabular-nums; opacity: .8; }
  .ymax { top: 0; } .yzero { bottom: 0; }
  svg { display: block; width: 100%; height: 11rem; border-left: 1px solid var(--line); border-bottom: 1px solid var(--line); }
  .xaxis { display: flex; justify-content: space-between; padding-left: 3.6rem; font-size: .85rem; opacity: .8; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; }
  td, th { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  form, .controls { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin: .5rem 0; }
  label { display: grid; font-size: .85rem; gap: .2rem; }
  input, select, button { font: inherit; padding: .35rem .55rem; }
  input[type=number] { width: 7.5rem; }
  .warn { color: #b45309; }
  details#pv, details.panel { margin-top: 1.75rem; }
  details#pv summary, details.panel summary { font-size: 1.15rem; font-weight: 700; cursor: pointer; }
  iframe { display: block; width: 100%; height: 44rem; border: 1px solid var(--line); border-radius: .6rem; background: #fff; }
  iframe.phone { width: 390px; max-width: 100%; height: 844px; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<header>
  <h1>Waiting room - organizer</h1>
  <div id="bar" hidden>
    <select id="event" aria-label="Event"></select>
    <button id="signout" type="button">Sign out</button>
  </div>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<form id="login">
  <label>Admin token or organizer key <input id="token" type="password" autocomplete="current-password" required size="40"></label>
  <button>Sign in</button>
</form>
<main id="main" hidden>
  <section class="grid" aria-label="Live numbers">
    <div class="card binds"><span>What limits admissions now</span><b data-k="binds">…</b><small data-k="bindsWhy"></small></div>
    <div class="card"><span>Waiting</span><b data-k="waiting">…</b></div>
    <div class="card"><span>Released / left per minute (last minute; released whether claimed or not)</span><b data-k="admittedPerMinute">…</b></div>
    <div class="card"><span>Active / limit / max</span><b data-k="active">…</b></div>
    <div class="card"><span>Release rate per minute</span><b data-k="rate">…</b></div>
    <div class="card"><span>Unclaimed places / bound</span><b data-k="unclaimed">…</b></div>
    <div class="card"><span>Origin p99 / errors</span><b data-k="origin">…</b></div>
    <div class="card"><span>Seat-hold p99 / conflicts</span><b data-k="holds">…</b></div>
    <div class="card"><span>No-shows</span><b data-k="noShows">…</b></div>
    <div class="card"><span>Seats held / sold</span><b data-k="seats">…</b></div>
    <div class="card"><span>Needs reconciliation</span><b data-k="reconcile">…</b></div>
    <div class="card"><span>Returns / offers made, taken, lapsed / resold</span><b data-k="resale">…</b></div>
    <div class="card"><span>Mode</span><b data-k="mode">…</b></div>
    <div class="card"><span>Entry</span><b data-k="entry">…</b></div>
  </section>
  <section class="controls" aria-label="Controls">
    <button id="pause">Pause</button>
    <button id="resume">Resume</button>
    <label>Fixed rate per minute <input id="fixed" type="number" min="0" step="1"></label>
    <button id="setFixed">Set fixed rate</button>
    <button id="auto">Back to automatic</button>
  </section>
  <form id="bounds" aria-label="Bounds">
    <label>Policy <select id="policy"><option value="fifo">FIFO</option><option value="random">Lottery</option></select></label>
    <label>Min rate/min <input id="minRate" type="number" min="0" step="1"></label>
    <label>Max rate/min <input id="maxRate" type="number" min="1" step="1"></label>
    <label>Max active visitors <input id="maxActive" type="number" min="1" step="1"></label>
    <label>p99 target ms <input id="target" type="number" min="1" step="1"></label>
    <button>Save</button>
  </form>
  <h2>Last 30 minutes</h2>
  <div class="charts">
  ${chartBox('chartRate', 'Release rate and admissions per minute')}
  ${chartBox('chartP99', 'Origin p99 latency against the target')}
  ${chartBox('chartQueue', 'Queue length and active visitors')}
  </div>
  <h2>Why the rate changed</h2>
  <table><thead><tr><th>Time</th><th>Rate</th><th>Reason</th></tr></thead><tbody id="log"></tbody></table>
  ${accessPanels()}
  <details id="pv">
    <summary>Waiting page preview</summary>
    <form class="controls" id="pvForm">
      <label>Phase <select id="pvPhase">${PREVIEW_PHASES.map((p) => option(p, p.replace('_', ' '))).join('')}</select></label>
      <label>Language <select id="pvLang">${LANGS.map((l) => option(l, LANG_NAMES[l])).join('')}</select></label>
      <label><span><input id="pvPhone" type="checkbox" checked> Phone size (390 px)</span></label>
      <button id="pvShow" type="button">Show</button>
    </form>
    <iframe id="pvFrame" class="phone" title="Waiting page preview" sandbox></iframe>
  </details>
</main>
<script>${DASHBOARD_SCRIPT}</script>
<script>${DASHBOARD_ACCESS_SCRIPT}</script>
</body>
</html>`;
}
