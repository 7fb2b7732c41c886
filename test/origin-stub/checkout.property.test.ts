// Random interleavings of checkout, authorize, capture, void, refund, webhooks (duplicated, late,
// out of order), timeouts, lost responses, retries, jobs and clock jumps against the checkout saga,
// with the money and seat invariants checked after every step and once everything settled.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invariantViolations, settledViolations, World, type GatewayFault } from './harness';

const SEATS = ['A1', 'A2', 'A3', 'A4'];
const providerOps = fc.constantFrom('authorize' as const, 'capture' as const, 'void' as const, 'refund' as const, 'query' as const);
const providerFaults = fc.constantFrom('timeout' as const, 'lost_response' as const, 'technical' as const);
const gatewayOps = fc.constantFrom('getHold' as const, 'startPayment' as const, 'confirm' as const, 'release' as const);
const gatewayFaults = fc.constantFrom<GatewayFault>('timeout', 'lost', 'limit', 'refused_bare');

const command = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ k: fc.constant('hold' as const), seats: fc.subarray(SEATS, { minLength: 1, maxLength: 2 }), acct: fc.nat(2) }),
  },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('checkout' as const), hold: fc.nat(), declined: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('double' as const), hold: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('providerFault' as const), op: providerOps, fault: providerFaults }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('gatewayFault' as const), op: gatewayOps, fault: gatewayFaults }) },
  {
    weight: 2,
    arbitrary: fc.record({ k: fc.constant('interleave' as const), what: fc.constantFrom('webhooks' as const, 'job' as const) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('gatewayInterleave' as const),
      job: fc.nat(),
      before: fc.boolean(),
      what: fc.constantFrom('job' as const, 'webhooks' as const, 'reconcile' as const),
    }),
  },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('deliver' as const), index: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('job' as const), index: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('concurrent' as const), job: fc.nat(), event: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('clock' as const), ms: fc.integer({ min: 0, max: 200_000 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('reconcile' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('refund' as const), order: fc.nat(), full: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('providerEvent' as const),
      order: fc.nat(),
      event: fc.constantFrom('settled' as const, 'disputed' as const),
    }),
  },
);
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

/** Runs one command on the world. */
async function run(w: World, holds: { holdId: string; account: string }[], accounts: string[], c: Command): Promise<void> {
  const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
  const orders = () => [...w.store.ordersById.keys()];
  switch (c.k) {
    case 'hold': {
      const id = w.inventory.hold(accounts[c.acct]!, c.seats);
      if (id) holds.push({ holdId: id, account: accounts[c.acct]! });
      return;
    }
    case 'checkout': {
      const h = pick(holds, c.hold);
      if (h) await w.checkout.checkout(h.account, h.holdId, c.declined ? '4000 0000 0000 0002' : '4242 4242 4242 4242');
      return;
    }
    case 'double': {
      const h = pick(holds, c.hold);
      if (h)
        await Promise.all([
          w.checkout.checkout(h.account, h.holdId, '4242424242424242'),
          w.checkout.checkout(h.account, h.holdId, '4242424242424242'),
        ]);
      return;
    }
    case 'providerFault':
      w.providerFaults.push({ op: c.op, fault: c.fault });
      return;
    case 'gatewayFault':
      w.inventory.faults.push({ op: c.op, fault: c.fault });
      return;
    case 'interleave':
      w.interleave.push(c.what);
      return;
    case 'gatewayInterleave':
      // Inside the next gateway call, before it is processed or before its answer: any scheduled job runs.
      w.inventory.hooks.push({
        before: c.before,
        run: () => (c.what === 'job' ? w.runJob(c.job) : c.what === 'webhooks' ? w.deliverAll() : w.checkout.reconcile()),
      });
      return;
    case 'deliver':
      await w.deliver(c.index % Math.max(1, w.ledger.outbox.length));
      return;
    case 'job':
      await w.runJob(c.index);
      return;
    case 'concurrent':
      await Promise.all([w.runJob(c.job), w.deliver(c.event % Math.max(1, w.ledger.outbox.length))]);
      return;
    case 'clock':
      w.now += c.ms;
      return;
    case 'reconcile':
      await w.checkout.reconcile();
      return;
    case 'refund': {
      const id = pick(orders(), c.order);
      const p = id ? w.store.payment(id) : null;
      if (id && p && p.capturedMinor > p.refundedMinor) await w.checkout.refund(id, c.full ? p.capturedMinor - p.refundedMinor : 1);
      return;
    }
    case 'providerEvent': {
      const id = pick(orders(), c.order);
      if (id) w.provider.providerEvent(id, c.event);
      return;
    }
  }
}

/** Stops every fault, delivers every webhook, runs every job, reconciles; the world must then be settled. */
async function settle(w: World): Promise<void> {
  w.providerFaults.length = 0;
  w.inventory.faults.length = 0;
  w.interleave.length = 0;
  for (let round = 0; round < 4; round++) {
    await w.deliverAll();
    await w.drain();
    await w.checkout.reconcile();
    await w.drain();
  }
}

/** Failing inputs the property found, kept as regressions (each fixed in origin-stub/). */
const FOUND: { bug: string; commands: Command[] }[] = [
  {
    bug: "two concurrent checkouts of one hold: the second drove the first one's order (startPayment, authorize) after it had been abandoned",
    commands: [
      { k: 'gatewayFault', op: 'startPayment', fault: 'timeout' },
      { k: 'hold', seats: ['A3'], acct: 0 },
      { k: 'double', hold: 0 },
      { k: 'interleave', what: 'webhooks' },
      { k: 'job', index: 0 },
      { k: 'job', index: 0 },
    ],
  },
  {
    bug: 'a confirm whose answer was lost sold the hold; its retry was refused (409, no hold in the body) and the saga voided a sold order',
    commands: [
      { k: 'hold', seats: ['A3'], acct: 0 },
      { k: 'gatewayFault', op: 'confirm', fault: 'lost' },
      { k: 'checkout', hold: 0, declined: false },
      { k: 'gatewayFault', op: 'confirm', fault: 'refused_bare' },
      { k: 'job', index: 0 },
    ],
  },
  {
    bug: 'a refund without an answer, then settlement: the query could not resolve UNKNOWN(refund) (settled was tried first)',
    commands: [
      { k: 'providerFault', op: 'refund', fault: 'timeout' },
      { k: 'hold', seats: ['A2'], acct: 0 },
      { k: 'checkout', hold: 0, declined: false },
      { k: 'refund', order: 0, full: false },
      { k: 'providerEvent', order: 0, event: 'settled' },
      { k: 'deliver', index: 0 },
      { k: 'job', index: 0 },
    ],
  },
  {
    bug: 'payment-pending refused without the hold in the answer: the order FAILED at once while its hold still kept the seats',
    commands: [
      { k: 'gatewayFault', op: 'startPayment', fault: 'refused_bare' },
      { k: 'hold', seats: ['A1'], acct: 0 },
      { k: 'checkout', hold: 0, declined: false },
    ],
  },
  {
    bug: 'an authorization-expiry job ran while the confirm was in flight: it cancelled the order the confirm then sold (payment voided, seats sold)',
    commands: [
      // Hooks go to the checkout's gateway calls in order: getHold, payment-pending, then confirm.
      { k: 'gatewayInterleave', job: 0, before: false, what: 'job' },
      { k: 'gatewayInterleave', job: 0, before: false, what: 'job' },
      { k: 'hold', seats: ['A2'], acct: 0 },
      { k: 'gatewayInterleave', job: 35084847, before: true, what: 'job' },
      { k: 'checkout', hold: 0, declined: false },
    ],
  },
  {
    bug: 'after a lost confirm answer, the expiry job read the hold, got a 409 without the hold, and voided a sold order',
    commands: [
      { k: 'gatewayFault', op: 'confirm', fault: 'lost' },
      { k: 'hold', seats: ['A4'], acct: 0 },
      { k: 'checkout', hold: 0, declined: false },
      { k: 'gatewayFault', op: 'getHold', fault: 'refused_bare' },
      { k: 'job', index: 35729223 },
    ],
  },
];

/** Runs commands, checking the invariants after each one and once settled; returns the world. */
async function scenario(commands: Command[]): Promise<World> {
  const w = new World();
  const accounts = [w.newAccount(), w.newAccount(), w.newAccount()];
  const holds: { holdId: string; account: string }[] = [];
  for (const c of commands) {
    await run(w, holds, accounts, c);
    const v = invariantViolations(w);
    if (v.length) throw new Error(`after ${JSON.stringify(c)}: ${v.join('; ')}`);
  }
  await settle(w);
  const v = settledViolations(w);
  if (v.length) throw new Error(`after settling: ${v.join('; ')}`);
  return w;
}

const stats = { runs: 0, steps: 0, webhooks: 0, casRefusals: 0, unknownSeen: 0, paid: 0, cancelled: 0, failed: 0 };

describe('checkout saga under random interleavings (fast-check)', () => {
  it('keeps every invariant after every step, and settles with nothing unknown and no money without seats', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (commands) => {
        const w = new World();
        const accounts = [w.newAccount(), w.newAccount(), w.newAccount()];
        const holds: { holdId: string; account: string }[] = [];
        for (const c of commands) {
          await run(w, holds, accounts, c);
          stats.steps++;
          if ([...w.store.paymentsById.values()].some((p) => p.state === 'UNKNOWN')) stats.unknownSeen++;
          const v = invariantViolations(w);
          if (v.length) throw new Error(`after ${JSON.stringify(c)}: ${v.join('; ')}`);
        }
        await settle(w);
        const v = settledViolations(w);
        if (v.length) throw new Error(`after settling: ${v.join('; ')}`);
        stats.runs++;
        stats.webhooks += w.delivered;
        stats.casRefusals += w.store.casRefusals;
        for (const o of w.store.ordersById.values()) {
          if (o.state === 'PAID') stats.paid++;
          else if (o.state === 'CANCELLED') stats.cancelled++;
          else if (o.state === 'FAILED') stats.failed++;
        }
      }),
      // 1,000 runs here (about 1 s); rounds of 20,000 runs (random seeds) passed during development.
      { numRuns: 1000, examples: FOUND.map((f) => [f.commands]) },
    );
    console.log(`checkout property runs: ${JSON.stringify(stats)}`);
    expect(stats.paid).toBeGreaterThan(0);
    expect(stats.cancelled + stats.failed).toBeGreaterThan(0);
    expect(stats.unknownSeen).toBeGreaterThan(0);
  });
});

describe('regressions found by the property', () => {
  for (const f of FOUND) it(f.bug, async () => void (await scenario(f.commands)));
});
