// The stage of a browser test file: a dev server (gateway + origin stub) on a free port with its
// own throw-away local storage, and Debian's Chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { freePort, startDevServer, type DevServer } from '../../scripts/lib/dev-server.ts';
import { launchChromium } from './chromium.ts';

/** What a browser test file runs against; the fields are set in `beforeAll`, so read them inside tests. */
export interface BrowserStage {
  readonly server: DevServer;
  readonly browser: Browser;
}

/**
 * Registers the file's `beforeAll` (storage under the OS temp dir named `prefix*`, `npm start`'s
 * dev server on a free port, Chromium) and `afterAll` (browser closed, server stopped, storage
 * removed). `beforeStop` runs first in `afterAll` (e.g. to print what the file collected).
 */
export function browserStage(prefix: string, beforeStop?: () => void): BrowserStage {
  const stage = {} as { server: DevServer; browser: Browser; state: string };
  beforeAll(async () => {
    stage.state = mkdtempSync(join(tmpdir(), prefix));
    stage.server = await startDevServer({ port: await freePort(), persistTo: stage.state, quiet: true });
    stage.browser = await launchChromium();
  });
  afterAll(async () => {
    beforeStop?.();
    await stage.browser?.close();
    await stage.server?.stop();
    if (stage.state) rmSync(stage.state, { recursive: true, force: true });
  });
  return stage;
}
