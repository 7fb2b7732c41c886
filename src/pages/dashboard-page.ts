// The organizer dashboard: a static page that reads the admin API with the token the organizer types.
import { LANGS, LANG_NAMES } from '../../contracts/i18n';
import { PREVIEW_PHASES } from './preview';
import { DASHBOARD_ACCESS_SCRIPT, accessPanels } from './dashboard-access';

/** The dashboard's script: static, so a CSP hash can allow exactly it. */
export const DASHBOARD_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const LAST = 'wr_last_event';
  let token = sessionStorage.getItem('wr_admin_token') || '';
  let eventId = new URLSearchParams(location.search).get('event') || localStorage.getItem(LAST) || '';
  // formEtag: the version the bounds form shows; a save names it (If-Match): nobody's change is overwritten.
  let current = null, stickyUntil = 0, dirty = false, formEtag = null, sso = false;
  async function api(method, path, body, raw, headers) {
    const r = await fetch('/_wr/admin' + path, { method, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
    if (r.status === 401 && token) signOut('Signed out: the token was refused');
    if (raw) return { ok: r.ok, text: await r.text() };
    const data = await r.json().catch(() => ({}));
    return { ok: r.ok, data, status: r.status, etag: r.headers.get('etag') };
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
  function show(signedIn) { $('login').hidden = signedIn; $('main').hidden = !signedIn; $('bar').hidden = !signedIn; }
  function signOut(why) {
    sessionStorage.removeItem('wr_admin_token'); token = ''; current = null;
    show(false); $('token').value = ''; say(why || 'Signed out', false, true);
  }

  // What limits admissions now: the WaitingRoom's own answer (stats().binding, whatBinds in
  // durable-objects/waiting-room/admission-pace.ts), named for people.
  const BINDS = { closed: 'Closed', sold_out: 'Sold out', not_on_sale: 'Not on sale yet', paused: 'Paused', queue_empty: 'Nobody waiting',
    max_active: 'Max active visitors', active_limit: "The controller's active limit", unclaimed_places: 'Unclaimed places',
    origin_silent: 'Origin silent or failing', fixed_rate: 'Fixed rate', release_rate: 'Release rate' };
  const binding = (q) => q.binding ? { what: BINDS[q.binding.binds] || q.binding.binds, why: q.binding.detail } : { what: '-', why: '' };

  // A chart: SVG lines (strokes keep their width at any size), labels and legend in HTML, so
  // they stay readable on a phone.
  function chart(id, series, opts = {}) {
    const box = $(id), svg = box.querySelector('svg'), w = 600, h = 200;
    const ns = 'http://www.w3.org/2000/svg';
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.replaceChildren();
    const all = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v !== null);
    if (opts.line !== undefined) all.push(opts.line);
    const max = Math.max(1, ...all) * 1.1;
    // The time axis spans the data (at least 2 minutes, at most 30), so a short run is readable.
    const now = Date.now();
    const first = Math.min(...series.flatMap((s) => s.points.map((p) => p[0])), now - 2 * 60_000);
    const t0 = Math.max(first, now - 30 * 60_000);
    const x = (t) => ((t - t0) / (now - t0)) * w;
    const y = (v) => h - (v / max) * h;
    const line = (y1, color, dash) => {
      const l = document.createElementNS(ns, 'line');
      l.setAttribute('x1', 0); l.setAttribute('x2', w); l.setAttribute('y1', y1); l.setAttribute('y2', y1);
      l.setAttribute('stroke', color); l.setAttribute('vector-effect', 'non-scaling-stroke');
      if (dash) l.setAttribute('stroke-dasharray', '6 4');
      svg.append(l);
    };
    for (const f of [0.25, 0.5, 0.75]) line(h * f, 'color-mix(in srgb, currentColor 12%, transparent)');
    if (opts.line !== undefined) line(y(opts.line), '#dc2626', true);
    for (const s of series) {
      const pts = s.points.filter((p) => p[1] !== null).map((p) => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1));
      if (!pts.length) continue;
      const pl = document.createElementNS(ns, 'polyline');
      pl.setAttribute('points', pts.join(' ')); pl.setAttribute('fill', 'none'); pl.setAttribute('stroke', s.color);
      pl.setAttribute('stroke-width', '2.5'); pl.setAttribute('vector-effect', 'non-scaling-stroke');
      svg.append(pl);
    }
    box.querySelector('.ymax').textContent = num(max / 1.1) + (opts.unit || '');
    box.querySelector('.xmin').textContent = '-' + Math.round((now - t0) / 60_000) + ' min';
    box.querySelector('.legend').replaceChildren(...series.map((s) => {
      const li = document.createElement('li'), sw = document.createElement('i');
      sw.style.background = s.color;
      // The legend says what the cards say ("released: 0/min" from one tick beside the
      // card's 36 over the last minute): a series' own figure now, else its last point.
      const lastPoint = s.points.filter((p) => p[1] !== null).at(-1);
      const shown = s.now !== undefined ? s.now : lastPoint ? lastPoint[1] : null;
      li.append(sw, s.name + ': ' + (shown !== null ? num(shown) + (opts.unit || '') : '-'));
      return li;
    }).concat(opts.line !== undefined ? [Object.assign(document.createElement('li'), { className: 'target', textContent: 'target ' + num(opts.line) + (opts.unit || '') })] : []));
    svg.setAttribute('aria-label', box.querySelector('h3').textContent + '. ' + box.querySelector('.legend').textContent);
  }

  async function loadEvents() {
    const r = await api('GET', '/events');
    if (!r.ok) return false;
    const sel = $('event');
    sel.replaceChildren(...r.data.events.map((e) => { const o = document.createElement('option'); o.value = e.eventId; o.textContent = e.name + ' (' + e.eventId + ')'; return o; }));
    // The event used last on this browser (or from a link); a remembered one that is gone falls back to the first.
    if (eventId && !r.data.events.some((e) => e.eventId === eventId) && !new URLSearchParams(location.search).get('event')) eventId = '';
    if (!eventId && r.data.events.length) eventId = r.data.events[0].eventId;
    // The picker always names the event the page acts on, even one from a link and not in the list.
    if (eventId && !r.data.events.some((e) => e.eventId === eventId)) {
      const o = document.createElement('option'); o.value = eventId; o.textContent = eventId + ' (not in the list)'; sel.prepend(o);
    }
    sel.value = eventId;
    if (eventId) localStorage.setItem(LAST, eventId);
    return true;
  }

  // Refreshes overlap (the 2 s timer, and one after each action): only the last one started may
  // draw. An older answer that arrives later (read before a pause or resume) is dropped, so the
  // page never shows the state from before the organizer's last action. The timer starts none while
  // one is on its way, so slow answers (over 2 s) still draw.
  let refreshes = 0, inFlight = 0;
  async function refresh() {
    if ((!token && !sso) || !eventId) return;
    const mine = ++refreshes;
    inFlight++;
    let r;
    try { r = await api('GET', '/events/' + encodeURIComponent(eventId)); } finally { inFlight--; }
    if (mine !== refreshes) return;
    if (!r.ok) { say(r.data.detail || r.data.title || 'Could not load the event', true); return; }
    current = r.data;
    const q = r.data.queue, inv = r.data.inventory, cfg = r.data.config;
    const samples = q.samples;
    // Admissions over the last minute (or over the samples there are, scaled to a minute).
    const minuteAgo = samples.filter((s) => s.at <= Date.now() - 60_000).at(-1) ?? samples[0];
    set('waiting', num(q.waiting));
    const span = minuteAgo ? Math.max(5_000, Date.now() - minuteAgo.at) : 0;
    const releasedPerMinute = minuteAgo ? ((q.admittedTotal - minuteAgo.admittedTotal) * 60_000) / span : null;
    // Beside it, admitted visitors who left per minute (queue.departuresPerMinute): behind a full
    // active limit or max active, the pace at which the line moves (the waiting page's estimate).
    set('admittedPerMinute', num(releasedPerMinute) + (q.departuresPerMinute != null ? ' / ' + num(q.departuresPerMinute, 1) : ''));
    set('active', num(q.active) + ' / ' + num(q.activeLimit) + ' / ' + num(cfg.maxActiveVisitors));
    // Released places not claimed yet, and their own bound (GET /_wr/admin/events/{id} queue.binding).
    const u = q.binding;
    set('unclaimed', u ? num(u.unclaimed) + ' (' + num(u.expectedArrivals) + ' expected) / ' + num(u.unclaimedLimit) : '-');
    set('rate', num(q.releaseRatePerMinute) + (q.fixedRatePerMinute !== null ? ' (fixed)' : q.admitPerMinute !== q.releaseRatePerMinute ? ' (admit ' + num(q.admitPerMinute) + ')' : ''));
    const h = q.lastHealth;
    // A report that measured no request says nothing about latency ("0 ms" mid-overload);
    // one counting requests still running (inFlight) gives a p99 they reach at least.
    set('origin', !h ? 'no report' : h.sampleCount === 0 || (h.activeBuyers === 0 && h.p99LatencyMs === 0) ? 'no requests in the last report' : (h.inFlight ? '≥ ' : '') + num(h.p99LatencyMs) + ' ms' + (h.inFlight ? ' (' + num(h.inFlight) + ' still running)' : '') + ' / ' + pct(h.errorRate));
    set('holds', q.gateway.holdP99Ms === null ? '-' : num(q.gateway.holdP99Ms) + ' ms / ' + pct(q.gateway.conflictRate));
    set('noShows', pct(q.gateway.noShowRate));
    set('seats', num(inv.seats.held + inv.seats.paymentPending) + ' / ' + num(inv.seats.sold + inv.tiers.reduce((a, t) => a + t.sold, 0)));
    set('reconcile', num(inv.seats.needsReconciliation));
    set('mode', q.mode === 'closed' ? 'closed: no new holds; holds already made can still be paid' : q.mode);
    // Entry tokens: who may join, and the presale lanes the tokens may name, in release
    // order, each with its sale start and its line now (queue.lanes: waiting, released).
    const laneLine = (name) => (q.lanes ?? []).find((x) => x.lane === name);
    const e = cfg.entry, lane = (l) => {
      const n = laneLine(l.lane), start = n ? n.saleStartsAtMs : l.saleStartsAt;
      return l.lane + ' ' + l.releaseSharePercent + ' %' + (start ? ' from ' + new Date(start).toLocaleString() : '') +
        (n ? ' (' + num(n.waiting) + ' waiting, ' + num(n.released) + ' released)' : '');
    };
    set('entry', !e ? 'open: anyone' : 'signed-in accounts, sign in at ' + e.signInUrl + (e.lanes.length ? '; lanes: ' + e.lanes.map(lane).join(', ') : ''));
    const b = binding(q);
    set('binds', b.what); set('bindsWhy', b.why);
    if (!dirty && document.activeElement?.form !== $('bounds')) {
      formEtag = r.etag;
      $('policy').value = cfg.policy; $('minRate').value = cfg.minReleaseRatePerMinute; $('maxRate').value = cfg.releaseRatePerMinute;
      $('maxActive').value = cfg.maxActiveVisitors; $('target').value = cfg.targetP99Ms;
    }
    const pts = (k) => samples.map((s) => [s.at, s[k]]);
    // Places released per minute (claimed or not: admittedTotal counts releases), from consecutive samples.
    const admitted = samples.slice(1).map((s, i) => [s.at, ((s.admittedTotal - samples[i].admittedTotal) * 60_000) / Math.max(1, s.at - samples[i].at)]);
    chart('chartRate', [{ name: 'release rate', color: '#2563eb', points: pts('rate') }, { name: 'released', color: '#16a34a', points: admitted, now: releasedPerMinute }], { unit: '/min' });
    chart('chartP99', [{ name: 'origin p99', color: '#9333ea', points: pts('originP99Ms') }], { line: cfg.targetP99Ms, unit: ' ms' });
    chart('chartQueue', [{ name: 'waiting', color: '#ea580c', points: pts('waiting'), now: q.waiting }, { name: 'active', color: '#0891b2', points: pts('active'), now: q.active }]);
    $('log').replaceChildren(...q.rateLog.map((e) => {
      const tr = document.createElement('tr');
      for (const v of [new Date(e.at).toLocaleTimeString(), num(e.rate), e.reason]) { const td = document.createElement('td'); td.textContent = v; tr.append(td); }
      return tr;
    }));
    say('Updated ' + new Date().toLocaleTimeString());
  }

  // The waiting page as visitors see it, from the preview API, in a frame that runs no script.
  async function preview() {
    if (!eventId) return;
    const q = '?phase=' + $('pvPhase').value + '&lang=' + encodeURIComponent($('pvLang').value);
    const r = await api('GET', '/events/' + encodeURIComponent(eventId) + '/preview' + q, undefined, true);
    const frame = $('pvFrame');
    frame.className = $('pvPhone').checked ? 'phone' : '';
    frame.srcdoc = r.ok ? r.text : '<p>Preview unavailable</p>';
  }
  for (const id of ['pvPhase', 'pvLang', 'pvPhone']) $(id).onchange = preview;
  $('pvShow').onclick = preview;

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
  $('bounds').onsubmit = async (e) => {
    e.preventDefault();
    if (!current) return;
    // Only the form's fields, as a JSON Merge Patch of the version the form was filled from.
    const patch = { policy: $('policy').value, minReleaseRatePerMinute: Number($('minRate').value), releaseRatePerMinute: Number($('maxRate').value), maxActiveVisitors: Number($('maxActive').value), targetP99Ms: Number($('target').value) };
    const r = await api('PATCH', '/events/' + encodeURIComponent(eventId), patch, false, { 'content-type': 'application/merge-patch+json', ...(formEtag ? { 'if-match': formEtag } : {}) });
    say(r.status === 412 ? 'Not saved: someone else changed this event first. The form now shows their version; make your change again.' : r.ok ? 'Saved' : (r.data.detail || r.data.title || 'Refused'), !r.ok, true);
    if (r.ok || r.status === 412) dirty = false;
    refresh();
  };
  $('event').onchange = () => {
    dirty = false; eventId = $('event').value; localStorage.setItem(LAST, eventId);
    for (const b of document.querySelectorAll('[data-k]')) b.textContent = '…';
    history.replaceState(null, '', '?event=' + encodeURIComponent(eventId));
    refresh(); if ($('pv').open) preview();
  };
  $('pv').ontoggle = () => { if ($('pv').open) preview(); };
  $('signout').onclick = () => signOut();
  $('login').onsubmit = async (e) => {
    e.preventDefault();
    token = $('token').value;
    // Not sticky: the first "Updated" replaces it as soon as the event's numbers are drawn
    // (the tiles read "-" under "Signed in" for 8 s with no hint that they were loading).
    if (await loadEvents()) { sessionStorage.setItem('wr_admin_token', token); show(true); say('Signed in: loading the event…'); refresh(); } else { token = ''; say('Wrong token', true, true); }
  };
  // No token: behind Cloudflare Access the requests are signed in already (single sign-on).
  (async () => { if (!token) sso = await loadEvents(); if ((token || sso) && (sso || (await loadEvents()))) { show(true); refresh(); } })();
  setInterval(() => { if (!document.hidden && inFlight === 0) refresh(); }, 2000);
})();
`;

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
