// The origin-pull key: the gateway sets it on every forwarded request, the origin checks it with
// fromGateway to refuse requests that reached it directly (nothing told them apart).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromGateway, originPullKey } from '../src/index.ts';

describe('originPullKey and fromGateway', () => {
  it('derives a stable 64-hex key per secret, never the secret itself', async () => {
    const key = await originPullKey('origin-shared-secret');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await originPullKey('origin-shared-secret')).toBe(key);
    expect(await originPullKey('another-secret')).not.toBe(key);
    await expect(originPullKey('')).rejects.toThrow(TypeError);
  });

  it('accepts the key of the current or the previous secret, and nothing else', async () => {
    const current = await originPullKey('current-secret');
    const previous = await originPullKey('previous-secret');
    expect(await fromGateway(current, ['current-secret', 'previous-secret'])).toBe(true);
    expect(await fromGateway(previous, ['current-secret', 'previous-secret'])).toBe(true);
    expect(await fromGateway(previous, ['current-secret'])).toBe(false);
    expect(await fromGateway(current, ['', 'current-secret'])).toBe(true);
    for (const bad of [null, undefined, '', 'current-secret', current.toUpperCase(), current.slice(2), `${current} `, `${current}00`]) {
      expect(await fromGateway(bad, ['current-secret']), String(bad)).toBe(false);
    }
    expect(await fromGateway(current, [])).toBe(false);
  });

  it('refuses every other 64-hex value', async () => {
    const key = await originPullKey('s3cret');
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[0-9a-f]{64}$/), async (value) => {
        expect(await fromGateway(value, ['s3cret'])).toBe(value === key);
      }),
      { numRuns: 200 },
    );
  });
});
