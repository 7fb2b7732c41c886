// Room URL patterns: the grammar (tables of accepted and refused patterns), the normal form, and
// the matcher (most specific wins; no spelling of a covered URL walks around its room).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileTable,
  MATCH_WINDOW,
  matchRoom,
  overlaps,
  parsePattern,
  parseRoom,
  type BypassRules,
  type RoomPattern,
  type RoomRules,
} from '../../contracts/room-patterns';
import { normalizePath } from '../../contracts/path-normal-form';

const NO_BYPASS: BypassRules = { pathPrefixes: [], extensions: [], methods: [] };
const room = (eventId: string, patterns: string[], bypass: Partial<BypassRules> = {}): RoomRules => ({
  eventId,
  patterns,
  bypass: { ...NO_BYPASS, ...bypass },
});
const matchOf = (rooms: RoomRules[], url: string, method = 'GET') => {
  const u = new URL(url);
  const m = matchRoom(compileTable(rooms, 1), method, u.hostname, u.pathname);
  return m.kind === 'none' ? 'none' : `${m.kind}:${m.room.eventId}`;
};

describe('parsePattern', () => {
  it.each([
    ['/concerts/2027-taipei/*', { host: null, path: '/concerts/2027-taipei', wildcard: true, key: '/concerts/2027-taipei/*' }],
    ['/Concerts/2027-Taipei/*', { host: null, path: '/concerts/2027-taipei', wildcard: true, key: '/concerts/2027-taipei/*' }],
    ['Tickets.Example.com/sale/*', { host: 'tickets.example.com', path: '/sale', wildcard: true, key: 'tickets.example.com/sale/*' }],
    ['localhost/sale/*', { host: 'localhost', path: '/sale', wildcard: true, key: 'localhost/sale/*' }],
    ['tickets.example.com./sale', { host: 'tickets.example.com', path: '/sale', wildcard: false, key: 'tickets.example.com/sale' }],
    ['/checkout/', { host: null, path: '/checkout', wildcard: false, key: '/checkout' }],
    ['/', { host: null, path: '/', wildcard: false, key: '/' }],
    ['/%7Euser/*', { host: null, path: '/~user', wildcard: true, key: '/~user/*' }],
    ['/caf%C3%A9/*', { host: null, path: '/caf%c3%a9', wildcard: true, key: '/caf%c3%a9/*' }],
  ])('accepts %j', (source, expected) => {
    expect(parsePattern(source)).toEqual(expected);
  });

  it.each([
    ['', 'ROUTE_INVALID'],
    ['concerts/*', 'ROUTE_INVALID'],
    ['concerts/2027-taipei/*', 'ROUTE_INVALID'],
    ['concerts', 'ROUTE_INVALID'],
    ['https://example.com/a/*', 'ROUTE_INVALID'],
    ['example.com:8443/a/*', 'ROUTE_INVALID'],
    ['*.example.com/a/*', 'ROUTE_INVALID'],
    ['/a/*/b', 'ROUTE_INVALID'],
    ['/a*', 'ROUTE_INVALID'],
    ['/a/b*', 'ROUTE_INVALID'],
    ['/a//b', 'ROUTE_INVALID'],
    ['/a/../b', 'ROUTE_INVALID'],
    ['/a/./b', 'ROUTE_INVALID'],
    ['/a;jsessionid=1/*', 'ROUTE_INVALID'],
    ['/a?x=1', 'ROUTE_INVALID'],
    ['/a#frag', 'ROUTE_INVALID'],
    ['/a b', 'ROUTE_INVALID'],
    ['/a\\b', 'ROUTE_INVALID'],
    ['/%zz', 'ROUTE_INVALID'],
    ['/a%2Fb/*', 'ROUTE_INVALID'],
    ['/a%5cb', 'ROUTE_INVALID'],
    ['/é', 'ROUTE_INVALID'],
    ['/' + 'a'.repeat(300), 'ROUTE_INVALID'],
    ['/*', 'ROUTE_RESERVED'],
    ['example.com/*', 'ROUTE_RESERVED'],
    ['/_wr/*', 'ROUTE_RESERVED'],
    ['/_wr', 'ROUTE_RESERVED'],
    ['/_WR/admin/', 'ROUTE_RESERVED'],
    ['/%5Fwr/events/*', 'ROUTE_RESERVED'],
    ['/.well-known/*', 'ROUTE_RESERVED'],
    ['/.well-known/jwks.json', 'ROUTE_RESERVED'],
    ['/.Well-Known/acme-challenge/*', 'ROUTE_RESERVED'],
  ])('refuses %j with %s', (source, code) => {
    expect(parsePattern(source)).toMatchObject({ code });
  });

  it('allows neighbours of the reserved paths', () => {
    for (const ok of ['/_wrx/*', '/_w/*', '/well-known/*', '/.well-knownx']) expect(parsePattern(ok)).toHaveProperty('key');
  });
});

describe('overlaps', () => {
  const p = (s: string) => parsePattern(s) as RoomPattern;
  it.each([
    ['/a/*', '/a/b', true],
    ['/a/*', '/a', true],
    ['/a/*', '/a/b/*', true],
    ['/a/*', '/ab/*', false],
    ['/a', '/a/', true],
    ['/a', '/A', true],
    ['/a', '/a/b', false],
    ['x.com/a/*', '/a/b', true],
    ['x.com/a/*', 'y.com/a/b', false],
    ['x.com/a', 'X.COM/a', true],
  ])('%j and %j: %s', (a, b, expected) => {
    expect(overlaps(p(a), p(b))).toBe(expected);
    expect(overlaps(p(b), p(a))).toBe(expected);
  });
});

describe('parseRoom', () => {
  it('refuses overlapping patterns of one event, naming both', () => {
    expect(parseRoom(['/tour/*', '/tour/taipei/*'], NO_BYPASS)).toEqual({
      code: 'ROUTE_OVERLAP',
      message: expect.stringContaining('"/tour/*" and "/tour/taipei/*"'),
    });
  });
  it.each([
    [[], NO_BYPASS],
    [Array.from({ length: 21 }, (_, i) => `/p${i}`), NO_BYPASS],
    [['/a/*'], { ...NO_BYPASS, pathPrefixes: ['static/'] }],
    [['/a/*'], { ...NO_BYPASS, pathPrefixes: ['/'] }],
    [['/a/*'], { ...NO_BYPASS, pathPrefixes: ['/a//b'] }],
    [['/a/*'], { ...NO_BYPASS, pathPrefixes: ['/a/*'] }],
    [['/a/*'], { ...NO_BYPASS, pathPrefixes: ['/a/../b'] }],
    [['/a/*'], { ...NO_BYPASS, extensions: ['.css'] }],
    [['/a/*'], { ...NO_BYPASS, extensions: ['CSS'] }],
    [['/a/*'], { ...NO_BYPASS, methods: ['options'] }],
    [['/a/*'], { ...NO_BYPASS, methods: ['BREW'] }],
    [['/a/*'], { ...NO_BYPASS, methods: Array.from({ length: 21 }, () => 'GET') }],
  ])('refuses %j with bypass %j as ROUTE_INVALID', (patterns, bypass) => {
    expect(parseRoom(patterns, bypass)).toMatchObject({ code: 'ROUTE_INVALID' });
  });
  it('accepts a room with every kind of bypass rule', () => {
    const bypass = { pathPrefixes: ['/a/static/', '/a/img'], extensions: ['css', 'js', 'woff2'], methods: ['OPTIONS'] };
    expect(parseRoom(['/a/*', 'x.com/b'], bypass)).toMatchObject({ bypass, patterns: [{ key: '/a/*' }, { key: 'x.com/b' }] });
  });
});

describe('normalizePath', () => {
  it.each([
    ['/', '/'],
    ['/a/b/', '/a/b'],
    ['//a///b', '/a/b'],
    ['/A/B', '/a/b'],
    ['/a;jsessionid=1/b;x', '/a/b'],
    ['/a/..;/b', '/b'],
    ['/a/%2e%2e/b', '/b'],
    ['/%61%62c', '/abc'],
    // Encoded slashes and backslashes read as "/" (nginx decodes them before routing):
    // `/events%2Fdemo/` passed by the demo's room to an origin that serves it as the sale page.
    ['/a%2Fb', '/a/b'],
    ['/events%2fdemo/', '/events/demo'],
    ['/events/demo%2F', '/events/demo'],
    ['/concerts/%2F2027-taipei/', '/concerts/2027-taipei'],
    ['/a%5Cb', '/a/b'],
    ['/a/%2e%2e%2fb', '/b'],
    ['/a/./b/../c', '/a/c'],
    ['/../../a', '/a'],
    // IIS/NTFS serve these as /concerts/2027-taipei/; C code stops at %00.
    ['/concerts/2027-taipei./', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei.../', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei%20/', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei.%20./', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei::$DATA/', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei%00/x', '/concerts/2027-taipei/x'],
    ['/concerts/2027-taipei%00.css', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei%09/', '/concerts/2027-taipei'],
    ['/concerts/2027-taipei%7F/', '/concerts/2027-taipei'],
    ['/a%20b/c', '/a%20b/c'],
    ['/a/.../b', '/a/b'],
    ['/a::$data.', '/a'],
    // A network-path spelling reads as the room it names (and is proxied to the configured origin only).
    ['//127.0.0.1:8799/..%2Fevents/demo/', '/events/demo'],
    ['/a..::$data', '/a..'],
    ['/a::$data::$data', '/a::$data'],
    ['/x' + '.'.repeat(20_000) + 'y.', '/x' + '.'.repeat(20_000) + 'y'],
  ])('%j -> %j', (input, output) => {
    expect(normalizePath(input)).toBe(output);
  });

  it('drops the same Windows tail from every segment as the rule "(::$data)?(.|%20)*$" says', () => {
    const tail = /(?:::\$data)?(?:\.|%20)*$/;
    const part = fc.constantFrom('a', '.', '%20', '::$data', ':', '%2');
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 8 }), (parts) => {
        const segment = 'x' + parts.join('');
        expect(normalizePath('/' + segment)).toBe('/' + segment.replace(tail, ''));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('matchRoom', () => {
  const rooms = [
    room('tour', ['/tour/*']),
    room('taipei', ['/tour/taipei/*'], { pathPrefixes: ['/tour/taipei/static/'], extensions: ['css', 'png'], methods: ['OPTIONS'] }),
    room('taipei-vip', ['/tour/taipei/vip']),
    room('hosted', ['tickets.example.com/tour/taipei/*']),
    room('demo', ['/events/demo/*']),
    room('dotted', ['/events/2027.osaka/*'], { pathPrefixes: [], extensions: ['css'], methods: [] }),
  ];
  it.each([
    ['https://gw.test/', 'none'],
    ['https://gw.test/tours', 'none'],
    ['https://gw.test/tour', 'room:tour'],
    ['https://gw.test/tour/', 'room:tour'],
    ['https://gw.test/tour/osaka/seats', 'room:tour'],
    ['https://gw.test/tour/taipei', 'room:taipei'],
    ['https://gw.test/tour/taipei/seats', 'room:taipei'],
    ['https://gw.test/tour/taipei/vip', 'room:taipei-vip'],
    ['https://gw.test/tour/taipei/vip/', 'room:taipei-vip'],
    ['https://gw.test/tour/taipei/vip/x', 'room:taipei'],
    ['https://tickets.example.com/tour/taipei/seats', 'room:hosted'],
    ['https://TICKETS.example.com./tour/taipei/seats', 'room:hosted'],
    ['https://tickets.example.com/tour/taipei/vip', 'room:taipei-vip'],
    ['https://tickets.example.com/tour/osaka', 'room:tour'],
    // Spellings an origin may serve as the same page stay in the room.
    ['https://gw.test/TOUR/Taipei/seats', 'room:taipei'],
    ['https://gw.test//tour//taipei/seats', 'room:taipei'],
    ['https://gw.test/tour;x=1/taipei/seats', 'room:taipei'],
    ['https://gw.test/tour/%74aipei/seats', 'room:taipei'],
    ['https://gw.test/elsewhere/../tour/taipei/', 'room:taipei'],
    ['https://gw.test/x/..;/tour/taipei/', 'room:taipei'],
    ['https://gw.test/events/demo/', 'room:demo'],
    ['https://gw.test/events/demo', 'room:demo'],
    ['https://gw.test/events/other/', 'none'],
    // Bypass rules: only on the raw path, never through an encoding.
    ['https://gw.test/tour/taipei/static/app.js', 'bypass:taipei'],
    ['https://gw.test/tour/taipei/logo.PNG', 'bypass:taipei'],
    ['https://gw.test/tour/taipei/site.css', 'bypass:taipei'],
    ['https://gw.test/tour/taipei/Static/app.js', 'room:taipei'],
    ['https://gw.test/tour/taipei/static/../seats', 'room:taipei'],
    ['https://gw.test/tour/taipei/seats;.css', 'room:taipei'],
    ['https://gw.test/tour/taipei/seats%3B.css', 'room:taipei'],
    ['https://gw.test/tour/taipei//static/app.js', 'room:taipei'],
    ['https://gw.test/tour/taipei/css', 'room:taipei'],
    ['https://gw.test/tour/taipei/.css', 'room:taipei'],
    ['https://gw.test/tour/osaka/site.css', 'room:tour'],
    // PATH_INFO. PHP, ASP.NET and servlets run buy.php with /x.css as path
    // info, so an extension counts only when no segment below the pattern before it has a dot.
    ['https://gw.test/tour/taipei/buy.php/x.css', 'room:taipei'],
    ['https://gw.test/tour/taipei/checkout.aspx/x.css', 'room:taipei'],
    ['https://gw.test/tour/taipei/a.b/c/x.css', 'room:taipei'],
    ['https://gw.test/tour/taipei/img/x.css', 'bypass:taipei'],
    ['https://gw.test/events/2027.osaka/site.css', 'bypass:dotted'],
    ['https://gw.test/events/2027.osaka/buy.php/site.css', 'room:dotted'],
    // Windows tails and control characters stay in the room (IIS serves them as the room page).
    ['https://gw.test/tour/taipei./seats', 'room:taipei'],
    ['https://gw.test/tour/taipei%20/seats', 'room:taipei'],
    ['https://gw.test/tour/taipei::$DATA/seats', 'room:taipei'],
    ['https://gw.test/tour/taipei%00/seats', 'room:taipei'],
    ['https://gw.test/tour/taipei/seats%00.css', 'room:taipei'],
    ['https://gw.test/_wr/events/taipei/status', 'none'],
  ])('%s -> %s', (url, expected) => {
    expect(matchOf(rooms, url)).toBe(expected);
  });
  it('lets bypass methods through uncounted, case-insensitively', () => {
    expect(matchOf(rooms, 'https://gw.test/tour/taipei/seats', 'OPTIONS')).toBe('bypass:taipei');
    expect(matchOf(rooms, 'https://gw.test/tour/taipei/seats', 'options')).toBe('bypass:taipei');
    expect(matchOf(rooms, 'https://gw.test/tour/taipei/seats', 'POST')).toBe('room:taipei');
    expect(matchOf(rooms, 'https://gw.test/tour/osaka', 'OPTIONS')).toBe('room:tour');
  });
  it('matches nothing with an empty table', () => {
    expect(matchOf([], 'https://gw.test/tour/')).toBe('none');
  });
});

// An exact pattern on a script file was reachable through PATH_INFO, the
// file without its extension (ASP.NET FriendlyUrls, Apache MultiViews) and the directory index.
describe('matchRoom: what an exact pattern covers besides its path', () => {
  const rooms = [
    room('shop', ['/shop/*'], { pathPrefixes: [], extensions: ['css'], methods: [] }),
    room('checkout', ['/shop/checkout.aspx']),
    room('exact', ['/exact-sale']),
    room('cart', ['/shop/cart']),
    room('page', ['/shop/cart.html']),
  ];
  it.each([
    ['https://gw.test/shop/checkout.aspx', 'room:checkout'],
    ['https://gw.test/shop/checkout.aspx/x.css', 'room:checkout'],
    ['https://gw.test/shop/Checkout.aspx/a/b', 'room:checkout'],
    ['https://gw.test/shop/checkout', 'room:checkout'],
    ['https://gw.test/shop/checkout/x.css', 'room:checkout'],
    ['https://gw.test/shop/checkouts', 'room:shop'],
    ['https://gw.test/shop/site.css', 'bypass:shop'],
    ['https://gw.test/exact-sale/index.html', 'room:exact'],
    ['https://gw.test/exact-sale/Default.aspx', 'room:exact'],
    ['https://gw.test/exact-sale/other.html', 'none'],
    ['https://gw.test/exact-sale/index', 'none'],
    // "pretty URL" servers serve /exact-sale from exact-sale.html or .php.
    ['https://gw.test/exact-sale.html', 'room:exact'],
    ['https://gw.test/Exact-Sale.PHP', 'room:exact'],
    ['https://gw.test/exact-sale.aspx', 'room:exact'],
    ['https://gw.test/exact-sale.css', 'none'],
    ['https://gw.test/exact-sale.html.bak', 'none'],
    // The organizer's own exact pattern wins over another's file stem.
    ['https://gw.test/shop/cart', 'room:cart'],
    ['https://gw.test/shop/cart.html', 'room:page'],
    ['https://gw.test/shop/cart.html/x', 'room:page'],
    // A page file or directory index with path info runs the page on PHP and servlet origins.
    ['https://gw.test/exact-sale.php/x', 'room:exact'],
    ['https://gw.test/exact-sale/index.php/x', 'room:exact'],
    ['https://gw.test/exact-sale.aspx/x', 'room:exact'],
    ['https://gw.test/exact-sale.jsp/x', 'room:exact'],
    ['https://gw.test/exact-sale.do/x', 'room:exact'],
    ['https://gw.test/Exact-Sale.CFM/a/b.css', 'room:exact'],
    ['https://gw.test/exact-sale.css/x', 'none'],
    ['https://gw.test/exact-sale/other.php/x', 'none'],
    ['https://gw.test/shop/site.css/x', 'room:shop'],
  ])('%s -> %s', (url, expected) => {
    expect(matchOf(rooms, url)).toBe(expected);
  });
});

// Property tests: random rooms from a small alphabet of segments, so patterns nest and collide.
const segment = fc.constantFrom('a', 'b', 'tour', 'x-1', 'Taipei');
const patternArb = fc.record({
  host: fc.option(fc.constantFrom('gw.test', 'tickets.example.com'), { nil: null }),
  segments: fc.array(segment, { minLength: 1, maxLength: 3 }),
  wildcard: fc.boolean(),
});
const sourceOf = (p: { host: string | null; segments: string[]; wildcard: boolean }) =>
  `${p.host ?? ''}/${p.segments.join('/')}${p.wildcard ? '/*' : ''}`;

/** Reference matcher: every pattern that covers the URL, ranked by (path length, exact, host). */
function referenceMatch(rooms: RoomRules[], host: string, path: string): string | null {
  let best: { rank: [number, number, number]; eventId: string } | null = null;
  for (const r of rooms) {
    for (const source of r.patterns) {
      const p = parsePattern(source) as RoomPattern;
      if (p.host !== null && p.host !== host) continue;
      const covers = p.wildcard ? path === p.path || path.startsWith(p.path + '/') : path === p.path;
      if (!covers) continue;
      const rank: [number, number, number] = [p.path.split('/').length, p.wildcard ? 0 : 1, p.host ? 1 : 0];
      const order = best ? rank[0] - best.rank[0] || rank[1] - best.rank[1] || rank[2] - best.rank[2] : 1;
      if (order > 0) best = { rank, eventId: r.eventId };
    }
  }
  return best?.eventId ?? null;
}

describe('matchRoom properties', () => {
  const tableArb = fc.uniqueArray(patternArb, {
    minLength: 1,
    maxLength: 8,
    selector: (p) => (parsePattern(sourceOf(p)) as RoomPattern).key,
  });
  const requestArb = fc.record({
    host: fc.constantFrom('gw.test', 'tickets.example.com'),
    segments: fc.array(segment, { maxLength: 4 }),
  });

  it('picks the most specific covering pattern, as a brute-force reference does', () => {
    fc.assert(
      fc.property(tableArb, requestArb, (patterns, req) => {
        const rooms = patterns.map((p, i) => room(`e${i}`, [sourceOf(p)]));
        const path = normalizePath('/' + req.segments.join('/'));
        const m = matchRoom(compileTable(rooms, 1), 'GET', req.host, '/' + req.segments.join('/'));
        expect(m.kind === 'none' ? null : m.room.eventId).toBe(referenceMatch(rooms, req.host, path));
      }),
      { numRuns: 500 },
    );
  });

  it('matches every spelling of a path the same way (case, "//", ";params", %-encoded unreserved and slashes, dot segments)', () => {
    const respell = fc.array(fc.constantFrom('upper', 'slashes', 'param', 'encode', 'dots', 'encoded-slash'), { maxLength: 3 });
    fc.assert(
      fc.property(tableArb, requestArb, respell, (patterns, req, tricks) => {
        const rooms = patterns.map((p, i) => room(`e${i}`, [sourceOf(p)]));
        const table = compileTable(rooms, 1);
        const plain = matchRoom(table, 'GET', req.host, '/' + req.segments.join('/'));
        let segs: string[] = [...req.segments];
        for (const t of tricks) {
          if (t === 'upper') segs = segs.map((s) => s.toUpperCase());
          if (t === 'param') segs = segs.map((s) => `${s};v=1`);
          // A letter outside an escape: re-encoding an escape's own hex digit is double encoding
          // (`%6f` -> `%6%66`), which the matcher documents as not matched (CI found it at 30,000 runs).
          if (t === 'encode') segs = segs.map((s) => s.replace(/(?<!%|%[0-9a-f])[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`));
          if (t === 'encoded-slash' && segs.length > 1) segs = [segs.slice(0, 2).join('%2F'), ...segs.slice(2)];
          // The URL parser resolves dot segments before "//" could merge (what the origin sees too).
          if (t === 'dots' && !tricks.includes('slashes')) segs = ['zz', '..', ...segs, '.'];
        }
        const spelled = new URL('https://h.test/' + segs.join(tricks.includes('slashes') ? '//' : '/')).pathname;
        const other = matchRoom(table, 'GET', req.host, spelled);
        expect(other.kind === 'none' ? null : other.room.eventId).toBe(plain.kind === 'none' ? null : plain.room.eventId);
      }),
      { numRuns: 500 },
    );
  });

  it('never lets an accepted pattern cover the gateway paths', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(?:[a-z.]{1,8})?\/[a-zA-Z0-9_.%/-]{0,20}(?:\/\*)?$/), (source) => {
        const p = parsePattern(source);
        if ('code' in p) return;
        const table = compileTable([room('e', [source])], 1);
        for (const path of ['/_wr/events/e/status', '/_wr/admin/', '/.well-known/jwks.json', '/_WR/x', '/%5Fwr/x']) {
          expect(matchRoom(table, 'GET', p.host ?? 'gw.test', path)).toEqual({ kind: 'none' });
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('matchRoom cost', () => {
  /** A compiled table whose lookups add up the characters of the keys they hash. */
  function countingTable(rooms: RoomRules[]) {
    const table = compileTable(rooms, 1);
    const hashed = { chars: 0 };
    const counting = (map: Map<string, RoomRules>) => {
      const get = map.get.bind(map);
      map.get = (key: string) => ((hashed.chars += key.length), get(key));
      return map;
    };
    counting(table.exact);
    counting(table.wildcard);
    counting(table.scripts);
    return { table, hashed };
  }
  const rooms = [room('tour', ['/a/*']), room('buy', ['/buy']), room('checkout', ['/shop/checkout.aspx'])];

  it.each([
    ['many short segments', (n: number) => '/b'.repeat(n / 2)],
    ['page files between them', (n: number) => '/x.php'.repeat(n / 6)],
    ['one long segment', (n: number) => '/' + 'b'.repeat(n - 1)],
  ])('hashes a bounded number of characters, whatever the path length (%s)', (_name, pathOf) => {
    const { table, hashed } = countingTable(rooms);
    matchRoom(table, 'GET', 'gw.test', pathOf(64_000));
    // Hashing every prefix of a 64 KB path is about 10^9 characters; the window bounds it.
    expect(hashed.chars).toBeLessThanOrEqual(2 * MATCH_WINDOW * MATCH_WINDOW);
  });

  it('still finds the room of a long path below a wildcard pattern', () => {
    expect(matchOf(rooms, 'https://gw.test/a' + '/b'.repeat(30_000))).toBe('room:tour');
    expect(matchOf(rooms, 'https://gw.test/buy.php' + '/b'.repeat(30_000))).toBe('room:buy');
    expect(matchOf(rooms, 'https://gw.test/c' + '/b'.repeat(30_000))).toBe('none');
  });
});
