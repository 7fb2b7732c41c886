// The organizer console in Chromium against `npm start`: an event copied and created through the
// editor (the API's dry-run messages shown as it is edited), a field edited and saved with
// If-Match, the 412 of an edit someone else saved first, changes scheduled from the form onto the
// timeline, the history charts; screenshots at desktop and phone width (test-results/shots/).
import { describe, expect, it } from 'vitest';
import { getEvent, putEvent } from '../../scripts/lib/dev-server.ts';
import type { Page } from 'playwright-core';
import { DESKTOP, PHONE, scrollsSideways, shot } from './chromium.ts';
import { axeLog } from './axe.ts';
import { browserStage } from './stage.ts';

const axe = axeLog();
const stage = browserStage('wr-console-', () => axe.print());
const iso = (ms: number) => new Date(ms).toISOString();

async function organizer(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stage.server.url}/_wr/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${stage.server.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('the organizer console', () => {
  it('creates a new event, copies and saves one, schedules changes onto the timeline and shows the history, at desktop and phone width', async () => {
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

    const context = await stage.browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await page.getByTestId('timeline').getByText('second-wave (scheduled)').waitFor();

    // The copy: checked by the API's dry run as it is edited, its message beside the field; created with PUT.
    await page.click('#copy');
    expect(await page.inputValue('#id')).toBe('spring-tour-copy');
    await expect
      .poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 })
      .toBe('Valid: ready to create spring-tour-copy');
    const config = await page.inputValue('#config');
    await page.fill('#config', config.replace('"releaseRatePerMinute": 600', '"releaseRatePerMinute": 0'));
    await expect.poll(() => page.locator('#f-releaseRatePerMinute-err').textContent(), { timeout: 20_000 }).toContain('>=1');
    await page.fill('#config', config.replace('"name": "Spring tour"', '"name": "Spring tour (copy)"'));
    expect(await page.inputValue('#f-name')).toBe('Spring tour (copy)');
    await expect
      .poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 })
      .toBe('Valid: ready to create spring-tour-copy');
    await page.click('#save');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toBe('Created spring-tour-copy');
    expect(await getEvent<{ config: { name: string; patterns: string[] } }>(stage.server, 'spring-tour-copy')).toMatchObject({
      config: { name: 'Spring tour (copy)', patterns: ['/events/spring-tour-copy/*'] },
    });

    // A new event from a blank start: the few required fields filled in, its id picked, created.
    await page.click('#new');
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: ready to create new-sale');
    await page.fill('#id', 'fresh-sale');
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: ready to create fresh-sale');
    await page.click('#save');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toBe('Created fresh-sale');
    expect(await getEvent<{ config: { name: string; patterns: string[] } }>(stage.server, 'fresh-sale')).toMatchObject({
      config: { name: 'New sale', patterns: ['/events/fresh-sale/*'] },
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
    // The stored change cleared the form: nothing of it is carried into the next one.
    expect(await page.inputValue('#change [name=maxActiveVisitors]')).toBe('');
    await page.fill('#change [name=id]', 'more');
    await page.fill('#change [name=reason]', 'another cap');
    await page.fill('#change [name=startsAt]', local(start + 30 * 60_000));
    await page.fill('#change [name=endsAt]', local(start + 50 * 60_000));
    await page.fill('#change [name=maxActiveVisitors]', '400');
    await page.click('#change button');
    await page.getByTestId('change-msg').getByText('overlaps the scheduled change "late-cap"').waitFor();
    await page.selectOption('#range', '1440');
    await page.getByText(/points, one per 1 min/).waitFor();
    await shot(page, 'console-desktop');
    expect(await axe.violations(page, 'console-desktop')).toEqual([]);
    await page.click('#report-btn');
    await page.getByTestId('report').getByText('start at the minimum until the origin reports health').waitFor();
    await page.getByTestId('report').getByText('Refusals by cause').waitFor();
    await page.emulateMedia({ media: 'print' });
    await shot(page, 'console-report-print');
    await page.emulateMedia({ media: 'screen' });

    const phone = await stage.browser.newContext({ viewport: PHONE, bypassCSP: true });
    const small = await phone.newPage();
    await small.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
    await small.fill('#token', stage.server.adminToken);
    await small.click('#login button');
    await small.getByTestId('timeline').getByText('late-cap (scheduled)').waitFor();
    expect(await scrollsSideways(small)).toBe(false);
    await shot(small, 'console-phone');
    expect(await axe.violations(small, 'console-phone')).toEqual([]);
    await context.close();
    await phone.close();
  });

  it('checks a field as it is typed, saves it with If-Match, and says when someone else changed the event since it was opened', async () => {
    const eventId = 'summer-fest';
    await putEvent(stage.server, eventId, {
      name: 'Summer fest',
      releaseRatePerMinute: 600,
      maxActiveVisitors: 2000,
      tiers: [{ tier: 'field', capacity: 8000, priceMinor: 5500 }],
    });
    const context = await stage.browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await signedIn(context.newPage(), eventId);

    // Typed into the form: the JSON follows, and the API's own message sits beside the field.
    await page.getByLabel('Max release rate').fill('0');
    expect(await page.inputValue('#config')).toContain('"releaseRatePerMinute": 0');
    await expect.poll(() => page.locator('#f-releaseRatePerMinute-err').textContent(), { timeout: 20_000 }).toContain('>=1');
    expect(await page.getAttribute('#f-releaseRatePerMinute', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#f-releaseRatePerMinute', 'aria-describedby')).toContain('f-releaseRatePerMinute-err');
    await page.getByLabel('Page colour').fill('red');
    await expect.poll(() => page.locator('#f-page-accentColor-err').textContent(), { timeout: 20_000 }).not.toBe('');
    await shot(page, 'console-editor-invalid-desktop');
    expect(await axe.violations(page, 'console-editor-invalid-desktop')).toEqual([]);
    await page.getByLabel('Page colour').fill('#0f766e');
    await page.getByLabel('Max release rate').fill('900');
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: 2 changes to save');
    expect(await page.locator('#f-releaseRatePerMinute-err').textContent()).toBe('');
    // Keyboard only: Enter in a field saves the form.
    await page.focus('#f-maxActiveVisitors');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toBe(`Saved ${eventId}`);
    expect((await getEvent<{ config: Record<string, unknown> }>(stage.server, eventId)).config).toMatchObject({
      releaseRatePerMinute: 900,
      page: { accentColor: '#0f766e' },
    });

    // Another organizer saves while this one edits: the save is refused, nothing is overwritten.
    await page.getByLabel('Name').fill('Summer fest (mine)');
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: 1 change to save');
    expect((await otherOrganizer(eventId, { name: 'Summer fest (theirs)' })).status).toBe(200);
    await page.click('#save');
    const panel = page.getByTestId('conflict');
    await panel.getByText('changed by someone else since you opened it').waitFor({ timeout: 20_000 });
    const row = panel.locator('tr', { hasText: 'name' });
    expect(await row.locator('td').allTextContents()).toEqual(['"Summer fest"', '"Summer fest (theirs)"', '"Summer fest (mine)"']);
    expect((await getEvent<{ config: { name: string } }>(stage.server, eventId)).config.name).toBe('Summer fest (theirs)');
    await shot(page, 'console-conflict-desktop');
    expect(await axe.violations(page, 'console-conflict-desktop')).toEqual([]);
    await page.click('#rebase');
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: 1 change to save');
    await page.click('#save');
    await expect.poll(() => page.getByTestId('config-msg').textContent(), { timeout: 20_000 }).toBe(`Saved ${eventId}`);
    expect((await getEvent<{ config: { name: string } }>(stage.server, eventId)).config.name).toBe('Summer fest (mine)');

    // At phone width: the same messages, nothing scrolls sideways.
    const phone = await stage.browser.newContext({ viewport: PHONE, bypassCSP: true });
    const small = await signedIn(phone.newPage(), eventId);
    await small.getByLabel('Max release rate').fill('0');
    await expect.poll(() => small.locator('#f-releaseRatePerMinute-err').textContent(), { timeout: 20_000 }).toContain('>=1');
    expect(await scrollsSideways(small)).toBe(false);
    await shot(small, 'console-editor-invalid-phone');
    await small.getByLabel('Max release rate').fill('950');
    await expect.poll(() => small.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: 1 change to save');
    expect((await otherOrganizer(eventId, { name: 'Summer fest (phone race)' })).status).toBe(200);
    await small.click('#save');
    await small.getByTestId('conflict').getByText('changed by someone else since you opened it').waitFor({ timeout: 20_000 });
    expect(await scrollsSideways(small)).toBe(false);
    await shot(small, 'console-conflict-phone');
    expect(await axe.violations(small, 'console-conflict-phone')).toEqual([]);
    await small.click('#reload');
    expect(await small.inputValue('#f-name')).toBe('Summer fest (phone race)');
    await context.close();
    await phone.close();
  });
});

/** Opens the console on `eventId` and signs in with the admin token; resolves once the editor shows the event. */
async function signedIn(opening: Promise<Page>, eventId: string): Promise<Page> {
  const page = await opening;
  await page.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
  await page.fill('#token', stage.server.adminToken);
  await page.click('#login button');
  await expect.poll(() => page.inputValue('#id'), { timeout: 20_000 }).toBe(eventId);
  return page;
}

/** A PATCH by another organizer, with the version they read themselves. */
async function otherOrganizer(eventId: string, patch: object): Promise<Response> {
  const etag = (await organizer('GET', `/events/${eventId}`)).headers.get('etag')!;
  return fetch(`${stage.server.url}/_wr/admin/events/${eventId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${stage.server.adminToken}`, 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: JSON.stringify(patch),
  });
}
