// The normal form a request path is matched against room patterns in (room-patterns.ts, whose file
// comment says which servers read which spellings as the same path). Pure: no I/O, no clock.

/** Unreserved characters (RFC 3986 section 2.3): decoded when percent-encoded. */
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
/** What Windows servers (IIS, NTFS) drop from a segment's end: trailing dots and spaces, and the `::$DATA` stream name. */
const WINDOWS_TAIL = /(?:::\$data)?(?:\.|%20)*$/;

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
      const bare = segment.endsWith('.') || segment.includes('%20') || segment.includes('::') ? segment.replace(WINDOWS_TAIL, '') : segment;
      if (bare !== '') out.push(bare);
    }
  }
  return '/' + out.join('/');
}
