// What the waiting page says for a status: one pure function, run on the server and (as its source) in the browser.
import type { Messages } from './waiting-messages';

/**
 * The phase a visitor sees. Beside the queue states: `prequeue` (a lottery entrant before the
 * sale: the place is drawn at the start) and `drawing` (the sale has opened, the entrant's place
 * is not drawn yet).
 */
export type Phase = 'not_open' | 'prequeue' | 'drawing' | 'waiting' | 'paused' | 'closed' | 'sold_out' | 'admitted';

/** The part of a status body the page shows. */
export interface ViewStatus {
  state: 'not_open' | 'waiting' | 'admitted' | 'paused' | 'closed' | 'sold_out';
  policy: 'fifo' | 'random';
  position: number | null;
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  saleStartsAt: string | null;
}

/** Every text of the page for one status; empty strings are hidden. */
export interface WaitingView {
  phase: Phase;
  headline: string;
  sub: string;
  /** Label above the big figure, and the figure: the place (`#1,234`) or the countdown to the sale. */
  bigLabel: string;
  big: string;
  ahead: string;
  wait: string;
  /** Time left until the sale, when the big figure is the place. */
  countdown: string;
  /** Current step of Sale opens (or Draw) / In line / Your turn: 0-2, or -1 when the sale is over. */
  step: number;
}

/**
 * The page's texts for `s`, in `lang`, at `nowMs`. Self-contained on purpose (no imports, no
 * outer names, no named inner functions, which a bundler's keep-names pass would wrap): the page
 * ships this function's source as its script, so the server's first render and every poll's
 * render are the same code and cannot drift apart.
 *
 * @param s the status (the JSON of `/_wr/events/{id}/status`)
 * @param t the language's messages
 * @param lang BCP 47 tag for number and date formats
 * @param nowMs the clock, epoch ms (the countdown's reference)
 */
export function waitingView(s: ViewStatus, t: Messages, lang: string, nowMs: number): WaitingView {
  const lottery = s.policy === 'random' && s.position === null;
  const phase: Phase = lottery && s.state === 'not_open' ? 'prequeue' : lottery && s.state === 'waiting' ? 'drawing' : s.state;
  const startMs = s.saleStartsAt ? Date.parse(s.saleStartsAt) : NaN;
  const when = Number.isFinite(startMs)
    ? new Date(startMs).toLocaleString(lang, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })
    : '';
  const left = Math.max(0, Math.round((startMs - nowMs) / 1000));
  const countdown = Number.isFinite(startMs)
    ? (left >= 3600 ? Math.floor(left / 3600) + ':' + String(Math.floor(left / 60) % 60).padStart(2, '0') : String(Math.floor(left / 60))) +
      ':' +
      String(left % 60).padStart(2, '0')
    : '';
  const inLine = s.position !== null && (phase === 'waiting' || phase === 'not_open' || phase === 'paused');
  const aheadN = s.ahead ?? 0;
  let wait = '';
  if (phase === 'paused') wait = t.waitPaused;
  else if (inLine && (phase === 'waiting' || phase === 'not_open')) {
    const sec = s.estimatedWaitSeconds;
    if (sec === null) wait = t.waitUnknown;
    else if (sec < 60) wait = t.waitUnderMinute;
    else {
      // A range, never a promise: the rate moves with the site's health. The time until the sale
      // (or lane) opens is known, so only the queue's part widens ("about 3-7 min" for the
      // first place of a lane that opened in 4:46).
      const fixed = phase === 'not_open' && Number.isFinite(startMs) ? Math.min(sec, left) : 0;
      const lo = Math.max(1, Math.floor((fixed + (sec - fixed) * 0.8) / 60));
      const hi = Math.ceil((fixed + (sec - fixed) * 1.25) / 60);
      wait = hi > lo ? t.waitRange.replace('{lo}', String(lo)).replace('{hi}', String(hi)) : t.waitAbout.replace('{lo}', String(lo));
    }
  }
  const startsSoon = (phase === 'prequeue' || (phase === 'not_open' && !inLine)) && countdown !== '';
  return {
    phase,
    headline: t[('h_' + phase) as keyof Messages],
    sub:
      phase === 'not_open' && when
        ? t.s_not_open.replace('{t}', when)
        : phase === 'prequeue'
          ? t.s_prequeue.replace('{t}', when || '-')
          : phase === 'not_open'
            ? t.s_waiting
            : t[('s_' + phase) as keyof Messages],
    bigLabel: startsSoon ? t.startsIn : inLine || phase === 'drawing' ? t.placeLabel : '',
    big: startsSoon ? countdown : inLine ? '#' + (s.position ?? 0).toLocaleString(lang) : phase === 'drawing' ? '…' : '',
    ahead: !inLine ? '' : aheadN === 0 ? t.next : aheadN === 1 ? t.aheadOne : t.ahead.replace('{n}', aheadN.toLocaleString(lang)),
    wait,
    countdown: inLine && phase === 'not_open' && countdown !== '' ? t.countdown.replace('{t}', countdown) : '',
    step: phase === 'admitted' ? 2 : phase === 'waiting' || phase === 'paused' ? 1 : phase === 'closed' || phase === 'sold_out' ? -1 : 0,
  };
}
