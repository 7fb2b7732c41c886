// Caching rules for answers that set or depend on a visitor's credentials: no shared cache may keep
// them, whatever the origin asked for.

/** Cache-Control of an answer that sets credentials (RFC 9111 section 5.2.2.5: no cache stores it). */
const NO_STORE = 'no-store';

/**
 * Fields through which a CDN takes caching orders of its own, ahead of Cache-Control: the targeted
 * fields of RFC 9213 (`CDN-Cache-Control`, Cloudflare's `Cloudflare-CDN-Cache-Control`) and
 * `Surrogate-Control` (Edge Architecture Specification 1.0).
 */
const TARGETED = ['cdn-cache-control', 'cloudflare-cdn-cache-control', 'surrogate-control'];
/** Directives that let a shared cache store or serve an answer (RFC 9111 sections 5.2.2.6, 5.2.2.9, 5.2.2.10). */
const SHARED_ONLY = new Set(['public', 's-maxage', 'proxy-revalidate']);

/**
 * Makes a credential-dependent answer unstorable by shared caches, in place:
 * - it sets a cookie (a ticket, an admission, or clearing one): `Cache-Control: no-store`;
 * - otherwise the origin's directives minus `public`, `s-maxage` and `proxy-revalidate`, plus
 *   `private` (RFC 9111 section 5.2.2.7), unless it already says `no-store`; nothing at all
 *   becomes `no-store`.
 * CDN-targeted caching fields are removed either way, so no CDN keeps a page the queue guards.
 *
 * @param headers the answer's (mutable) headers
 */
export function keepPrivate(headers: Headers): void {
  for (const field of TARGETED) headers.delete(field);
  const given = headers.get('cache-control');
  if (headers.has('set-cookie') || !given) {
    headers.set('cache-control', NO_STORE);
    return;
  }
  const directives = given
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d && !SHARED_ONLY.has(d.split('=')[0]!.trim().toLowerCase()));
  const names = new Set(directives.map((d) => d.split('=')[0]!.trim().toLowerCase()));
  if (!names.has('no-store') && !names.has('private')) directives.unshift('private');
  headers.set('cache-control', directives.join(', '));
}
