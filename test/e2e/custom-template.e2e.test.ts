// An organizer's own waiting page design (`page.template`, the how-to guide's example) in Chromium:
// the place updates live without a reload, axe-core finds no serious or moderate violation, and the
// page fits a phone. Screenshots go to test-results/shots/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getEvent, putEvent } from '../../scripts/lib/dev-server.ts';
import { DESKTOP, PHONE, scrollsSideways, shot } from './chromium.ts';
import { axeLog } from './axe.ts';
import { browserStage } from './stage.ts';

const TEMPLATE = readFileSync(new URL('../../docs/how-to/custom-waiting-page.html', import.meta.url), 'utf8');
const axe = axeLog();
const stage = browserStage('wr-template-e2e-', () => axe.print());

/** Fixes the event's release rate (POST .../rate); throws unless 2xx. */
async function fixRate(eventId: string, fixedPerMinute: number): Promise<void> {
  const res = await fetch(`${stage.server.url}/_wr/admin/events/${eventId}/rate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stage.server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ fixedPerMinute }),
  });
  if (!res.ok) throw new Error(`POST rate: ${res.status} ${await res.text()}`);
}

const waiting = async (eventId: string) => (await getEvent<{ queue: { waiting: number } }>(stage.server, eventId)).queue.waiting;

describe('custom waiting page template', () => {
  it('shows the organizer’s design with the place, which moves up live as the line moves', async () => {
    const eventId = `e2e-tpl-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Harbour Lights Festival',
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 1,
      maxActiveVisitors: 100,
      seats: 200,
      page: { template: TEMPLATE, accentColor: '#fbbf24', message: 'Doors open at 18:00. One order per person.' },
    });
    // Nobody is let in until the test says so; three visitors ahead of the browser.
    await fixRate(eventId, 0);
    for (let i = 0; i < 3; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    await expect.poll(() => waiting(eventId), { timeout: 10_000 }).toBe(3);

    const ctx = await stage.browser.newContext({ viewport: PHONE, locale: 'en-US', bypassCSP: true });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    let loads = 0;
    page.on('load', () => loads++);
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await expect.poll(() => page.textContent('[data-wr="position"]'), { timeout: 25_000 }).toBe('#4');
    expect(await page.textContent('h1')).toBe('You are in line');
    expect(await page.textContent('[data-wr="ahead"]')).toBe('3 people ahead of you');
    expect(await page.textContent('footer')).toContain('tickets@example.com');
    expect(await page.textContent('[data-wr="eventName"]')).toBe('Harbour Lights Festival');
    expect(await scrollsSideways(page)).toBe(false);
    expect(await axe.violations(page, 'custom-template-phone')).toEqual([]);
    await shot(page, 'custom-template-phone');

    const desk = await stage.browser.newContext({ viewport: DESKTOP, locale: 'en-US', bypassCSP: true });
    const dp = await desk.newPage();
    await dp.goto(`${stage.server.url}/events/${eventId}/`);
    await expect.poll(() => dp.textContent('[data-wr="position"]'), { timeout: 25_000 }).toMatch(/^#\d$/);
    expect(await axe.violations(dp, 'custom-template-desktop')).toEqual([]);
    await shot(dp, 'custom-template-desktop');
    // The organizer's preview of the same page after the sale: its banner, the empty ticket box hidden.
    await dp.setExtraHTTPHeaders({ authorization: `Bearer ${stage.server.adminToken}` });
    await dp.goto(`${stage.server.url}/_wr/admin/events/${eventId}/preview?phase=sold_out&lang=en`);
    expect(await dp.textContent('h1')).toBe('Sold out');
    expect(await dp.isVisible('.ticket')).toBe(false);
    expect(await axe.violations(dp, 'custom-template-preview-sold_out-desktop')).toEqual([]);
    await desk.close();

    // The line moves: the same page (no reload) shows a better place and how far it moved.
    // One release every 20 s: longer than the page's slowest poll (15 s), so it sees a place between #4 and its turn.
    await fixRate(eventId, 3);
    await expect.poll(() => page.textContent('[data-wr="position"]'), { timeout: 60_000 }).toMatch(/^#[1-3]$/);
    expect(loads).toBe(1);
    expect(await page.isVisible('[data-testid="moved"]')).toBe(true);
    expect(await page.textContent('[data-testid="moved"]')).toMatch(/^Places moved up since you arrived: \d+\.$/);
    await shot(page, 'custom-template-moved-phone');
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('is previewed in the console before it is saved, in any phase and language, its problems named by line', async () => {
    const eventId = `e2e-tpl-console-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, { name: 'Console preview', releaseRatePerMinute: 600, maxActiveVisitors: 100, seats: 20 });
    const ctx = await stage.browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await ctx.newPage();
    await page.goto(`${stage.server.url}/_wr/admin/console?event=${eventId}`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await expect.poll(() => page.inputValue('#id'), { timeout: 20_000 }).toBe(eventId);
    const preview = page.frameLocator('#preview');

    await page.getByLabel('Page template').fill(TEMPLATE);
    await expect.poll(() => page.getByTestId('check-msg').textContent(), { timeout: 20_000 }).toBe('Valid: 1 change to save');
    await expect.poll(() => preview.locator('footer').textContent(), { timeout: 20_000 }).toContain('tickets@example.com');
    expect(await preview.locator('[data-wr="position"]').textContent()).toBe('#1,234');
    await page.selectOption('#preview-phase', 'sold_out');
    await page.selectOption('#preview-lang', 'ja');
    await expect.poll(() => preview.locator('h1').textContent(), { timeout: 20_000 }).toBe('完売しました');
    await shot(page, 'custom-template-console-desktop');
    expect(await axe.violations(page, 'custom-template-console-desktop')).toEqual([]);
    // Nothing is saved by a preview.
    expect((await getEvent<{ config: { page: object } }>(stage.server, eventId)).config.page).toEqual({});

    await page.getByLabel('Page template').fill(TEMPLATE.replace('<strong>', '<strong onclick="x()">'));
    const line = TEMPLATE.split('\n').findIndex((l) => l.includes('<strong>')) + 1;
    await expect.poll(() => page.locator('#f-page-template-err').textContent(), { timeout: 20_000 }).toContain(`line ${line}, column`);
    expect(await page.locator('#f-page-template-err').textContent()).toContain('rule no-event-handler');
    await ctx.close();
  });
});
