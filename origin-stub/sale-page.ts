// The stub's sale page: a stage and sections, then one section's seats; hold 1-6 seats with a live
// countdown, a spoken warning and "more time" before it runs out, pay with the fake provider, and a confirmation
// of the order, in every language of contracts/i18n.ts.
import { requestLang, type Lang } from '../contracts/i18n';
import { LANGS, LANG_NAMES } from '../contracts/i18n';
import { signOriginRequest } from '../origin-sdk/src/index';
import { SALE_MESSAGES } from './sale-messages';
import { SALE_SCRIPT } from './sale-script';

/** Columns of one section at most: 9 seats of 2 rem fit a 390 px phone with the row label. */
const SECTION_MAX_SEATS = 9;
/** Rows of one section at most. */
const SECTION_MAX_ROWS = 10;

/** What the page needs about the visitor and the event. */
export interface SalePageInput {
  eventId: string;
  account: string;
  /** The organizer's event name (escaped here); the id when the gateway did not say. */
  eventName: string;
  lang: Lang;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
/** JSON safe inside a <script> element. */
const embed = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The language of a sale page request: `?lang=`, the `wr_lang` cookie the waiting page's switch
 * set (the gateway forwards it), else Accept-Language.
 */
export function saleLang(request: Request): Lang {
  return requestLang({
    query: new URL(request.url).searchParams.get('lang') ?? undefined,
    cookie: request.headers.get('cookie') ?? undefined,
    acceptLanguage: request.headers.get('accept-language') ?? undefined,
  }).lang;
}

/**
 * The event's name from the gateway's origin API (`GET /_wr/origin/events/{eventId}`, HMAC-signed
 * like every origin call), or null when the gateway does not answer in time.
 */
async function fetchEventName(gateway: Fetcher, secret: string, eventId: string, nowMs: number): Promise<string | null> {
  const path = `/_wr/origin/events/${eventId}`;
  try {
    const res = await gateway.fetch(`https://gateway${path}`, {
      headers: await signOriginRequest(secret, 'GET', path, '', nowMs),
      signal: AbortSignal.timeout(3_000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { name?: unknown };
    return typeof body.name === 'string' ? body.name : null;
  } catch {
    return null;
  }
}

/** The sale page asks the gateway for the event's name again after this long, ms. */
const EVENT_NAME_TTL_MS = 60_000;

/**
 * The event name lookup of one Shop object: `fetchEventName`, kept for EVENT_NAME_TTL_MS per
 * event; the event id while the gateway does not answer (asked again on the next page).
 */
export function eventNames(env: Pick<OriginEnv, 'GATEWAY' | 'ORIGIN_HMAC_SECRET'>): (eventId: string) => Promise<string> {
  const known = new Map<string, { at: number; name: string }>();
  return async (eventId) => {
    const now = Date.now();
    const hit = known.get(eventId);
    if (hit && now - hit.at < EVENT_NAME_TTL_MS) return hit.name;
    const name = await fetchEventName(env.GATEWAY, env.ORIGIN_HMAC_SECRET, eventId, now);
    if (name !== null) known.set(eventId, { at: now, name });
    return name ?? eventId;
  };
}

/**
 * Renders the sale page of an event for an admitted visitor. Prices are never constants of the
 * page: the gateway decides them (`seatPriceMinor`, `currency` of the event), so the page shows
 * the price and currency of the hold it placed (the hold answer carries `priceMinor` and
 * `currency`), and a seat price before holding only if the seat map carries one. Amounts are
 * formatted by `formatMoney`, whose source is shipped to the browser, so the page and the shop's
 * messages agree (JPY 5000, EUR 50.00).
 *
 * The map is section-first: the stage and the venue's sections (at most SECTION_MAX_ROWS rows of
 * SECTION_MAX_SEATS seats: left, centre and right of each block of rows) with their free seats,
 * then the chosen section's seats, as buttons that say row, number and state to a screen reader.
 * It fits a 390 px phone without sideways scrolling. A hold counts down; a set time before its end
 * (20 % of the hold's time, 20-60 s) an assertive live region warns, offering "more time" where the
 * event allows extensions (the hold's answer says so), and explains a refused extension in plain
 * words; while a payment is confirmed the countdown gives way to a note that the buyer keeps the
 * seats and is not cut off. After paying, the page shows the order (also
 * at `?order={orderId}`, for this account only).
 */
export function salePage(input: SalePageInput): string {
  const t = SALE_MESSAGES[input.lang];
  const name = escapeHtml(input.eventName);
  const data = {
    eventId: input.eventId,
    eventName: input.eventName,
    lang: input.lang,
    t,
    maxSeats: SECTION_MAX_SEATS,
    maxRows: SECTION_MAX_ROWS,
  };
  const card = (n: string) => `<code>${n}</code>`;
  return `<!doctype html>
<html lang="${input.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} - ${escapeHtml(t.title)}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --line: color-mix(in srgb, CanvasText 16%, transparent); --free: #16a34a; --sel: #2563eb; --mine: #f59e0b; --taken: #9ca3af; line-height: 1.45; }
  body { margin: 0 auto; max-width: 64rem; padding: .75rem 1rem 0; }
  header { display: flex; align-items: center; gap: 1rem; }
  h1 { font-size: 1.45rem; margin: .3rem 0; overflow-wrap: anywhere; }
  details.lang { margin-left: auto; position: relative; }
  details.lang summary { cursor: pointer; padding: .35rem .7rem; border: 1px solid var(--line); border-radius: 2rem; white-space: nowrap; }
  details.lang ul { position: absolute; right: 0; z-index: 2; list-style: none; margin: .3rem 0 0; padding: .3rem; background: Canvas; border: 1px solid var(--line); border-radius: .6rem; }
  details.lang a { display: block; padding: .4rem .7rem; color: inherit; text-decoration: none; white-space: nowrap; }
  .lead { margin: .3rem 0 .6rem; }
  .cards { font-size: .85rem; opacity: .85; }
  .layout { display: grid; gap: 1rem; grid-template-columns: 1fr; }
  @media (min-width: 56rem) { .layout { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); align-items: start; } }
  .stage { text-align: center; font-weight: 700; letter-spacing: .2em; text-transform: uppercase; padding: .5rem; border-radius: 0 0 50% 50% / 0 0 100% 100%; background: color-mix(in srgb, CanvasText 12%, transparent); margin-bottom: .6rem; }
  .venue h2, #section h2 { font-size: 1rem; margin: .2rem 0 .5rem; }
  #sections { display: grid; gap: .4rem; }
  #sections button { position: relative; font: inherit; font-size: .85rem; text-align: center; padding: .35rem .4rem; border: 1px solid var(--line); border-radius: .5rem; cursor: pointer; color: CanvasText; background: color-mix(in srgb, var(--free) calc(var(--f) * 30%), Canvas); }
  #sections button b { display: block; }
  #sections button[aria-pressed="true"] { outline: 3px solid var(--sel); outline-offset: 1px; }
  #seats { display: grid; gap: .25rem; justify-content: center; }
  .row { display: flex; gap: .25rem; align-items: center; }
  .row b { flex: 0 0 2.2rem; font-size: .8rem; text-align: right; padding-right: .3rem; }
  button.seat { flex: 0 0 2rem; width: 2rem; height: 2rem; padding: 0; font: inherit; font-size: .75rem; border: 1px solid #0003; border-radius: .4rem .4rem .2rem .2rem; background: #dcfce7; color: #14532d; cursor: pointer; }
  @media (min-width: 56rem) { button.seat { flex-basis: 2.4rem; width: 2.4rem; height: 2.4rem; font-size: .85rem; } }
  button.seat:focus-visible, #sections button:focus-visible { outline: 3px solid var(--sel); outline-offset: 2px; }
  button.seat[data-status="HELD"], button.seat[data-status="SOLD"] { background: var(--taken); color: #1f2937; cursor: not-allowed; opacity: .55; }
  button.seat.selected { background: var(--sel); color: #fff; }
  button.seat.mine { background: var(--mine); color: #111; opacity: 1; }
  .legend { display: flex; flex-wrap: wrap; gap: .3rem 1rem; list-style: none; padding: 0; margin: .6rem 0; font-size: .85rem; }
  .legend i { display: inline-block; width: .9rem; height: .9rem; border-radius: .2rem; vertical-align: -.15rem; margin-right: .3rem; border: 1px solid #0003; }
  .panel { position: sticky; bottom: 0; background: Canvas; border-top: 1px solid var(--line); padding: .6rem 0 .8rem; margin-top: .8rem; display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
  .panel #selection { flex: 1 1 100%; font-weight: 600; }
  .panel button, .panel input { font: inherit; padding: .45rem .8rem; }
  .panel .pay { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
  .panel label { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
  .panel input { width: 12.5rem; max-width: 100%; }
  #countdown { font-variant-numeric: tabular-nums; font-weight: 700; color: #b45309; }
  #message { flex: 1 1 100%; min-height: 1.5rem; }
  #warning { flex: 1 1 100%; font-weight: 600; }
  #warning:empty { display: none; }
  #confirm { max-width: 34rem; margin: 1.5rem auto; border: 1px solid var(--line); border-radius: 1rem; padding: 1.25rem 1.5rem; }
  #confirm h2 { font-size: 1.6rem; margin: 0 0 .4rem; text-wrap: balance; }
  p, h1, h2 { text-wrap: pretty; }
  :lang(ja) { word-break: auto-phrase; }
  :lang(ko) { word-break: keep-all; }
  #confirm dl { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; }
  #confirm dt { opacity: .75; }
  #confirm dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
  #returnForm { border-top: 1px solid var(--line); margin-top: 1rem; }
  #returnForm h3 { font-size: 1.1rem; margin: .8rem 0 .2rem; }
  #r-seats { border: 0; padding: 0; margin: 0 0 .6rem; display: flex; flex-wrap: wrap; gap: .3rem 1rem; }
  #returnForm button { font: inherit; padding: .45rem .8rem; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<header>
  <h1 data-testid="event-name">${name}</h1>
  <details class="lang">
    <summary aria-label="${escapeHtml(t.lang)}: ${LANG_NAMES[input.lang]}">${LANG_NAMES[input.lang]}</summary>
    <ul>${LANGS.map((l) => `<li><a href="?lang=${l}" hreflang="${l}" lang="${l}">${LANG_NAMES[l]}</a></li>`).join('')}</ul>
  </details>
</header>
<main>
<div id="shop">
  <p class="lead">${escapeHtml(t.lead)} <b id="price"></b></p>
  <details class="cards"><summary>${escapeHtml(t.testCards)}</summary><p>${escapeHtml(t.testCardsText)
    .replace('{ok}', card('4242 4242 4242 4242'))
    .replace('{declined}', card('4000 0000 0000 0002'))
    .replace('{lost}', card('4000 0000 0000 0119'))}</p></details>
  <div class="layout">
    <section class="venue" aria-labelledby="venue-h">
      <div class="stage">${escapeHtml(t.stage)}</div>
      <h2 id="venue-h">${escapeHtml(t.sections)}</h2>
      <div id="sections"></div>
    </section>
    <section id="section" aria-labelledby="section-h">
      <h2 id="section-h"></h2>
      <div id="seats" role="group" aria-labelledby="section-h"></div>
      <ul class="legend">
        <li><i style="background:#dcfce7"></i>${escapeHtml(t.legendFree)}</li>
        <li><i style="background:var(--sel)"></i>${escapeHtml(t.legendSelected)}</li>
        <li><i style="background:var(--mine)"></i>${escapeHtml(t.legendMine)}</li>
        <li><i style="background:var(--taken)"></i>${escapeHtml(t.legendTaken)}</li>
      </ul>
    </section>
  </div>
  <div class="panel">
    <span id="selection" aria-live="polite">${escapeHtml(t.noneSelected)}</span>
    <button id="hold" disabled>${escapeHtml(t.hold)}</button>
    <span id="countdown" data-testid="countdown" hidden></span>
    <button id="extend" data-testid="extend" hidden>${escapeHtml(t.extend)}</button>
    <span id="warning" data-testid="hold-warning" aria-live="assertive"></span>
    <span id="payArea" class="pay" hidden>
      <label>${escapeHtml(t.card)} <input id="card" value="4242 4242 4242 4242" inputmode="numeric" autocomplete="off"></label>
      <button id="pay" disabled>${escapeHtml(t.pay)}</button>
      <button id="release" disabled>${escapeHtml(t.release)}</button>
    </span>
    <span id="message" role="status" data-testid="message"></span>
  </div>
</div>
<section id="confirm" data-testid="confirm" hidden aria-labelledby="confirm-h" tabindex="-1">
  <h2 id="confirm-h">${escapeHtml(t.confirmTitle)}</h2>
  <p>${escapeHtml(t.confirmLead)}</p>
  <dl>
    <dt>${escapeHtml(t.event)}</dt><dd>${name}</dd>
    <dt>${escapeHtml(t.order)}</dt><dd id="c-order" data-testid="order-id"></dd>
    <dt>${escapeHtml(t.seats)}</dt><dd id="c-seats" data-testid="order-seats"></dd>
    <dt>${escapeHtml(t.paid)}</dt><dd id="c-amount" data-testid="order-amount"></dd>
    <dt>${escapeHtml(t.tickets)}</dt><dd id="c-tickets"></dd>
  </dl>
  <form id="returnForm" data-testid="return-form" aria-labelledby="return-h">
    <h3 id="return-h">${escapeHtml(t.returnTitle)}</h3>
    <p>${escapeHtml(t.returnLead)}</p>
    <fieldset id="r-seats"><legend class="sr">${escapeHtml(t.seats)}</legend></fieldset>
    <button id="returnBtn" type="submit" data-testid="return-button">${escapeHtml(t.returnButton)}</button>
    <p id="r-result" role="status" data-testid="return-result"></p>
  </form>
  <p><a id="again" href="?">${escapeHtml(t.again)}</a></p>
</section>
</main>
<script type="application/json" id="sale-data">${embed(data)}</script>
<script>
${SALE_SCRIPT}
</script>
</body>
</html>`;
}
