// The organizer console: prepare and run a sale from the browser. Edit or copy an event (a form
// for the common fields beside the raw JSON, checked as you type by the API's dry run, saved with
// PATCH and If-Match), schedule changes on a timeline, read the per-minute history over any range
// and the report. A static page: its one script (console-script.ts) is allowed by its CSP hash.
import { LANGS, LANG_NAMES } from '../../contracts/i18n';
import { editorHtml } from './console-editor';
import { CONSOLE_SCRIPT } from './console-script';
import { PREVIEW_PHASES } from './preview';

/** The preview's controls: the phase and the language the waiting page is shown in. */
function previewControls(): string {
  const phases = PREVIEW_PHASES.map(
    (p) => `<option value="${p}"${p === 'waiting' ? ' selected' : ''}>${p.replace('_', ' ')}</option>`,
  ).join('');
  const langs = LANGS.map((l) => `<option value="${l}">${LANG_NAMES[l]}</option>`).join('');
  return `<p class="actions"><label>Phase <select id="preview-phase">${phases}</select></label> <label>Language <select id="preview-lang">${langs}</select></label></p>`;
}

/** The console page, its script included (the route allows it by its CSP hash). */
export function consolePage(): string {
  const ranges: [number, string][] = [
    [1, '1 minute'],
    [60, '1 hour'],
    [1440, '24 hours'],
    [10080, '7 days'],
    [43200, '30 days'],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Waiting room - console</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --line: color-mix(in srgb, CanvasText 15%, transparent); }
  body { margin: 0 auto; max-width: 76rem; padding: .75rem 1rem 3rem; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  .cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 1rem; }
  textarea { width: 100%; box-sizing: border-box; font: inherit; }
  #config { min-height: 18rem; font: .85rem ui-monospace, monospace; }
  fieldset.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 13rem), 1fr)); gap: .6rem; border: 1px solid var(--line); border-radius: .5rem; margin: 0 0 .8rem; min-width: 0; }
  .field { display: flex; flex-direction: column; gap: .15rem; font-size: .9rem; min-width: 0; }
  .field small { color: color-mix(in srgb, CanvasText 65%, transparent); font-size: .78rem; }
  .err { color: #b91c1c; font-size: .85rem; overflow-wrap: anywhere; } .err:empty { display: none; }
  [aria-invalid="true"] { outline: 2px solid #dc2626; outline-offset: 1px; }
  .conflict { border: 2px solid #d97706; border-radius: .5rem; padding: .5rem .75rem; margin: .5rem 0; }
  .conflict h3 { font-size: 1rem; margin: .2rem 0; } .scroll { overflow-x: auto; }
  .conflict table { border-collapse: collapse; font-size: .85rem; } .conflict td, .conflict th { border: 1px solid var(--line); padding: .2rem .4rem; text-align: left; overflow-wrap: anywhere; } .conflict tr > :first-child { overflow-wrap: normal; }
  button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  iframe { width: 100%; height: 26rem; border: 1px solid var(--line); border-radius: .5rem; }
  input, select, button { font: inherit; max-width: 100%; }
  form.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .5rem; }
  form.grid label { display: flex; flex-direction: column; font-size: .85rem; gap: .15rem; }
  .lane { border-bottom: 1px solid var(--line); padding: .3rem 0; }
  .lane p { margin: .2rem 0; font-size: .9rem; overflow-wrap: anywhere; }
  .span { height: .6rem; border-radius: .3rem; background: #2563eb; }
  .lane.active .span { background: #16a34a; } .lane.ended .span { background: #9ca3af; }
  svg { width: 100%; height: 14rem; box-sizing: border-box; border: 1px solid var(--line); border-radius: .5rem; }
  /* Text colours with at least 4.5:1 against the page (WCAG 2.2 SC 1.4.3); the series' own colours only on swatches. */
  .warn { color: #b91c1c; } .ok { color: #15803d; }
  .legend span { margin-right: 1rem; font-size: .85rem; white-space: nowrap; }
  .legend i { display: inline-block; width: .8em; height: .8em; margin-right: .3em; border-radius: 2px; vertical-align: -.05em; }
  #report { overflow-x: auto; } #report table { border-collapse: collapse; margin: .3rem 0 .8rem; font-size: .9rem; }
  #report td, #report th { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; overflow-wrap: anywhere; }
  @media print { body * { visibility: hidden; } #report-section, #report-section * { visibility: visible; } #report-section { position: absolute; top: 0; left: 0; } #report-section button { display: none; } }
</style>
</head>
<body>
<main>
<h1>Waiting room console</h1>
<p id="status" role="status"></p>
<form id="login"><label>Admin token or organizer key <input id="token" type="password" autocomplete="off"></label> <button>Sign in</button></form>
<div id="main" hidden>
  <label>Event <select id="event"></select></label> <a href="/_wr/admin/">Live dashboard</a>
  <h2 id="event-h">Event</h2>
  <div class="cols">
    ${editorHtml()}
    <section aria-label="Waiting page preview">
      ${previewControls()}
      <iframe id="preview" sandbox title="Waiting page preview"></iframe>
      <p id="preview-msg" class="err" role="status" data-testid="preview-msg"></p>
    </section>
  </div>
  <h2>Scheduled changes</h2>
  <div id="timeline" data-testid="timeline"></div>
  <form id="change" class="grid">
    <label>Id <input name="id" required pattern="[a-z0-9][a-z0-9-]{0,47}"></label>
    <label>Reason <input name="reason" required maxlength="200"></label>
    <label>Starts, <span class="tz">your time</span> (empty = now) <input name="startsAt" type="datetime-local"></label>
    <label>Ends, <span class="tz">your time</span> <input name="endsAt" type="datetime-local" required></label>
    <label>Max rate /min <input name="releaseRatePerMinute" type="number" min="1"></label>
    <label>Min rate /min <input name="minReleaseRatePerMinute" type="number" min="0"></label>
    <label>Max active <input name="maxActiveVisitors" type="number" min="1"></label>
    <label>Admission s <input name="admissionTtlSeconds" type="number" min="30" max="7200"></label>
    <label>Method <select name="method"><option value="">(unchanged)</option><option>queue</option><option>passthrough</option><option>reject</option></select></label>
    <label>Page message <input name="message" maxlength="500"></label>
    <button>Schedule</button>
  </form>
  <p id="change-msg" role="status" data-testid="change-msg"></p>
  <h2>History</h2>
  <label>Range <select id="range">${ranges.map(([m, l]) => `<option value="${m}"${m === 1440 ? ' selected' : ''}>${l}</option>`).join('')}</select></label>
  <span id="history-msg"></span> <span>top: <b id="history-max"></b></span>
  <p class="legend"><span><i style="background:#2563eb"></i>waiting</span><span><i style="background:#16a34a"></i>active</span><span><i style="background:#d97706"></i>admitted/min</span><span><i style="background:#7c3aed"></i>release rate/min</span></p>
  <svg id="history" viewBox="0 0 600 200" preserveAspectRatio="none" data-testid="history" role="img" aria-label="Waiting, active, admitted and release rate over the range"></svg>
  <h3>Refused per minute, by cause</h3>
  <p class="legend"><span id="lg-refusedProofOfWork"><i style="background:#dc2626"></i>proof of work</span><span id="lg-refusedEntryToken"><i style="background:#0891b2"></i>entry token</span><span id="lg-refusedRateLimit"><i style="background:#ca8a04"></i>IP limit</span><span id="lg-refusedOther"><i style="background:#6b7280"></i>other</span> top: <b id="refusals-max"></b></p>
  <svg id="refusals" viewBox="0 0 600 200" preserveAspectRatio="none" data-testid="refusals" role="img" aria-label="Refusals per minute by cause over the range"></svg>
  <p>In the range: <span id="refusals-sum" data-testid="refusals-sum"></span></p>
  <section id="report-section">
    <h2>Report after the sale</h2>
    <button id="report-btn" type="button">Build the report</button> <button id="csv-btn" type="button">Minutes as CSV</button> <button id="print" type="button">Print</button>
    <div id="report" data-testid="report"></div>
  </section>
</div>
</main>
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>`;
}
