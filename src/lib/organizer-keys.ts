// Named organizer keys at the edge: their format, how one is made and hashed, and the isolate's
// short memory of keys the EventDirectory confirmed.
import type { OrganizerKeyView } from '../../contracts/organizer-access';

/** Every named key starts with this, so a leaked one is easy to recognise (and to scan for in repositories). */
const KEY_PREFIX = 'wrk_';
/**
 * `wrk_<12 hex key id>_<43 base64url chars: 256 random bits>`. The id is only a name for lists
 * and the audit; the whole key is what is hashed.
 */
const KEY_FORMAT = /^wrk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;

/**
 * How long this isolate trusts a key the EventDirectory confirmed, ms: the longest a revocation
 * takes to reach an isolate other than the one that revoked it (that one forgets the key at once).
 */
const KEY_CACHE_MS = 10_000;
/** Confirmed keys kept per isolate; the memory is cleared when it grows past this (cheap, refills quickly). */
const MAX_CACHED_KEYS = 1_000;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A new key: its id, the key itself (shown once, never stored) and its hash (stored). */
export async function newOrganizerKey(): Promise<{ keyId: string; key: string; keyHash: string }> {
  const keyId = hex(crypto.getRandomValues(new Uint8Array(6)));
  const key = `${KEY_PREFIX}${keyId}_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  return { keyId, key, keyHash: await hashKey(key) };
}

/** Whether a bearer token has the shape of a named key (anything else is never sent to the directory). */
export function looksLikeKey(token: string): boolean {
  return KEY_FORMAT.test(token);
}

/**
 * SHA-256 of the whole key, hex. A fast hash is enough: the key carries 256 random bits, so
 * nobody can guess keys against a leaked hash, and a slow password hash (PBKDF2, scrypt), which
 * protects guessable passwords, would only add its cost to every organizer request.
 */
export async function hashKey(key: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key))));
}

/** An isolate's memory of confirmed keys by hash (one per app). */
export class KeyCache {
  private readonly keys = new Map<string, { key: OrganizerKeyView; until: number }>();

  /** The key confirmed within KEY_CACHE_MS, or undefined. */
  get(keyHash: string, nowMs: number): OrganizerKeyView | undefined {
    const hit = this.keys.get(keyHash);
    if (!hit) return undefined;
    if (hit.until > nowMs) return hit.key;
    this.keys.delete(keyHash);
    return undefined;
  }

  /** Remembers a key the directory just confirmed. */
  remember(keyHash: string, key: OrganizerKeyView, nowMs: number): void {
    if (this.keys.size >= MAX_CACHED_KEYS) this.keys.clear();
    this.keys.set(keyHash, { key, until: nowMs + KEY_CACHE_MS });
  }

  /** Forgets a key at once (it was revoked through this isolate). */
  forget(keyId: string): void {
    for (const [hash, hit] of this.keys) if (hit.key.keyId === keyId) this.keys.delete(hash);
  }
}
