// `kill -9` of `wrangler dev` mid-return and mid-offer, then restarts on the same local storage.
// Two sold-out events with resale (A refunds when a seat is resold and charges a fee, B refunds at
// the return) live through three kills, each landing on them at different moments:
//   1. A's burst of returns in flight (killed at its first answer);
//   2. A's offers being accepted and confirmed, and B's burst of returns in flight;
//   3. B's offers being accepted and confirmed, and A's untaken offers' deadlines falling due while
//      the server is down (they lapse after the restart and pass to the next accounts).
// Every call cut off is repeated after the restart with the same key or order id. At the end:
// every returned seat is resold at face value to one waitlisted account or back on sale; refunds
// match resold seats (A) or every returned seat (B); the waitlist skipped nobody; the resale feed
// lists each return, offer, lapse, resale and refund once; the consistency counters are 0.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResaleClient, type Hold, type ResaleResult, type SeatReturn } from '../../origin-sdk/src/index.ts';
import { CONSISTENT } from '../../contracts/inventory-answers';
import { ensureDevVars, parseDevVars } from '../../scripts/lib/dev-secrets.ts';
import { freePort, getEvent, putEvent, ROOT, startDevServer, type DevServer } from '../../scripts/lib/dev-server.ts';
import { admitted, hold, joinQueue, json, killHard } from './crash.ts';

const SEAT_PRICE = 5_000;
/** Sold as six orders of two seats. */
const SEATS = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'B1', 'B2', 'B3', 'B4', 'B5', 'B6'];
/** The shortest offer the configuration allows (60 s): three lapse across the third restart. */
const OFFER_SECONDS = 60;
/** Calls cut off by a kill: one try, so an answer lost to the kill is seen as lost (and repeated later). */
const ONE_TRY = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let gateway: DevServer;
let port: number;
let state: string;
let secret: string;

/** One sold-out event of the run and what the test sent and heard. */
interface Sale {
  id: string;
  fee: number;
  refund: 'on_resale' | 'at_once';
  /** The clients: retrying (after a restart) and single-try (while the kill may land). */
  client: ResaleClient;
  once: ResaleClient;
  orders: Hold[];
  /** Waitlisted accounts in join order, with the seats each asked for. */
  waitlist: { account: string; quantity: number }[];
  /** Every return sent: its order, key and first answer. */
  returns: { holdId: string; key: string; first?: ResaleResult<SeatReturn> }[];
}

/** Creates the event, sells every seat (one visitor, six 2-seat orders), turns resale on and fills the waitlist. */
async function sellOut(tag: string, refund: Sale['refund'], fee: number, waitlist: Sale['waitlist']): Promise<Sale> {
  const id = `crash-resale-${tag}-${Date.now().toString(36)}`;
  await putEvent(gateway, id, {
    name: 'Resale crash test',
    releaseRatePerMinute: 600,
    minReleaseRatePerMinute: 600,
    maxActiveVisitors: 50,
    seats: SEATS.length,
    seatsPerRow: 6,
    seatPriceMinor: SEAT_PRICE,
    maxSeatsPerAccount: SEATS.length,
    holdTtlSeconds: 300,
    admissionTtlSeconds: 900,
  });
  const client = new ResaleClient({ gatewayUrl: gateway.url, eventId: id, secret });
  const once = new ResaleClient({ gatewayUrl: gateway.url, eventId: id, secret, retry: ONE_TRY });
  const [buyer] = await admitted(gateway.url, id, [await joinQueue(gateway.url, id)], 1, 20_000);
  const orders: Hold[] = [];
  for (let i = 0; i < SEATS.length; i += 2) {
    const res = await hold(gateway.url, id, buyer!, SEATS.slice(i, i + 2), `buy-${i}`);
    expect(res.status).toBe(201);
    const { holdId, priceMinor } = await json<{ holdId: string; priceMinor: number }>(res);
    const paid = await client.confirm(holdId, { orderId: `${id}-order-${i / 2}`, amountMinor: priceMinor });
    expect(paid.kind === 'ok' && paid.hold.status).toBe('SOLD');
    if (paid.kind === 'ok') orders.push(paid.hold);
  }
  const patched = await fetch(`${gateway.url}/_wr/admin/events/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({
      resale: { returnDeadline: new Date(Date.now() + 86_400_000).toISOString(), offerSeconds: OFFER_SECONDS, feeMinor: fee, refund },
    }),
  });
  expect(patched.status, await patched.clone().text()).toBe(200);
  for (const w of waitlist) expect((await client.joinWaitlist(w.account, w.quantity)).kind).toBe('ok');
  return { id, fee, refund, client, once, orders, waitlist, returns: [] };
}

/**
 * Sends the returns of the first `count` orders, single-try, `spacingMs` apart: each with its key,
 * the first also a second time with the same key (a client retry racing the first), the second
 * also with another key (two returns of one order at once). Each settles answered or cut off.
 */
function returnBurst(sale: Sale, count: number, spacingMs: number): Promise<unknown>[] {
  const sends = sale.orders.slice(0, count).flatMap((o, i) => {
    const key = `${sale.id}-return-${i}`;
    return [
      { holdId: o.holdId, key },
      ...(i === 0 ? [{ holdId: o.holdId, key }] : i === 1 ? [{ holdId: o.holdId, key: `${key}-again` }] : []),
    ];
  });
  return sends.map(async (s, i) => {
    const entry: Sale['returns'][number] = { ...s };
    sale.returns.push(entry);
    await sleep(i * spacingMs);
    entry.first = await sale.once.returnSeats(s.holdId, { idempotencyKey: s.key });
  });
}

/** Repeats every return with its key: the first answer again (same return), or a clean refusal; never a second return. */
async function retryReturns(sale: Sale): Promise<Map<string, SeatReturn>> {
  const byOrder = new Map<string, SeatReturn>();
  for (const r of sale.returns) {
    const again = await sale.client.returnSeats(r.holdId, { idempotencyKey: r.key });
    expect(again.kind, JSON.stringify(again)).not.toBe('no_answer');
    if (r.first?.kind === 'ok') expect(again.kind === 'ok' && again.value.returnId).toBe(r.first.value.returnId);
    if (r.first?.kind === 'refused') expect(again.kind).toBe('refused');
    if (again.kind === 'refused') expect(['RETURN_IN_PROGRESS', 'ORDER_ALREADY_RETURNED']).toContain(again.code);
    if (again.kind !== 'ok') continue;
    const seen = byOrder.get(r.holdId);
    if (seen) expect(again.value.returnId, 'one return per order').toBe(seen.returnId);
    byOrder.set(r.holdId, again.value);
  }
  return byOrder;
}

/** The waitlist (one page: the test's lists are short). */
async function entries(sale: Sale) {
  const page = await sale.client.waitlist({ limit: 500 });
  if (page.kind !== 'ok') throw new Error(`waitlist: ${JSON.stringify(page)}`);
  return page.value.entries;
}

/** The live offer of each of these accounts (hold ids), read from the waitlist. */
async function offersOf(sale: Sale, accounts: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await entries(sale)) if (accounts.includes(e.account) && e.state === 'OFFERED') out.set(e.account, e.offerHoldId!);
  return out;
}

/**
 * The account takes its offer: accept, payment pending, confirm at the offer's price with an order
 * id of its own. Repeated after a cut, each step is idempotent (a confirmed hold answers SOLD again).
 */
async function take(sale: Sale, client: ResaleClient, account: string, holdId: string): Promise<string> {
  const now = await client.getHold(holdId);
  if (now.kind === 'ok' && now.hold.status === 'SOLD') return 'sold';
  const accepted = await client.acceptOffer(holdId, account);
  if (accepted.kind !== 'ok') return `accept ${accepted.kind}`;
  if (accepted.value.status === 'HELD') await client.paymentPending(holdId);
  const paid = await client.confirm(holdId, { orderId: `${sale.id}-resale-${account}`, amountMinor: accepted.value.priceMinor });
  return paid.kind === 'ok' ? paid.hold.status.toLowerCase() : `confirm ${paid.kind}`;
}

/** With `calls` running, kills the server once `killAfter` settles and restarts it; the kill's time (epoch ms). */
async function killDuring(calls: Promise<unknown>[], killAfter: Promise<unknown>): Promise<number> {
  await killAfter.catch(() => undefined);
  const killedAt = Date.now();
  await killHard(gateway);
  gateway = await startDevServer({ port, persistTo: state, quiet: true });
  await Promise.allSettled(calls);
  return killedAt;
}

/** How a return burst met the kill: answered, and cut off but made before it (its answer lost). */
function burstReport(sale: Sale, killedAt: number, retried: Map<string, SeatReturn>): string {
  const answered = sale.returns.filter((r) => r.first?.kind !== 'no_answer').length;
  const lost = [...retried.values()].filter(
    (v) => Date.parse(v.createdAt) < killedAt && !sale.returns.some((r) => r.first?.kind === 'ok' && r.first.value.returnId === v.returnId),
  ).length;
  return `${sale.returns.length} returns sent, ${answered} answered, ${lost} made with their answer lost`;
}

/** Every check of the end state of one sale (see the file comment). */
async function checkSale(sale: Sale, expectOnSale: number | null): Promise<void> {
  // The returns as they stand now (each key once more: still the one return per order).
  const returned = await retryReturns(sale);
  expect(returned.size).toBe(4);
  const view = await getEvent<{
    inventory: { seats: { available: number; held: number }; consistency: Record<string, number> };
  }>(gateway, sale.id);
  expect(view.inventory.consistency).toEqual(CONSISTENT);
  expect(view.inventory.seats.held).toBe(0);
  const holds: Hold[] = [];
  for (let after: string | null = ''; after !== null;) {
    const page = await sale.client.listHolds({ after, limit: 500 });
    if (page.kind !== 'ok') throw new Error(`holds: ${JSON.stringify(page)}`);
    holds.push(...page.holds);
    after = page.next;
  }
  const returnedPairs = new Set([...returned.values()].flatMap((r) => r.seats.map((s) => `${r.holdId}:${s.seatId}`)));
  const accounts = new Set(sale.waitlist.map((w) => w.account));
  // A seat has at most one valid order: SOLD holds naming it, less the orders that returned it.
  const owner = new Map<string, Hold>();
  for (const h of holds.filter((x) => x.status === 'SOLD'))
    for (const s of h.seatIds.filter((x) => !returnedPairs.has(`${h.holdId}:${x}`))) {
      expect(owner.has(s), `seat ${s} sold twice`).toBe(false);
      owner.set(s, h);
    }
  let resold = 0;
  let onSale = 0;
  for (const r of returned.values())
    for (const s of r.seats) {
      expect(s.faceMinor).toBe(SEAT_PRICE);
      const h = owner.get(s.seatId);
      if (s.resoldHoldId === null) {
        expect(h, `returned seat ${s.seatId} is back on sale`).toBeUndefined();
        onSale++;
        continue;
      }
      resold++;
      // Resold at face value plus the fee, to one waitlisted account.
      expect(h?.holdId).toBe(s.resoldHoldId);
      expect(accounts.has(h!.account!)).toBe(true);
      expect(h!.priceMinor).toBe(h!.seatIds.length * (SEAT_PRICE + sale.fee));
      expect(s.refunded).toBe(true);
    }
  if (expectOnSale !== null) expect(onSale).toBe(expectOnSale);
  expect(view.inventory.seats.available).toBe(onSale);
  expect(owner.size).toBe(SEATS.length - onSale);

  const feed: { kind: string; ref: string; data: Record<string, unknown> }[] = [];
  for (let after = 0; ;) {
    const page = await sale.client.resaleFeed({ after, limit: 500 });
    if (page.kind !== 'ok') throw new Error(`feed: ${JSON.stringify(page)}`);
    feed.push(...page.value.events);
    if (page.value.next === null) break;
    after = page.value.next;
  }
  const of = (kind: string) => feed.filter((e) => e.kind === kind);
  for (const kind of ['return', 'offer', 'offer_lapsed', 'offer_taken', 'resold', 'refund'])
    expect(new Set(of(kind).map((e) => e.ref)).size, `${kind} listed once`).toBe(of(kind).length);
  expect(
    of('return')
      .map((e) => e.ref)
      .sort(),
  ).toEqual([...returned.values()].map((r) => r.returnId).sort());
  expect(of('resold').length).toBe(resold);
  // Refunds: each matches one returned seat; on resale, only seats resold; at once, every one.
  const refunds = of('refund');
  expect(refunds.length).toBe(sale.refund === 'at_once' ? resold + onSale : resold);
  const refundable = new Set(
    [...returned.values()].flatMap((r) => r.seats.filter((s) => s.refunded).map((s) => `${r.returnId}:${s.seatId}`)),
  );
  for (const f of refunds) expect(refundable.has(f.ref), `refund ${f.ref} matches a returned seat`).toBe(true);
  expect(refunds.length).toBe(refundable.size);

  // The waitlist skipped nobody: offers went in arrival order, and every entry still waiting comes
  // after every entry that got one.
  const list = await entries(sale);
  const offered = of('offer').map((e) => Number(e.data.entryId));
  expect(offered).toEqual([...offered].sort((a, b) => a - b));
  expect(offered).toEqual(list.filter((e) => e.offerHoldId !== null).map((e) => e.entryId));
  const firstWaiting = list.find((e) => e.state === 'WAITING')?.entryId ?? Infinity;
  expect(offered.every((id) => id < firstWaiting)).toBe(true);
  expect(of('offer_lapsed').length + of('offer_taken').length).toBe(offered.length);
}

beforeAll(async () => {
  ensureDevVars(ROOT);
  secret = parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET!;
  port = await freePort();
  state = mkdtempSync(join(tmpdir(), 'wr-kill9-resale-'));
  gateway = await startDevServer({ port, persistTo: state, quiet: true });
});

afterAll(async () => {
  await gateway?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('kill -9 of wrangler dev mid-return and mid-offer', () => {
  it('returns, offers, lapses, resales and refunds each happen once across three crashes', { timeout: 150_000 }, async () => {
    const started = Date.now();
    const log = (what: string) => console.log(`${Date.now() - started} ms ${what}`);
    // A: 8 seats returned to 12 accounts of one seat; 3 offers lapse, their seats go to the next 3.
    // B: 8 seats returned to 3 accounts wanting 5 (the last may get fewer, as returns come one by
    // one): the seats left go back on open sale.
    const waitA = Array.from({ length: 12 }, (_, i) => ({ account: `a-${i}`, quantity: 1 }));
    const waitB = [2, 1, 2].map((quantity, i) => ({ account: `b-${i}`, quantity }));
    const [a, b] = await Promise.all([sellOut('a', 'on_resale', 100, waitA), sellOut('b', 'at_once', 0, waitB)]);
    log('sold out');

    // Kill 1: mid-return (A), at the burst's first answer.
    const burstA = returnBurst(a, 4, 0);
    const kill1 = await killDuring(burstA, Promise.race(burstA));
    const retriedA = await retryReturns(a);
    expect(retriedA.size).toBe(4);
    log(`kill 1: ${burstReport(a, kill1, retriedA)}`);

    // Kill 2: mid-offer (A: five accounts take their offers, 25 ms apart) and mid-return (B's burst
    // beside them, 6 ms apart), killed at B's first answer. A's three offers left untaken are the ones made
    // first, so they fall due first (kill 3).
    const firstEight = a.waitlist.slice(0, 8).map((w) => w.account);
    const offersA = await offersOf(a, firstEight);
    expect(offersA.size).toBe(8);
    const dueA = new Map<string, number>();
    for (const [acc, holdId] of offersA) {
      const h = await a.client.getHold(holdId);
      dueA.set(acc, h.kind === 'ok' ? h.hold.expiresAtMs : Infinity);
    }
    const byDue = [...dueA.keys()].sort((x, y) => dueA.get(x)! - dueA.get(y)! || x.localeCompare(y, 'en', { numeric: true }));
    const [untaken, takers] = [byDue.slice(0, 3), byDue.slice(3)];
    const taking = takers.map((acc, i) => sleep(25 * i).then(() => take(a, a.once, acc, offersA.get(acc)!)));
    await sleep(40);
    const burstB = returnBurst(b, 4, 6);
    const kill2 = await killDuring([...taking, ...burstB], Promise.race(burstB));
    const cutTakes = JSON.stringify(await Promise.all(taking));
    for (const acc of takers) expect(await take(a, a.client, acc, offersA.get(acc)!)).toBe('sold');
    const retriedB = await retryReturns(b);
    expect(retriedB.size).toBe(4);
    log(`kill 2: A's takes ${cutTakes}; B: ${burstReport(b, kill2, retriedB)}`);

    // Kill 3: mid-offer (B's accounts pay for and confirm the offers they accepted) as A's untaken
    // offers fall due: their deadlines pass while the server is down, and the restarted object must
    // lapse them on its own (its alarm; nothing is written to it meanwhile).
    const offersB = await offersOf(b, ['b-0', 'b-1', 'b-2']);
    expect(offersB.size).toBe(3);
    for (const [acc, holdId] of offersB) expect((await b.client.acceptOffer(holdId, acc)).kind).toBe('ok');
    await sleep(Math.max(0, dueA.get(untaken[0]!)! - Date.now() - 1_500));
    // Started 30 ms apart, killed when the first is paid for: the others cut off at various steps.
    const takingB = ['b-0', 'b-1', 'b-2'].map((acc, i) => sleep(30 * i).then(() => take(b, b.once, acc, offersB.get(acc)!)));
    await killDuring(takingB, Promise.race(takingB));
    log(`kill 3: B's takes ${JSON.stringify(await Promise.all(takingB))}`);
    for (const acc of ['b-0', 'b-1', 'b-2']) expect(await take(b, b.client, acc, offersB.get(acc)!)).toBe('sold');

    // A's lapsed offers pass to the next three accounts, who take them.
    const nextA = ['a-8', 'a-9', 'a-10'];
    await expect.poll(async () => (await offersOf(a, nextA)).size, { timeout: 20_000, interval: 250 }).toBe(3);
    log('lapsed offers passed on');
    const next = await offersOf(a, nextA);
    for (const acc of nextA) expect(await take(a, a.client, acc, next.get(acc)!)).toBe('sold');

    await checkSale(a, 0);
    await checkSale(b, null);
    const list = await entries(a);
    expect(list.filter((e) => e.state === 'LAPSED').map((e) => e.account)).toEqual(
      [...untaken].sort((x, y) => x.localeCompare(y, 'en', { numeric: true })),
    );
    expect(list.find((e) => e.account === 'a-11')?.state).toBe('WAITING');
    log('checked');
  });
});
