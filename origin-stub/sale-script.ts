// The sale page's script: sections and seats, hold with a countdown, a warning and more time before
// it runs out, pay, follow an unknown payment, confirm the order. Static (its data is in the page's JSON block).
import { formatMoney } from './money';

/**
 * The script of the sale page. It reads `{ eventId, lang, t, maxSeats, maxRows }` from the
 * `sale-data` JSON block, so its text is the same on every page; `formatMoney`'s own source is
 * part of it, so the page formats amounts exactly as the shop's messages do.
 */
export const SALE_SCRIPT = `
(() => {
  const { eventId, lang, t, maxSeats, maxRows } = JSON.parse(document.getElementById('sale-data').textContent);
  const formatMoney = ${formatMoney.toString()};
  const $ = (x) => document.getElementById(x);
  const fill = (k, v) => Object.entries(v).reduce((a, [n, x]) => a.replace('{' + n + '}', x), t[k]);
  const say = (text, status) => { $('message').textContent = text; $('message').dataset.status = status || ''; };
  // The price of one seat when the gateway tells it ({ minor, currency }), else null: never a guess.
  let price = null, hold = null, current = null, sections = [], clock = null;
  // The hold's warning: said once per deadline, warnAt seconds before it (20 % of the hold's time,
  // 20-60 s: WCAG 2.2 SC 2.2.1 asks for at least 20 s to react). While a payment is confirmed the
  // page counts nothing down: the gateway keeps the seats and the admission through the grace.
  let warned = false, warnAt = 60, paying = false, extendKey = null;
  const status = new Map();
  const selected = new Set();
  async function api(method, path, body, headers = {}, cache = 'no-store') {
    const r = await fetch(path, { method, cache, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: body && JSON.stringify(body), credentials: 'same-origin' });
    const data = await r.json().catch(() => ({}));
    return { ok: r.ok, status: r.status, data };
  }
  // A seat id is [venue section "-"] row letters, seat number: A14, or S2-A14 on an event with
  // sections (a row is then "S2-A", so rows of two venue sections never mix).
  const rowOf = (id) => id.match(/^(?:[A-Z0-9]+-)?[A-Z]+/)[0];
  const numOf = (id) => Number(id.slice(rowOf(id).length));
  const venueOf = (id) => (id.match(/^([A-Z0-9]+)-/) || [])[1] || '';
  const rowName = (row) => row.slice(row.indexOf('-') + 1);
  // Each venue section's own seat price for events with sections, else the event's.
  const venuePrice = new Map();
  const priceOf = (id) => price && { minor: venuePrice.get(venueOf(id)) ?? price.minor, currency: price.currency };
  // Blocks: per venue section, at most maxRows rows, each split into at most maxSeats seats
  // across (left / centre / right for up to three), so one block fits a phone.
  function plan(all) {
    const out = [];
    for (const venue of [...new Set(all.map(venueOf))]) {
      const ids = all.filter((id) => venueOf(id) === venue);
      const perRow = Math.max(...ids.map(numOf));
      const blocks = Math.max(1, Math.ceil(perRow / maxSeats));
      const size = Math.ceil(perRow / blocks);
      const names = blocks === 2 ? [t.left, t.right] : blocks === 3 ? [t.left, t.centre, t.right] : null;
      const rows = [...new Set(ids.map(rowOf))];
      for (let g = 0; g * maxRows < rows.length; g++) {
        const rs = rows.slice(g * maxRows, (g + 1) * maxRows);
        const range = fill('rows', { from: rowName(rs[0]), to: rowName(rs[rs.length - 1]) });
        for (let b = 0; b < blocks; b++) {
          const from = b * size + 1, to = Math.min(perRow, (b + 1) * size);
          const block = blocks === 1 ? '' : names ? names[b] : fill('block', { n: b + 1 });
          // Every card names its block (five cards read "FLOOR · Rows A-J" alike).
          out.push({ key: venue + g + ':' + b, venue, rows: rs, from, to, block, range: [venue, block, range].filter(Boolean).join(' · ') });
        }
      }
    }
    return out;
  }
  const inSection = (s, id) => s.rows.includes(rowOf(id)) && numOf(id) >= s.from && numOf(id) <= s.to;
  const stateText = (id) => hold && hold.seatIds.includes(id) ? t.stateMine : selected.has(id) ? t.stateSelected : status.get(id) === 'AVAILABLE' ? t.stateFree : t.stateTaken;
  function draw() {
    const blocks = new Set(sections.map((s) => s.key.split(':')[1])).size;
    $('sections').style.gridTemplateColumns = 'repeat(' + blocks + ', minmax(0, 1fr))';
    $('sections').replaceChildren(...sections.map((s) => {
      const ids = [...status.keys()].filter((id) => inSection(s, id));
      const free = ids.filter((id) => status.get(id) === 'AVAILABLE').length;
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.section = s.key;
      b.setAttribute('aria-pressed', String(s === current));
      b.style.setProperty('--f', ids.length ? free / ids.length : 0);
      const title = document.createElement('b');
      title.textContent = s.range;
      // A venue section's own price on each of its cards (the page's heading gives the range).
      const own = price && venuePrice.has(s.venue) ? ' · ' + formatMoney(venuePrice.get(s.venue), price.currency) : '';
      b.append(title, ' ' + (free ? fill('free', { n: free.toLocaleString(lang) }) : t.soldOutSection) + own);
      b.onclick = () => { current = s; draw(); $('seats').querySelector('button:not([disabled])')?.focus(); };
      return b;
    }));
    if (!current) return;
    $('section-h').textContent = current.range;
    $('seats').replaceChildren(...current.rows.map((row) => {
      const div = document.createElement('div');
      div.className = 'row';
      const label = document.createElement('b');
      label.textContent = rowName(row);
      label.setAttribute('aria-hidden', 'true');
      div.append(label);
      for (let n = current.from; n <= current.to; n++) {
        const id = row + n;
        if (!status.has(id)) continue;
        const b = document.createElement('button');
        const mine = hold && hold.seatIds.includes(id);
        b.type = 'button';
        b.className = 'seat' + (mine ? ' mine' : selected.has(id) ? ' selected' : '');
        b.textContent = n; b.dataset.seat = id; b.dataset.status = status.get(id);
        b.setAttribute('aria-label', fill('seat', { r: rowName(row), n }) + ', ' + stateText(id) + (price && status.get(id) === 'AVAILABLE' ? ', ' + formatMoney(priceOf(id).minor, price.currency) : ''));
        b.setAttribute('aria-pressed', String(selected.has(id) || Boolean(mine)));
        b.disabled = !mine && status.get(id) !== 'AVAILABLE' && !selected.has(id);
        b.onclick = () => toggle(id);
        div.append(b);
      }
      return div;
    }));
  }
  // After the visitor's own action the map must be fresh; the periodic refresh may use the 1 s cache.
  async function loadMap(cache = 'no-store') {
    const r = await api('GET', '/_wr/events/' + eventId + '/seats', undefined, {}, cache);
    if (!r.ok) { say(r.data.detail || t.mapError, 'ERROR'); return; }
    if (Number.isInteger(r.data.seatPriceMinor) && typeof r.data.currency === 'string') {
      price = { minor: r.data.seatPriceMinor, currency: r.data.currency };
      for (const v of r.data.sections || []) if (Number.isInteger(v.seatPriceMinor)) venuePrice.set(v.section, v.seatPriceMinor);
      const all = venuePrice.size ? [...venuePrice.values()] : [price.minor];
      const lo = Math.min(...all), hi = Math.max(...all);
      $('price').textContent = fill('priceEach', { p: formatMoney(lo, price.currency) + (hi > lo ? ' - ' + formatMoney(hi, price.currency) : '') });
    }
    for (const s of r.data.seats) status.set(s.id, s.status);
    // A venue too large for one answer: the gateway sends a summary; each section's seats come on their own.
    if (r.data.sectionsOnly) {
      for (const v of r.data.sections || []) {
        const part = await api('GET', '/_wr/events/' + eventId + '/seats?section=' + encodeURIComponent(v.section), undefined, {}, cache);
        if (part.ok) for (const s of part.data.seats) status.set(s.id, s.status);
      }
    }
    if (!sections.length && status.size) {
      sections = plan([...status.keys()]);
      current = sections[0];
    }
    draw();
  }
  function showSelection() {
    const total = price && selected.size ? ' (' + formatMoney([...selected].reduce((a, id) => a + priceOf(id).minor, 0), price.currency) + ')' : '';
    $('selection').textContent = selected.size ? fill('selected', { seats: [...selected].join(', ') }) + total : t.noneSelected;
    $('hold').disabled = hold !== null || selected.size === 0;
    $('hold').hidden = hold !== null;
  }
  function toggle(id) {
    if (hold) return;
    // A hold is of one venue section (the gateway refuses a mix): a seat of another starts anew.
    for (const other of selected) if (venueOf(other) !== venueOf(id)) selected.delete(other);
    if (selected.has(id)) selected.delete(id); else if (selected.size < 6) selected.add(id); else say(t.atMost);
    showSelection();
    draw();
    $('seats').querySelector('[data-seat="' + id + '"]')?.focus();
  }
  function reset(text, st) {
    clearInterval(clock); clock = null; hold = null; selected.clear(); paying = false; extendKey = null;
    $('countdown').hidden = true; $('extend').hidden = true; $('warning').textContent = ''; $('payArea').hidden = true; $('pay').disabled = true; $('release').disabled = true;
    showSelection(); say(text, st); loadMap();
  }
  const mmss = (s) => Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  const secondsLeft = () => Math.max(0, Math.round((Date.parse(hold.expiresAt) - Date.now()) / 1000));
  const canExtend = () => Boolean(hold && hold.extension && hold.extension.used < hold.extension.max);
  function tick() {
    if (paying) { $('countdown').textContent = t.confirming; return; }
    const left = secondsLeft();
    $('countdown').textContent = fill('timeLeft', { t: mmss(left) });
    if (left === 0) { reset(t.expired, 'EXPIRED'); return; }
    if (!warned && left <= warnAt) {
      warned = true;
      $('warning').textContent = fill(canExtend() ? 'warnExtend' : 'warnSoon', { t: mmss(left) });
    }
  }
  function startClock() {
    warned = false; warnAt = Math.min(60, Math.max(20, Math.round(secondsLeft() / 5)));
    $('countdown').hidden = false; $('extend').hidden = !canExtend(); $('extend').disabled = false;
    tick(); clearInterval(clock); clock = setInterval(tick, 1000);
  }
  // Each refusal in plain words; all of them are final for this hold, so the button goes.
  const refusals = { HOLD_EXTENSIONS_OFF: 'extendOff', HOLD_EXTENSION_LIMIT: 'extendUsedUp', HOLD_AT_LONGEST: 'extendLongest', HOLD_EXPIRED: 'extendTooLate', HOLD_NOT_ACTIVE: 'extendTooLate', PAYMENT_IN_PROGRESS: 'extendPaying' };
  $('extend').onclick = async () => {
    $('extend').disabled = true;
    // One key per intended extension, kept until the gateway answers it: a retry after a lost
    // answer replays the same extension instead of taking a second one.
    extendKey = extendKey || crypto.randomUUID();
    let r;
    try { r = await api('POST', '/_wr/events/' + eventId + '/holds/' + hold.holdId + '/extend', undefined, { 'idempotency-key': extendKey }); }
    catch { r = { ok: false, status: 0, data: {} }; }
    if (!hold) return;
    if (r.ok) {
      extendKey = null;
      hold = { ...hold, expiresAt: r.data.expiresAt, extension: r.data.extension };
      startClock();
      $('warning').textContent = fill('extended', { t: mmss(secondsLeft()) });
      return;
    }
    if (r.status >= 400 && r.status < 500) extendKey = null;
    const known = refusals[r.data.code];
    $('warning').textContent = known ? t[known] : fill('error', { detail: r.data.detail || r.data.title || r.status });
    $('extend').hidden = Boolean(known); $('extend').disabled = false;
  };
  $('hold').onclick = async () => {
    $('hold').disabled = true;
    const r = await api('POST', '/_wr/events/' + eventId + '/holds', { seatIds: [...selected] }, { 'idempotency-key': crypto.randomUUID() });
    if (!r.ok) { reset(fill('error', { detail: r.data.detail || r.data.title || r.status }), 'ERROR'); return; }
    hold = r.data;
    say(fill('held', { seats: hold.seatIds.join(', '), amount: formatMoney(hold.priceMinor, hold.currency) }), 'HELD');
    $('payArea').hidden = false; startClock();
    $('pay').disabled = false; $('release').disabled = false;
    showSelection(); loadMap();
  };
  function confirmOrder(order) {
    clearInterval(clock);
    $('c-order').textContent = order.orderId;
    $('c-seats').textContent = (order.seatIds || []).join(', ');
    $('c-amount').textContent = formatMoney(order.amountMinor, order.currency);
    $('c-tickets').textContent = (order.tickets || []).join(', ');
    $('shop').hidden = true; $('confirm').hidden = false; $('confirm').focus();
    history.replaceState(null, '', '?order=' + encodeURIComponent(order.orderId));
    showReturn(order);
  }
  // "Return my tickets": one idempotency key per intended return (a retried click is the same
  // return), a new one after each answer; the seats returned are no longer offered.
  let returning = null, returnKey = crypto.randomUUID();
  function showReturn(order) {
    returning = order;
    const box = $('r-seats');
    box.querySelectorAll('label').forEach((l) => l.remove());
    for (const id of order.seatIds || []) {
      const l = document.createElement('label');
      const c = document.createElement('input');
      c.type = 'checkbox'; c.value = id; c.checked = true;
      l.append(c, ' ' + id);
      box.append(l);
    }
  }
  $('returnForm').onsubmit = async (e) => {
    e.preventDefault();
    const boxes = [...$('r-seats').querySelectorAll('input:checked:not(:disabled)')];
    if (boxes.length === 0) { $('r-result').textContent = t.returnPick; return; }
    $('returnBtn').disabled = true;
    const r = await api('POST', '/orders/events/' + eventId + '/' + encodeURIComponent(returning.orderId) + '/return', { seatIds: boxes.map((b) => b.value), idempotencyKey: returnKey });
    $('returnBtn').disabled = false;
    if (r.status !== 503) returnKey = crypto.randomUUID();
    if (!r.ok) { $('r-result').textContent = t['r_' + r.data.code] || fill('returnFailed', { detail: r.data.detail || r.data.code || r.status }); return; }
    const ret = r.data.return;
    const amount = ret.seats.reduce((sum, x) => sum + x.faceMinor, 0);
    for (const b of boxes) { b.disabled = true; b.checked = false; }
    $('r-result').textContent = fill(ret.refund === 'at_once' ? 'returnedNow' : 'returnedLater', { seats: ret.seats.map((x) => x.seatId).join(', '), amount: formatMoney(amount, returning.currency) });
  };
  // A checkout answers PAID, FAILED or CANCELLED (final), or PROCESSING while the payment's outcome
  // is unknown: then the page says so and polls the order until it is final, never guessing.
  function show(order) {
    if (order.status === 'PAID') { say(order.message, 'PAID'); confirmOrder(order); return; }
    if (order.status === 'PROCESSING') { say(t.processing, 'PROCESSING'); $('pay').disabled = true; $('release').disabled = true; return; }
    if (order.status === 'FAILED' || order.status === 'CANCELLED') { reset(t[order.status === 'FAILED' ? 'failed' : 'cancelled'], order.status); return; }
    // The request itself failed: paying again is safe (one order per hold).
    paying = false; $('extend').hidden = !canExtend(); tick();
    say(fill('error', { detail: order.detail || order.title || '?' }), 'ERROR');
    $('pay').disabled = false;
  }
  async function follow(orderId, delay) {
    const r = await api('GET', '/events/' + eventId + '/orders/' + orderId);
    if (r.ok && r.data.status !== 'PROCESSING') { show(r.data); return; }
    setTimeout(() => follow(orderId, Math.min(delay * 1.5, 10000)), delay);
  }
  $('pay').onclick = async () => {
    $('pay').disabled = true; $('release').disabled = true; say(t.paying, 'PAYING');
    paying = true; $('extend').hidden = true; $('warning').textContent = ''; tick();
    const r = await api('POST', '/events/' + eventId + '/checkout', { holdId: hold.holdId, card: $('card').value });
    show(r.data);
    if (r.data.status === 'PROCESSING') setTimeout(() => follow(r.data.orderId, 1500), 1500);
  };
  $('release').onclick = async () => {
    await api('DELETE', '/_wr/events/' + eventId + '/holds/' + hold.holdId);
    reset(t.released, 'RELEASED');
  };
  const orderId = new URLSearchParams(location.search).get('order');
  if (orderId) api('GET', '/events/' + eventId + '/orders/' + encodeURIComponent(orderId)).then((r) => { if (r.ok && r.data.status === 'PAID') confirmOrder(r.data); });
  loadMap();
  setInterval(() => { if (!document.hidden && !$('shop').hidden) loadMap('default'); }, 5000);
})();
`;
