// The generated wrangler.dev.toml: a second local server must not reload or kill the first one.
// Every `wrangler dev` of the checkout watches the file; `npm run crowd` beside `npm start` used to
// rewrite it in place (truncate + write), and the running server reloaded or exited with "Missing
// entry-point to Worker script" (review).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_CONFIG, ROOT, writeDevConfig } from '../../scripts/lib/dev-server.ts';

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
