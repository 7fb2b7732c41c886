// Content negotiation: q-values decide between a page and JSON (RFC 9110 §12.5.1). Before this,
// `Accept: application/json;q=0` still got JSON: the header was searched for the substring.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preferredType, prefersHtml } from '../../src/lib/negotiate';

const SUPPORTS = ['application/json', 'text/html'];

describe('preferredType', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['text/html', 'text/html'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
    ['application/json', 'application/json'],
    ['application/json;q=0', 'application/json'], // nothing acceptable: the fallback
    ['application/json;q=0, text/html', 'text/html'],
    ['application/json;q=0.5, text/html;q=0.9', 'text/html'],
    ['text/html;q=0.2, application/json', 'application/json'],
    ['text/html, application/json', 'text/html'],
    ['application/json, text/html', 'application/json'],
    ['text/*', 'text/html'],
    ['text/*;q=0.1, application/*;q=0.2', 'application/json'],
    ['*/*;q=0.1, text/html', 'text/html'],
    ['image/png', 'application/json'],
    ['TEXT/HTML', 'text/html'],
  ])('Accept %j prefers %s', (accept, expected) => {
    expect(preferredType(accept, SUPPORTS, 'application/json')).toBe(expected);
  });

  it('never chooses a type the header rules out with q=0', () => {
    const type = fc.constantFrom('application/json', 'text/html', 'text/*', 'application/*', '*/*');
    const q = fc.constantFrom('', ';q=0', ';q=0.000', ';q=0.3', ';q=1');
    fc.assert(
      fc.property(fc.array(fc.tuple(type, q), { minLength: 1, maxLength: 5 }), (parts) => {
        const header = parts.map(([t, p]) => t + p).join(', ');
        const chosen = preferredType(header, SUPPORTS, 'none');
        if (chosen === 'none') return;
        const refused = parts.some(([t, p]) => t === chosen && /q=0(\.0*)?$/.test(p));
        expect(refused, header).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('prefersHtml: browsers get pages, scripts and apps get JSON', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,*/*;q=0.8')).toBe(true);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('text/html;q=0, application/json')).toBe(false);
  });
});
