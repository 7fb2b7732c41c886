// The organizer console in Chromium against `npm start`: an event copied and saved through the
// editor (the API's messages shown), changes scheduled from the form onto the timeline, the
// history chart over 24 hours; screenshots at desktop and phone width (test-results/shots/).
import { describe, expect, it } from 'vitest';
import { getEvent, putEvent } from '../../scripts/lib/dev-server.ts';
import { DESKTOP, PHONE, scrollsSideways, shot } from './chromium.ts';
import { browserStage } from './stage.ts';

const stage = browserStage('wr-console-');
const iso = (ms: number) => new Date(ms).toISOString();

async function organizer(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stage.server.url}/_wr/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${stage.server.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('the organizer console', () => {
  it('copies and saves an event, schedules changes onto the timeline and shows the history, at desktop and phone width', async () => {
    const eventId = 'spring-tour';
    const start = Date.now() + 30 * 60_000;
    await putEvent(stage.server, eventId, {
      name: 'Spring tour',
      saleStartsAt: iso(start),
      releaseRatePerMinute: 600,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 2000,
      tiers: [{ tier: 'standing', capacity: 5000, priceMinor: 4500 }],
      page: { message: 'Doors open at 10:00' },
    });
    expect(
      (
        await organizer('PUT', `/events/${eventId}/schedule/second-wave`, {
          reason: 'second wave',
          startsAt: iso(start + 15 * 60_000),
          endsAt: iso(start + 60 * 60_000),
          releaseRatePerMinute: 1200,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await organizer('PUT', `/events/${eventId}/schedule/psp-upgrade`, {
          reason: 'payment provider upgrade',
          startsAt: iso(start + 120 * 60_000),
          endsAt: iso(start + 180 * 60_000),
          method: 'reject',
          page: { message: 'Back at 15:00' },
        })
      ).status,
    ).toBe(201);

    const context = await stage.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await page.getByTestId('timeline').getByText('second-wave (scheduled)').waitFor();

    // The editor: a JSON error is said at once; the API's own message comes back from a save.
    await page.click('#copy');
    expect(await page.inputValue('#id')).toBe('spring-tour-copy');
    const config = await page.inputValue('#config');
    await page.fill('#config', config.replace('"releaseRatePerMinute": 600', '"releaseRatePerMinute": 0'));
    await page.click('#save');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toContain('releaseRatePerMinute');
    await page.fill('#config', config.replace('"name": "Spring tour"', '"name": "Spring tour (copy)"'));
    await page.click('#save');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toBe('Created spring-tour-copy');
    expect(await getEvent<{ config: { name: string } }>(stage.server, 'spring-tour-copy')).toMatchObject({
      config: { name: 'Spring tour (copy)' },
    });

    // A scheduled change from the form, and an overlapping one refused with the API's reason.
    await page.selectOption('#event', eventId);
    await page.getByTestId('timeline').getByText('psp-upgrade (scheduled)').waitFor();
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.fill('#change [name=id]', 'late-cap');
    await page.fill('#change [name=reason]', 'checkout slow');
    await page.fill('#change [name=startsAt]', local(start + 20 * 60_000));
    await page.fill('#change [name=endsAt]', local(start + 40 * 60_000));
    await page.fill('#change [name=maxActiveVisitors]', '500');
    await page.click('#change button');
    await page.getByTestId('timeline').getByText('late-cap (scheduled)').waitFor();
    await page.fill('#change [name=id]', 'more');
    await page.fill('#change [name=maxActiveVisitors]', '400');
    await page.click('#change button');
    await page.getByTestId('change-msg').getByText('overlaps the scheduled change "late-cap"').waitFor();
    await page.selectOption('#range', '1440');
    await page.getByText(/points, one per 1 min/).waitFor();
    await shot(page, 'console-desktop');
    await page.click('#report-btn');
    await page.getByTestId('report').getByText('start at the minimum until the origin reports health').waitFor();
    await page.emulateMedia({ media: 'print' });
    await shot(page, 'console-report-print');
    await page.emulateMedia({ media: 'screen' });

    const phone = await stage.browser.newContext({ viewport: PHONE });
    const small = await phone.newPage();
    await small.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
    await small.fill('#token', stage.server.adminToken);
    await small.click('#login button');
    await small.getByTestId('timeline').getByText('late-cap (scheduled)').waitFor();
    expect(await scrollsSideways(small)).toBe(false);
    await shot(small, 'console-phone');
    await context.close();
    await phone.close();
  });
});
