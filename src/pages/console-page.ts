// The organizer console: prepare and run a sale from the browser. Edit or copy an event (saved
// through the organizer API's PUT, its own messages shown beside the field they name), schedule
// changes on a timeline, and read the per-minute history over any range. A static page: its
// script reads the admin API with the token the organizer types, as the dashboard does.

/** The console's script: static, so a CSP hash can allow exactly it. */
export const CONSOLE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem('wr_admin_token') || '';
  let eventId = new URLSearchParams(location.search).get('event') || localStorage.getItem('wr_last_event') || '';
  let loaded = null, checkTimer = 0;
  const say = (t, warn) => { $('status').textContent = t; $('status').className = warn ? 'warn' : ''; };
  async function api(method, path, body) {
    const r = await fetch('/_wr/admin' + path, { method, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    if (r.status === 401) { sessionStorage.removeItem('wr_admin_token'); token = ''; show(false); }
    const ct = r.headers.get('content-type') || '';
    return { ok: r.ok, status: r.status, data: ct.includes('json') ? await r.json().catch(() => ({})) : await r.text() };
  }
  const problem = (d) => [d.detail, ...(d.errors || []).map((e) => (e.path ? e.path + ': ' : '') + e.message)].filter(Boolean).join('; ') || d.title || 'refused';
  function show(signedIn) { $('login').hidden = signedIn; $('main').hidden = !signedIn; }

  // Events: the list, then the chosen one's configuration in the editor.
  async function loadEvents() {
    const r = await api('GET', '/events');
    if (!r.ok) return;
    const ids = (r.data.events || []).map((e) => e.eventId || e.id || e);
    $('event').replaceChildren(...ids.map((id) => { const o = document.createElement('option'); o.value = o.textContent = id; return o; }));
    if (ids.includes(eventId)) $('event').value = eventId; else eventId = ids[0] || '';
    if (eventId) await loadEvent();
  }
  async function loadEvent() {
    localStorage.setItem('wr_last_event', eventId);
    const r = await api('GET', '/events/' + eventId);
    if (!r.ok) { say(problem(r.data), true); return; }
    loaded = r.data.config;
    $('id').value = eventId;
    $('config').value = JSON.stringify(loaded, null, 2);
    checkConfig();
    await Promise.all([loadSchedule(), loadHistory(), preview()]);
  }

  // The editor: checked as the organizer types. Local JSON errors at once; the API's own schema
  // messages from a save, shown against the field (path) they name.
  function parsed() { try { return { ok: true, value: JSON.parse($('config').value) }; } catch (e) { return { ok: false, message: e.message }; } }
  function checkConfig() {
    clearTimeout(checkTimer);
    const p = parsed();
    $('config-msg').textContent = p.ok ? '' : 'Not JSON yet: ' + p.message;
    $('save').disabled = !p.ok || !/^[a-z0-9][a-z0-9-]{0,63}$/.test($('id').value);
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test($('id').value)) $('config-msg').textContent = 'Event id: lower-case letters, digits and dashes, at most 64';
  }
  async function save() {
    // A check still waiting to run would clear the API's answer: run it now instead.
    checkConfig();
    const p = parsed(); if (!p.ok || $('save').disabled) return;
    const id = $('id').value;
    const r = await api('PUT', '/events/' + id, p.value);
    // The saved event is reloaded first (its editor reset), then the answer is said.
    if (r.ok) { eventId = id; await loadEvents(); }
    $('config-msg').textContent = r.ok ? (r.status === 201 ? 'Created ' : 'Saved ') + id : problem(r.data);
    $('config-msg').className = r.ok ? 'ok' : 'warn';
  }
  // A copy keeps every setting but the URLs: another event may not cover the same patterns, and
  // without any the copy gets its own default (/events/{id}/*).
  function copy() {
    const p = parsed();
    if (p.ok) { delete p.value.patterns; $('config').value = JSON.stringify(p.value, null, 2); }
    $('id').value = eventId + '-copy'; checkConfig();
    $('config-msg').textContent = 'Copy: pick its id, change what differs, then save';
  }
  async function preview() {
    const r = await api('GET', '/events/' + eventId + '/preview?phase=waiting');
    $('preview').srcdoc = typeof r.data === 'string' ? r.data : '';
  }

  // Scheduled changes: the timeline and the form.
  const SETTINGS = ['releaseRatePerMinute', 'minReleaseRatePerMinute', 'maxActiveVisitors', 'admissionTtlSeconds', 'method'];
  const label = (c) => [c.releaseRatePerMinute && 'max ' + c.releaseRatePerMinute + '/min', c.minReleaseRatePerMinute !== undefined && 'min ' + c.minReleaseRatePerMinute + '/min',
    c.maxActiveVisitors && 'max active ' + c.maxActiveVisitors, c.admissionTtlSeconds && 'admission ' + c.admissionTtlSeconds + ' s', c.method && c.method, c.page && 'page'].filter(Boolean).join(', ');
  async function loadSchedule() {
    const r = await api('GET', '/events/' + eventId + '/schedule');
    const list = r.ok ? r.data.schedule : [];
    const tl = $('timeline'); tl.replaceChildren();
    if (list.length === 0) { tl.textContent = 'No scheduled changes.'; return; }
    const t = (s) => Date.parse(s), lo = Math.min(...list.map((c) => t(c.startsAt))), hi = Math.max(...list.map((c) => t(c.endsAt)));
    const span = Math.max(1, hi - lo);
    for (const c of list) {
      const row = document.createElement('div'); row.className = 'lane ' + c.state;
      const bar = document.createElement('div'); bar.className = 'span';
      bar.style.marginLeft = ((t(c.startsAt) - lo) / span * 100) + '%';
      bar.style.width = Math.max(2, (t(c.endsAt) - t(c.startsAt)) / span * 100) + '%';
      bar.title = c.reason;
      const text = document.createElement('p');
      text.textContent = c.id + ' (' + c.state + '): ' + c.reason + ' - ' + label(c) + ' - ' + new Date(c.startsAt).toLocaleString() + ' to ' + new Date(c.endsAt).toLocaleString();
      row.append(text, bar);
      if (c.state !== 'ended') {
        const b = document.createElement('button'); b.textContent = c.state === 'active' ? 'End now' : 'Cancel';
        b.onclick = async () => { const x = await api('DELETE', '/events/' + eventId + '/schedule/' + c.id); say(x.ok ? 'Cancelled ' + c.id : problem(x.data), !x.ok); loadSchedule(); };
        text.append(' ', b);
      }
      tl.append(row);
    }
  }
  async function addChange(e) {
    e.preventDefault();
    const f = new FormData($('change'));
    const body = { reason: f.get('reason') };
    if (f.get('startsAt')) body.startsAt = new Date(f.get('startsAt')).toISOString();
    if (f.get('endsAt')) body.endsAt = new Date(f.get('endsAt')).toISOString();
    for (const k of SETTINGS) { const v = f.get(k); if (v) body[k] = k === 'method' ? v : Number(v); }
    if (f.get('message')) body.page = { message: f.get('message') };
    const r = await api('PUT', '/events/' + eventId + '/schedule/' + f.get('id'), body);
    $('change-msg').textContent = r.ok ? 'Scheduled ' + f.get('id') : problem(r.data);
    $('change-msg').className = r.ok ? 'ok' : 'warn';
    if (r.ok) loadSchedule();
  }

  // History: one chart over the chosen range (1 minute to 30 days), the API's own steps.
  async function loadHistory() {
    // The 30-day choice asks a minute less: the server counts its 30 days from its own, later, clock.
    const minutes = Math.min(Number($('range').value), 43199), to = new Date(), from = new Date(to - minutes * 60000);
    const r = await api('GET', '/events/' + eventId + '/history?from=' + from.toISOString() + '&to=' + to.toISOString());
    const svg = $('history'), ns = 'http://www.w3.org/2000/svg', w = 600, h = 200;
    svg.replaceChildren();
    if (!r.ok) { $('history-msg').textContent = problem(r.data); return; }
    const pts = r.data.points;
    $('history-msg').textContent = pts.length + ' points, one per ' + (r.data.stepSeconds / 60) + ' min';
    const series = [['waiting', '#2563eb'], ['active', '#16a34a'], ['admitted', '#d97706'], ['releaseRatePerMinute', '#7c3aed']];
    const max = Math.max(1, ...pts.flatMap((p) => series.map(([k]) => p[k] || 0))) * 1.1;
    const x = (at) => (Date.parse(at) - from) / (to - from) * w, y = (v) => h - v / max * h;
    for (const [k, color] of series) {
      const l = document.createElementNS(ns, 'polyline');
      l.setAttribute('points', pts.map((p) => x(p.at) + ',' + y(p[k] || 0)).join(' '));
      l.setAttribute('fill', 'none'); l.setAttribute('stroke', color); l.setAttribute('stroke-width', '2'); l.setAttribute('vector-effect', 'non-scaling-stroke');
      svg.append(l);
    }
    $('history-max').textContent = Math.round(max).toLocaleString();
  }

  // The report after the sale: the API's JSON as tables, printable; the minutes as CSV.
  function table(head, rows) {
    const t = document.createElement('table');
    const tr = (cells, tag) => { const r = document.createElement('tr'); for (const c of cells) { const d = document.createElement(tag); d.textContent = c === null || c === undefined ? '-' : String(c); r.append(d); } return r; };
    t.append(tr(head, 'th'), ...rows.map((r) => tr(r, 'td')));
    return t;
  }
  const when = (s) => new Date(s).toLocaleString();
  const mins = (ms) => ms === null ? '-' : (ms / 60000).toFixed(1) + ' min';
  async function buildReport() {
    const r = await api('GET', '/events/' + eventId + '/report');
    const box = $('report'); box.replaceChildren();
    if (!r.ok) { box.textContent = problem(r.data); return; }
    const d = r.data, h = (t) => { const e = document.createElement('h3'); e.textContent = t; return e; };
    box.append(h(d.eventName + ' - report of ' + when(d.generatedAt)),
      table(['Visitors', 'Admitted', 'Sold', 'Still waiting', 'Bots refused'], [[d.visitors, d.admitted, d.sold, d.waitingAtEnd, d.botsRefused ?? 'not counted']]),
      h('Time in queue'), table(['Admissions', 'p50', 'p90', 'p99'], [[d.queueTime.count, mins(d.queueTime.p50Ms), mins(d.queueTime.p90Ms), mins(d.queueTime.p99Ms)]]),
      table(['Waited up to', 'Admissions'], d.queueTime.buckets.map((b) => [b.upToMs === null ? 'longer' : mins(b.upToMs), b.count])),
      h('Rate changes and their reasons'), table(['At', 'Rate /min', 'Reason'], d.rateChanges.map((c) => [when(c.at), c.rate, c.reason])),
      h('Scheduled changes'), table(['Id', 'State', 'Reason', 'From', 'To'], d.schedule.map((c) => [c.id, c.state, c.reason, when(c.startsAt), when(c.endsAt)])),
      h('Pauses'), table(['From', 'To'], d.pauses.map((p) => [when(p.from), when(p.to)])),
      h('Origin incidents'), table(['From', 'To', 'Worst p99 ms', 'Worst error rate'], d.originIncidents.map((p) => [when(p.from), when(p.to), p.worstP99Ms, p.worstErrorRate])),
      h('Lottery'), d.lottery ? table(['Commitment', 'Seed'], [[d.lottery.commitment, d.lottery.seed ?? 'revealed after the draw']]) : document.createTextNode('Not a lottery (FIFO).'));
  }
  async function downloadCsv() {
    const r = await fetch('/_wr/admin/events/' + eventId + '/report?format=csv', { headers: { authorization: 'Bearer ' + token } });
    const a = document.createElement('a'); a.href = URL.createObjectURL(await r.blob()); a.download = eventId + '-minutes.csv'; a.click();
  }
  $('report-btn').onclick = buildReport;
  $('csv-btn').onclick = downloadCsv;
  $('print').onclick = () => window.print();

  $('login').onsubmit = (e) => { e.preventDefault(); token = $('token').value; sessionStorage.setItem('wr_admin_token', token); show(true); loadEvents(); };
  $('event').onchange = () => { eventId = $('event').value; loadEvent(); };
  $('config').oninput = () => { clearTimeout(checkTimer); checkTimer = setTimeout(checkConfig, 150); };
  $('id').oninput = checkConfig;
  $('save').onclick = save;
  $('copy').onclick = copy;
  $('change').onsubmit = addChange;
  $('range').onchange = loadHistory;
  if (token) { show(true); loadEvents(); } else show(false);
})();
`;

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
  textarea { width: 100%; min-height: 22rem; font: .85rem ui-monospace, monospace; box-sizing: border-box; }
  iframe { width: 100%; height: 26rem; border: 1px solid var(--line); border-radius: .5rem; }
  input, select, button { font: inherit; max-width: 100%; }
  form.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .5rem; }
  form.grid label { display: flex; flex-direction: column; font-size: .85rem; gap: .15rem; }
  .lane { border-bottom: 1px solid var(--line); padding: .3rem 0; }
  .lane p { margin: .2rem 0; font-size: .9rem; overflow-wrap: anywhere; }
  .span { height: .6rem; border-radius: .3rem; background: #2563eb; }
  .lane.active .span { background: #16a34a; } .lane.ended .span { background: #9ca3af; }
  svg { width: 100%; height: 14rem; border: 1px solid var(--line); border-radius: .5rem; }
  .warn { color: #dc2626; } .ok { color: #16a34a; }
  .legend span { margin-right: 1rem; font-size: .85rem; }
  #report { overflow-x: auto; } #report table { border-collapse: collapse; margin: .3rem 0 .8rem; font-size: .9rem; }
  #report td, #report th { border: 1px solid var(--line); padding: .2rem .45rem; text-align: left; overflow-wrap: anywhere; }
  @media print { body * { visibility: hidden; } #report-section, #report-section * { visibility: visible; } #report-section { position: absolute; top: 0; left: 0; } #report-section button { display: none; } }
</style>
</head>
<body>
<h1>Waiting room console</h1>
<p id="status" role="status"></p>
<form id="login"><label>Admin token <input id="token" type="password" autocomplete="off"></label> <button>Sign in</button></form>
<div id="main" hidden>
  <label>Event <select id="event"></select></label> <a href="/_wr/admin/">Live dashboard</a>
  <h2>Event</h2>
  <div class="cols">
    <div>
      <label>Event id <input id="id" data-testid="event-id"></label>
      <button id="copy" type="button">Copy as new event</button> <button id="save" type="button">Save</button>
      <p id="config-msg" role="status" data-testid="config-msg"></p>
      <textarea id="config" spellcheck="false" aria-label="Event configuration (the organizer API's fields)"></textarea>
    </div>
    <iframe id="preview" sandbox title="Waiting page preview"></iframe>
  </div>
  <h2>Scheduled changes</h2>
  <div id="timeline" data-testid="timeline"></div>
  <form id="change" class="grid">
    <label>Id <input name="id" required pattern="[a-z0-9][a-z0-9-]{0,47}"></label>
    <label>Reason <input name="reason" required maxlength="200"></label>
    <label>Starts (empty = now) <input name="startsAt" type="datetime-local"></label>
    <label>Ends <input name="endsAt" type="datetime-local" required></label>
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
  <p class="legend"><span style="color:#2563eb">waiting</span><span style="color:#16a34a">active</span><span style="color:#d97706">admitted/min</span><span style="color:#7c3aed">release rate/min</span></p>
  <svg id="history" viewBox="0 0 600 200" preserveAspectRatio="none" data-testid="history"></svg>
  <section id="report-section">
    <h2>Report after the sale</h2>
    <button id="report-btn" type="button">Build the report</button> <button id="csv-btn" type="button">Minutes as CSV</button> <button id="print" type="button">Print</button>
    <div id="report" data-testid="report"></div>
  </section>
</div>
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>`;
}
