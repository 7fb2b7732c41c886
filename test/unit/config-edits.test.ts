// The pure parts of organizer edits and their audit: JSON Merge Patch (RFC 7396), If-Match, the
// field-by-field diff (secrets redacted) and the CSV export.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configEtag, mergePatch, parseIfMatch } from '../../src/lib/config-edits';
import { MAX_AUDIT_TEXT, REDACTED, auditCsv, fieldChanges } from '../../src/lib/organizer-audit';
import type { AuditEntry } from '../../contracts/organizer-access';

describe('JSON Merge Patch', () => {
  // RFC 7396 Appendix A, every example.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('patches %j with %j into %j (RFC 7396 Appendix A)', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('never changes the target it was given, and an empty patch changes nothing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (target, patch) => {
        const copy = JSON.stringify(target);
        mergePatch(target, patch);
        expect(JSON.stringify(target)).toBe(copy);
        if (typeof target === 'object' && target !== null && !Array.isArray(target)) expect(mergePatch(target, {})).toEqual(target);
      }),
    );
  });
});

describe('If-Match', () => {
  it('reads *, lists of strong tags, and never matches a weak or foreign tag', () => {
    expect(parseIfMatch(undefined)).toBeNull();
    expect(parseIfMatch(' * ')).toBe('any');
    expect(parseIfMatch(configEtag(3))).toEqual([3]);
    expect(parseIfMatch('"v1", "v7"')).toEqual([1, 7]);
    expect(parseIfMatch('W/"v3"')).toEqual([]);
    expect(parseIfMatch('"abc"')).toEqual([]);
  });

  it.each(['v3', '"v3', 'W/v3', '"v"3"', ''])('refuses the malformed header %j with INVALID_REQUEST', (header) => {
    expect(() => parseIfMatch(header)).toThrowError(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });
});

describe('audit diff', () => {
  it('lists changed fields by path, added and removed ones with one side, unchanged ones not at all', () => {
    const before = { name: 'A', releaseRatePerMinute: 60, page: { title: 'x' }, tiers: [{ tier: 'gold', priceMinor: 1 }] };
    const after = { name: 'A', releaseRatePerMinute: 90, page: {}, tiers: [{ tier: 'gold', priceMinor: 2 }], saleStartsAt: 'T' };
    expect(fieldChanges(before, after)).toEqual([
      { field: 'page.title', from: 'x' },
      { field: 'releaseRatePerMinute', from: 60, to: 90 },
      { field: 'saleStartsAt', to: 'T' },
      { field: 'tiers.0.priceMinor', from: 1, to: 2 },
    ]);
    expect(fieldChanges(before, before)).toEqual([]);
    expect(fieldChanges(undefined, { name: 'new' })).toEqual([{ field: 'name', to: 'new' }]);
  });

  it('shows that a secret changed, never its value', () => {
    const changes = fieldChanges(
      { entry: { hmacSecret: 'old-s3cret', issuer: 'a' } },
      { entry: { hmacSecret: 'new-s3cret', issuer: 'b' } },
    );
    expect(changes).toEqual([
      { field: 'entry.hmacSecret', from: REDACTED, to: REDACTED },
      { field: 'entry.issuer', from: 'a', to: 'b' },
    ]);
    expect(JSON.stringify(changes)).not.toContain('s3cret');
  });

  it('records a long text (a page template) by its length and a fingerprint that tells two versions apart, at any depth', () => {
    const a = `<h1>{{headline}}</h1>${'a'.repeat(MAX_AUDIT_TEXT)}`;
    const b = `${a.slice(0, -1)}b`;
    const [edit] = fieldChanges({ page: { template: a } }, { page: { template: b } });
    expect(edit!.field).toBe('page.template');
    expect(edit!.from).toMatch(/^\[1,021 characters, fingerprint [0-9a-f]{8}\]$/);
    expect(edit!.to).not.toBe(edit!.from);
    const [created] = fieldChanges({}, { page: { template: a, message: 'hi' } });
    expect(created).toEqual({ field: 'page', to: { template: edit!.from, message: 'hi' } });
    expect(fieldChanges({ page: { message: 'x'.repeat(MAX_AUDIT_TEXT) } }, {})[0]!.from).toEqual({ message: 'x'.repeat(MAX_AUDIT_TEXT) });
  });
});

describe('audit CSV', () => {
  const entry: AuditEntry = {
    id: 7,
    eventId: 'spring',
    at: Date.UTC(2027, 2, 1, 10, 2),
    actor: { kind: 'key', id: 'a1b2c3d4e5f6', label: 'Ops, "night"' },
    action: 'event.update',
    changes: [
      { field: 'name', from: 'Spring', to: '=HYPERLINK("x")' },
      { field: 'releaseRatePerMinute', from: -1, to: 90 },
    ],
    requestId: 'ray-1',
  };

  it('writes one RFC 4180 row per changed field, quoting commas and quotes, defusing formulas', () => {
    expect(auditCsv([entry]).split('\r\n')).toEqual([
      'id,at,eventId,actorKind,actorId,actorLabel,action,field,from,to,requestId',
      '7,2027-03-01T10:02:00.000Z,spring,key,a1b2c3d4e5f6,"Ops, ""night""",event.update,name,Spring,"\'=HYPERLINK(""x"")",ray-1',
      '7,2027-03-01T10:02:00.000Z,spring,key,a1b2c3d4e5f6,"Ops, ""night""",event.update,releaseRatePerMinute,-1,90,ray-1',
      '',
    ]);
  });
});
