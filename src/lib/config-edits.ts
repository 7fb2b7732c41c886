// Conditional edits of an event's configuration: its version as an `ETag` (RFC 9110 section 8.8.3),
// `If-Match` (section 13.1.1) and JSON Merge Patch (RFC 7396).
import { GatewayError } from './errors';

/** The `ETag` of configuration version `version` (a strong validator). */
export function configEtag(version: number): string {
  return `"v${version}"`;
}

/**
 * What `If-Match` asks for: null when absent, `any` for `*`, else the versions it lists (a weak
 * tag, or one not made by configEtag, can never match: RFC 9110 uses the strong comparison here).
 * @throws GatewayError INVALID_REQUEST when the header is not `*` or a list of entity tags
 */
export function parseIfMatch(header: string | undefined): null | 'any' | number[] {
  if (header === undefined) return null;
  const value = header.trim();
  if (value === '*') return 'any';
  const tags = value.split(',').map((t) => t.trim());
  if (tags.some((t) => !/^(W\/)?"[\x21\x23-\x7e]*"$/.test(t)))
    throw new GatewayError('INVALID_REQUEST', { detail: 'If-Match must be * or a list of entity tags such as "v3"' });
  return tags.flatMap((t) => {
    const m = /^"v(\d{1,15})"$/.exec(t);
    return m ? [Number(m[1])] : [];
  });
}

/**
 * Applies a JSON Merge Patch (RFC 7396 section 2): members of an object patch replace the target's
 * (recursively for objects), `null` removes a member, any other patch value replaces the whole target.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = mergePatch(result[name], value);
  }
  return result;
}
