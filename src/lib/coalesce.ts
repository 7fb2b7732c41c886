// Per-isolate coalescing of calls to one Durable Object: concurrent callers' items go to the object
// as one call ("natural batching", as in group commit), each caller gets its own outcome.
import type { BatchOutcome } from '../../contracts/batch';

/** Most items one batch carries; more waiting callers go in the next batch. */
const DEFAULT_MAX_BATCH = 64;
/**
 * A batch in flight longer than this, ms, is given up when the next call to its key arrives: its
 * callers get a retryable error and the key starts afresh (no isolate wedges an object's calls on
 * one lost answer). Far above any healthy round trip, below the 30 s a `waitUntil` may run on.
 */
const DEFAULT_STALL_MS = 10_000;

/** One caller's call: its item, and how to send a batch with this caller's own I/O objects. */
export interface CoalescedCall<I, O> {
  /** The object the item goes to (e.g. the Durable Object's name); items of one key share batches. */
  key: string;
  item: I;
  /**
   * Sends `items` as ONE call and resolves with one outcome per item, in order. Built over this
   * caller's own stub: it is only ever run in this caller's request (see `Coalescer`).
   */
  send: (items: I[]) => Promise<BatchOutcome<O>[]>;
  /** The caller request's `ctx.waitUntil`: keeps it alive until its batch settles, even if its client leaves. */
  waitUntil: (p: Promise<unknown>) => void;
}

/** Options; every field has a default. */
export interface CoalescerOptions {
  /** Default DEFAULT_MAX_BATCH; at least 1. */
  maxBatch?: number;
  /** Default DEFAULT_STALL_MS. */
  stallMs?: number;
  /** Clock, epoch ms; default Date.now. */
  now?: () => number;
}

/** What a coalescer has sent so far (the bench prints the mean batch size from it). */
export interface CoalescerStats {
  /** Calls made to objects. */
  batches: number;
  /** Items they carried. */
  items: number;
}

/**
 * The error a stalled batch's callers get: `retryable`, as the runtime marks a lost object call
 * (src/lib/do-call.ts retries it for idempotent calls).
 */
function stalledError(key: string, ms: number): Error & { retryable: true } {
  return Object.assign(new Error(`no answer from ${key} in ${ms} ms`), { retryable: true as const });
}

/**
 * True when this runtime runs a promise's continuations in the request that created it, whichever
 * request resolves it (compatibility flag `handle_cross_request_promise_resolution`, on by default
 * since 2024-10-14; read from `Cloudflare.compatibilityFlags`). Without it a caller's code would
 * go on in the sending caller's request, so nothing may be coalesced. @cloudflare/vitest-plugin
 * turns it off for its test runner (its pool/index.mjs), so in-pool tests that coalesce call the
 * app inside one request with the switch "on" (test/edge/join-coalescing.test.ts, hold-batch.test.ts).
 */
function crossRequestPromises(): boolean {
  const flags = (globalThis as { Cloudflare?: { compatibilityFlags?: Record<string, boolean> } }).Cloudflare?.compatibilityFlags;
  return flags?.handle_cross_request_promise_resolution === true;
}

/** Whether a coalescing switch (`auto` | `on` | `off`) coalesces in this runtime (`auto`: as `crossRequestPromises`). */
function coalescingOn(setting: 'auto' | 'on' | 'off'): boolean {
  return setting === 'on' || (setting === 'auto' && crossRequestPromises());
}

interface Waiter<I, O> {
  item: I;
  send: (items: I[]) => Promise<BatchOutcome<O>[]>;
  result: PromiseWithResolvers<O>;
  /** Resolved with the batch when this waiter is to send it (it heads the batch). */
  turn: PromiseWithResolvers<Waiter<I, O>[]>;
}

interface Lane<I, O> {
  queue: Waiter<I, O>[];
  /** The batch in flight and when it was sent, epoch ms; null when none is. */
  inFlight: { batch: Waiter<I, O>[]; sentAtMs: number } | null;
}

/**
 * Coalesces calls per key inside one isolate. A call to a key with nothing in flight is sent at
 * once (a lone caller pays no wait); calls that arrive while one is in flight queue up and go
 * together, in arrival order, at most `maxBatch` per call, when it returns. Each caller's promise
 * settles exactly once: with its own item's value, its own item's error (the others are not
 * affected), or, when the whole call fails, that call's error (only that batch's callers get it).
 *
 * Platform rules this is built on (Cloudflare Workers, compatibility_date 2026-11-01):
 * - I/O objects (stubs, streams) may be used only in the request that created them ("Cannot
 *   perform I/O on behalf of a different request", Workers docs, "Errors"). So a batch is sent by
 *   its first caller, with that caller's own `send`, in that caller's own request; the others only
 *   await plain values. A batch that queued while another was in flight is handed to its first
 *   caller by resolving a promise that caller created: workerd runs a promise's continuations in
 *   the request that created it, whichever request resolves it (workerd PR #2719, "Patch v8 to
 *   support promise cross-context resolution", 2024).
 * - A request whose client disconnects is cancelled, with its pending continuations, unless a
 *   `waitUntil` keeps it alive (up to 30 s after; Workers docs, "Context (ctx)"). Every caller
 *   passes its promise to `waitUntil`, so a caller that sends a batch still settles the others
 *   when its own client has gone (test/e2e/join-coalescing.e2e.test.ts drops such clients; under
 *   Miniflare a disconnect does not cancel the request, so it shows nobody is stranded, and
 *   test/unit/coalesce.test.ts covers a sender cancelled anyway: a batch that never answers).
 * - A request that awaits only a promise another request will resolve, with no I/O or timer of
 *   its own pending, is cancelled as hung ("The Workers runtime canceled this request because it
 *   detected that your Worker's code had hung"; checked under Miniflare, a waitUntil does not
 *   prevent it; workerd's cross-context-promise-test keeps its waiter alive with a timer the same
 *   way). So every caller that waits on another's call keeps a timer of `stallMs` pending, which
 *   also rejects it with `stalledError` if its batch never answers.
 * - Should a batch get no answer at all within `stallMs`, the next call to its key also gives up
 *   the lane (its callers get `stalledError`) rather than queue behind it for ever.
 */
export class Coalescer<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();
  private readonly maxBatch: number;
  private readonly stallMs: number;
  private readonly now: () => number;
  private readonly counts: CoalescerStats = { batches: 0, items: 0 };

  /** @throws RangeError when `maxBatch` is not a positive integer */
  constructor(opts: CoalescerOptions = {}) {
    this.maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new RangeError('maxBatch must be a positive integer');
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
    this.now = opts.now ?? Date.now;
  }

  /**
   * One caller's item, sent alone or with the others queued for its key.
   * @returns the item's value
   * @throws the item's own error (`Error(outcome.error)`), the batch call's error, or `stalledError`
   */
  call(c: CoalescedCall<I, O>): Promise<O> {
    let lane = this.lanes.get(c.key);
    if (!lane) this.lanes.set(c.key, (lane = { queue: [], inFlight: null }));
    const waiter: Waiter<I, O> = { item: c.item, send: c.send, result: Promise.withResolvers<O>(), turn: Promise.withResolvers() };
    // Registered here, in the caller's request, so sending runs in it (see the class comment).
    void waiter.turn.promise.then((batch) => this.send(c.key, lane, batch));
    c.waitUntil(waiter.result.promise.catch(() => undefined));
    lane.queue.push(waiter);
    const stalled = lane.inFlight && this.now() - lane.inFlight.sentAtMs > this.stallMs ? lane.inFlight : null;
    if (stalled) {
      lane.inFlight = null;
      for (const w of stalled.batch) w.result.reject(stalledError(c.key, this.stallMs));
    }
    if (!lane.inFlight) this.dispatch(c.key, lane);
    // A caller that waits on another request's call keeps a timer of its own pending (else workerd
    // cancels its request as hung), which also gives up if no answer comes. It is never cleared:
    // firing after the answer changes nothing, and clearTimeout cost 3-4 % of a join's CPU
    // samples (npm run bench:profile). The caller that sends at once waits on its own call.
    if (lane.inFlight?.batch[0] !== waiter) setTimeout(() => waiter.result.reject(stalledError(c.key, this.stallMs)), this.stallMs);
    return waiter.result.promise;
  }

  /** Batches and items sent so far by this coalescer. */
  stats(): CoalescerStats {
    return { ...this.counts };
  }

  /** Hands the next batch (up to maxBatch queued callers) to its first caller, or drops the idle lane. */
  private dispatch(key: string, lane: Lane<I, O>): void {
    if (lane.queue.length === 0) {
      this.lanes.delete(key);
      return;
    }
    const batch = lane.queue.splice(0, this.maxBatch);
    lane.inFlight = { batch, sentAtMs: this.now() };
    this.counts.batches++;
    this.counts.items += batch.length;
    batch[0]!.turn.resolve(batch);
  }

  private async send(key: string, lane: Lane<I, O>, batch: Waiter<I, O>[]): Promise<void> {
    try {
      const outcomes = await batch[0]!.send(batch.map((w) => w.item));
      if (outcomes.length !== batch.length) throw new Error(`${key}: ${outcomes.length} outcomes for ${batch.length} items`);
      batch.forEach((w, i) => {
        const o = outcomes[i]!;
        if (o.ok) w.result.resolve(o.value);
        else w.result.reject(new Error(o.error));
      });
    } catch (err) {
      for (const w of batch) w.result.reject(err);
    }
    // A batch given up as stalled no longer owns the lane: the one in flight now is another's.
    if (lane.inFlight?.batch !== batch) return;
    lane.inFlight = null;
    this.dispatch(key, lane);
  }
}

/** One kind of coalesced call (holds to Inventory objects, joins to queue shards): see `coalescedCalls`. */
export interface CoalescedCalls<E extends object, I, O> {
  /**
   * One caller's item to the object `c.key` of the binding `ns`, coalesced with this isolate's
   * other items to it (`Coalescer.call`), or alone in a batch of one (`c.send([item])`) when `env`
   * does not coalesce.
   * @returns the item's value
   * @throws SettingsError when `env`'s switch is malformed; the batch call's error; the item's own
   *   error (`Error(outcome.error)`, or `Error(noOutcome)` when a batch of one answered nothing);
   *   `stalledError` when its batch never answered
   */
  call(env: E, ns: object, c: CoalescedCall<I, O>): Promise<O>;
  /** The coalescer of each namespace binding that has coalesced (`coalescedStats` reads it). */
  readonly coalescers: WeakMap<object, Coalescer<I, O>>;
}

/**
 * Batches and items sent so far through the binding `ns` by this isolate's `calls` (none for a
 * binding never coalesced). A function of its own, not a member, so a bundle that never asks
 * (the gateway's: only the bench does) leaves it out.
 */
export function coalescedStats(calls: { coalescers: WeakMap<object, { stats(): CoalescerStats }> }, ns: object): CoalescerStats {
  return calls.coalescers.get(ns)?.stats() ?? { batches: 0, items: 0 };
}

/**
 * The per-isolate plumbing of one kind of coalesced call: a `Coalescer` per namespace binding
 * (a WeakMap keyed by the binding object, so a batch only ever carries items meant for the same
 * binding: the bench's and the tests' stub objects have the same names as the real ones; the
 * runtime hands every request of an isolate the same env, so requests share one), the coalescing
 * switch resolved once per env object (`coalescingOn(setting(env))`, a WeakMap that holds no env
 * alive), and a batch of one, sent at once, when it is off.
 *
 * @param maxBatch most items per call (e.g. HOLD_BATCH_MAX, SHARD_BATCH_MAX)
 * @param setting the env's switch, parsed (`auto` | `on` | `off`); throws SettingsError when malformed
 * @param noOutcome the error message when a batch of one answers no outcome
 */
export function coalescedCalls<E extends object, I, O>(
  maxBatch: number,
  setting: (env: E) => 'auto' | 'on' | 'off',
  noOutcome: string,
): CoalescedCalls<E, I, O> {
  const coalescers = new WeakMap<object, Coalescer<I, O>>();
  const enabled = new WeakMap<object, boolean>();
  return {
    async call(env, ns, c) {
      let on = enabled.get(env);
      if (on === undefined) enabled.set(env, (on = coalescingOn(setting(env))));
      if (!on) {
        const [outcome] = await c.send([c.item]);
        if (!outcome?.ok) throw new Error(outcome?.error ?? noOutcome);
        return outcome.value;
      }
      let coalescer = coalescers.get(ns);
      if (!coalescer) coalescers.set(ns, (coalescer = new Coalescer({ maxBatch })));
      return coalescer.call(c);
    },
    coalescers,
  };
}
