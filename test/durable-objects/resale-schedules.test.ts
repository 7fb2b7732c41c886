// Random interleavings of holds, payments, returns, waitlist joins, offers, acceptances and clock
// jumps against one Inventory and the pure model of the same rules (test/helpers/resale-model.ts):
// every step answers alike (success, or the same refusal code), and the invariants and consistency
// counters hold after every step.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InventoryConfig, ResaleRules } from '../../contracts/event-config';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { ResaleModel } from '../helpers/resale-model';

type Stub = DurableObjectStub<Inventory>;

const SEATS = ['A1', 'A2', 'A3', 'A4'];
const ACCOUNTS = ['ann', 'bob', 'cid', 'dee', 'eve', 'fay'];
const NOW = 1_800_000_000_000;

const arbStep = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('hold' as const), account: fc.constantFrom(...ACCOUNTS), n: fc.integer({ min: 1, max: 2 }) }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('confirm' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('return' as const), pick: fc.nat(), some: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('join' as const), account: fc.constantFrom(...ACCOUNTS), n: fc.integer({ min: 1, max: 2 }) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('accept' as const), pick: fc.nat(), own: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 30_000, 61_000) }) },
);
type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;

/** The object's holds in the order they were made (the model's order too). */
async function holdIds(inv: Stub): Promise<string[]> {
  return runInDurableObject(inv, (_o, s) =>
    s.storage.sql
      .exec<{ hold_id: string }>('SELECT hold_id FROM inv_holds ORDER BY rowid')
      .toArray()
      .map((r) => r.hold_id),
  );
}

const outcome = (a: { kind: string; code?: string }) => (a.kind === 'ok' || a.kind === 'held' ? 'ok' : (a.code ?? a.kind));

/** Runs one step on both; the answers as `ok` or a code, for comparison. */
async function step(inv: Stub, m: ResaleModel, s: Step, keys: { n: number }): Promise<[string, string]> {
  const ids = await holdIds(inv);
  const modelIds = [...m.holds.keys()];
  expect(ids.length).toBe(modelIds.length);
  const at = (pick: number) => pick % Math.max(1, ids.length);
  switch (s.op) {
    case 'hold': {
      const free = SEATS.filter((x) => m.seats.get(x)!.status === 'AVAILABLE');
      const seats = free.length > 0 ? free.slice(0, s.n) : SEATS.slice(0, s.n);
      const k = `h${keys.n++}`;
      const mo = m.hold(s.account, seats);
      const d = await inv.hold(s.account, { seatIds: seats }, k);
      if (d.kind === 'held') expect(d.hold.priceMinor).toBe(m.holds.get(mo.ok ? mo.ref! : '')?.priceMinor);
      return [mo.ok ? 'ok' : 'refused', d.kind === 'held' ? 'ok' : 'refused'];
    }
    case 'confirm':
    case 'release': {
      if (ids.length === 0) return ['ok', 'ok'];
      const i = at(s.pick);
      // The object answers a repeated confirm (same order) or release as a no-op success.
      const before = m.holds.get(modelIds[i]!)!.status;
      const repeat = (s.op === 'confirm' && before === 'SOLD') || (s.op === 'release' && before === 'RELEASED');
      const mo = repeat ? { ok: true } : s.op === 'confirm' ? m.confirm(modelIds[i]!) : m.release(modelIds[i]!);
      const h = await inv.getHold(ids[i]!, null);
      const price = h.kind === 'ok' ? h.hold.priceMinor : 0;
      const d = s.op === 'confirm' ? await inv.confirm(ids[i]!, `order-${ids[i]}`, price, null) : await inv.release(ids[i]!, null, false);
      return [mo.ok ? 'ok' : 'refused', d.kind === 'ok' ? 'ok' : 'refused'];
    }
    case 'return': {
      if (ids.length === 0) return ['ok', 'ok'];
      const i = at(s.pick);
      const seats = s.some ? m.holds.get(modelIds[i]!)!.seatIds.slice(0, 1) : null;
      const k = `r${keys.n++}`;
      return [outcome(toAnswer(m.returnSeatsOf(modelIds[i]!, seats, k))), outcome(await inv.returnSeats(ids[i]!, seats, k))];
    }
    case 'join':
      return [outcome(toAnswer(m.join(s.account, s.n))), outcome(await inv.joinWaitlist(s.account, s.n))];
    case 'accept': {
      if (ids.length === 0) return ['ok', 'ok'];
      const i = at(s.pick);
      const account = s.own ? m.holds.get(modelIds[i]!)!.account : 'nobody';
      const mo = toAnswer(m.accept(modelIds[i]!, account));
      const d = await inv.acceptOffer(ids[i]!, account);
      return [mo.code === 'OFFER_NOT_FOUND' ? 'not_found' : outcome(mo), outcome(d)];
    }
    case 'advance':
      m.advance(s.ms);
      await runInDurableObject(inv, async (obj: Inventory) => {
        obj.clock = () => m.now;
        await obj.alarm();
      });
      return ['ok', 'ok'];
  }
}

const toAnswer = (a: { ok: boolean; code?: string }) => (a.ok ? { kind: 'ok' } : { kind: 'refused', code: a.code });

describe('resale schedules against the object and the model', () => {
  it('answers alike at every step and keeps every invariant', async () => {
    const reached = { offers: 0, resold: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<ResaleRules['refund']>('on_resale', 'at_once'),
        fc.boolean(),
        fc.array(arbStep, { minLength: 5, maxLength: 40 }),
        async (refund, soldOut, steps) => {
          const rules: ResaleRules = { returnDeadlineMs: NOW + 10_000_000, offerTtlMs: 30_000, feeMinor: 250, refund };
          const config: InventoryConfig = {
            seats: 4,
            seatsPerRow: 4,
            seatPriceMinor: 5000,
            currency: 'EUR',
            tiers: [],
            holdTtlMs: 60_000,
            paymentGraceMs: 30_000,
            maxSeatsPerAccount: 100,
            resale: rules,
          };
          const inv = env.INVENTORY.getByName(freshEventId('sched'));
          await inv.configure(config);
          await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => NOW));
          const m = new ResaleModel(SEATS, rules, 5000, 60_000, 100);
          const keys = { n: 0 };
          // Half the schedules start sold out, where the waitlist is open.
          if (soldOut)
            for (const account of ['ann', 'bob']) {
              await step(inv, m, { op: 'hold', account, n: 2 }, keys);
              await step(inv, m, { op: 'confirm', pick: (await holdIds(inv)).length - 1 }, keys);
            }
          for (const s of steps) {
            const [model, object] = await step(inv, m, s, keys);
            expect(object, JSON.stringify(s)).toBe(model);
            await checkInvariants(inv);
          }
          const feed = await inv.resaleRead('feed', 0, 1000);
          const kinds = feed.kind === 'feed' ? feed.events.map((e) => e.kind) : [];
          expect(kinds.filter((k) => k === 'refund').length).toBe(m.refunds.length);
          expect(kinds.filter((k) => k === 'offer').length).toBe(m.offered.length);
          reached.offers += m.offered.length;
          reached.resold += m.returnSeats.filter((r) => r.resoldTo !== null).length;
        },
      ),
      { numRuns: 25 },
    );
    // The schedules reach what they are for: offers made and seats resold.
    expect(reached.offers).toBeGreaterThan(0);
    expect(reached.resold).toBeGreaterThan(0);
  });
});
