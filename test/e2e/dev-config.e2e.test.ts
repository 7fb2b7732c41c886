// The generated wrangler.dev.toml: a second local server must not reload or kill the first one.
// Every `wrangler dev` of the checkout watches the file; `npm run crowd` beside `npm start` used to
// rewrite it in place (truncate + write), and the running server reloaded or exited with "Missing
// entry-point to Worker script".
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_CONFIG, ROOT, lostPortRace, writeDevConfig } from '../../scripts/lib/dev-server.ts';

describe('writeDevConfig', () => {
  it('leaves an unchanged config alone: same inode, same modification time', () => {
    const path = join(ROOT, writeDevConfig());
    const before = statSync(path);
    expect(writeDevConfig()).toBe(DEV_CONFIG);
    const after = statSync(path);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(readFileSync(path, 'utf8')).toContain('service = "origin-stub"');
  });
});

describe('lostPortRace', () => {
  // Failing input: two `npm start`s at the same moment; the loser exited with this.
  it('knows the output of a start that lost a port race, and nothing else', () => {
    expect(
      lostPortRace(
        '✘ [ERROR] Address already in use (socket "direct:1:default"). Please check that you are not already running a server on this address or specify a different port with --port.',
      ),
    ).toBe(true);
    expect(lostPortRace('Error: listen EADDRINUSE: address already in use 127.0.0.1:9229')).toBe(true);
    expect(lostPortRace('✘ [ERROR] Could not resolve "hono"')).toBe(false);
    expect(lostPortRace('')).toBe(false);
  });
});
