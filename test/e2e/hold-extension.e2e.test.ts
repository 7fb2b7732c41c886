// The sale page's timing in Chromium: the countdown, the spoken warning before a hold runs out,
// "More time" moving the deadline, a refusal in plain words, and no countdown while paying.
import { describe, expect, it } from 'vitest';
import { putEvent } from '../../scripts/lib/dev-server.ts';
import { browserStage } from './stage.ts';

const stage = browserStage('wr-e2e-extend-');

describe('sale page: time to finish', () => {
  it('warns in a live region before the hold ends, extends it once, then offers no more, and pays', async () => {
    const eventId = `e2e-ext-${Date.now().toString(36)}`;
    // A 24 s hold is warned about 20 s before its end: the warning comes 4 s after the hold.
    await putEvent(stage.server, eventId, {
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 100,
      seats: 20,
      seatsPerRow: 10,
      holdTtlSeconds: 24,
      holdExtension: { maxExtensions: 1, extensionSeconds: 60, maxTotalSeconds: 600 },
    });
    const page = await (await stage.browser.newContext()).newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await page.waitForSelector('button.seat[data-seat="A1"]', { timeout: 60_000 });
    await page.click('button.seat[data-seat="A1"]');
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held A1');
    expect(await page.textContent('[data-testid="countdown"]')).toMatch(/^0:2\d left to pay$/);
    expect(await page.getAttribute('[data-testid="hold-warning"]', 'aria-live')).toBe('assertive');
    expect(await page.isVisible('[data-testid="extend"]')).toBe(true);
    await expect
      .poll(() => page.textContent('[data-testid="hold-warning"]'), { timeout: 15_000 })
      .toMatch(/^Your hold ends in 0:[12]\d\. Press "More time" if you need longer\.$/);

    await page.click('[data-testid="extend"]');
    await expect.poll(() => page.textContent('[data-testid="hold-warning"]')).toMatch(/^Your hold was extended: 1:[12]\d left\.$/);
    expect(await page.textContent('[data-testid="countdown"]')).toMatch(/^1:[12]\d left to pay$/);
    // Its one extension used: the button is gone.
    expect(await page.isVisible('[data-testid="extend"]')).toBe(false);

    await page.click('#pay');
    await expect.poll(() => page.textContent('#message'), { timeout: 15_000 }).toContain('Paid EUR 50.00 for A1');
  });

  it('explains a refused extension in plain words and hides the button', async () => {
    const eventId = `e2e-ext-${Date.now().toString(36)}b`;
    await putEvent(stage.server, eventId, {
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 100,
      seats: 20,
      seatsPerRow: 10,
      holdTtlSeconds: 120,
      holdExtension: { maxExtensions: 2, extensionSeconds: 60, maxTotalSeconds: 150 },
    });
    const page = await (await stage.browser.newContext()).newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await page.waitForSelector('button.seat[data-seat="B2"]', { timeout: 60_000 });
    await page.click('button.seat[data-seat="B2"]');
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held B2');
    // 120 s + 60 s would pass the 150 s cap: the first extension stops at it, the second is refused.
    await page.click('[data-testid="extend"]');
    await expect.poll(() => page.textContent('[data-testid="hold-warning"]')).toMatch(/^Your hold was extended: 2:[0-3]\d left\.$/);
    await page.click('[data-testid="extend"]');
    await expect.poll(() => page.textContent('[data-testid="hold-warning"]')).toBe('Your hold already lasts as long as this sale allows.');
    expect(await page.isVisible('[data-testid="extend"]')).toBe(false);
    // Paying: the countdown gives way to the note that the buyer is not cut off.
    await page.fill('#card', '4000 0000 0000 0119');
    await page.click('#pay');
    await expect
      .poll(() => page.textContent('[data-testid="countdown"]'), { timeout: 15_000 })
      .toBe('Your payment is being confirmed. Your seats stay yours and this page will not time out.');
  });
});
