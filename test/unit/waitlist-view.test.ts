// The waiting page's waitlist words (waitlistView): only once sold out, the join form only when it
// can be used, an offer's seats, price, fee and time left in every page language.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGS } from '../../contracts/i18n';
import type { WaitlistStatus } from '../../src/lib/waitlist-status';
import { MESSAGES } from '../../src/pages/waiting-messages';
import type { Phase } from '../../src/pages/waiting-view';
import { waitlistView } from '../../src/pages/waitlist-view';

const NOW = Date.parse('2027-05-01T12:00:00Z');
const offer = {
  holdId: 'h1',
  seatIds: ['A1', 'A2'],
  priceMinor: 10_500,
  feeMinor: 500,
  currency: 'EUR',
  expiresAt: new Date(NOW + 754_000).toISOString(),
  takeUrl: '/offers?hold=h1',
};
const entry = (state: WaitlistStatus['state'], more: Partial<WaitlistStatus> = {}): WaitlistStatus => ({
  open: true,
  state,
  place: state === 'WAITING' ? 3 : null,
  quantity: state ? 2 : null,
  offer: state === 'OFFERED' ? offer : null,
  ...more,
});

describe('the waitlist on the waiting page', () => {
  it('shows nothing of it unless sold out, and the form only while the waitlist is open and the visitor not in it', () => {
    const phases = fc.constantFrom<Phase>('not_open', 'prequeue', 'drawing', 'waiting', 'paused', 'closed', 'sold_out', 'admitted');
    const states = fc.constantFrom<WaitlistStatus['state']>(null, 'WAITING', 'OFFERED', 'TAKEN', 'LAPSED');
    fc.assert(
      fc.property(phases, fc.boolean(), states, fc.boolean(), (phase, open, state, withOffer) => {
        const w = entry(state, { open, offer: withOffer ? offer : null });
        const v = waitlistView(w, phase, MESSAGES.en, 'en', NOW);
        const shown = v.join || [v.note, v.place, v.info, v.offer, v.left, v.takeUrl, v.takeElse].some((x) => x !== '');
        if (phase !== 'sold_out') expect(shown).toBe(false);
        expect(v.join).toBe(phase === 'sold_out' && open && state !== 'WAITING' && state !== 'OFFERED');
        expect(v.offer !== '').toBe(phase === 'sold_out' && state === 'OFFERED' && withOffer);
      }),
    );
  });

  it('says the place, and an offer with its seats, price, fee, time left and link, in every language', () => {
    for (const lang of LANGS) {
      const t = MESSAGES[lang];
      const waiting = waitlistView(entry('WAITING'), 'sold_out', t, lang, NOW);
      expect(waiting.place, lang).toContain('3');
      expect(waiting.join).toBe(false);
      const v = waitlistView(entry('OFFERED'), 'sold_out', t, lang, NOW);
      const money = new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' });
      expect(v.offer, lang).toContain('A1, A2');
      expect(v.offer, lang).toContain(money.format(105));
      expect(v.offer, lang).toContain(money.format(5));
      expect(v.left, lang).toContain('12:34');
      expect({ url: v.takeUrl, otherwise: v.takeElse }).toEqual({ url: '/offers?hold=h1', otherwise: '' });
      // Past the deadline (before the next poll says it lapsed) the time left stays at 0:00.
      expect(waitlistView(entry('OFFERED'), 'sold_out', t, lang, NOW + 900_000).left, lang).toContain('0:00');
      const lapsed = waitlistView(entry('LAPSED'), 'sold_out', t, lang, NOW);
      expect({ info: lapsed.info, join: lapsed.join }).toEqual({ info: t.wlLapsed, join: true });
    }
  });

  it('prices a currency without minor units in whole amounts, and says so when the organizer set no offer page', () => {
    const w = entry('OFFERED', { offer: { ...offer, currency: 'JPY', priceMinor: 8800, feeMinor: 300, takeUrl: null } });
    const v = waitlistView(w, 'sold_out', MESSAGES.ja, 'ja', NOW);
    expect(v.offer).toContain(new Intl.NumberFormat('ja', { style: 'currency', currency: 'JPY' }).format(8800));
    expect({ url: v.takeUrl, otherwise: v.takeElse }).toEqual({ url: '', otherwise: MESSAGES.ja.wlTakeElse });
  });
});
