// The cursor's list of ended sessions at the edge (contracts/queue/ended-sessions.ts) and the
// isolate's memory of leaves through it (src/lib/session-cache.ts): pure, property-tested.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a32, lookUpSession, sessionTag } from '../../contracts/queue/ended-sessions';
import { LEFT_HERE_MS, forgetSessions, leftRecently, rememberActiveSession, sessionRecentlyActive } from '../../src/lib/session-cache';

const tag = fc.integer({ min: 0, max: 2 ** 32 - 1 });

describe('lookUpSession', () => {
  it('says listed exactly for the tags on a complete list, and unlisted for every other', () => {
    fc.assert(
      fc.property(fc.uniqueArray(tag, { maxLength: 200 }), tag, (tags, probe) => {
        const sorted = [...tags].sort((a, b) => a - b);
        for (const t of sorted) expect(lookUpSession({ tags: sorted, complete: true }, t)).toBe('listed');
        expect(lookUpSession({ tags: sorted, complete: true }, probe)).toBe(sorted.includes(probe) ? 'listed' : 'unlisted');
      }),
    );
  });

  it('says unknown without a complete list (too many ends, or a cursor of an older room)', () => {
    expect(lookUpSession({ tags: [], complete: false }, 5)).toBe('unknown');
    expect(lookUpSession({ tags: [5], complete: false }, 5)).toBe('unknown');
    expect(lookUpSession(undefined, 5)).toBe('unknown');
    expect(lookUpSession({ tags: [], complete: true }, 5)).toBe('unlisted');
  });
});

describe('sessionTag', () => {
  it('is an unsigned 32-bit integer, the same for the same session', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 0, max: 2 ** 45 }), (visitorId, admittedAt) => {
        const t = sessionTag(visitorId, String(admittedAt));
        expect(Number.isInteger(t) && t >= 0 && t < 2 ** 32).toBe(true);
        expect(sessionTag(visitorId, String(admittedAt))).toBe(t);
      }),
    );
  });

  it('is FNV-1a 32 (the test vectors of draft-eastlake-fnv) of the visitor id and the session id', () => {
    expect(fnv1a32('').toString(16)).toBe('811c9dc5');
    expect(fnv1a32('a').toString(16)).toBe('e40c292c');
    expect(fnv1a32('foobar').toString(16)).toBe('bf9cf968');
    expect(sessionTag('v-1', '1800000000000')).toBe(fnv1a32('v-1\n1800000000000'));
    expect(sessionTag('v', '1800000000000')).not.toBe(sessionTag('v', '1800000001000'));
  });
});

describe('leaves through this isolate', () => {
  it('forgetSessions drops the confirmations and marks the visitor for LEFT_HERE_MS, nobody else', () => {
    const now = 1_800_000_000_000;
    rememberActiveSession('ev', 'v1', 's1', now);
    rememberActiveSession('ev', 'v2', 's2', now);
    forgetSessions('ev', 'v1', now);
    expect(sessionRecentlyActive('ev', 'v1', 's1', now)).toBe(false);
    expect(sessionRecentlyActive('ev', 'v2', 's2', now)).toBe(true);
    expect(leftRecently('ev', 'v1', now + LEFT_HERE_MS - 1)).toBe(true);
    expect(leftRecently('ev', 'v1', now + LEFT_HERE_MS)).toBe(false);
    expect(leftRecently('ev', 'v2', now)).toBe(false);
    expect(leftRecently('other', 'v1', now)).toBe(false);
  });
});
