// Returns, the waitlist and resale (durable-objects/inventory/resale-policy.ts): the refusals as a
// table, and properties over random interleavings of holds, payments, returns, joins, offers,
// acceptances and clock jumps on a model built on those rules (test/helpers/resale-model.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideAccept, decideJoin, decideReturn, planOffers, type ResaleRules } from '../../durable-objects/inventory/resale-policy';
import { ResaleModel, type MHold } from '../helpers/resale-model';

const NOW = 1_800_000_000_000;
const RULES: ResaleRules = { returnDeadlineMs: NOW + 86_400_000, offerTtlMs: 30_000, feeMinor: 150, refund: 'on_resale' };
const sold = { status: 'SOLD' as const, kind: 'seats' as const, seatIds: ['A1', 'A2', 'A3'] };

describe('decideReturn', () => {
  const facts = (f: Partial<Parameters<typeof decideReturn>[0]> = {}) => ({
    rules: RULES,
    hold: sold,
    returned: [],
    asked: null,
    nowMs: NOW,
    ...f,
  });
  it.each([
    ['the event takes no returns', facts({ rules: null }), 'RESALE_OFF'],
    ['payment is pending', facts({ hold: { ...sold, status: 'PAYMENT_PENDING' } }), 'PAYMENT_NOT_SETTLED'],
    ['payment needs reconciliation', facts({ hold: { ...sold, status: 'NEEDS_RECONCILIATION' } }), 'PAYMENT_NOT_SETTLED'],
    ['the hold is only held', facts({ hold: { ...sold, status: 'HELD' } }), 'PAYMENT_NOT_SETTLED'],
    ['the hold was released', facts({ hold: { ...sold, status: 'RELEASED' } }), 'HOLD_NOT_ACTIVE'],
    ['the deadline is now', facts({ nowMs: RULES.returnDeadlineMs }), 'RETURN_DEADLINE_PASSED'],
    ['a seat is not in the order', facts({ asked: ['A1', 'B9'] }), 'SEATS_NOT_IN_ORDER'],
    ['a seat is listed twice', facts({ asked: ['A1', 'A1'] }), 'SEATS_NOT_IN_ORDER'],
    ['the order is of tier places', facts({ hold: { ...sold, kind: 'tier', seatIds: [] } }), 'SEATS_NOT_IN_ORDER'],
    [
      'a seat is in an earlier return still waiting for its refund',
      facts({ returned: [{ seatId: 'A1', settled: false }], asked: ['A2', 'A1'] }),
      'RETURN_IN_PROGRESS',
    ],
    [
      'every seat not refunded is in an earlier return',
      facts({ returned: [{ seatId: 'A1', settled: false }, ...['A2', 'A3'].map((seatId) => ({ seatId, settled: true }))] }),
      'RETURN_IN_PROGRESS',
    ],
    ['the seat was returned before', facts({ returned: [{ seatId: 'A1', settled: true }], asked: ['A1'] }), 'ORDER_ALREADY_RETURNED'],
    [
      'every seat was returned before',
      facts({ returned: sold.seatIds.map((seatId) => ({ seatId, settled: true })) }),
      'ORDER_ALREADY_RETURNED',
    ],
  ] as const)('refuses when %s', (_name, f, code) => {
    expect(decideReturn(f)).toMatchObject({ ok: false, code });
  });

  it('returns the asked seats, or every seat not returned yet, refunded now only under at_once', () => {
    expect(decideReturn(facts({ asked: ['A3', 'A1'] }))).toEqual({ ok: true, seatIds: ['A1', 'A3'], refundNow: false });
    const rest = facts({ returned: [{ seatId: 'A1', settled: true }], rules: { ...RULES, refund: 'at_once' } });
    expect(decideReturn(rest)).toEqual({ ok: true, seatIds: ['A2', 'A3'], refundNow: true });
    // An earlier return waiting for its resale does not stop a return of the order's other seats.
    const pending = facts({ returned: [{ seatId: 'A1', settled: false }] });
    expect(decideReturn(pending)).toEqual({ ok: true, seatIds: ['A2', 'A3'], refundNow: false });
    expect(decideReturn({ ...pending, asked: ['A3'] })).toEqual({ ok: true, seatIds: ['A3'], refundNow: false });
  });
});

describe('planOffers, decideJoin, decideAccept', () => {
  it('offers free seats to the waitlist in order, face value plus fee, and leaves the rest on open sale', () => {
    const free = ['A1', 'A2', 'A3'].map((seatId) => ({ seatId, faceMinor: 5000 }));
    const waiting = [
      { entryId: 1, account: 'a', quantity: 2 },
      { entryId: 2, account: 'b', quantity: 2 },
      { entryId: 3, account: 'c', quantity: 1 },
    ];
    expect(planOffers({ free, waiting, rules: RULES, nowMs: NOW })).toEqual([
      { entryId: 1, account: 'a', seatIds: ['A1', 'A2'], priceMinor: 10_300, expiresAtMs: NOW + 30_000 },
      { entryId: 2, account: 'b', seatIds: ['A3'], priceMinor: 5150, expiresAtMs: NOW + 30_000 },
    ]);
    expect(planOffers({ free, waiting: [], rules: RULES, nowMs: NOW })).toEqual([]);
  });

  it('opens the waitlist only when nothing is on sale, one live entry per account', () => {
    const j = { rules: RULES, onSale: false, live: null, quantity: 2, owned: 0, limit: 6 };
    expect(decideJoin(j)).toEqual({ ok: true, replay: false });
    expect(decideJoin({ ...j, onSale: true })).toMatchObject({ code: 'WAITLIST_NOT_OPEN' });
    expect(decideJoin({ ...j, live: 'WAITING', onSale: true })).toEqual({ ok: true, replay: true });
    expect(decideJoin({ ...j, owned: 5 })).toMatchObject({ code: 'ACCOUNT_LIMIT' });
    expect(decideJoin({ ...j, rules: null })).toMatchObject({ code: 'RESALE_OFF' });
  });

  it('lets only the offered account accept a live offer; a lapsed one is refused', () => {
    const offer = { account: 'a', status: 'HELD' as const, expiresAtMs: NOW + 5_000 };
    expect(decideAccept(offer, 'a', false, 60_000, NOW)).toEqual({ ok: true, expiresAtMs: NOW + 60_000, noop: false });
    expect(decideAccept(offer, 'a', true, 60_000, NOW)).toEqual({ ok: true, expiresAtMs: NOW + 5_000, noop: true });
    expect(decideAccept(offer, 'b', false, 60_000, NOW)).toMatchObject({ code: 'NOT_OFFER_OWNER' });
    expect(decideAccept({ ...offer, status: 'EXPIRED' }, 'a', false, 60_000, NOW)).toMatchObject({ code: 'OFFER_LAPSED' });
  });
});

const SEATS = ['A1', 'A2', 'A3', 'A4'];
const ACCOUNTS = ['ann', 'bob', 'cid', 'dee', 'eve'];
const arbSeats = fc.uniqueArray(fc.constantFrom(...SEATS), { minLength: 1, maxLength: 3 });
// Weighted towards the steps that reach a sell-out, returns and offers.
const arbStep = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('hold' as const), account: fc.constantFrom(...ACCOUNTS), seats: arbSeats }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('confirm' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('return' as const),
      pick: fc.nat(),
      some: fc.boolean(),
      key: fc.constantFrom('k1', 'k2', 'k3'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('join' as const),
      account: fc.constantFrom(...ACCOUNTS),
      quantity: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('accept' as const), pick: fc.nat(), own: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 29_999, 30_000, 61_000) }) },
);
type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;
const arbRules = fc.record({
  returnDeadlineMs: fc.constantFrom(NOW + 200_000, NOW + 10_000_000, NOW + 10_000_000),
  offerTtlMs: fc.constantFrom(30_000),
  feeMinor: fc.constantFrom(0, 250),
  refund: fc.constantFrom('on_resale' as const, 'at_once' as const),
});

/** Runs one step; `pick` chooses among the holds the step can act on (any hold when there is none). */
function run(m: ResaleModel, s: Step): void {
  const among = (n: number, f: (h: MHold) => boolean) => {
    const all = [...m.holds.values()];
    const fit = all.filter(f).length > 0 ? all.filter(f) : all;
    return fit[n % Math.max(fit.length, 1)];
  };
  switch (s.op) {
    case 'hold': {
      // Mostly free seats (a few taken ones, refused), so schedules reach a sell-out.
      const free = SEATS.filter((x) => m.seats.get(x)!.status === 'AVAILABLE');
      return void m.hold(s.account, free.length > 0 && s.seats.length > 1 ? free.slice(0, s.seats.length) : s.seats);
    }
    case 'confirm':
      return void m.confirm(among(s.pick, (h) => h.status === 'HELD')?.id ?? 'none');
    case 'release':
      return void m.release(among(s.pick, (h) => h.status === 'HELD')?.id ?? 'none');
    case 'return': {
      const h = among(s.pick, (x) => x.status === 'SOLD');
      return void m.returnSeatsOf(h?.id ?? 'none', s.some && h ? h.seatIds.slice(0, 1) : null, s.key + (h?.id ?? ''));
    }
    case 'join':
      return void m.join(s.account, s.quantity);
    case 'accept': {
      const h = among(s.pick, (x) => x.entryId !== null);
      return void m.accept(h?.id ?? 'none', s.own && h ? h.account : 'nobody');
    }
    case 'advance':
      return m.advance(s.ms);
  }
}

function checkInvariants(m: ResaleModel): void {
  for (const seat of SEATS) {
    // A seat has at most one valid order: a sold hold's claim ends when its return is refunded.
    const valid = [...m.holds.values()].filter(
      (h) =>
        h.status === 'SOLD' && h.seatIds.includes(seat) && !m.returnSeats.some((r) => r.holdId === h.id && r.seatId === seat && r.refunded),
    );
    expect(valid.length).toBeLessThanOrEqual(1);
    if (m.seats.get(seat)!.status === 'SOLD') expect(valid.map((h) => h.id)).toEqual([m.seats.get(seat)!.holdId]);
    // An offer is a hold like any other: never two live holds on a seat.
    const live = [...m.holds.values()].filter((h) => h.status === 'HELD' && h.expiresAtMs > m.now && h.seatIds.includes(seat));
    expect(live.length).toBeLessThanOrEqual(1);
  }
  // Every refund matches exactly one returned seat of one return, at its face value, once.
  for (const refund of m.refunds) {
    const matches = m.returnSeats.filter((r) => r.returnId === refund.returnId && r.seatId === refund.seatId && r.refunded);
    expect(matches).toHaveLength(1);
    expect(refund.amountMinor).toBe(matches[0]!.faceMinor);
  }
  expect(new Set(m.refunds.map((r) => `${r.returnId}:${r.seatId}`)).size).toBe(m.refunds.length);
  // A resold seat cost its face value plus the fee, never more.
  for (const r of m.returnSeats.filter((x) => x.resoldTo !== null)) {
    const h = [...m.holds.values()].find((x) => x.orderId === r.resoldTo)!;
    expect(h.priceMinor).toBeLessThanOrEqual(h.seatIds.length * (r.faceMinor + m.rules.feeMinor));
  }
  // The waitlist never skips an account still waiting: every entry offered so far came before every waiting one.
  const waiting = m.waitlist.filter((e) => e.state === 'WAITING').map((e) => e.entryId);
  for (const offered of m.offered) for (const w of waiting) expect(offered).toBeLessThan(w);
  // Nobody waits while a returned seat sits free.
  const freeReturned = m.returnSeats.some((r) => r.resoldTo === null && m.seats.get(r.seatId)!.status === 'AVAILABLE');
  expect(freeReturned && waiting.length > 0).toBe(false);
  // Every return, offer, resale and refund is in the feed exactly once.
  const once = (kind: string, refs: string[]) =>
    expect(
      m.feed
        .filter((f) => f.kind === kind)
        .map((f) => f.ref)
        .sort(),
    ).toEqual([...new Set(refs)].sort());
  once('return', [...new Set(m.returnSeats.map((r) => r.returnId))]);
  once(
    'offer',
    [...m.holds.values()].filter((h) => h.entryId !== null).map((h) => h.id),
  );
  once(
    'refund',
    m.refunds.map((r) => `${r.returnId}:${r.seatId}`),
  );
  once(
    'resold',
    m.returnSeats.filter((r) => r.resoldTo).map((r) => `${r.seatId}:${r.resoldTo!.slice('order-'.length)}`),
  );
}

describe('resale over random interleavings', () => {
  it('keeps one valid order per seat, one refund per returned seat, offers as holds, the waitlist in order, one feed entry each', () => {
    fc.assert(
      fc.property(arbRules, fc.boolean(), fc.array(arbStep, { minLength: 1, maxLength: 80 }), (rules, soldOut, steps) => {
        const m = new ResaleModel(SEATS, rules);
        // Half the schedules start sold out, where the waitlist is open.
        if (soldOut)
          for (const [account, seats] of [
            ['ann', ['A1', 'A2']],
            ['bob', ['A3', 'A4']],
          ] as const) {
            const h = m.hold(account, [...seats]);
            if (h.ok) m.confirm(h.ref!);
          }
        for (const s of steps) {
          run(m, s);
          checkInvariants(m);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sells out, takes a return, offers it to the waitlist in order, passes a lapsed offer on and refunds on the resale', () => {
    const m = new ResaleModel(['A1', 'A2'], RULES);
    const h = m.hold('ann', ['A1', 'A2']);
    m.confirm(h.ok ? h.ref! : '');
    expect(m.join('bob', 1)).toEqual({ ok: true });
    expect(m.join('cid', 1)).toEqual({ ok: true });
    expect(m.returnSeatsOf(h.ok ? h.ref! : '', ['A2'], 'k')).toMatchObject({ ok: true });
    const bobs = m.waitlist[0]!.holdId!;
    expect(m.holds.get(bobs)).toMatchObject({ account: 'bob', seatIds: ['A2'], priceMinor: 5150 });
    m.advance(30_000);
    expect(m.accept(bobs, 'bob')).toEqual({ ok: false, code: 'OFFER_LAPSED' });
    const cids = m.waitlist[1]!.holdId!;
    expect(m.accept(cids, 'cid')).toEqual({ ok: true });
    expect(m.refunds).toEqual([]);
    m.confirm(cids);
    expect(m.refunds).toEqual([{ returnId: m.returnSeats[0]!.returnId, seatId: 'A2', amountMinor: 5000 }]);
    expect(m.feed.map((f) => f.kind)).toEqual(['return', 'offer', 'offer_lapsed', 'offer', 'resold', 'refund', 'offer_taken']);
  });

  it('replays a return under the same key and body, and refuses the key with another body', () => {
    const m = new ResaleModel(SEATS, RULES);
    const h = m.hold('ann', ['A1', 'A2']);
    if (!h.ok) throw new Error('hold refused');
    m.confirm(h.ref!);
    const first = m.returnSeatsOf(h.ref!, ['A1'], 'key');
    expect(m.returnSeatsOf(h.ref!, ['A1'], 'key')).toEqual(first);
    expect(m.returnSeatsOf(h.ref!, ['A2'], 'key')).toEqual({ ok: false, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(m.returnSeatsOf(h.ref!, ['A1'], 'other')).toEqual({ ok: false, code: 'RETURN_IN_PROGRESS' });
    expect(m.returnSeatsOf(h.ref!, ['A2'], 'other')).toMatchObject({ ok: true });
  });
});
