// Content negotiation on the Accept header: which answer a client prefers, a page or JSON.
import { parseAccept } from 'hono/utils/accept';

/**
 * The media type of `supports` that an `Accept` header prefers, by RFC 9110 §12.5.1: each type
 * takes the q-value of the most specific range that matches it (`type/subtype` before `type/*`
 * before `*\/*`; a range listed twice counts with its lowest q), a type with `q=0` is never
 * chosen, and ties go to the range listed first, then to the order of `supports`. `fallback`
 * when the header is absent or accepts none of them. hono parses the header
 * (`hono/utils/accept` `parseAccept`, which also reads a malformed q-value as 1 and clamps to 0..1).
 *
 * @param accept the request's `Accept` header, or undefined
 * @param supports the media types the route can answer (lower case), in its own order of preference
 * @param fallback the answer when nothing in `supports` is acceptable
 */
export function preferredType(accept: string | undefined, supports: string[], fallback: string): string {
  if (!accept) return fallback;
  const ranges = parseAccept(accept).map((a) => ({ type: a.type.toLowerCase(), q: a.q }));
  let best: { type: string; q: number; at: number } | null = null;
  for (const type of supports) {
    let rank = 0;
    let q = 0;
    let at = Infinity;
    ranges.forEach((r, i) => {
      if (!matches(r.type, type)) return;
      const s = specificity(r.type);
      if (s > rank) [rank, q, at] = [s, r.q, i];
      else if (s === rank) [q, at] = [Math.min(q, r.q), Math.min(at, i)];
    });
    if (q > 0 && (!best || q > best.q || (q === best.q && at < best.at))) best = { type, q, at };
  }
  return best?.type ?? fallback;
}

/** 3 for `type/subtype`, 2 for `type/*`, 1 for `*\/*`. */
function specificity(range: string): number {
  return range === '*/*' || range === '*' ? 1 : range.endsWith('/*') ? 2 : 3;
}

function matches(range: string, type: string): boolean {
  if (range === '*/*' || range === '*' || range === type) return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}

/** True when `accept` prefers a page (`text/html`) to JSON; without a preference, JSON. */
export function prefersHtml(accept: string | undefined): boolean {
  return preferredType(accept, ['application/json', 'text/html'], 'application/json') === 'text/html';
}
