// The organizer dashboard: a static page that reads the admin API with the token the organizer types.

/** The dashboard's script: static, so a CSP hash can allow exactly it. */
export const DASHBOARD_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem('wr_admin_token') || '';
  let eventId = new URLSearchParams(location.search).get('event') || '';
  let current = null, stickyUntil = 0, dirty = false;
  async function api(method, path, body) {
    const r = await fetch('/_wr/admin' + path, { method, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (r.status === 401) { sessionStorage.removeItem('wr_admin_token'); token = ''; show(false); }
    return { ok: r.ok, data };
  }
  // Answers to the organizer's actions stay for 8 s; the periodic "Updated" does not overwrite them.
  const say = (t, warn, sticky) => {
    if (!sticky && Date.now() < stickyUntil) return;
    if (sticky) stickyUntil = Date.now() + 8000;
    $('status').textContent = t; $('status').className = warn ? 'warn' : '';
  };
  const set = (k, v) => { document.querySelector('[data-k="' + k + '"]').textContent = v; };
  const num = (n, d = 0) => n === null || n === undefined ? '-' : Number(n).toLocaleString(undefined, { maximumFractionDigits: d });
  const pct = (x) => x === null || x === undefined ? '-' : (x * 100).toFixed(1) + '%';
  function show(signedIn) { $('login').hidden = signedIn; $('main').hidden = !signedIn; $('event').hidden = !signedIn; }

  function chart(svg, series, opts = {}) {
    const w = 600, h = 150, pad = 28;
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    const ns = 'http://www.w3.org/2000/svg';
    svg.replaceChildren();
    const all = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v !== null);
    if (opts.line !== undefined) all.push(opts.line);
    const max = Math.max(1, ...all);
    // The time axis spans the data (at least 2 minutes, at most 30), so a short run is readable.
    const first = Math.min(...series.flatMap((s) => s.points.map((p) => p[0])), Date.now() - 2 * 60_000);
    const t0 = Math.max(first, Date.now() - 30 * 60_000), spanMin = Math.round((Date.now() - t0) / 60_000);
    const x = (t) => pad + ((t - t0) / (Date.now() - t0)) * (w - pad - 4);
    const y = (v) => h - pad + 8 - (v / max) * (h - pad - 22);
    const text = (tx, ty, s) => { const e = document.createElementNS(ns, 'text'); e.setAttribute('x', tx); e.setAttribute('y', ty); e.setAttribute('font-size', '11'); e.setAttribute('fill', 'currentColor'); e.textContent = s; svg.append(e); };
    text(2, 26, num(max)); text(2, h - pad + 8, '0'); text(w - 30, h - 4, 'now'); text(pad, h - 4, '-' + spanMin + ' min');
    if (opts.line !== undefined) {
      const l = document.createElementNS(ns, 'line');
      l.setAttribute('x1', pad); l.setAttribute('x2', w - 4); l.setAttribute('y1', y(opts.line)); l.setAttribute('y2', y(opts.line));
      l.setAttribute('stroke', '#dc2626'); l.setAttribute('stroke-dasharray', '4 4'); svg.append(l);
    }
    for (const s of series) {
      const pts = s.points.filter((p) => p[1] !== null).map((p) => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1));
      if (!pts.length) continue;
      const pl = document.createElementNS(ns, 'polyline');
      pl.setAttribute('points', pts.join(' ')); pl.setAttribute('fill', 'none'); pl.setAttribute('stroke', s.color); pl.setAttribute('stroke-width', '2');
      svg.append(pl);
    }
    series.forEach((s, i) => { const e = document.createElementNS(ns, 'text'); e.setAttribute('x', w - 160 * (series.length - i)); e.setAttribute('y', 12); e.setAttribute('font-size', '12'); e.setAttribute('fill', s.color); e.textContent = '— ' + s.name; svg.append(e); });
  }

  async function loadEvents() {
    const r = await api('GET', '/events');
    if (!r.ok) return false;
    const sel = $('event');
    sel.replaceChildren(...r.data.events.map((e) => { const o = document.createElement('option'); o.value = e.eventId; o.textContent = e.name + ' (' + e.eventId + ')'; return o; }));
    if (!eventId && r.data.events.length) eventId = r.data.events[0].eventId;
    // The picker always names the event the page acts on, even one from a link and not in the list.
    if (eventId && !r.data.events.some((e) => e.eventId === eventId)) {
      const o = document.createElement('option'); o.value = eventId; o.textContent = eventId + ' (not in the list)'; sel.prepend(o);
    }
    sel.value = eventId;
    return true;
  }

  async function refresh() {
    if (!token || !eventId) return;
    const r = await api('GET', '/events/' + encodeURIComponent(eventId));
    if (!r.ok) { say(r.data.detail || r.data.title || 'Could not load the event', true); return; }
    current = r.data;
    const q = r.data.queue, inv = r.data.inventory, cfg = r.data.config;
    const samples = q.samples;
    // Admissions over the last minute (or over the samples there are, scaled to a minute).
    const minuteAgo = samples.filter((s) => s.at <= Date.now() - 60_000).at(-1) ?? samples[0];
    set('waiting', num(q.waiting));
    const span = minuteAgo ? Math.max(5_000, Date.now() - minuteAgo.at) : 0;
    set('admittedPerMinute', minuteAgo ? num(((q.admittedTotal - minuteAgo.admittedTotal) * 60_000) / span) : '-');
    set('active', num(q.active) + ' / ' + num(q.activeLimit) + ' / ' + num(cfg.maxActiveVisitors));
    set('rate', num(q.releaseRatePerMinute) + (q.fixedRatePerMinute !== null ? ' (fixed)' : q.admitPerMinute !== q.releaseRatePerMinute ? ' (admit ' + num(q.admitPerMinute) + ')' : ''));
    const h = q.lastHealth;
    set('origin', !h ? 'no report' : h.activeBuyers === 0 && h.p99LatencyMs === 0 ? 'idle (no traffic)' : num(h.p99LatencyMs) + ' ms / ' + pct(h.errorRate));
    set('holds', q.gateway.holdP99Ms === null ? '-' : num(q.gateway.holdP99Ms) + ' ms / ' + pct(q.gateway.conflictRate));
    set('noShows', pct(q.gateway.noShowRate));
    set('seats', num(inv.seats.held + inv.seats.paymentPending) + ' / ' + num(inv.seats.sold + inv.tiers.reduce((a, t) => a + t.sold, 0)));
    set('reconcile', num(inv.seats.needsReconciliation));
    set('mode', q.mode === 'closed' ? 'closed: no new holds; holds already made can still be paid' : q.mode);
    if (!dirty && document.activeElement?.form !== $('bounds')) {
      $('policy').value = cfg.policy; $('minRate').value = cfg.minReleaseRatePerMinute; $('maxRate').value = cfg.releaseRatePerMinute;
      $('maxActive').value = cfg.maxActiveVisitors; $('target').value = cfg.targetP99Ms;
    }
    const pts = (k) => samples.map((s) => [s.at, s[k]]);
    // Actual admissions per minute, from the admitted totals of consecutive samples.
    const admitted = samples.slice(1).map((s, i) => [s.at, ((s.admittedTotal - samples[i].admittedTotal) * 60_000) / Math.max(1, s.at - samples[i].at)]);
    chart($('chartRate'), [{ name: 'release rate', color: '#2563eb', points: pts('rate') }, { name: 'admitted', color: '#16a34a', points: admitted }]);
    chart($('chartP99'), [{ name: 'origin p99', color: '#9333ea', points: pts('originP99Ms') }], { line: cfg.targetP99Ms });
    chart($('chartQueue'), [{ name: 'waiting', color: '#ea580c', points: pts('waiting') }, { name: 'active', color: '#0891b2', points: pts('active') }]);
    $('log').replaceChildren(...q.rateLog.map((e) => {
      const tr = document.createElement('tr');
      for (const v of [new Date(e.at).toLocaleTimeString(), num(e.rate), e.reason]) { const td = document.createElement('td'); td.textContent = v; tr.append(td); }
      return tr;
    }));
    say('Updated ' + new Date().toLocaleTimeString());
  }

  async function act(method, path, body, done) {
    const r = await api(method, '/events/' + encodeURIComponent(eventId) + path, body);
    say(r.ok ? done : (r.data.detail || r.data.title || 'Refused'), !r.ok, true);
    if (r.ok && path === '') dirty = false;
    refresh();
  }
  $('pause').onclick = () => act('POST', '/pause', undefined, 'Paused: no one is released, nobody loses a place');
  $('resume').onclick = () => act('POST', '/resume', undefined, 'Resumed');
  $('setFixed').onclick = () => {
    if ($('fixed').value.trim() === '') { say('Type a rate first (0 stops releases)', true, true); return; }
    act('POST', '/rate', { fixedPerMinute: Number($('fixed').value) }, 'Rate fixed');
  };
  $('bounds').oninput = () => { dirty = true; };
  $('auto').onclick = () => act('POST', '/rate', { fixedPerMinute: null }, 'The controller decides the rate again');
  $('bounds').onsubmit = (e) => {
    e.preventDefault();
    if (!current) return;
    const cfg = { ...current.config, policy: $('policy').value, minReleaseRatePerMinute: Number($('minRate').value), releaseRatePerMinute: Number($('maxRate').value), maxActiveVisitors: Number($('maxActive').value), targetP99Ms: Number($('target').value) };
    act('PUT', '', cfg, 'Saved');
  };
  $('event').onchange = () => { dirty = false; eventId = $('event').value; history.replaceState(null, '', '?event=' + encodeURIComponent(eventId)); refresh(); };
  $('login').onsubmit = async (e) => {
    e.preventDefault();
    token = $('token').value;
    if (await loadEvents()) { sessionStorage.setItem('wr_admin_token', token); show(true); refresh(); } else say('Wrong token', true);
  };
  (async () => { if (token && (await loadEvents())) { show(true); refresh(); } })();
  setInterval(() => { if (!document.hidden) refresh(); }, 2000);
})();
`;

/**
 * The dashboard HTML. It holds no data and no secret: after sign-in it keeps the admin token in
 * sessionStorage (this tab only) and calls the admin API with it every 2 s. Every value is written
 * with textContent or as SVG numbers, so nothing from the API is parsed as HTML.
 */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Waiting room - organizer</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --line: color-mix(in srgb, CanvasText 15%, transparent); }
  body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.25rem 3rem; }
  header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
  h1 { font-size: 1.3rem; margin: .5rem 1rem .5rem 0; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .6rem; margin: 1rem 0; }
  .card { border: 1px solid var(--line); border-radius: .6rem; padding: .6rem .8rem; }
  .card b { display: block; font-size: 1.5rem; font-variant-numeric: tabular-nums; }
  .card span { font-size: .8rem; opacity: .75; }
  .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: .8rem; }
  svg { width: 100%; height: 9rem; border: 1px solid var(--line); border-radius: .6rem; }
  table { border-collapse: collapse; width: 100%; font-size: .85rem; }
  td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  form, .controls { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin: .5rem 0; }
  label { display: grid; font-size: .8rem; gap: .2rem; }
  input, select, button { font: inherit; padding: .3rem .5rem; }
  .warn { color: #b45309; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<header>
  <h1>Waiting room - organizer</h1>
  <select id="event" aria-label="Event" hidden></select>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<form id="login">
  <label>Admin token <input id="token" type="password" autocomplete="current-password" required size="40"></label>
  <button>Sign in</button>
</form>
<main id="main" hidden>
  <section class="grid" aria-label="Live numbers">
    <div class="card"><span>Waiting</span><b data-k="waiting">-</b></div>
    <div class="card"><span>Admitted per minute (last minute)</span><b data-k="admittedPerMinute">-</b></div>
    <div class="card"><span>Active / limit / max</span><b data-k="active">-</b></div>
    <div class="card"><span>Release rate per minute</span><b data-k="rate">-</b></div>
    <div class="card"><span>Origin p99 / errors</span><b data-k="origin">-</b></div>
    <div class="card"><span>Seat-hold p99 / conflicts</span><b data-k="holds">-</b></div>
    <div class="card"><span>No-shows</span><b data-k="noShows">-</b></div>
    <div class="card"><span>Seats held / sold</span><b data-k="seats">-</b></div>
    <div class="card"><span>Needs reconciliation</span><b data-k="reconcile">-</b></div>
    <div class="card"><span>Mode</span><b data-k="mode">-</b></div>
  </section>
  <section class="controls" aria-label="Controls">
    <button id="pause">Pause</button>
    <button id="resume">Resume</button>
    <label>Fixed rate per minute <input id="fixed" type="number" min="0" step="1" size="8"></label>
    <button id="setFixed">Set fixed rate</button>
    <button id="auto">Back to automatic</button>
  </section>
  <form id="bounds" aria-label="Bounds">
    <label>Policy <select id="policy"><option value="fifo">FIFO</option><option value="random">Lottery</option></select></label>
    <label>Min rate/min <input id="minRate" type="number" min="0" step="1" size="8"></label>
    <label>Max rate/min <input id="maxRate" type="number" min="1" step="1" size="8"></label>
    <label>Max active visitors <input id="maxActive" type="number" min="1" step="1" size="8"></label>
    <label>p99 target ms <input id="target" type="number" min="1" step="1" size="8"></label>
    <button>Save</button>
  </form>
  <h2>Last 30 minutes</h2>
  <div class="charts">
    <div><span>Release rate and admissions per minute</span><svg id="chartRate" role="img" aria-label="Release rate chart"></svg></div>
    <div><span>Origin p99 (ms) against the target</span><svg id="chartP99" role="img" aria-label="Origin p99 chart"></svg></div>
    <div><span>Queue length and active visitors</span><svg id="chartQueue" role="img" aria-label="Queue length chart"></svg></div>
  </div>
  <h2>Why the rate changed</h2>
  <table><thead><tr><th>Time</th><th>Rate</th><th>Reason</th></tr></thead><tbody id="log"></tbody></table>
</main>
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>`;
}
