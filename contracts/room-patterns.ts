// Room URL patterns: the grammar an event's `patterns` and `bypass` are written in, the normal form
// requests are matched in, and the matcher (most specific pattern wins). Pure: no I/O, no clock.
//
// Grammar of a pattern: `[host]/path` or `[host]/path/*`.
// - host (optional): a DNS name with a dot, or `localhost` (letters, digits, `-`, `.`), matched case-insensitively without the
//   port (RFC 3986 section 3.2.2: hosts are case-insensitive).
// - path: `/`-separated segments of RFC 3986 pchars (no `;`, `?`, `#`, `*`, no empty, `.` or `..`
//   segment). A trailing `/*` covers the path itself and everything below it (`/a/*` covers `/a`,
//   `/a/` and `/a/b`, not `/ab`); without it the pattern covers that one path (with or without a
//   trailing slash), its directory index (`/a/index.html`, `/a/default.aspx`), and, when its last
//   segment names a file (`/shop/checkout.aspx`), the paths below it (PATH_INFO: PHP, ASP.NET and
//   servlets run `checkout.aspx/x.css` as checkout.aspx) and the file without its extension
//   (ASP.NET FriendlyUrls and Apache MultiViews serve `/shop/checkout` as checkout.aspx); and a
//   pattern without an extension covers its page files (`/a.html`, `/a.php`: "pretty URL" servers).
// Requests are matched in a normal form (contracts/path-normal-form.ts): case, encodings, dot
// segments and Windows spellings folded, so no spelling the origin serves walks around its room.
// Cost: matching is linear in the path; only its first MATCH_WINDOW characters are ever looked up.

import { normalizePath } from './path-normal-form';

export { normalizePath };

/** Most URL patterns one event may list. */
export const MAX_PATTERNS = 20;
/** Most entries in each bypass list of one event. */
export const MAX_BYPASS_ENTRIES = 20;
/** Longest pattern or bypass prefix, characters. */
export const MAX_PATTERN_LENGTH = 256;
/**
 * Longest request path the gateway routes, characters of the URL's `pathname`; longer ones get
 * `414 URI_TOO_LONG` before any matching. Apache refuses request lines over 8,190 bytes by
 * default (`LimitRequestLine`), so an origin rarely serves longer paths.
 */
export const MAX_PATH_LENGTH = 8_192;
/** Path prefixes that belong to the gateway: no room may cover them. */
const RESERVED_PREFIXES = ['/_wr', '/.well-known'] as const;
/** HTTP methods a bypass rule may name (RFC 9110 section 9 and RFC 5789). */
const BYPASS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH'] as const;

/** The default pattern of an event created without `patterns`: the demo's sale area. */
export const defaultPatterns = (eventId: string): string[] => [`/events/${eventId}/*`];

/** One parsed pattern, in normal form. */
export interface RoomPattern {
  /** Lower-case host, or null for any host. */
  host: string | null;
  /** Normal-form path: lower case, no trailing slash (`/` for the root). */
  path: string;
  /** True for `.../*` (the path and everything below it). */
  wildcard: boolean;
  /** Identity of the pattern: two patterns with the same key cover exactly the same URLs. */
  key: string;
}

/** What bypasses the queue in a room: these requests go to the origin untouched and uncounted. */
export interface BypassRules {
  /** Case-sensitive prefixes of the request path, e.g. `/concerts/2027-taipei/static/`. */
  pathPrefixes: string[];
  /** File extensions of the last path segment, lower case without the dot, e.g. `css`. */
  extensions: string[];
  /** Upper-case methods, e.g. `OPTIONS`. */
  methods: string[];
}

/** One room of the table: an event, the patterns it covers and its bypass rules. */
export interface RoomRules {
  eventId: string;
  /** Patterns as the organizer wrote them (parse with `parsePattern`). */
  patterns: string[];
  bypass: BypassRules;
}

/** A refusal of a pattern or bypass rule: the error code and a message naming the pattern. */
export interface PatternProblem {
  code: 'ROUTE_INVALID' | 'ROUTE_RESERVED' | 'ROUTE_OVERLAP';
  message: string;
}

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** A path segment: RFC 3986 pchar without `;` (path parameters are stripped when matching) or `*`. */
const SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()+,=:@]|%[0-9A-Fa-f]{2})+$/;
const EXTENSION = /^[a-z0-9]{1,16}$/;
/** True when the normal-form `path` is `prefix` or below it (segment-wise). */
const within = (path: string, prefix: string) => prefix === '/' || path === prefix || path.startsWith(prefix + '/');

/**
 * Parses one pattern (`[host]/path[/*]`).
 *
 * @returns the pattern in normal form, or a problem: ROUTE_INVALID (malformed) or ROUTE_RESERVED
 *   (it would cover `/_wr/` or `/.well-known/`, which belong to the gateway)
 */
export function parsePattern(source: string): RoomPattern | PatternProblem {
  const invalid = (why: string): PatternProblem => ({ code: 'ROUTE_INVALID', message: `pattern ${JSON.stringify(source)}: ${why}` });
  if (typeof source !== 'string' || source.length === 0 || source.length > MAX_PATTERN_LENGTH) {
    return invalid(`must be 1-${MAX_PATTERN_LENGTH} characters`);
  }
  const slash = source.indexOf('/');
  if (slash < 0) return invalid('needs a path starting with "/" (e.g. "/concerts/2027-taipei/*")');
  const rawHost = source.slice(0, slash);
  const host = rawHost === '' ? null : rawHost.toLowerCase().replace(/\.$/, '');
  if (host !== null && (!HOST.test(host) || (!host.includes('.') && host !== 'localhost'))) {
    return invalid('a path starts with "/"; a host before it is a DNS name with a dot (no scheme, port or wildcard)');
  }
  let rawPath = source.slice(slash);
  const wildcard = rawPath === '/*' || rawPath.endsWith('/*');
  if (wildcard) rawPath = rawPath.slice(0, -2) || '/';
  const segments = rawPath.split('/').slice(1);
  if (rawPath !== '/' && segments.at(-1) === '') segments.pop(); // one trailing slash is allowed
  for (const segment of rawPath === '/' ? [] : segments) {
    if (segment === '') return invalid('empty path segment ("//")');
    if (segment.includes('*')) return invalid('"*" is allowed only as the last segment ("/*")');
    if (segment === '.' || segment === '..') return invalid('"." and ".." segments are not allowed');
    if (!SEGMENT.test(segment)) return invalid(`segment ${JSON.stringify(segment)} has characters outside RFC 3986 pchar (or ";")`);
    if (/%2f|%5c/i.test(segment))
      return invalid(`segment ${JSON.stringify(segment)} has an encoded slash: requests match it as "/", so write "/"`);
  }
  const path = normalizePath(rawPath);
  for (const reserved of RESERVED_PREFIXES) {
    if (within(path, reserved) || (wildcard && within(reserved, path))) {
      return {
        code: 'ROUTE_RESERVED',
        message: `pattern ${JSON.stringify(source)} would cover ${reserved}/, which belongs to the gateway`,
      };
    }
  }
  return { host, path, wildcard, key: `${host ?? ''}${path === '/' && wildcard ? '' : path}${wildcard ? '/*' : ''}` };
}

/** True when some URL is covered by both patterns. */
export function overlaps(a: RoomPattern, b: RoomPattern): boolean {
  if (a.host !== null && b.host !== null && a.host !== b.host) return false;
  if (a.wildcard && within(b.path, a.path)) return true;
  if (b.wildcard && within(a.path, b.path)) return true;
  return a.path === b.path;
}

/** Parsed and checked rules of one event. */
export interface ParsedRoom {
  patterns: RoomPattern[];
  bypass: BypassRules;
}

/**
 * Checks one event's patterns and bypass rules: each pattern well formed and outside the
 * gateway's paths, no two of them overlapping (one would be redundant or shadow the other), bypass
 * prefixes shaped like paths, extensions and methods from their alphabets.
 *
 * @returns the parsed room, or the first problem found (nothing is partially accepted)
 */
export function parseRoom(patterns: readonly string[], bypass: BypassRules): ParsedRoom | PatternProblem {
  if (patterns.length === 0 || patterns.length > MAX_PATTERNS) {
    return { code: 'ROUTE_INVALID', message: `an event covers 1-${MAX_PATTERNS} patterns` };
  }
  const parsed: RoomPattern[] = [];
  for (const source of patterns) {
    const p = parsePattern(source);
    if ('code' in p) return p;
    const clash = parsed.findIndex((q) => overlaps(p, q));
    if (clash >= 0) {
      return {
        code: 'ROUTE_OVERLAP',
        message: `patterns ${JSON.stringify(patterns[clash])} and ${JSON.stringify(source)} overlap; list each URL under one pattern`,
      };
    }
    parsed.push(p);
  }
  for (const list of ['pathPrefixes', 'extensions', 'methods'] as const) {
    if (bypass[list].length > MAX_BYPASS_ENTRIES)
      return { code: 'ROUTE_INVALID', message: `bypass.${list}: at most ${MAX_BYPASS_ENTRIES}` };
  }
  for (const prefix of bypass.pathPrefixes) {
    const segments = prefix.split('/').slice(1);
    if (
      !prefix.startsWith('/') ||
      prefix.length > MAX_PATTERN_LENGTH ||
      prefix === '/' ||
      segments.some((s, i) => (s === '' && i < segments.length - 1) || s === '.' || s === '..' || (s !== '' && !SEGMENT.test(s)))
    ) {
      return {
        code: 'ROUTE_INVALID',
        message: `bypass prefix ${JSON.stringify(prefix)}: a path below "/" of RFC 3986 pchars (no "*", ";", "//")`,
      };
    }
  }
  for (const ext of bypass.extensions) {
    if (!EXTENSION.test(ext))
      return { code: 'ROUTE_INVALID', message: `bypass extension ${JSON.stringify(ext)}: 1-16 lower-case letters or digits, no dot` };
  }
  for (const method of bypass.methods) {
    if (!(BYPASS_METHODS as readonly string[]).includes(method)) {
      return { code: 'ROUTE_INVALID', message: `bypass method ${JSON.stringify(method)}: one of ${BYPASS_METHODS.join(', ')}` };
    }
  }
  return { patterns: parsed, bypass };
}

/** A room table compiled for matching: maps from (host, path) to the room, exact and wildcard. */
export interface CompiledTable {
  version: number;
  exact: Map<string, RoomRules>;
  wildcard: Map<string, RoomRules>;
  /**
   * Exact patterns whose last segment names a file (`/shop/checkout.aspx`), keyed by that path and
   * by its stem (`/shop/checkout`): each covers the paths below it too (PATH_INFO), after the
   * organizer's own exact and wildcard patterns.
   */
  scripts: Map<string, RoomRules>;
  /** True when some pattern names a host (otherwise host lookups are skipped). */
  anyHost: boolean;
  size: number;
  /** Every event the table lists (the edge refuses other ids without an object call). */
  events: ReadonlySet<string>;
}

/**
 * Compiles a room table. Patterns are re-parsed; one that no longer parses (stored by an older
 * version with other rules) is skipped rather than failing every request.
 */
export function compileTable(rooms: readonly RoomRules[], version: number): CompiledTable {
  const exact = new Map<string, RoomRules>();
  const wildcard = new Map<string, RoomRules>();
  const scripts = new Map<string, RoomRules>();
  let anyHost = false;
  const events = new Set<string>();
  for (const room of rooms) {
    events.add(room.eventId);
    for (const source of room.patterns) {
      const p = parsePattern(source);
      if ('code' in p) continue;
      anyHost ||= p.host !== null;
      const key = `${p.host ?? ''}\n${p.path}`;
      (p.wildcard ? wildcard : exact).set(key, room);
      const dot = p.path.lastIndexOf('.');
      if (!p.wildcard && dot > p.path.lastIndexOf('/') + 1) {
        if (!scripts.has(key)) scripts.set(key, room);
        const stem = key.slice(0, key.length - (p.path.length - dot));
        if (!scripts.has(stem)) scripts.set(stem, room);
      }
    }
  }
  return { version, exact, wildcard, scripts, anyHost, size: exact.size + wildcard.size, events };
}

/** How a request relates to the room table. */
export type RoomMatch =
  | { kind: 'none' }
  | { kind: 'room'; room: RoomRules }
  /** Covered by the room, but its bypass rules let it through to the origin uncounted. */
  | { kind: 'bypass'; room: RoomRules; rule: 'method' | 'prefix' | 'extension' };

/** A directory index file (`index.html`, `default.aspx`): servers answer `/a/` with it, so it is `/a`. */
const INDEX_FILE = /\/(?:index|default)\.[a-z0-9]+$/;
/**
 * A page file's extension: servers with "pretty URLs" (nginx `try_files $uri $uri.html`, static
 * exports, Apache MultiViews, PHP front controllers) serve `/a` from `a.html` or `a.php`, so an
 * exact pattern `/a` covers those files too.
 */
const PAGE_FILE = /\.(?:html?|xhtml|shtml|php\d?|aspx?|jspx?|cfm|do|action)$/;
/**
 * How much of a normal-form path the matcher looks up, characters: a pattern's path (at most
 * MAX_PATTERN_LENGTH) plus the longest page-file name it covers (`/default.action`). Longer
 * prefixes cannot be any pattern's.
 */
export const MATCH_WINDOW = MAX_PATTERN_LENGTH + 32;

/**
 * Finds the room covering a request. Most specific wins: the longest matching path; at equal
 * length an exact pattern beats a wildcard, which beats what an exact file pattern covers below
 * itself (see `CompiledTable.scripts`); then a pattern naming the host beats one without. A
 * directory index (`/a/index.html`) is matched as its directory.
 * Then the room's bypass rules: method, case-sensitive path prefix of the raw path, or extension
 * of its last segment (case-insensitive) when no segment between the room's pattern and the last
 * one has a dot (PATH_INFO: `/room/buy.php/x.css` runs buy.php). A raw path with `%`, `;` or `//`
 * never bypasses, so an encoding the origin may read differently cannot turn a room page into a
 * "static asset".
 *
 * @param hostname the request's host without port (`new URL(..).hostname`)
 * @param pathname the request's path (`new URL(..).pathname`)
 */
export function matchRoom(table: CompiledTable, method: string, hostname: string, pathname: string): RoomMatch {
  if (table.size === 0) return { kind: 'none' };
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const path = normalizePath(pathname);
  let room: RoomRules | undefined;
  const find = (map: Map<string, RoomRules>, p: string) => (table.anyHost ? map.get(`${host}\n${p}`) : undefined) ?? map.get(`\n${p}`);
  // The exact pattern a page file stands for: its directory (index file) or its stem (page file).
  const pageOf = (p: string) =>
    (INDEX_FILE.test(p) ? find(table.exact, p.slice(0, p.lastIndexOf('/')) || '/') : undefined) ??
    (PAGE_FILE.test(p) ? find(table.exact, p.slice(0, p.lastIndexOf('.'))) : undefined);
  room = find(table.exact, path) ?? pageOf(path);
  let matchedAt = path;
  // No pattern is longer than MATCH_WINDOW, so the walk starts at the longest prefix that fits:
  // each step then costs at most MATCH_WINDOW, whatever the path's length (linear overall).
  const start = path.length <= MATCH_WINDOW ? path.length : path.lastIndexOf('/', MATCH_WINDOW);
  for (let p = start <= 0 ? '/' : path.slice(0, start); !room;) {
    room = find(table.wildcard, p);
    matchedAt = p;
    // Below a script, every path is the script (no extension bypass): matched at the full path.
    if (!room && (room = find(table.scripts, p))) matchedAt = path;
    // A page file or directory index with path info (`/buy.php/x`, `/buy/index.php/x`): PHP and
    // servlet origins run the page, so it is what an exact `/buy` covers.
    if (!room && p !== path && (room = pageOf(p))) matchedAt = path;
    if (p === '/') break;
    const cut = p.lastIndexOf('/');
    p = cut === 0 ? '/' : p.slice(0, cut);
  }
  if (!room) return { kind: 'none' };
  const { bypass } = room;
  if (bypass.methods.length > 0 && bypass.methods.includes(method.toUpperCase())) return { kind: 'bypass', room, rule: 'method' };
  if ((bypass.pathPrefixes.length > 0 || bypass.extensions.length > 0) && !/[%;]|\/\//.test(pathname)) {
    if (bypass.pathPrefixes.some((prefix) => pathname.startsWith(prefix))) return { kind: 'bypass', room, rule: 'prefix' };
    // Below the room's pattern, only the last segment may have a dot: `buy.php/x.css` is buy.php
    // with path info on PHP, ASP.NET and servlet origins, not a stylesheet.
    const below = path.slice(matchedAt === '/' ? 0 : matchedAt.length);
    const lastSlash = below.lastIndexOf('/');
    const last = below.slice(lastSlash + 1);
    const dot = last.lastIndexOf('.');
    if (dot > 0 && !below.slice(0, lastSlash).includes('.') && bypass.extensions.includes(last.slice(dot + 1))) {
      return { kind: 'bypass', room, rule: 'extension' };
    }
  }
  return { kind: 'room', room };
}
