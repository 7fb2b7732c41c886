// What the waiting page says about the waitlist: rendered on the server only (the page's script
// reloads the page when a poll brings another waitlist, and only counts an offer's time down),
// which keeps the script every waiting page carries small.
import type { WaitlistStatus } from '../lib/waitlist-status';
import type { Phase } from './waiting-view';
import type { Messages } from './waiting-messages';

/** The waitlist card's own style, sent only with the card (every waiting page carries the shared style). */
export const WAITLIST_STYLE =
  '.act {display: inline-block; margin: 0.5rem 0.25rem; padding: 0.55rem 1.1rem; border: 2px solid var(--accent); border-radius: 2rem; background: Canvas; color: CanvasText; font: inherit; font-weight: 650; text-decoration: none; cursor: pointer;}' +
  '#wl input {font: inherit; width: 4rem; padding: 0.4rem; margin: 0 0.4rem; border: 1px solid CanvasText; border-radius: 0.4rem; background: Canvas; color: CanvasText;}';

/** The waitlist's texts ('' hides one). */
export interface WaitlistView {
  /** Show the join form: the waitlist is open and the visitor is not waiting or offered. */
  join: boolean;
  /** The note above the form, the visitor's place, and how their last offer ended. */
  note: string;
  place: string;
  info: string;
  /** A live offer: its seats and price, the time left to take it, and the origin's page for it. */
  offer: string;
  left: string;
  takeUrl: string;
  takeElse: string;
}

/** Minutes and seconds (`12:34`) from `nowMs` to `deadlineIso`, never below `0:00`. */
function timeLeft(deadlineIso: string, nowMs: number): string {
  const s = Math.max(0, Math.round((Date.parse(deadlineIso) - nowMs) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The waitlist's texts for phase `phase` (nothing unless `sold_out`), in `lang`, at `nowMs`.
 * Prices are minor units of the offer's currency, shown with its own number of decimals (ISO 4217, through Intl).
 */
export function waitlistView(w: WaitlistStatus | null | undefined, phase: Phase, t: Messages, lang: string, nowMs: number): WaitlistView {
  const none: WaitlistView = { join: false, note: '', place: '', info: '', offer: '', left: '', takeUrl: '', takeElse: '' };
  if (phase !== 'sold_out' || !w) return none;
  const canJoin = w.open && w.state !== 'WAITING' && w.state !== 'OFFERED';
  const o = w.state === 'OFFERED' ? w.offer : null;
  const money = o && new Intl.NumberFormat(lang, { style: 'currency', currency: o.currency });
  const scale = money ? 10 ** (money.resolvedOptions().maximumFractionDigits ?? 2) : 1;
  return {
    join: canJoin,
    note: canJoin ? t.wlOpen : '',
    place:
      w.state === 'WAITING' && w.place !== null
        ? t.wlPlace.replace('{n}', w.place.toLocaleString(lang)).replace('{q}', (w.quantity ?? 1).toLocaleString(lang))
        : '',
    info: w.state === 'LAPSED' ? t.wlLapsed : w.state === 'TAKEN' ? t.wlTaken : '',
    offer:
      o && money
        ? t.wlOffer
            .replace('{seats}', o.seatIds.join(', '))
            .replace('{price}', money.format(o.priceMinor / scale))
            .replace('{fee}', money.format(o.feeMinor / scale))
        : '',
    left: o ? t.wlOfferLeft.replace('{t}', timeLeft(o.expiresAt, nowMs)) : '',
    takeUrl: o?.takeUrl ?? '',
    takeElse: o && !o.takeUrl ? t.wlTakeElse : '',
  };
}
