// The per-isolate coalescer (src/lib/coalesce.ts): random schedules of calls and answers against a
// model (each caller settles once with its own outcome, arrival order, the cap, one batch in flight
// per key, a failed call rejects only its batch), plus the lone call and the stalled batch.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../src/lib/coalesce';

/** A stalled batch's error: retryable, naming the key and the wait. */
const isStalled = (e: unknown) =>
  e instanceof Error && (e as { retryable?: unknown }).retryable === true && /no answer from k in/.test(e.message);
import type { BatchOutcome } from '../../contracts/batch';

/** Lets every pending promise continuation run. */
const flush = () => new Promise<void>((r) => setTimeout(r, 0));

/** An item whose own outcome is a failure (the shard could not decide it). */
const failsAlone = (item: number) => item % 7 === 3;
const outcomeOf = (item: number): BatchOutcome<number> =>
  failsAlone(item) ? { ok: false, error: `item ${item} failed` } : { ok: true, value: item * 10 };

interface Sent {
  key: string;
  items: number[];
  done: PromiseWithResolvers<BatchOutcome<number>[]>;
}

/** A coalescer over fake sends that the schedule answers by hand. */
function harness(maxBatch: number, now: () => number = () => 0) {
  const coalescer = new Coalescer<number, number>({ maxBatch, now });
  const sent: Sent[] = [];
  const open: Sent[] = [];
  const waited: Promise<unknown>[] = [];
  const call = (key: string, item: number) =>
    coalescer.call({
      key,
      item,
      send: (items) => {
        // One batch in flight per key.
        expect(open.some((s) => s.key === key)).toBe(false);
        const s: Sent = { key, items, done: Promise.withResolvers() };
        sent.push(s);
        open.push(s);
        return s.done.promise;
      },
      waitUntil: (p) => void waited.push(p),
    });
  const answer = (index: number, mode: 'ok' | 'fail' | 'short', error: Error) => {
    const s = open.splice(index, 1)[0]!;
    if (mode === 'fail') s.done.reject(error);
    else if (mode === 'short') s.done.resolve(s.items.slice(1).map(outcomeOf));
    else s.done.resolve(s.items.map(outcomeOf));
    return s;
  };
  return { coalescer, sent, open, waited, call, answer };
}

type Step = { kind: 'call'; key: string } | { kind: 'answer'; pick: number; mode: 'ok' | 'fail' | 'short' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('call' as const), key: fc.constantFrom('a', 'b', 'c') }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      pick: fc.nat(),
      mode: fc.constantFrom<'ok' | 'fail' | 'short'>('ok', 'ok', 'ok', 'fail', 'short'),
    }),
  },
);

describe('Coalescer', () => {
  it('settles every caller once with its own outcome, in arrival order, at most maxBatch a call, failures kept to their batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 80 }), fc.integer({ min: 1, max: 5 }), async (steps, maxBatch) => {
        const h = harness(maxBatch);
        const calls: { key: string; item: number; settled: PromiseSettledResult<number> | null }[] = [];
        const batchError = new Map<Sent, { mode: 'fail' | 'short'; error: Error }>();
        let next = 0;
        const answerOne = (pick: number, mode: 'ok' | 'fail' | 'short') => {
          const error = new Error(`batch ${h.sent.indexOf(h.open[pick % h.open.length]!)} failed`);
          const s = h.answer(pick % h.open.length, mode, error);
          if (mode !== 'ok') batchError.set(s, { mode, error });
        };
        for (const step of steps) {
          if (step.kind === 'call') {
            const rec = { key: step.key, item: next++, settled: null as PromiseSettledResult<number> | null };
            calls.push(rec);
            h.call(step.key, rec.item).then(
              (value) => (expect(rec.settled).toBeNull(), (rec.settled = { status: 'fulfilled', value })),
              (reason: unknown) => (expect(rec.settled).toBeNull(), (rec.settled = { status: 'rejected', reason })),
            );
          } else if (h.open.length > 0) answerOne(step.pick, step.mode);
          await flush();
        }
        // Answer whatever is still in flight (and what it hands on), all fine.
        for (let guard = 0; h.open.length > 0 && guard < 1000; guard++) {
          answerOne(0, 'ok');
          await flush();
        }
        expect(h.open).toHaveLength(0);
        for (const s of h.sent) {
          expect(s.items.length).toBeGreaterThan(0);
          expect(s.items.length).toBeLessThanOrEqual(maxBatch);
        }
        for (const key of ['a', 'b', 'c'])
          expect(h.sent.filter((s) => s.key === key).flatMap((s) => s.items)).toEqual(
            calls.filter((c) => c.key === key).map((c) => c.item),
          );
        expect(h.waited).toHaveLength(calls.length);
        for (const c of calls) {
          const batch = h.sent.find((s) => s.items.includes(c.item))!;
          const failed = batchError.get(batch);
          if (failed?.mode === 'fail') {
            // A failed call rejects exactly its batch's callers, each with that call's error.
            expect(c.settled).toEqual({ status: 'rejected', reason: failed.error });
          } else if (failed?.mode === 'short') {
            // An answer that does not match the batch item for item is trusted for none of them.
            expect(String((c.settled as PromiseRejectedResult).reason)).toMatch(/outcomes for \d+ items/);
          } else if (failsAlone(c.item)) {
            expect(c.settled?.status).toBe('rejected');
            expect((c.settled as PromiseRejectedResult).reason).toEqual(new Error(`item ${c.item} failed`));
          } else expect(c.settled).toEqual({ status: 'fulfilled', value: c.item * 10 });
        }
        // Nothing a caller handed to waitUntil ever rejects.
        await Promise.all(h.waited);
        expect(h.coalescer.stats()).toEqual({ batches: h.sent.length, items: calls.length });
      }),
      { numRuns: 200 },
    );
  });

  it('sends a lone call at once, alone, and a call after it has returned alone again', async () => {
    const h = harness(64);
    const first = h.call('k', 1);
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1]]);
    h.answer(0, 'ok', new Error('unused'));
    expect(await first).toBe(10);
    const second = h.call('k', 2);
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2]]);
    h.answer(0, 'ok', new Error('unused'));
    expect(await second).toBe(20);
  });

  it('queues calls behind the one in flight and sends them together when it returns', async () => {
    const h = harness(64);
    const results = [h.call('k', 1), h.call('k', 2), h.call('k', 4), h.call('k', 5)];
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1]]);
    h.answer(0, 'ok', new Error('unused'));
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2, 4, 5]]);
    h.answer(0, 'ok', new Error('unused'));
    expect(await Promise.all(results)).toEqual([10, 20, 40, 50]);
  });

  it('gives up a batch with no answer past stallMs when the next call comes: its callers get a retryable error, the key goes on', async () => {
    let now = 1_000;
    const h = harness(64, () => now);
    const lost = [h.call('k', 1), h.call('k', 2)].map((p) => p.catch((e: unknown) => e));
    await flush();
    h.answer(0, 'ok', new Error('unused')); // [1] answered; [2] is sent and then never answered
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2]]);
    now += 10_001;
    // Out of the harness's books: the fake send then checks one batch in flight besides it.
    const stalled = h.open.shift()!;
    const fresh = h.call('k', 4);
    await flush();
    const [, second] = await Promise.all(lost);
    expect(isStalled(second)).toBe(true);
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2], [4]]);
    // The lost batch's late answer changes nothing and hands nothing on.
    const later = h.call('k', 5);
    stalled.done.resolve([outcomeOf(2)]);
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2], [4]]);
    h.answer(0, 'ok', new Error('unused'));
    expect(await fresh).toBe(40);
    await flush();
    expect(h.sent.map((s) => s.items)).toEqual([[1], [2], [4], [5]]);
    h.answer(0, 'ok', new Error('unused'));
    expect(await later).toBe(50);
  });

  it('a batch that never answers (its sender cancelled): each caller waiting on it gives up by its own timer after stallMs, with no new call', async () => {
    const c = new Coalescer<number, number>({ stallMs: 50 });
    const waited: Promise<unknown>[] = [];
    const never = () => new Promise<BatchOutcome<number>[]>(() => {});
    const started = Date.now();
    const [head, ...waiting] = [1, 2, 3].map((item) => c.call({ key: 'k', item, send: never, waitUntil: (p) => void waited.push(p) }));
    const errors = await Promise.all(waiting.map((p) => p.catch((e: unknown) => e)));
    expect(errors.every(isStalled)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    // The head waits on its own call (its own I/O, as without coalescing); the others' waitUntil promises have settled.
    await Promise.all(waited.slice(1));
    void head;
  });

  it('rejects the batch when send throws before it returns a promise', async () => {
    const c = new Coalescer<number, number>();
    const boom = new Error('no stub');
    await expect(
      c.call({
        key: 'k',
        item: 1,
        send: () => {
          throw boom;
        },
        waitUntil: () => {},
      }),
    ).rejects.toBe(boom);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxBatch %s', (maxBatch) => {
    expect(() => new Coalescer({ maxBatch })).toThrow(RangeError);
  });
});
