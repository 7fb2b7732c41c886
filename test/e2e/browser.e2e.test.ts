// A real browser lands on the sale URL, waits, is admitted, holds a seat and checks out.
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getEvent, putEvent } from '../../scripts/lib/dev-server.ts';
import { browserStage } from './stage.ts';

const stage = browserStage('wr-e2e-');

/** An organizer API call (POST with a JSON body); throws with the problem details unless 2xx. */
async function adminPost(eventId: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${stage.server.url}/_wr/admin/events/${eventId}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stage.server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}

/** The event as the organizer API reads it (GET /_wr/admin/events/{id}). */
function adminGet<T>(eventId: string): Promise<T> {
  return getEvent<T>(stage.server, eventId);
}

describe('browser', () => {
  it('waits in line, is admitted by itself, holds a seat and pays; the seat then shows as sold; a lost payment answer shows processing, then paid', async () => {
    const eventId = `e2e-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 100,
      seats: 50,
      seatsPerRow: 10,
    });
    const context = await stage.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await expect.poll(() => page.textContent('h1')).toMatch(/in line|turn|^e2e-/);
    // The waiting page polls and reloads into the sale page by itself.
    await page.waitForSelector('button.seat[data-seat="A1"]', { timeout: 60_000 });
    await page.click('button.seat[data-seat="A1"]');
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held A1');
    await page.click('#pay');
    await expect.poll(() => page.textContent('#message'), { timeout: 15_000 }).toContain('Paid EUR 50.00 for A1');
    expect(await page.getAttribute('#message', 'data-status')).toBe('PAID');
    // The confirmation page names the order, its seats and the amount, and stays at ?order=.
    await page.waitForSelector('[data-testid="confirm"]:not([hidden])');
    expect(await page.textContent('[data-testid="order-seats"]')).toBe('A1');
    expect(await page.textContent('[data-testid="order-amount"]')).toBe('EUR 50.00');
    expect(new URL(page.url()).searchParams.get('order')).toBe(await page.textContent('[data-testid="order-id"]'));
    await page.reload();
    await page.waitForSelector('[data-testid="confirm"]:not([hidden])');
    await page.click('#again');
    await expect.poll(() => page.getAttribute('button.seat[data-seat="A1"]', 'data-status'), { timeout: 10_000 }).toBe('SOLD');
    // The provider's answer is lost: the page says "processing" (not failed, not paid) and follows
    // the order until the provider's webhook settles it; the seat never goes back on sale meanwhile.
    await page.click('button.seat[data-seat="A2"]');
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held A2');
    await page.fill('#card', '4000 0000 0000 0119');
    await page.click('#pay');
    await expect.poll(() => page.getAttribute('#message', 'data-status'), { timeout: 15_000 }).toMatch(/PROCESSING|PAID/);
    const shown = new Set<string>();
    await expect
      .poll(
        async () => {
          shown.add((await page.getAttribute('#message', 'data-status')) ?? '');
          return page.textContent('#message');
        },
        { timeout: 30_000, interval: 200 },
      )
      .toContain('Paid EUR 50.00 for A2');
    expect([...shown].every((s) => s === 'PROCESSING' || s === 'PAID')).toBe(true);
    // Another admitted visitor sees it sold too.
    const other = await stage.browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${stage.server.url}/events/${eventId}/`);
    await otherPage.waitForSelector('button.seat[data-seat="A1"]', { timeout: 60_000 });
    expect(await otherPage.getAttribute('button.seat[data-seat="A1"]', 'data-status')).toBe('SOLD');
    await other.close();
    await context.close();
  });

  // With venue sections (seat ids S1-A1) the page showed no seat at all
  // and the event's default price.
  it('shows an event with venue sections by section, each at its price, and holds a seat of one', async () => {
    const eventId = `e2e-sec-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      releaseRatePerMinute: 600,
      minReleaseRatePerMinute: 600,
      maxActiveVisitors: 100,
      seats: 0,
      sections: [
        { section: 'FLOOR', seats: 40, seatsPerRow: 20, priceMinor: 9000 },
        { section: 'B1', seats: 20, seatsPerRow: 10, priceMinor: 5000 },
      ],
    });
    const context = await stage.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    await page.waitForSelector('button.seat[data-seat="FLOOR-A1"]', { timeout: 60_000 });
    expect(await page.textContent('#price')).toContain('EUR 50.00 - EUR 90.00');
    const blocks = await page.locator('#sections button').allTextContents();
    expect(blocks.some((b) => b.includes('FLOOR')) && blocks.some((b) => b.includes('B1')), blocks.join(' | ')).toBe(true);
    // FLOOR's blocks all read "FLOOR · Rows A-J" and no card showed its section's price.
    const titles = await page.locator('#sections button b').allTextContents();
    expect(new Set(titles).size, titles.join(' | ')).toBe(titles.length);
    expect(
      blocks.filter((b) => b.includes('FLOOR')).every((b) => b.includes('EUR 90.00')),
      blocks.join(' | '),
    ).toBe(true);
    expect(
      blocks.filter((b) => b.includes('B1')).every((b) => b.includes('EUR 50.00')),
      blocks.join(' | '),
    ).toBe(true);
    await page.locator('#sections button', { hasText: 'B1' }).first().click();
    await page.click('button.seat[data-seat="B1-B3"]');
    expect(await page.textContent('#selection')).toContain('EUR 50.00');
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held B1-B3');
    await context.close();
  });

  it('keeps the same place after a reload and in a second tab', async () => {
    const eventId = `e2e-slow-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, { releaseRatePerMinute: 1, minReleaseRatePerMinute: 1, maxActiveVisitors: 1, seats: 10 });
    // No release at all while this test runs. At 1/min the room still lets one visitor in whenever
    // its release carry crosses 1, at a moment this test does not control: between two reads the
    // place then rightly moved from #4 to #3 (a flake under load, where the reads are seconds apart).
    // A reload or a second tab must keep the place exactly; that a release improves it is the flow
    // tests' business.
    await adminPost(eventId, '/rate', { fixedPerMinute: 0 });
    // Three visitors ahead, so this browser keeps waiting.
    for (let i = 0; i < 3; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    // The room counts arrivals every second; with no release the page polls only every
    // MAX_POLL_MS (15 s), so a first render before the count (or from a cursor up to 2 s old) showed
    // #1 until that poll, just past this test's 15 s wait (a flake). Wait for the count, and past one poll.
    await expect.poll(async () => (await adminGet<{ queue: { waiting: number } }>(eventId)).queue.waiting, { timeout: 10_000 }).toBe(3);
    const context = await stage.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    // Positions are estimates from the arrivals the shards have counted (every second): the page
    // shows the exact place after its next poll at the latest.
    await expect.poll(() => page.textContent('[data-testid="big"]'), { timeout: 25_000 }).toBe('#4');
    const place = await page.textContent('[data-testid="big"]');
    expect(await page.textContent('[data-testid="ahead"]')).toContain('3 people ahead');
    expect(await page.textContent('[data-testid="wait"]')).toMatch(/Estimated wait/);
    expect(await page.textContent('[data-testid="policy"]')).toMatch(/First come, first served/);
    await page.reload();
    expect(await page.textContent('[data-testid="big"]')).toBe(place);
    const tab = await context.newPage();
    await tab.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await tab.textContent('[data-testid="big"]')).toBe(place);
    // Neither the reload nor the second tab took a new place: four in line, the first three and this browser.
    expect((await adminGet<{ queue: { waiting: number } }>(eventId)).queue.waiting).toBe(4);
    await context.close();
  });

  it('speaks Traditional Chinese to a zh-TW browser, and admits a browser with JavaScript off (meta refresh)', async () => {
    const eventId = `e2e-nojs-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: '演唱會',
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 100,
      seats: 20,
    });
    for (let i = 0; i < 2; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    const zh = await stage.browser.newContext({ locale: 'zh-TW', javaScriptEnabled: false });
    const page = await zh.newPage();
    await page.goto(`${stage.server.url}/events/${eventId}/`);
    expect(await page.textContent('h1')).toMatch(/您正在排隊|輪到您了/);
    expect(await page.textContent('[data-testid="event-name"]')).toBe('演唱會');
    // No script runs: the <meta refresh> alone brings the visitor to the sale page once admitted.
    // The sale page speaks the same language and carries the event's name.
    await page.waitForFunction(() => document.title.endsWith('購票'), undefined, { timeout: 60_000, polling: 500 });
    expect(await page.textContent('h1')).toBe('演唱會');
    expect(await page.getAttribute('html', 'lang')).toBe('zh-Hant');
    await zh.close();
  });

  it('organizer dashboard: signs in, sees the queue move, pauses, and releases stop', async () => {
    const eventId = `e2e-dash-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, {
      name: 'Dashboard test',
      releaseRatePerMinute: 60,
      minReleaseRatePerMinute: 60,
      maxActiveVisitors: 100,
      seats: 50,
    });
    for (let i = 0; i < 20; i++) await fetch(`${stage.server.url}/_wr/events/${eventId}/join`, { method: 'POST' });
    const page = await stage.browser.newPage();
    await page.goto(`${stage.server.url}/_wr/admin/?event=${eventId}`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    // The first refresh's numbers replace the loading hint at once ("-" under a sticky
    // "Signed in" for 8 s).
    await expect.poll(() => page.textContent('#status'), { timeout: 4_000 }).toMatch(/^Updated /);
    expect(await page.textContent('[data-k="waiting"]')).toMatch(/^\d/);
    // The charts' legends say what the cards say ("waiting: 495" beside "Waiting 560").
    const legend = await page.locator('#chartQueue .legend li').first().textContent();
    expect(legend).toBe('waiting: ' + (await page.textContent('[data-k="waiting"]')));
    const waiting = async () => Number((await page.textContent('[data-k="waiting"]'))?.replace(/\D/g, '') || NaN);
    await expect.poll(waiting, { timeout: 10_000 }).toBeLessThan(20);
    const before = await waiting();
    await expect.poll(waiting, { timeout: 15_000 }).toBeLessThan(before);
    await page.click('#pause');
    await expect.poll(() => page.textContent('[data-k="mode"]')).toBe('paused');
    const atPause = await waiting();
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await waiting()).toBe(atPause);
    expect(await page.textContent('#log')).toMatch(/no health report yet|start at the minimum/);
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/dashboard.png', fullPage: true });
    await page.click('#resume');
    await expect.poll(() => page.textContent('[data-k="mode"]'), { timeout: 10_000 }).toBe('open');
    await page.close();
  });

  it('dashboard: a 401 to the list read sent before sign-in, answered after it, does not sign the organizer out', async () => {
    // The failing input: the page's first read goes without a token (single sign-on is tried
    // first); its 401, answered after the organizer had signed in, signed them out at once.
    const eventId = `e2e-late401-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, { releaseRatePerMinute: 60, minReleaseRatePerMinute: 60, maxActiveVisitors: 100, seats: 10 });
    const page = await stage.browser.newPage();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    let delivered!: () => void;
    const deliveredLate = new Promise<void>((resolve) => (delivered = resolve));
    let held = false;
    await page.route('**/_wr/admin/events', async (route) => {
      // Header values are trimmed on the way: 'Bearer ' + '' goes as 'Bearer'.
      if (held || (route.request().headers()['authorization'] ?? '').trim() !== 'Bearer') return route.continue();
      held = true;
      const response = await route.fetch();
      expect(response.status()).toBe(401);
      await answered;
      await route.fulfill({ response });
      delivered();
    });
    await page.goto(`${stage.server.url}/_wr/admin/?event=${eventId}`);
    await expect.poll(() => held).toBe(true);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await expect.poll(() => page.textContent('#status'), { timeout: 10_000 }).toMatch(/^Updated /);
    release();
    await deliveredLate;
    await page.waitForTimeout(500);
    expect(await page.isVisible('#main')).toBe(true);
    expect(await page.textContent('#status')).not.toMatch(/Signed out/);
    await page.close();
  });

  it("dashboard: a slow refresh read before a resume, answered after it, does not bring 'paused' back", async () => {
    // The failing input of the flaky resume poll: the 2 s refresh read the event while it was paused,
    // its answer came after the resume's own refresh had drawn 'open', and the page showed 'paused'
    // again until the next refresh (under load, longer than the test's poll).
    const eventId = `e2e-stale-${Date.now().toString(36)}`;
    await putEvent(stage.server, eventId, { releaseRatePerMinute: 60, minReleaseRatePerMinute: 60, maxActiveVisitors: 100, seats: 10 });
    const page = await stage.browser.newPage();
    await page.goto(`${stage.server.url}/_wr/admin/?event=${eventId}`);
    await page.fill('#token', stage.server.adminToken);
    await page.click('#login button');
    await page.click('#pause');
    await expect.poll(() => page.textContent('[data-k="mode"]'), { timeout: 10_000 }).toBe('paused');
    // Hold the next timer refresh: read now (paused), answered only when the test says so.
    let holdNext = true;
    let held!: () => void;
    const answered = new Promise<void>((resolve) => (held = resolve));
    let readWhilePaused!: () => void;
    const read = new Promise<void>((resolve) => (readWhilePaused = resolve));
    let delivered!: () => void;
    const deliveredStale = new Promise<void>((resolve) => (delivered = resolve));
    await page.route(`**/_wr/admin/events/${eventId}`, async (route) => {
      if (route.request().method() !== 'GET' || !holdNext) return route.continue();
      holdNext = false;
      const response = await route.fetch();
      readWhilePaused();
      await answered;
      await route.fulfill({ response });
      delivered();
    });
    await read;
    await page.click('#resume');
    await expect.poll(() => page.textContent('[data-k="mode"]'), { timeout: 10_000 }).toBe('open');
    held();
    await deliveredStale;
    // Give the page's script the turn to handle the stale answer, then it must still say 'open'.
    await page.waitForTimeout(500);
    expect(await page.textContent('[data-k="mode"]')).toBe('open');
    await page.close();
  });
});
