// The whole path through the gateway in front of a real Node origin (example-origin/, Hono on
// @hono/node-server, using the origin SDK), reached through ORIGIN_URL: Chromium queues on the event
// page, is admitted, the Node origin verifies the token, its own health reports move the release
// rate, and its checkout confirms the hold over the signed origin API.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleOrigin } from '../../example-origin/app.ts';
import { GatewayClient, type HealthReporter } from '../../origin-sdk/src/index.ts';
import { ensureDevVars, parseDevVars } from '../../scripts/lib/dev-secrets.ts';
import { freePort, putEvent, ROOT, startDevServer, type DevServer } from '../../scripts/lib/dev-server.ts';
import { axeLog } from './axe.ts';
import { DESKTOP, PHONE, launchChromium, scrollsSideways, shot } from './chromium.ts';

const EVENT = `node-${Date.now().toString(36)}`;
/** The organizer's bounds: the rate starts at the minimum until the origin reports health. */
const MIN_RATE = 6;

let gateway: DevServer;
let origin: ServerType;
let health: HealthReporter;
let browser: Browser;
let state: string;
let secret: string;

beforeAll(async () => {
  ensureDevVars(ROOT);
  secret = parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET!;
  const [gatewayPort, originPort] = [await freePort(), await freePort()];
  const site = exampleOrigin({ gatewayUrl: `http://127.0.0.1:${gatewayPort}`, secret, eventId: EVENT, reportIntervalMs: 1_000 });
  health = site.health;
  origin = serve({ fetch: site.app.fetch, port: originPort, hostname: '127.0.0.1' });
  state = mkdtempSync(join(tmpdir(), 'wr-node-origin-'));
  gateway = await startDevServer({
    port: gatewayPort,
    persistTo: state,
    quiet: true,
    vars: { ORIGIN_URL: `http://127.0.0.1:${originPort}` },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  health?.stop();
  await browser?.close();
  await gateway?.stop();
  await new Promise((r) => (origin ? origin.close(r) : r(null)));
  rmSync(state, { recursive: true, force: true });
});

/** The organizer's view of the event (rate, last health report, rate log). */
async function eventStats() {
  const res = await fetch(`${gateway.url}/_wr/admin/events/${EVENT}`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
  return (await res.json()) as {
    queue: {
      releaseRatePerMinute: number;
      lastHealth: { p99LatencyMs: number; activeBuyers: number } | null;
      rateLog: { reason: string }[];
    };
  };
}

const axe = axeLog();
afterAll(() => axe.print());

describe('gateway in front of the Node example origin', () => {
  it('passes the home page and an asset through without cookies, queues on the event page, admits, the Node origin verifies the token, its health reports raise the rate, and its checkout sells the seat', async () => {
    await putEvent(gateway, EVENT, { releaseRatePerMinute: 600, minReleaseRatePerMinute: MIN_RATE, maxActiveVisitors: 50, seats: 20 });
    expect((await eventStats()).queue.lastHealth).toBeNull();
    // The Node origin starts reporting (every second, idle or not) only now that its event exists.
    health.start();

    const context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const page = await context.newPage();
    // 0. No room covers the home page or its stylesheet: the gateway passes them to the Node
    //    origin untouched, with no cookie of its own.
    const home = await page.goto(`${gateway.url}/`);
    expect(home?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Example Tickets');
    await shot(page, 'example-origin-home-desktop');
    expect(await axe.violations(page, 'example origin home (desktop)')).toEqual([]);
    const css = await fetch(`${gateway.url}/static/site.css`);
    expect([css.status, css.headers.get('content-type'), css.headers.getSetCookie()]).toEqual([200, 'text/css; charset=utf-8', []]);
    expect(await context.cookies()).toEqual([]);
    // 1. The event page (followed from the home page's link) queues: the gateway's waiting page.
    await page.click('#event');
    await page.waitForURL(`**/events/${EVENT}/`);
    expect(await page.textContent('h1')).toMatch(/in line|turn/i);
    expect((await context.cookies()).some((c) => c.name.includes(EVENT))).toBe(true);
    // More visitors behind this one keep the room ticking (a room with nobody in line runs no
    // release tick, so its rate has nothing to act on).
    for (let i = 0; i < 20; i++) await fetch(`${gateway.url}/_wr/events/${EVENT}/join`, { method: 'POST' });

    // 2. The origin's own reports reach the gateway; idle (nothing measured) they hold the rate at the minimum.
    await expect.poll(async () => (await eventStats()).queue.lastHealth, { timeout: 20_000 }).not.toBeNull();

    // 3. Admission: the waiting page goes on to the sale URL, proxied to the Node origin, which
    //    verified the forwarded token against the gateway's JWKS (its page names the visitor).
    await page.waitForSelector('#who', { timeout: 60_000 });
    const visitor = await page.getAttribute('#who', 'data-visitor');
    expect(visitor).toBeTruthy();

    // 4. Now the origin measures real requests: once a report has enough of them behind it (at
    //    least 8 in its window: growth needs evidence), its healthy reports raise the release rate
    //    above the organizer's minimum, with the reason logged. The admitted visitor browses a bit.
    for (let i = 0; i < 12; i++) await page.reload();
    await page.waitForSelector('#who');
    await expect.poll(async () => (await eventStats()).queue.lastHealth?.activeBuyers, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await eventStats()).queue.releaseRatePerMinute, { timeout: 30_000 }).toBeGreaterThan(MIN_RATE);
    expect((await eventStats()).queue.rateLog.some((e) => /healthy/.test(e.reason))).toBe(true);

    // 5. Hold through the gateway, checkout at the Node origin: it confirms over the signed origin API.
    expect(await axe.violations(page, 'example origin sale page (desktop)')).toEqual([]);
    await page.click('#hold');
    await expect.poll(() => page.textContent('#message')).toContain('Held A1');
    await shot(page, 'example-origin-held-desktop');
    expect(await axe.violations(page, 'example origin, seat held (desktop)')).toEqual([]);
    await page.click('#buy');
    await expect.poll(() => page.getAttribute('#message', 'data-status'), { timeout: 15_000 }).toBe('PAID');
    await shot(page, 'example-origin-paid-desktop');
    expect(await axe.violations(page, 'example origin, paid (desktop)')).toEqual([]);
    // The same page on a phone: no sideways scrolling, the same findings.
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    await shot(page, 'example-origin-paid-phone');
    expect(await axe.violations(page, 'example origin, paid (phone)')).toEqual([]);
    const sold = await new GatewayClient({ gatewayUrl: gateway.url, eventId: EVENT, secret }).listHolds();
    expect(sold).toMatchObject({ kind: 'ok', holds: [{ status: 'SOLD', seatIds: ['A1'], account: visitor }] });
    await context.close();
  });
});
