// A sell-out, the waitlist and a resale in Chromium over real HTTP (gateway + origin stub): a buyer
// takes both seats, a visitor on the sold-out page joins the waitlist with the page's form, the
// buyer returns a seat from the stub's confirmation page, the offer appears on the waiting page
// with its price and deadline, the visitor takes it on the stub's offer page, and the seat is sold
// once (consistency 0). At 320 px (no sideways scrolling) and 1280 px; axe finds nothing serious.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { getEvent, putEvent } from '../../scripts/lib/dev-server.ts';
import { DESKTOP, scrollsSideways, shot } from './chromium.ts';
import { axeLog } from './axe.ts';
import { browserStage } from './stage.ts';

const axe = axeLog();
const stage = browserStage('wr-waitlist-e2e-', () => axe.print());
/** The narrowest phone the pages must fit (WCAG 2.2 SC 1.4.10 Reflow). */
const NARROW = { width: 320, height: 720 } as const;

interface EventRead {
  inventory: {
    seats: { sold: number; held: number };
    consistency: Record<string, number>;
    resale?: { returns: number; offersMade: number; offersTaken: number; offersLapsed: number; resoldSeats: number; refunds: number };
  };
}

async function newPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  // bypassCSP: axe runs as an injected script, which the gateway's CSP (scripts by hash) would block.
  const ctx = await browser.newContext({ viewport, locale: 'en-US', bypassCSP: true });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  (page as Page & { errors?: string[] }).errors = errors;
  return page;
}

describe('waitlist and resale in the browser', () => {
  it('sells out, joins the waitlist from the page, returns a seat from the confirmation page, shows and takes the offer, resells once', async () => {
    const eventId = `e2e-wl-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Resale night',
      releaseRatePerMinute: 600,
      minReleaseRatePerMinute: 600,
      maxActiveVisitors: 100,
      seats: 2,
      seatsPerRow: 2,
      resale: {
        returnDeadline: new Date(Date.now() + 86_400_000).toISOString(),
        offerSeconds: 600,
        feeMinor: 250,
        offerPath: `/offers/events/${eventId}`,
      },
    });
    const url = `${stage.server.url}/events/${eventId}/`;

    // The buyer takes both seats and pays: sold out.
    const buyer = await newPage(stage.browser, DESKTOP);
    await buyer.goto(url);
    await buyer.waitForSelector('button.seat', { timeout: 60_000 });
    for (const seat of await buyer.locator('button.seat:not([disabled])').all()) await seat.click();
    await buyer.click('#hold');
    await expect.poll(() => buyer.textContent('[data-testid="countdown"]')).toMatch(/\d:\d\d/);
    await buyer.click('#pay');
    await buyer.waitForSelector('[data-testid="confirm"]:not([hidden])', { timeout: 20_000 });
    expect(await buyer.textContent('[data-testid="order-seats"]')).toBe('A1, A2');

    // A visitor at 320 px: the sold-out page with the join form.
    const waiter = await newPage(stage.browser, NARROW);
    await expect
      .poll(
        async () => {
          await waiter.goto(url);
          return waiter.textContent('[data-testid="headline"]');
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe('Sold out');
    await waiter.waitForSelector('[data-testid="wlForm"]');
    expect(await scrollsSideways(waiter)).toBe(false);
    await shot(waiter, 'waitlist-join-en-320');
    expect(await axe.violations(waiter, 'waiting page, sold out with the waitlist form (en, 320 px)')).toEqual([]);
    await waiter.fill('#wlQty', '1');
    await waiter.click('[data-testid="wlForm"] button');
    await expect.poll(() => waiter.textContent('[data-testid="wlPlace"]')).toBe('You are #1 on the waitlist. Seats asked for: 1.');
    expect(waiter.url()).toBe(url);
    await shot(waiter, 'waitlist-place-en-320');

    // The buyer returns A2 from the confirmation page; the refund waits for the resale.
    await buyer.uncheck('#r-seats input[value="A1"]');
    await buyer.click('[data-testid="return-button"]');
    await expect
      .poll(() => buyer.textContent('[data-testid="return-result"]'))
      .toBe('Returned: A2. You are refunded EUR 50.00 when they are resold.');
    await shot(buyer, 'return-confirmation-en-1280');
    expect(await axe.violations(buyer, 'confirmation page with the return (en, desktop)')).toEqual([]);
    // The offer appears on the waiting page by itself (the poll), with its price, fee and deadline.
    await expect
      .poll(() => waiter.textContent('[data-testid="wlOffer"]').catch(() => null), { timeout: 30_000 })
      .toBe('Returned seats are held for you: A2. Price €52.50, including a fee of €2.50.');
    const left = await waiter.textContent('[data-testid="wlLeft"]');
    expect(left).toMatch(/^Take them within (9|10):\d\d\.$/);
    await expect.poll(() => waiter.textContent('[data-testid="wlLeft"]'), { timeout: 5_000 }).not.toBe(left);
    expect(await scrollsSideways(waiter)).toBe(false);
    await shot(waiter, 'waitlist-offer-en-320');
    expect(await axe.violations(waiter, 'waiting page with an offer (en, 320 px)')).toEqual([]);
    const wide = await newPage(stage.browser, DESKTOP);
    await wide.context().addCookies(await waiter.context().cookies());
    await wide.goto(url);
    await wide.waitForSelector('[data-testid="wlOffer"]');
    await shot(wide, 'waitlist-offer-en-1280');
    expect(await axe.violations(wide, 'waiting page with an offer (en, desktop)')).toEqual([]);

    // Taken on the origin's page through the link: accepted and paid.
    await waiter.click('[data-testid="wlTake"]');
    await waiter.click('[data-testid="take-offer"]');
    await expect.poll(() => waiter.textContent('[data-testid="offer-result"]')).toMatch(/^Paid: order .+, seats A2\.$/);
    await shot(waiter, 'waitlist-taken-en-320');

    // Sold once: every consistency count 0, one return, one offer made and taken, one seat resold and refunded.
    await expect
      .poll(async () => (await getEvent<EventRead>(stage.server, eventId)).inventory.resale, { timeout: 10_000 })
      .toMatchObject({ returns: 1, offersMade: 1, offersTaken: 1, offersLapsed: 0, resoldSeats: 1, refunds: 1 });
    const read = await getEvent<EventRead>(stage.server, eventId);
    expect(Object.values(read.inventory.consistency).every((n) => n === 0)).toBe(true);
    expect(read.inventory.seats).toMatchObject({ sold: 2, held: 0 });
    // Returning the resold seat again (a new return) is refused in the buyer's words.
    await buyer.check('#r-seats input[value="A1"]');
    await buyer.evaluate(() => ((document.querySelector('#r-seats input[value="A2"]') as HTMLInputElement).disabled = false));
    await buyer.uncheck('#r-seats input[value="A1"]');
    await buyer.check('#r-seats input[value="A2"]');
    await buyer.click('[data-testid="return-button"]');
    await expect.poll(() => buyer.textContent('[data-testid="return-result"]')).toBe('These tickets were already returned.');

    for (const p of [buyer, waiter, wide]) expect((p as Page & { errors?: string[] }).errors).toEqual([]);
  });
});
