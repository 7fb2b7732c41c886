// The organizer dashboard's script, an asset the Worker reads (src/lib/page-assets.ts), not part of its bundle.

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
    const sent = token;
    const r = await fetch('/_wr/admin' + path, { method, headers: { authorization: 'Bearer ' + sent, 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
    // Only a refusal of the token in use signs out: a slow 401 to a request sent before sign-in
    // (without a token, or with an older one) says nothing about the token the page holds now.
    if (r.status === 401 && sent && sent === token) signOut('Signed out: the token was refused');
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
    // Events with resale: returns, offers made / taken / lapsed, seats resold (GET /_wr/admin/events/{id} inventory.resale).
    const rs = inv.resale;
    set('resale', !rs ? 'off' : num(rs.returns) + ' / ' + num(rs.offersMade) + ', ' + num(rs.offersTaken) + ', ' + num(rs.offersLapsed) + ' / ' + num(rs.resoldSeats));
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
