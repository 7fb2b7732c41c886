// isGatewayPath's shortcut (paths with no "_wr", "jwks" or "%" skip the normalization) against
// its definition: the normal form is /_wr, below /_wr/, or the JWKS path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGatewayPath } from '../../src/app';
import { normalizePath } from '../../contracts/path-normal-form';

/**
 * The rule isGatewayPath implements: the raw path is below `/_wr/` or is the JWKS path (the router
 * matches raw paths, so those reach the gateway's routes), or its normal form is /_wr, below /_wr/,
 * or the JWKS path (so no respelling reaches the origin or a room).
 */
const byDefinition = (pathname: string) => {
  if (pathname.startsWith('/_wr/') || pathname === '/.well-known/jwks.json') return true;
  const path = normalizePath(pathname);
  return path === '/_wr' || path.startsWith('/_wr/') || path === '/.well-known/jwks.json';
};

describe('isGatewayPath', () => {
  it.each([
    ['/_wr/events/x/join', true],
    ['/_WR/admin/', true],
    ['//_wr//events', true],
    ['/x/../_wr/admin', true],
    ['/%5Fwr/admin', true],
    ['/_wr;p=1/admin', true],
    ['/./_wr', true],
    // Found by the property below in CI: the raw path is the gateway's (its router answers 404),
    // although its normal form is "/"; it reaches neither the origin nor a room.
    ['/_wr/..;', true],
    ['/.well-known/jwks.json', true],
    ['/.WELL-KNOWN/JWKS.JSON', true],
    ['/.well-known/%6Awks.json', true],
    ['/.well-known/security.txt', false],
    ['/events/demo/', false],
    ['/_wrx/admin', false],
    ['/shop/_wr', false],
    ['/', false],
  ])('%s: %s', (path, expected) => {
    expect(isGatewayPath(path)).toBe(expected);
    expect(byDefinition(path)).toBe(expected);
  });

  it('agrees with the definition on random paths made of the characters that matter', () => {
    const piece = fc.constantFrom(
      '/',
      '//',
      '.',
      '..',
      ';',
      '_',
      'w',
      'W',
      'r',
      'R',
      '%5F',
      '%5f',
      '%77',
      '%2F',
      '%',
      'x',
      'jwks',
      'JWKS',
      '.json',
      '.well-known',
      '_wr',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        // As the router sees it: the URL parser's pathname (dot segments resolved, backslashes as slashes).
        const path = new URL(`http://gw.example/${parts.join('')}`).pathname;
        expect(isGatewayPath(path)).toBe(byDefinition(path));
      }),
      { numRuns: 2_000 },
    );
  });
});
