// The stub's sale page: seat map from the gateway, hold 1-6 seats, pay with the fake provider; an
// unknown payment outcome shows as "processing" and is polled until it is final.
import { formatMoney } from './money';

/**
 * Renders the sale page of an event for an admitted visitor. Prices are never constants of the
 * page: the gateway decides them (`seatPriceMinor`, `currency` of the event), so the page shows
 * the price and currency of the hold it placed (the hold answer carries `priceMinor` and
 * `currency`), and a seat price before holding only if the seat map carries one (`seatPriceMinor`
 * and `currency` fields, which it does). Amounts are formatted by `formatMoney`, whose
 * source is shipped to the browser, so the page and the shop's messages agree (JPY 5000, EUR 50.00).
 */
export function salePage(eventId: string, account: string): string {
  const id = JSON.stringify(eventId).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tickets - ${eventId}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0 auto; max-width: 60rem; padding: 1rem; }
  #map { display: grid; gap: .2rem; margin: 1rem 0; overflow-x: auto; padding-bottom: .5rem; }
  .row { display: flex; gap: .2rem; flex-wrap: nowrap; align-items: center; }
  .row b { flex: 0 0 2rem; font-size: .8rem; }
  button.seat { flex: 0 0 2rem; height: 1.7rem; padding: 0; font-size: .6rem; border: 1px solid #888; border-radius: .3rem; background: #dcfce7; color: #111; cursor: pointer; }
  button.seat[data-status="HELD"] { background: #fde68a; cursor: not-allowed; }
  button.seat[data-status="SOLD"] { background: #9ca3af; cursor: not-allowed; }
  button.seat.selected { background: #2563eb; color: white; }
  button.seat.mine { background: #f59e0b; color: #111; outline: 2px solid #2563eb; }
  .panel { position: sticky; bottom: 0; background: Canvas; border-top: 1px solid #8884; padding: .75rem 0; display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
  #message { min-height: 1.5rem; }
</style>
</head>
<body>
<h1>Choose your seats</h1>
<p>It is your turn (visitor <code>${account.slice(0, 8)}</code>). Pick 1 to 6 seats<span id="price"></span>, hold them, then pay: the price of your seats shows once they are held. A hold lasts a few minutes.</p>
<p><small>Test cards: <code>4242 4242 4242 4242</code> pays, <code>4000 0000 0000 0002</code> is declined, <code>4000 0000 0000 0119</code> loses the provider's answer (the page shows "processing" until the webhook arrives).</small></p>
<p><span style="background:#dcfce7;color:#111">&nbsp;free&nbsp;</span> <span style="background:#2563eb;color:#fff">&nbsp;selected&nbsp;</span> <span style="background:#f59e0b;color:#111">&nbsp;held for you&nbsp;</span> <span style="background:#fde68a;color:#111">&nbsp;held&nbsp;</span> <span style="background:#9ca3af;color:#111">&nbsp;sold&nbsp;</span></p>
<div id="map" aria-label="Seat map"></div>
<div class="panel">
  <span id="selection">No seats selected</span>
  <button id="hold" disabled>Hold seats</button>
  <label>Card <input id="card" value="4242 4242 4242 4242" size="19"></label>
  <button id="pay" disabled>Pay</button>
  <button id="release" disabled>Release</button>
  <span id="message" role="status" data-testid="message"></span>
</div>
<script>
(() => {
  const eventId = ${id};
  const formatMoney = ${formatMoney.toString()};
  // The price of one seat when the gateway tells it ({ minor, currency }), else null: never a guess.
  let price = null;
  const selected = new Set();
  let hold = null;
  const $ = (x) => document.getElementById(x);
  const say = (t) => { $('message').textContent = t; };
  async function api(method, path, body, headers = {}, cache = 'no-store') {
    const r = await fetch(path, { method, cache, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: body && JSON.stringify(body), credentials: 'same-origin' });
    const data = await r.json().catch(() => ({}));
    return { ok: r.ok, status: r.status, data };
  }
  // After the visitor's own action the map must be fresh; the periodic refresh may use the 1 s cache.
  async function loadMap(cache = 'no-store') {
    const r = await api('GET', '/_wr/events/' + eventId + '/seats', undefined, {}, cache);
    if (!r.ok) { say(r.data.detail || r.data.title || 'Could not load the seat map'); return; }
    if (Number.isInteger(r.data.seatPriceMinor) && typeof r.data.currency === 'string') {
      price = { minor: r.data.seatPriceMinor, currency: r.data.currency };
      $('price').textContent = ' at ' + formatMoney(price.minor, price.currency) + ' each';
    }
    const rows = new Map();
    for (const s of r.data.seats) {
      const row = s.id.match(/^[A-Z]+/)[0];
      if (!rows.has(row)) rows.set(row, []);
      rows.get(row).push(s);
    }
    const map = $('map');
    map.replaceChildren(...[...rows].map(([row, seats]) => {
      const div = document.createElement('div'); div.className = 'row';
      const label = document.createElement('b'); label.textContent = row; div.append(label);
      for (const s of seats) {
        const b = document.createElement('button');
        const mine = hold && hold.seatIds.includes(s.id);
        b.className = 'seat' + (mine ? ' mine' : selected.has(s.id) ? ' selected' : '');
        b.textContent = s.id; b.dataset.seat = s.id; b.dataset.status = s.status;
        b.disabled = s.status !== 'AVAILABLE' && !selected.has(s.id);
        b.onclick = () => toggle(s.id);
        div.append(b);
      }
      return div;
    }));
  }
  function showSelection() {
    const total = price ? ' (' + formatMoney(selected.size * price.minor, price.currency) + ')' : '';
    $('selection').textContent = selected.size ? 'Selected: ' + [...selected].join(', ') + total : 'No seats selected';
  }
  function toggle(id) {
    if (hold) return;
    if (selected.has(id)) selected.delete(id); else if (selected.size < 6) selected.add(id); else say('At most 6 seats');
    showSelection();
    $('hold').disabled = selected.size === 0;
    loadMap();
  }
  $('hold').onclick = async () => {
    const r = await api('POST', '/_wr/events/' + eventId + '/holds', { seatIds: [...selected] }, { 'idempotency-key': crypto.randomUUID() });
    if (!r.ok) { say(r.data.detail || r.data.title); selected.clear(); showSelection(); $('hold').disabled = true; loadMap(); return; }
    hold = r.data;
    say('Held ' + hold.seatIds.join(', ') + ' for ' + formatMoney(hold.priceMinor, hold.currency) + ' until ' + new Date(hold.expiresAt).toLocaleTimeString());
    $('hold').disabled = true; $('pay').disabled = false; $('release').disabled = false;
    loadMap();
  };
  // A checkout answers PAID, FAILED or CANCELLED (final), or PROCESSING while the payment's outcome
  // is unknown: then the page says so and polls the order until it is final, never guessing.
  function show(order) {
    say(order.message || order.detail || order.title || 'The payment could not be started. Try again.');
    $('message').dataset.status = order.status || 'ERROR';
    if (order.status === 'PROCESSING') { $('pay').disabled = true; $('release').disabled = true; return; }
    if (order.status) { hold = null; selected.clear(); showSelection(); $('pay').disabled = true; $('release').disabled = true; }
    else $('pay').disabled = false; // the request itself failed: paying again is safe (one order per hold)
    loadMap();
  }
  async function follow(orderId, delay) {
    const r = await api('GET', '/events/' + eventId + '/orders/' + orderId);
    if (r.ok && r.data.status !== 'PROCESSING') { show(r.data); return; }
    setTimeout(() => follow(orderId, Math.min(delay * 1.5, 10000)), delay);
  }
  $('pay').onclick = async () => {
    $('pay').disabled = true; $('release').disabled = true; say('Paying...');
    const r = await api('POST', '/events/' + eventId + '/checkout', { holdId: hold.holdId, card: $('card').value });
    show(r.data);
    if (r.data.status === 'PROCESSING') setTimeout(() => follow(r.data.orderId, 1500), 1500);
  };
  $('release').onclick = async () => {
    await api('DELETE', '/_wr/events/' + eventId + '/holds/' + hold.holdId);
    hold = null; selected.clear(); showSelection(); $('pay').disabled = true; $('release').disabled = true; say('Seats released');
    loadMap();
  };
  loadMap();
  setInterval(() => { if (!document.hidden) loadMap('default'); }, 5000);
})();
</script>
</body>
</html>`;
}
