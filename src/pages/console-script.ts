// The organizer console's script: sign-in, the event list, the editor (console-editor.ts), the
// scheduled changes on a timeline, the per-minute history charts and the report after the sale.
// It reads the admin API with the token the organizer types, as the dashboard does.
import { CONSOLE_EDITOR_SCRIPT } from './console-editor';

/** The console's one script, its parts joined: static, so a CSP hash can allow exactly it. */
export const CONSOLE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem('wr_admin_token') || '';
  let eventId = new URLSearchParams(location.search).get('event') || localStorage.getItem('wr_last_event') || '';
  const say = (t, warn) => { $('status').textContent = t; $('status').className = warn ? 'warn' : ''; };
  async function api(method, path, body, headers) {
    const r = await fetch('/_wr/admin' + path, { method, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
    if (r.status === 401) { sessionStorage.removeItem('wr_admin_token'); token = ''; show(false); }
    const ct = r.headers.get('content-type') || '';
    return { ok: r.ok, status: r.status, etag: r.headers.get('etag'), data: ct.includes('json') ? await r.json().catch(() => ({})) : await r.text() };
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
    openEditor(r.data.config, r.etag);
    $('config-msg').textContent = '';
    await Promise.all([loadSchedule(), loadHistory(), preview()]);
  }
${CONSOLE_EDITOR_SCRIPT}  // The waiting page of the chosen phase and language, with the editor's page settings (template included) before they are saved.
  async function preview() {
    const path = '/events/' + eventId + '/preview?phase=' + $('preview-phase').value + '&lang=' + encodeURIComponent($('preview-lang').value);
    const page = current().page;
    const r = isObj(page) ? await api('POST', path, { page }) : await api('GET', path);
    if (typeof r.data === 'string') $('preview').srcdoc = r.data;
    $('preview-msg').textContent = r.ok ? '' : 'Preview: ' + problem(r.data);
  }
  $('preview-phase').onchange = $('preview-lang').onchange = preview;

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
      text.textContent = c.id + ' (' + c.state + '): ' + c.reason + ' - ' + label(c) + ' - ' + when(c.startsAt) + ' to ' + when(c.endsAt);
      row.append(text, bar);
      if (c.state !== 'ended') {
        const b = document.createElement('button'); b.textContent = c.state === 'active' ? 'End now' : 'Cancel';
        b.onclick = async () => { const x = await api('DELETE', '/events/' + eventId + '/schedule/' + c.id); say(x.ok ? 'Cancelled ' + c.id : problem(x.data), !x.ok); loadSchedule(); };
        text.append(' ', b);
      }
      tl.append(row);
    }
  }
  // Times are shown and entered in the browser's time zone, named beside them (the API speaks UTC).
  const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const when = (s) => new Date(s).toLocaleString(undefined, { timeZoneName: 'short' });
  for (const e of document.querySelectorAll('.tz')) e.textContent = ZONE;
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
    // A stored change clears the form: the next one starts empty, never with this one's settings.
    if (r.ok) { $('change').reset(); loadSchedule(); }
  }

  // History: two charts over the chosen range (1 minute to 30 days), the API's own steps: the
  // queue's levels and rates, and the refusals by cause on their own scale (far fewer, usually).
  const LEVELS = [['waiting', '#2563eb'], ['active', '#16a34a'], ['admitted', '#d97706'], ['releaseRatePerMinute', '#7c3aed']];
  const REFUSALS = [['refusedProofOfWork', '#dc2626'], ['refusedEntryToken', '#0891b2'], ['refusedRateLimit', '#ca8a04'], ['refusedOther', '#6b7280']];
  function chart(svg, pts, series, x) {
    const ns = 'http://www.w3.org/2000/svg', h = 200;
    svg.replaceChildren();
    const max = Math.max(1, ...pts.flatMap((p) => series.map(([k]) => p[k] || 0))) * 1.1, y = (v) => h - v / max * h;
    for (const [k, color] of series) {
      const l = document.createElementNS(ns, 'polyline');
      l.setAttribute('points', pts.map((p) => x(p.at) + ',' + y(p[k] || 0)).join(' '));
      l.setAttribute('fill', 'none'); l.setAttribute('stroke', color); l.setAttribute('stroke-width', '2'); l.setAttribute('vector-effect', 'non-scaling-stroke');
      svg.append(l);
    }
    return max;
  }
  async function loadHistory() {
    // The 30-day choice asks a minute less: the server counts its 30 days from its own, later, clock.
    const minutes = Math.min(Number($('range').value), 43199), to = new Date(), from = new Date(to - minutes * 60000);
    const r = await api('GET', '/events/' + eventId + '/history?from=' + from.toISOString() + '&to=' + to.toISOString());
    if (!r.ok) { $('history').replaceChildren(); $('refusals').replaceChildren(); $('history-msg').textContent = problem(r.data); return; }
    const pts = r.data.points, x = (at) => (Date.parse(at) - from) / (to - from) * 600;
    $('history-msg').textContent = pts.length + ' points, one per ' + (r.data.stepSeconds / 60) + ' min';
    $('history-max').textContent = Math.round(chart($('history'), pts, LEVELS, x)).toLocaleString();
    $('refusals-max').textContent = Math.round(chart($('refusals'), pts, REFUSALS, x)).toLocaleString();
    const total = (k) => pts.reduce((a, p) => a + (p[k] || 0), 0);
    $('refusals-sum').textContent = REFUSALS.map(([k]) => $('lg-' + k).textContent + ' ' + total(k).toLocaleString()).join(', ');
  }

  // The report after the sale: the API's JSON as tables, printable; the minutes as CSV.
  function table(head, rows) {
    const t = document.createElement('table');
    const tr = (cells, tag) => { const r = document.createElement('tr'); for (const c of cells) { const d = document.createElement(tag); d.textContent = c === null || c === undefined ? '-' : String(c); r.append(d); } return r; };
    t.append(tr(head, 'th'), ...rows.map((r) => tr(r, 'td')));
    return t;
  }
  const mins = (ms) => ms === null ? '-' : (ms / 60000).toFixed(1) + ' min';
  async function buildReport() {
    const r = await api('GET', '/events/' + eventId + '/report');
    const box = $('report'); box.replaceChildren();
    if (!r.ok) { box.textContent = problem(r.data); return; }
    const d = r.data, h = (t) => { const e = document.createElement('h3'); e.textContent = t; return e; };
    box.append(h(d.eventName + ' - report of ' + when(d.generatedAt)),
      table(['Visitors', 'Admitted', 'Sold', 'Still waiting', 'Refused'], [[d.visitors, d.admitted, d.sold, d.waitingAtEnd, d.botsRefused]]),
      h('Refusals by cause'), table(['Proof of work', 'Entry token', 'IP limit', 'Other'], [[d.refusals.proofOfWork, d.refusals.entryToken, d.refusals.rateLimit, d.refusals.other]]),
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
  $('change').onsubmit = addChange;
  $('range').onchange = loadHistory;
  if (token) { show(true); loadEvents(); } else show(false);
})();
`;
