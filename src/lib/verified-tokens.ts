// An isolate's memory of tokens whose signature it checked (src/lib/token.ts verifyToken): the next
// request with the same token string skips the signature check, the costly part of an admitted
// buyer's request. Pure and bounded; the caller supplies the clock and the current key set.

/** What a token was verified for: its kind, the event (`aud`), the issuer and the key (`kid`). */
export interface VerifiedFor {
  kind: string;
  eventId: string;
  issuer: string;
  /** The `kid` of the protected header, which the signature covers. */
  kid: string;
}

interface Entry<T> extends VerifiedFor {
  claims: T;
  /** First instant the entry no longer answers, epoch ms. */
  untilMs: number;
}

/**
 * Verified tokens keyed by the whole token string, so any change to a token misses. An entry
 * answers only for the same kind, event and issuer, before its `untilMs` (the earliest of the
 * token's own end and `maxAgeMs` after it was verified), and only while its `kid` is in the key set
 * the caller names, so a key removed from the ring stops its tokens at once. A miss means "verify
 * in full", never "refuse": the full check decides every refusal. At most `maxEntries` entries;
 * the oldest goes first.
 */
export class VerifiedTokens<T> {
  private readonly entries = new Map<string, Entry<T>>();

  /**
   * @param maxEntries bound on the entries kept (at least 1)
   * @param maxAgeMs how long after its verification an entry answers at most, ms
   */
  constructor(
    readonly maxEntries: number,
    readonly maxAgeMs: number,
  ) {}

  /** Entries kept now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The claims remembered for `token` when it was verified for `want`, is still within its
   * `untilMs` at `nowMs`, and its key is in `kids`; else undefined.
   */
  get(token: string, want: Omit<VerifiedFor, 'kid'>, kids: ReadonlySet<string>, nowMs: number): T | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    if (!(nowMs < e.untilMs) || !kids.has(e.kid)) {
      this.entries.delete(token);
      return undefined;
    }
    return e.kind === want.kind && e.eventId === want.eventId && e.issuer === want.issuer ? e.claims : undefined;
  }

  /**
   * Remembers a token just verified in full at `nowMs`.
   * @param validUntilMs the first instant the token itself stops verifying (its `exp`, or an
   *   earlier bound such as its maximum age), epoch ms; an entry never outlives it
   */
  put(token: string, verifiedFor: VerifiedFor, claims: T, validUntilMs: number, nowMs: number): void {
    const untilMs = Math.min(validUntilMs, nowMs + this.maxAgeMs);
    if (!(untilMs > nowMs)) return;
    this.entries.delete(token);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(token, { ...verifiedFor, claims, untilMs });
  }

  /** Forgets every entry (the key set changed). */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * The `kid` of a compact JWS's protected header (RFC 7515 section 7.1), or null when it names none
 * or does not parse. Only read after the signature over that header verified.
 */
export function headerKid(token: string): string | null {
  const dot = token.indexOf('.');
  if (dot <= 0) return null;
  try {
    const b64 = token.slice(0, dot).replace(/-/g, '+').replace(/_/g, '/');
    const header = JSON.parse(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4))) as { kid?: unknown };
    return typeof header.kid === 'string' && header.kid !== '' ? header.kid : null;
  } catch {
    return null;
  }
}
