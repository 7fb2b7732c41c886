// Reading one credential cookie from a Cookie header (src/lib/cookies.ts readCookie, isSecure).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecure, readCookie } from '../../src/lib/cookies';

/** The rule as plainly written: split on `;`, trim each pair, keep those named `name`; two are ambiguous. */
function readCookieByRule(header: string | undefined, name: string): string | undefined | { duplicate: true } {
  if (!header) return undefined;
  const values = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c.startsWith(`${name}=`))
    .map((c) => c.slice(name.length + 1));
  return values.length > 1 ? { duplicate: true } : values[0];
}

const NAME = '__wr_t_ev';
/** Cookie headers built from pairs that often name NAME or a near miss, with odd spacing. */
const headers = fc
  .array(
    fc.tuple(
      fc.constantFrom(NAME, `${NAME}x`, `x${NAME}`, '__wr_a_ev', 'other', '', NAME.slice(0, 5)),
      fc.constantFrom('=', ' =', '= ', '==', ''),
      fc.string({ maxLength: 8 }),
      fc.constantFrom(';', '; ', ' ;', ';\t', ';;'),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.map(([n, eq, v, sep]) => `${n}${eq}${v}${sep}`).join(''));

describe('readCookie', () => {
  it('reads exactly what the split-trim-filter rule reads, for any header', () => {
    fc.assert(
      fc.property(headers, (h) => {
        expect(readCookie(h, NAME)).toEqual(readCookieByRule(h, NAME));
      }),
      { numRuns: 2000 },
    );
  });

  it('calls a credential sent twice ambiguous, and a missing one absent', () => {
    expect(readCookie(`${NAME}=a; ${NAME}=b`, NAME)).toEqual({ duplicate: true });
    expect(readCookie(`x${NAME}=a; other=b`, NAME)).toBeUndefined();
    expect(readCookie(` ${NAME}=v ;b=c`, NAME)).toBe('v');
  });
});

describe('isSecure', () => {
  it('answers for each URL, however the calls interleave', () => {
    expect(isSecure('http://localhost/a')).toBe(false);
    expect(isSecure('http://localhost/a')).toBe(false);
    expect(isSecure('http://tickets.example/a')).toBe(true);
    expect(isSecure('https://localhost/a')).toBe(true);
    expect(isSecure('http://127.0.0.1:8787/')).toBe(false);
    expect(() => isSecure('not a url')).toThrow('Invalid URL');
    expect(() => isSecure('not a url')).toThrow('Invalid URL');
  });
});
