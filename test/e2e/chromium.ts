// Debian's Chromium for the browser tests (never a downloaded browser), and screenshots under test-results/.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Launches /usr/bin/chromium headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/** The phone viewport of the checks: 390 x 844 CSS px. */
export const PHONE = { width: 390, height: 844 } as const;
/** The desktop viewport of the checks. */
export const DESKTOP = { width: 1280, height: 900 } as const;

/** Saves a full-page screenshot as test-results/shots/<name>.png and returns its path. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync('test-results/shots', { recursive: true });
  const path = `test-results/shots/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** True when the page scrolls sideways (content wider than the viewport). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}
