// The pages in Chromium at desktop and phone size, in several languages: waiting page phases and the
// language switch, the draw record, the sale page on a phone and its confirmation, the dashboard;
// axe-core finds no serious or moderate accessibility violation. Screenshots go to test-results/shots/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { putEvent } from '../../scripts/lib/dev-server.ts';
import { DESKTOP, PHONE, scrollsSideways, shot } from './chromium.ts';
import { axeLog } from './axe.ts';
import { browserStage } from './stage.ts';

const PHASES = ['not_open', 'prequeue', 'drawing', 'waiting', 'paused', 'sold_out', 'closed'] as const;
const axe = axeLog();
const stage = browserStage('wr-pages-e2e-', () => axe.print());

const visibleTexts = (page: Page) =>
  page.evaluate(() =>
    ['headline', 'sub', 'bigLabel', 'big', 'ahead', 'wait', 'countdown'].map((id) => {
      const e = document.getElementById(id)!;
      // The countdown ticks: compare its words, not its seconds.
      return e.hidden ? '' : (e.textContent ?? '').trim().replace(/\d+:\d\d(:\d\d)?/g, 'T');
    }),
  );

describe('waiting page', () => {
  it('switches language with the visible switch, remembers it, and shows each phase the same with and without JavaScript', async () => {
    const eventId = `e2e-wait-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Summer Stadium Tour',
      releaseRatePerMinute: 1,
      minReleaseRatePerMinute: 1,
      maxActiveVisitors: 1,
      seats: 10,
    });
    for (let i = 0; i < 3; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    const ctx = await stage.browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await ctx.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.textContent('[data-testid="headline"]')).toBe('You are in line');
    await shot(page, 'waiting-en-phone');
    await page.click('details summary');
    await page.click('a[hreflang="ja"]');
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('ja');
    expect(await page.textContent('[data-testid="headline"]')).toBe('順番待ちをしています');
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'waiting-ja-phone');
    // Remembered: the plain URL (no ?lang=) answers in Japanese to an English browser.
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.getAttribute('html', 'lang')).toBe('ja');
    await ctx.close();

    const admin = { authorization: `Bearer ${stage.server.adminToken}` };
    for (const lang of ['en', 'zh-Hant'] as const) {
      for (const phase of PHASES) {
        const url = `${stage.server.url}/_wr/admin/events/${eventId}/preview?phase=${phase}&lang=${lang}`;
        const [withJs, without] = await Promise.all(
          [true, false].map(async (javaScriptEnabled) => {
            const c = await stage.browser.newContext({ viewport: PHONE, extraHTTPHeaders: admin, javaScriptEnabled });
            const p = await c.newPage();
            const errors: string[] = [];
            p.on('pageerror', (e) => errors.push(e.message));
            await p.goto(url);
            await p.waitForTimeout(javaScriptEnabled ? 300 : 0);
            const texts = await visibleTexts(p);
            expect(await scrollsSideways(p)).toBe(false);
            if (javaScriptEnabled) await shot(p, `waiting-${phase}-${lang}-phone`);
            await c.close();
            expect(errors).toEqual([]);
            return texts;
          }),
        );
        // The script renders with the server's own view function: the words never differ.
        expect(withJs, `${phase} ${lang}`).toEqual(without);
      }
    }
    const desk = await stage.browser.newContext({ viewport: DESKTOP, extraHTTPHeaders: admin });
    const dp = await desk.newPage();
    for (const [phase, lang] of [
      ['waiting', 'es'],
      ['prequeue', 'ko'],
      ['not_open', 'zh-Hans'],
    ] as const) {
      await dp.goto(`${stage.server.url}/_wr/admin/events/${eventId}/preview?phase=${phase}&lang=${lang}`);
      await shot(dp, `waiting-${phase}-${lang}-desktop`);
    }
    await desk.close();
  });

  it('links a lottery to its draw record, which a browser reads as a page (JSON on request)', async () => {
    const eventId = `e2e-draw-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Lottery night',
      policy: 'random',
      saleStartsAt: new Date(Date.now() + 3_600_000).toISOString(),
      releaseRatePerMinute: 10,
      maxActiveVisitors: 10,
      seats: 10,
    });
    const ctx = await stage.browser.newContext({ viewport: PHONE, locale: 'zh-TW' });
    const page = await ctx.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.textContent('[data-testid="headline"]')).toBe('您已登記抽籤');
    expect(await page.textContent('main')).not.toContain('暫停');
    // The visitor's own entrant id (their ticket is HttpOnly), with the link that finds its rank.
    const entrant = (await page.textContent('[data-testid="entrant"] code')) ?? '';
    expect(entrant).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.textContent('[data-testid="entrant"]')).toContain('您在抽籤中的參加者編號');
    expect(await page.getAttribute('[data-testid="entrant"] a', 'href')).toBe(`/_wr/events/${eventId}/draw?entrant=${entrant}`);
    await page.click('[data-testid="commitment"] a');
    await page.waitForSelector('[data-testid="commitment"]');
    expect(await page.textContent('h1')).toBe('抽籤紀錄');
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'draw-zh-Hant-phone');
    await page.click('[data-testid="json-link"]');
    expect(JSON.parse((await page.textContent('body')) ?? '{}')).toMatchObject({ drawn: false, commitment: expect.any(String) });
    await ctx.close();
  });
});

describe('a drawn lottery', () => {
  it('checks its draw in the browser and says verified; a later arrival is told it queues after the draw', async () => {
    const eventId = `e2e-drawn-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Drawn night',
      policy: 'random',
      saleStartsAt: new Date(Date.now() + 4_000).toISOString(),
      releaseRatePerMinute: 1,
      minReleaseRatePerMinute: 1,
      maxActiveVisitors: 1,
      seats: 10,
    });
    for (let i = 0; i < 5; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    const ctx = await stage.browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await ctx.newPage();
    await expect
      .poll(async () => ((await (await fetch(`${stage.server.url}/_wr/events/${eventId}/draw`)).json()) as { drawn: boolean }).drawn, {
        timeout: 30_000,
      })
      .toBe(true);
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await expect.poll(() => page.textContent('[data-testid="policy"]'), { timeout: 20_000 }).toContain('after the draw');
    await expect.poll(() => page.textContent('[data-testid="big"]'), { timeout: 20_000 }).toMatch(/^#\d+$/);
    expect(await page.locator('[data-testid="entrant"]').count()).toBe(0);
    await shot(page, 'waiting-after-draw-en-phone');
    await page.goto(`${stage.server.url}/_wr/events/${eventId}/draw?format=html`);
    await expect.poll(() => page.getAttribute('[data-testid="verify"]', 'data-result'), { timeout: 20_000 }).toBe('verified');
    expect(await page.textContent('[data-testid="verify"]')).toContain('Verified in your browser');
    await shot(page, 'draw-verified-en-phone');
    await ctx.close();
  });
});

describe('sale page', () => {
  it('fits a 390 px phone without sideways scrolling, counts the hold down, and confirms the order after paying', async () => {
    const eventId = `e2e-sale-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Arena <Live> 2026',
      releaseRatePerMinute: 600,
      minReleaseRatePerMinute: 600,
      maxActiveVisitors: 100,
      seats: 1000,
      seatsPerRow: 25,
    });
    for (const [viewport, locale, name] of [
      [PHONE, 'es-ES', 'es-phone'],
      [DESKTOP, 'en-US', 'en-desktop'],
      [PHONE, 'ko-KR', 'ko-phone'],
    ] as const) {
      const ctx = await stage.browser.newContext({ viewport, locale });
      const page = await ctx.newPage();
      await page.goto(`${stage.server.url}/events/${eventId}/`);
      await page.waitForSelector('button.seat', { timeout: 60_000 });
      expect(await page.textContent('h1')).toBe('Arena <Live> 2026');
      expect(await page.title()).toMatch(/^Arena <Live> 2026 - /);
      // A stage, sections with free counts, and one section's seats: 10 rows of at most 9.
      expect(await page.locator('#sections button').count()).toBe(12);
      expect(await page.locator('#seats button.seat').count()).toBe(90);
      expect(await scrollsSideways(page)).toBe(false);
      await shot(page, `sale-${name}`);
      if (name === 'en-desktop') expect(await axe.violations(page, 'sale page (en, desktop)')).toEqual([]);
      // Another section, by keyboard.
      await page.focus('#sections button[data-section="1:2"]');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#seats button.seat').first().getAttribute('data-seat')).toBe('K19');
      await page
        .locator('button.seat:not([disabled])')
        .nth(name.length % 5)
        .click();
      await page.click('#hold');
      await expect.poll(() => page.textContent('[data-testid="countdown"]')).toMatch(/[45]:\d\d/);
      const first = await page.textContent('[data-testid="countdown"]');
      await expect.poll(() => page.textContent('[data-testid="countdown"]'), { timeout: 5_000 }).not.toBe(first);
      await shot(page, `sale-held-${name}`);
      if (name === 'en-desktop') expect(await axe.violations(page, 'sale page, seats held (en, desktop)')).toEqual([]);
      await page.click('#pay');
      await page.waitForSelector('[data-testid="confirm"]:not([hidden])', { timeout: 20_000 });
      expect(await page.textContent('[data-testid="order-seats"]')).toMatch(/^K\d+$/);
      expect(await page.textContent('[data-testid="order-amount"]')).toBe('EUR 50.00');
      expect(await page.textContent('#confirm')).toContain('Arena <Live> 2026');
      expect(await scrollsSideways(page)).toBe(false);
      await shot(page, `sale-confirm-${name}`);
      if (name !== 'es-phone') expect(await axe.violations(page, `confirmation (${name})`)).toEqual([]);
      await ctx.close();
    }
  });
});

describe('accessibility and dashboard', () => {
  it('waiting, draw, maintenance and dashboard pages have no serious or moderate axe violations at desktop and phone size; the dashboard opens on the last event and signs out', async () => {
    const ids = [`e2e-dash-a-${Date.now().toString(36)}`, `e2e-dash-b-${Date.now().toString(36)}`];
    for (const id of ids)
      await putEvent(stage.server, id, { name: `Dashboard ${id}`, releaseRatePerMinute: 60, maxActiveVisitors: 10, seats: 10 });
    const slow = `e2e-a11y-${Date.now().toString(36)}`;
    await putEvent(stage.server, slow, {
      policy: 'random',
      saleStartsAt: new Date(Date.now() + 3_600_000).toISOString(),
      releaseRatePerMinute: 1,
      maxActiveVisitors: 1,
      seats: 10,
    });
    const ctx = await stage.browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await ctx.newPage();
    await page.goto(`${stage.server.url}/events/${slow}/`);
    expect(await axe.violations(page, 'waiting page (en, desktop, pre-queue)')).toEqual([]);
    await page.goto(`${stage.server.url}/_wr/events/${slow}/draw`);
    expect(await axe.violations(page, 'draw page (en, desktop)')).toEqual([]);
    const down = `e2e-maint-${Date.now().toString(36)}`;
    await putEvent(stage.server, down, {
      name: 'Maintenance',
      method: 'reject',
      releaseRatePerMinute: 60,
      maxActiveVisitors: 10,
      seats: 10,
    });
    expect((await page.goto(`${stage.server.url}/events/${down}/`))?.status()).toBe(503);
    await shot(page, 'maintenance-desktop');
    expect(await axe.violations(page, 'maintenance page (en, desktop)')).toEqual([]);
    const phone = await stage.browser.newContext({ viewport: PHONE, bypassCSP: true, locale: 'ja-JP' });
    const small = await phone.newPage();
    await small.goto(`${stage.server.url}/events/${slow}/`);
    expect(await scrollsSideways(small)).toBe(false);
    expect(await axe.violations(small, 'waiting page (ja, phone, pre-queue)')).toEqual([]);
    await small.goto(`${stage.server.url}/events/${down}/`);
    expect(await scrollsSideways(small)).toBe(false);
    await shot(small, 'maintenance-ja-phone');
    expect(await axe.violations(small, 'maintenance page (ja, phone)')).toEqual([]);
    await phone.close();
    await page.goto(`${stage.server.url}/_wr/admin/`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await page.waitForSelector('#main:not([hidden])');
    await page.selectOption('#event', ids[1]!);
    await page.click('#pv summary');
    await page.waitForFunction(() => (document.getElementById('pvFrame') as HTMLIFrameElement).srcdoc.includes('data-testid="preview"'));
    await page.waitForTimeout(2_500);
    await shot(page, 'dashboard-desktop');
    expect(await axe.violations(page, 'dashboard (desktop)')).toEqual([]);
    await page.click('#signout');
    expect(await page.isVisible('#login')).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('wr_admin_token'))).toBeNull();
    // A new tab (no token): signing in again opens the event used last.
    const again = await ctx.newPage();
    await again.setViewportSize(PHONE);
    await again.goto(`${stage.server.url}/_wr/admin/`);
    await again.fill('#token', stage.server.adminToken);
    await again.click('#login button');
    await again.waitForSelector('#main:not([hidden])');
    expect(await again.inputValue('#event')).toBe(ids[1]);
    await again.waitForTimeout(2_500);
    expect(await scrollsSideways(again)).toBe(false);
    await shot(again, 'dashboard-phone');
    await ctx.close();
  });
});
