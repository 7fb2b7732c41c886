// The normal form a request path is matched in against room patterns (contracts/room-patterns.ts).
// Pure: no I/O, no clock; linear in the path's length.
//
// Case rule: paths are matched case-insensitively (ASCII), although RFC 3986 section 6.2.2.1 makes
// them case-sensitive, because many origins (IIS, case-insensitive file systems, some frameworks)
// serve `/Concerts/` as `/concerts/`: a room must cover every spelling the origin would serve, or a
// visitor walks around the queue by changing the case. For the same reason requests are matched in
// a normal form: `;` path parameters dropped (Tomcat, Spring), percent-encoded unreserved
// characters decoded (RFC 3986 section 6.2.2.2), encoded slashes and backslashes (`%2F`, `%5C`)
// read as `/` (nginx, and servers with Tomcat's `ALLOW_ENCODED_SLASH`, decode them before routing,
// so `/events%2Fdemo/` is the sale page there), dot segments removed (section 5.2.4), repeated
// slashes collapsed (nginx `merge_slashes`), a segment cut at an encoded control character (`%00`),
// trailing dots, spaces and `::$DATA` dropped from segments (IIS and NTFS do). The request the origin
// receives is not changed. Not covered: origins that decode twice (`%252F`), fold Unicode case
// (`ı` as `I`) or ignore invisible characters (U+200B); there, and in any case, the origin checks the
// admission token on every room page itself (origin-sdk `verifyAdmission`).

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Decodes percent-encoded unreserved characters of a segment (RFC 3986 section 6.2.2.2). */
function decodeUnreserved(segment: string): string {
  if (!segment.includes('%')) return segment;
  return segment.replace(/%([0-9A-Fa-f]{2})/g, (all, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : all;
  });
}

/** Percent-encoded slash and backslash: read as a path separator when matching (see the file comment). */
const ENCODED_SLASH = /%2f|%5c/gi;

/** An encoded control character (`%00`-`%1F`, `%7F`): servers truncate or strip there, so matching does too. */
const ENCODED_CONTROL = /%(?:[01][0-9a-f]|7f)/i;
/**
 * Drops what Windows servers (IIS, NTFS) drop from a segment's end: trailing dots and spaces (`.`,
 * `%20`), and then one `::$data` stream name (the segment is lower case already). Scans from the
 * end, so it is linear in the segment; a regular expression anchored at `$` retried from every
 * start and took quadratic time on a long run of dots.
 */
function dropWindowsTail(segment: string): string {
  let end = segment.length;
  for (;;) {
    if (segment.charCodeAt(end - 1) === 0x2e) end -= 1;
    else if (end >= 3 && segment.startsWith('%20', end - 3)) end -= 3;
    else break;
  }
  if (end >= 7 && segment.startsWith('::$data', end - 7)) end -= 7;
  return end === segment.length ? segment : segment.slice(0, end);
}

/**
 * The normal form a request path is matched in (see the file comment): lower case, `;` parameters
 * dropped, each segment cut at an encoded control character (`%00`: servers in C truncate there),
 * unreserved characters decoded, `%2F`/`%5C` read as `/`, dot segments removed, trailing dots,
 * `%20`s and `::$DATA` dropped from a segment (IIS serves `/room./` and `/room%20/` as `/room/`),
 * no empty segments, no trailing slash (the root is `/`). Reading more spellings as the room is
 * the safe side: at worst a visitor waits for a URL the origin would have answered 404.
 *
 * @param pathname the URL's path as the WHATWG URL parser gives it (`new URL(..).pathname`)
 */
export function normalizePath(pathname: string): string {
  const out: string[] = [];
  for (const raw of (pathname.includes('%') ? pathname.replace(ENCODED_SLASH, '/') : pathname).split('/')) {
    let cut = raw.indexOf(';');
    if (raw.includes('%')) {
      const control = raw.search(ENCODED_CONTROL);
      if (control >= 0 && (cut < 0 || control < cut)) cut = control;
    }
    const segment = decodeUnreserved(cut >= 0 ? raw.slice(0, cut) : raw).toLowerCase();
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else {
      const bare = segment.endsWith('.') || segment.includes('%20') || segment.includes('::') ? dropWindowsTail(segment) : segment;
      if (bare !== '') out.push(bare);
    }
  }
  return '/' + out.join('/');
}
