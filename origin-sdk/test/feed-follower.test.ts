// FeedFollower in Node against a fake gateway feed: signed reads, paging, resuming from the stored
// cursor after a crash, lost and duplicated answers, pruned cursors, and random interleavings of
// all of them ending with the copy equal to the gateway's state.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_KEY_HEADER,
  FeedFollower,
  MemoryFeedStore,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyOriginSignature,
  type FeedCopy,
  type FeedEntry,
  type FeedItem,
  type FeedSeat,
  type FeedStore,
} from '../src/index.ts';

const SECRET = 'channel-secret';
const SEATS = ['A1', 'A2', 'A3', 'A4'];

/** A fake feed with the gateway's contract: whole-state entries, id cursors, pruning, signature checks. */
class FakeFeed {
  seats = new Map<string, FeedSeat>(SEATS.map((id) => [id, { status: 'AVAILABLE', allocationId: null, channelId: null }]));
  tier = { capacity: 10, held: 0, sold: 0, reserved: 0 };
  entries: FeedEntry[] = [];
  floor = 0;
  version = 1;
  private nextId = 1;
  /** What the next requests do: 'ok', or fail before ('down') or after ('lost') serving. */
  faults: ('ok' | 'down' | 'lost')[] = [];
  requests = 0;

  change(kind: 'seat' | 'tier', n: number): void {
    this.version++;
    if (kind === 'seat') {
      const id = SEATS[n % SEATS.length]!;
      const status = (['AVAILABLE', 'HELD', 'SOLD'] as const)[n % 3]!;
      const seat = { status, allocationId: n % 2 ? 'a1' : null, channelId: n % 2 ? 'box' : null };
      this.seats.set(id, seat);
      this.entries.push({ id: this.nextId++, version: this.version, item: 'seat', seatId: id, ...seat });
    } else {
      this.tier = { ...this.tier, held: n % 4, sold: n % 3 };
      this.entries.push({ id: this.nextId++, version: this.version, item: 'tier', tier: 'floor', ...this.tier });
    }
  }

  prune(): void {
    this.floor = Math.max(this.floor, this.entries.at(-1)?.id ?? 0);
    this.entries = [];
  }

  state(): Pick<FeedCopy, 'seats' | 'tiers'> {
    return { seats: Object.fromEntries(this.seats), tiers: { floor: this.tier } };
  }

  fetch = async (r: Request): Promise<Response> => {
    this.requests++;
    const fault = this.faults.shift() ?? 'ok';
    if (fault === 'down') throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    const url = new URL(r.url);
    const signed = await verifyOriginSignature(
      SECRET,
      { method: r.method, path: url.pathname, body: '' },
      r.headers.get(TIMESTAMP_HEADER),
      r.headers.get(SIGNATURE_HEADER),
      Date.now(),
    );
    if (!signed || r.headers.get(CHANNEL_KEY_HEADER) !== 'box.1') return Response.json({ code: 'SIGNATURE_INVALID' }, { status: 401 });
    const res = this.answer(url);
    if (fault === 'lost') throw new TypeError('connection reset after the answer was sent');
    return res;
  };

  private answer(url: URL): Response {
    const newest = Math.max(this.floor, this.entries.at(-1)?.id ?? 0);
    if (url.pathname.endsWith('/feed/snapshot')) {
      const items: FeedItem[] = [
        ...[...this.seats].map(([seatId, s]) => ({ item: 'seat' as const, seatId, ...s })),
        { item: 'tier', tier: 'floor', ...this.tier },
      ];
      return Response.json({ version: this.version, cursor: newest, items });
    }
    const after = Number(url.searchParams.get('after'));
    const limit = Number(url.searchParams.get('limit'));
    if (after > newest) return Response.json({ code: 'CURSOR_AHEAD' }, { status: 409 });
    if (after < this.floor) return Response.json({ code: 'CURSOR_EXPIRED' }, { status: 410 });
    const rest = this.entries.filter((e) => e.id > after);
    const page = rest.slice(0, limit);
    return Response.json({ entries: page, next: page.at(-1)?.id ?? after, more: rest.length > limit, version: this.version });
  }
}

/** A store whose `save` fails once after `n` more saves, as a process killed mid-sync. */
class CrashingStore implements FeedStore {
  private inner = new MemoryFeedStore();
  crashAfter: number | null = null;
  load() {
    return this.inner.load();
  }
  async save(copy: FeedCopy) {
    if (this.crashAfter !== null && this.crashAfter-- <= 0) {
      this.crashAfter = null;
      throw new Error('killed');
    }
    await this.inner.save(copy);
  }
}

const follower = (feed: FakeFeed, store: FeedStore, pageSize = 3) =>
  new FeedFollower({ gatewayUrl: 'https://gw.test', eventId: 'demo', keyId: 'box.1', secret: SECRET, store, pageSize, fetch: feed.fetch });

const copyOf = async (store: FeedStore) => {
  const c = await store.load();
  return c && { seats: c.seats, tiers: c.tiers };
};

describe('FeedFollower', () => {
  it('starts from the snapshot, then follows pages after its cursor', async () => {
    const feed = new FakeFeed();
    const store = new MemoryFeedStore();
    expect(await follower(feed, store).sync()).toEqual({ kind: 'ok', applied: 0, cursor: 0, resynced: true });
    for (let i = 0; i < 7; i++) feed.change(i % 2 ? 'seat' : 'tier', i);
    expect(await follower(feed, store).sync()).toEqual({ kind: 'ok', applied: 7, cursor: 7, resynced: false });
    expect(await copyOf(store)).toEqual(feed.state());
  });

  it('resumes from the stored cursor after a crash, re-reading at most the page it was on', async () => {
    const feed = new FakeFeed();
    const store = new CrashingStore();
    await follower(feed, store).sync();
    for (let i = 0; i < 9; i++) feed.change('seat', i);
    store.crashAfter = 1; // the second page's save dies
    await expect(follower(feed, store).sync()).rejects.toThrow('killed');
    expect((await store.load())!.cursor).toBe(3);
    expect(await follower(feed, store).sync()).toMatchObject({ kind: 'ok', applied: 6, cursor: 9 });
    expect(await copyOf(store)).toEqual(feed.state());
  });

  it('reports a lost answer and reads the same page again next time', async () => {
    const feed = new FakeFeed();
    const store = new MemoryFeedStore();
    await follower(feed, store).sync();
    feed.change('seat', 1);
    feed.faults = ['lost'];
    expect(await follower(feed, store).sync()).toEqual({ kind: 'no_answer', reason: 'network' });
    feed.faults = ['down'];
    expect(await follower(feed, store).sync()).toEqual({ kind: 'no_answer', reason: 'timeout' });
    expect(await follower(feed, store).sync()).toMatchObject({ kind: 'ok', applied: 1 });
    expect(await copyOf(store)).toEqual(feed.state());
  });

  it('rebuilds from the snapshot when its cursor was pruned or belongs to another feed', async () => {
    const feed = new FakeFeed();
    const store = new MemoryFeedStore();
    await follower(feed, store).sync();
    feed.change('seat', 2);
    feed.prune();
    feed.change('seat', 4);
    expect(await follower(feed, store).sync()).toMatchObject({ kind: 'ok', resynced: true });
    expect(await copyOf(store)).toEqual(feed.state());
    await store.save({ ...(await store.load())!, cursor: 999 });
    expect(await follower(feed, store).sync()).toMatchObject({ kind: 'ok', resynced: true, cursor: 2 });
  });

  it('refuses to start with bad options and reports a refused key', async () => {
    const feed = new FakeFeed();
    expect(
      () =>
        new FeedFollower({ gatewayUrl: 'https://gw.test', eventId: 'demo', keyId: 'box', secret: SECRET, store: new MemoryFeedStore() }),
    ).toThrow(TypeError);
    const wrong = new FeedFollower({
      gatewayUrl: 'https://gw.test',
      eventId: 'demo',
      keyId: 'box.1',
      secret: 'other',
      store: new MemoryFeedStore(),
      fetch: feed.fetch,
    });
    expect(await wrong.sync()).toMatchObject({ kind: 'refused', status: 401, code: 'SIGNATURE_INVALID' });
  });

  it('over random changes, crashes, lost and duplicated answers and prunes, ends equal to the feed', async () => {
    let runs = 0;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('change' as const), item: fc.constantFrom('seat' as const, 'tier' as const), n: fc.nat(20) }),
      fc.record({
        kind: fc.constant('sync' as const),
        fault: fc.constantFrom('ok' as const, 'down' as const, 'lost' as const),
        crash: fc.option(fc.nat(3)),
      }),
      fc.record({ kind: fc.constant('rewind' as const), by: fc.nat(5) }),
      fc.constant({ kind: 'prune' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.integer({ min: 1, max: 5 }), async (steps, pageSize) => {
        runs++;
        const feed = new FakeFeed();
        const store = new CrashingStore();
        for (const s of steps) {
          if (s.kind === 'change') feed.change(s.item, s.n);
          else if (s.kind === 'prune') feed.prune();
          else if (s.kind === 'rewind') {
            // A duplicated delivery: the copy's cursor goes back, so entries are applied again.
            const c = await store.load();
            if (c) await store.save({ ...c, cursor: Math.max(0, c.cursor - s.by) });
          } else {
            feed.faults = [s.fault];
            store.crashAfter = s.crash;
            await follower(feed, store, pageSize)
              .sync()
              .catch(() => undefined);
            store.crashAfter = null;
          }
        }
        expect(await follower(feed, store, pageSize).sync()).toMatchObject({ kind: 'ok' });
        expect(await copyOf(store)).toEqual(feed.state());
      }),
      { numRuns: 300 },
    );
    expect(runs).toBe(300);
  });
});
