// A sales channel's local copy of the gateway's inventory, kept in step by pulling the change feed
// from its stored cursor (docs/reference/api.md, "Sales channel API"). Web Crypto and fetch only: Node >= 20
// and Workers. A crash at any point loses nothing: the copy and its cursor are saved together, and
// entries applied twice change nothing (each carries its item's whole new state).
import type { FetchLike } from './admission.ts';
import { CHANNEL_KEY_HEADER, signOriginRequest } from './protocol.ts';

/** A seat as the feed states it: stored status and the live allocation it is in (or null). */
export interface FeedSeat {
  status: 'AVAILABLE' | 'HELD' | 'SOLD';
  allocationId: string | null;
  channelId: string | null;
}

/** A general-admission tier as the feed states it; `reserved` = places of live allocations not yet held or sold. */
export interface FeedTier {
  capacity: number;
  held: number;
  sold: number;
  reserved: number;
}

/** One item's whole state after a change, as the gateway sends it. */
export type FeedItem = ({ item: 'seat'; seatId: string } & FeedSeat) | ({ item: 'tier'; tier: string } & FeedTier);

/** A feed entry: the item's state after map version `version`; `id` grows and is the cursor. */
export type FeedEntry = FeedItem & { id: number; version: number };

/** The local copy: every seat and tier, and the cursor (last entry id applied) it is in step with. */
export interface FeedCopy {
  cursor: number;
  /** The gateway's map version when the copy was last read. */
  version: number;
  seats: Record<string, FeedSeat>;
  tiers: Record<string, FeedTier>;
}

/** Where the copy lives between runs (a file, a KV key, a Durable Object's storage...). `save` must store the whole copy at once. */
export interface FeedStore {
  load(): Promise<FeedCopy | null>;
  save(copy: FeedCopy): Promise<void>;
}

/** A store in memory (tests, and consumers that rebuild from the snapshot on every start). */
export class MemoryFeedStore implements FeedStore {
  private copy: FeedCopy | null = null;
  async load(): Promise<FeedCopy | null> {
    return this.copy && structuredClone(this.copy);
  }
  async save(copy: FeedCopy): Promise<void> {
    this.copy = structuredClone(copy);
  }
}

/**
 * Applies entries in order onto a copy (pure: returns a new copy). An entry already applied, or
 * one older than the copy's cursor, is harmless: it writes the state it carries, and a later
 * entry of the same item comes after it, so the result is the same as applying each once.
 */
export function applyFeedEntries(copy: FeedCopy, entries: readonly FeedEntry[], version = copy.version): FeedCopy {
  const next: FeedCopy = { cursor: copy.cursor, version, seats: { ...copy.seats }, tiers: { ...copy.tiers } };
  for (const e of entries) {
    if (e.item === 'seat') next.seats[e.seatId] = { status: e.status, allocationId: e.allocationId, channelId: e.channelId };
    else next.tiers[e.tier] = { capacity: e.capacity, held: e.held, sold: e.sold, reserved: e.reserved };
    next.cursor = Math.max(next.cursor, e.id);
  }
  return next;
}

/** A copy from a snapshot's items. */
export function copyFromSnapshot(snapshot: { version: number; cursor: number; items: readonly FeedItem[] }): FeedCopy {
  return applyFeedEntries(
    { cursor: snapshot.cursor, version: snapshot.version, seats: {}, tiers: {} },
    snapshot.items.map((item) => ({ ...item, id: snapshot.cursor, version: snapshot.version })),
  );
}

/** Options of `FeedFollower`. */
export interface FeedFollowerOptions {
  /** The gateway's base URL, e.g. `https://tickets.example.com`. */
  gatewayUrl: string | URL;
  eventId: string;
  /** The key id the organizer gave the channel, e.g. `box-office.1`. */
  keyId: string;
  /** The channel's secret (shown once to the organizer). */
  secret: string;
  store: FeedStore;
  /** Entries per page (1-1000, default 500). */
  pageSize?: number;
  /** Timeout of each request, ms (default 5,000). */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Clock for signatures, epoch ms (default Date.now). */
  clock?: () => number;
}

/** `sync` outcome: entries applied, the cursor now, whether the copy was rebuilt from a snapshot; or why it stopped. */
export type SyncResult =
  | { kind: 'ok'; applied: number; cursor: number; resynced: boolean }
  | { kind: 'refused'; status: number; code: string; detail: string }
  | { kind: 'no_answer'; reason: 'timeout' | 'network' | 'server_error' };

/**
 * Keeps a channel's copy of the inventory in step. `sync()` loads the stored copy (none: reads the
 * snapshot), then reads pages after its cursor until nothing is left, saving the copy with its new
 * cursor after each page. A page whose answer is lost is read again on the next `sync()`; a
 * cursor the gateway pruned (`CURSOR_EXPIRED`) or does not know (`CURSOR_AHEAD`: a copy of
 * another event) rebuilds the copy from the snapshot. Call `sync()` on a timer, or whenever the
 * channel is about to sell from its copy.
 */
export class FeedFollower {
  private readonly base: URL;
  private readonly pageSize: number;
  private readonly fetchFn: FetchLike;
  private readonly opts: FeedFollowerOptions;

  /** @throws TypeError naming the option when one is missing or out of range */
  constructor(opts: FeedFollowerOptions) {
    this.opts = opts;
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(opts?.eventId ?? '')) throw new TypeError('eventId must be a gateway event id');
    if (!/^[a-z0-9][a-z0-9-]{0,31}\.[1-9][0-9]*$/.test(opts.keyId ?? '')) throw new TypeError('keyId must be <channelId>.<generation>');
    if (typeof opts.secret !== 'string' || !opts.secret) throw new TypeError('secret must be the channel secret');
    this.pageSize = opts.pageSize ?? 500;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 1000) throw new TypeError('pageSize must be 1-1000');
    this.base = new URL(opts.gatewayUrl);
    this.fetchFn = opts.fetch ?? ((r) => fetch(r));
  }

  /** Brings the stored copy up to date (see the class). Never throws for the gateway's answers; the store's errors propagate. */
  async sync(): Promise<SyncResult> {
    let copy = await this.opts.store.load();
    let resynced = false;
    let applied = 0;
    for (;;) {
      if (!copy) {
        const snap = await this.get('/feed/snapshot');
        if (snap.kind !== 'answer') return snap;
        if (snap.status !== 200) return refused(snap);
        copy = copyFromSnapshot(snap.data as { version: number; cursor: number; items: FeedItem[] });
        await this.opts.store.save(copy);
        resynced = true;
      }
      const page = await this.get(`/feed?after=${copy.cursor}&limit=${this.pageSize}`);
      if (page.kind !== 'answer') return page;
      const code = (page.data as { code?: unknown }).code;
      if (page.status === 410 || (page.status === 409 && code === 'CURSOR_AHEAD')) {
        copy = null;
        continue;
      }
      if (page.status !== 200) return refused(page);
      const body = page.data as { entries: FeedEntry[]; next: number; more: boolean; version: number };
      copy = applyFeedEntries(copy, body.entries, body.version);
      copy.cursor = Math.max(copy.cursor, body.next);
      applied += body.entries.length;
      await this.opts.store.save(copy);
      if (!body.more) return { kind: 'ok', applied, cursor: copy.cursor, resynced };
    }
  }

  private async get(path: string): Promise<{ kind: 'answer'; status: number; data: unknown } | Extract<SyncResult, { kind: 'no_answer' }>> {
    const url = new URL(`/_wr/channel/events/${this.opts.eventId}${path}`, this.base);
    try {
      const signed = await signOriginRequest(this.opts.secret, 'GET', url.pathname, '', (this.opts.clock ?? Date.now)());
      const res = await this.fetchFn(
        new Request(url, {
          headers: { accept: 'application/json', [CHANNEL_KEY_HEADER]: this.opts.keyId, ...signed },
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5_000),
        }),
      );
      const data: unknown = await res.json().catch(() => ({}));
      if (res.status >= 500) return { kind: 'no_answer', reason: 'server_error' };
      return { kind: 'answer', status: res.status, data };
    } catch (err) {
      return {
        kind: 'no_answer',
        reason: err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError') ? 'timeout' : 'network',
      };
    }
  }
}

function refused(r: { status: number; data: unknown }): SyncResult {
  const d = (r.data && typeof r.data === 'object' ? r.data : {}) as Record<string, unknown>;
  return { kind: 'refused', status: r.status, code: String(d.code ?? 'UNRECOGNIZED'), detail: String(d.detail ?? '') };
}
