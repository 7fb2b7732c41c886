// A real browser on an event that asks for a proof of work (issue #17): the check step solves the
// challenge by itself, joins and lands in the waiting page with a place; a reload keeps that place
// without a second check; without JavaScript the step says that JavaScript is needed.
import { describe, expect, it } from 'vitest';
import { putEvent } from '../../scripts/lib/dev-server.ts';
import { shot } from './chromium.ts';
import { browserStage } from './stage.ts';

const stage = browserStage('wr-pow-e2e-');

const EVENT = { releaseRatePerMinute: 1, minReleaseRatePerMinute: 1, maxActiveVisitors: 1, seats: 10, proofOfWork: { difficultyBits: 14 } };

describe('proof of work in Chromium', () => {
  it('checks the browser, joins, and shows the place in line; a reload keeps it and is not checked again', async () => {
    const eventId = `pow-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, { ...EVENT, name: 'PoW concert' });
    // Someone else takes the only active slot first, so this visitor waits in line.
    const first = await stage.browser.newContext();
    await (await first.newPage()).goto(`${stage.server.url}/events/${eventId}/`);
    const context = await stage.browser.newContext();
    const page = await context.newPage();
    const proofs: string[] = [];
    page.on('request', (r) => {
      const h = r.headers()['x-wr-proof-of-work'];
      if (h) proofs.push(h);
    });
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.textContent('[data-testid="headline"]')).toMatch(/Checking your browser|in line/);
    await page.waitForSelector('[data-testid="big"]:not([hidden])', { timeout: 60_000 });
    await shot(page, 'pow-waiting');
    expect(await page.textContent('[data-testid="headline"]')).toBe('You are in line');
    const place = await page.textContent('[data-testid="big"]');
    expect(place).toMatch(/^#\d+$/);
    expect((await context.cookies()).some((c) => c.name === `__wr_t_${eventId}`)).toBe(true);
    expect(proofs).toHaveLength(1);
    const payload = JSON.parse(atob(proofs[0]!)) as { solution: { counter: number; time: number } };
    console.log(`solved 14 bits in the page: counter ${payload.solution.counter}, ${payload.solution.time} ms`);
    await page.reload();
    expect(await page.textContent('[data-testid="headline"]')).toBe('You are in line');
    expect(await page.textContent('[data-testid="big"]')).toBe(place);
    expect(proofs).toHaveLength(1);
    await first.close();
    await context.close();
  });

  it('says that JavaScript is needed when it is off, and hands out no place', async () => {
    const eventId = `pow-nojs-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, EVENT);
    const context = await stage.browser.newContext({ javaScriptEnabled: false, locale: 'ja-JP' });
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.textContent('h1')).toBe('ブラウザを確認しています');
    expect(await page.isVisible('[data-testid="no-script"]')).toBe(true);
    expect(await page.textContent('[data-testid="no-script"]')).toContain('JavaScript');
    expect(await page.isVisible('#bar')).toBe(false);
    expect((await context.cookies()).some((c) => c.name.startsWith('__wr_t_'))).toBe(false);
    await shot(page, 'pow-no-javascript');
    await context.close();
  });
});
