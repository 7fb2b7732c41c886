// `npm run bench:profile`'s hold table: each step of a seat hold timed alone, at the edge (in the
// bench Worker) and inside the Inventory (in a BenchInventory), one after another with no
// contention. Workers' clocks advance only at I/O, so each step runs `n` times in a loop that ends
// with an I/O wait, and the mean of the loop is its cost (as bench-micro.ts `micro` does).
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';
import type { InventoryStore } from '../durable-objects/inventory/store';
import type { PlanStore } from '../durable-objects/inventory/plan-store';
import type { HoldView } from '../contracts/inventory-answers';
import { admissionCookie, readCookie, ticketCookie } from '../src/lib/cookies';
import { inventoryFor } from '../src/lib/inventory-router';
import { holdBody } from '../src/lib/object-answers';
import { recordHold } from '../src/lib/hold-signals';
import { recordDecision } from '../src/lib/decision-tally';
import { parseJsonBody, readBodyText } from '../src/lib/validate';
import { holdRequest } from '../src/routes/holds';
import { tokenSettings, verifyToken } from '../src/lib/token';

/** Mean microseconds per call of each step, in the order timed. */
export type StepTimes = Record<string, number>;

/** Times `step` over `n` calls (see the file comment); the loop's mean, us. */
async function timed(n: number, step: (i: number) => unknown): Promise<number> {
  await scheduler.wait(0);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await step(i);
  await scheduler.wait(0);
  return Math.round(((performance.now() - t0) * 1000) / n);
}

/** A hold's request as the edge gets it: an admitted visitor's cookie header, its event, a seat body. */
export interface EdgeHoldInput {
  eventId: string;
  cookie: string;
  /** Seat ids the bodies pick from (four adjacent seats per hold, never the same twice). */
  seatIds: string[];
}

/**
 * The edge's steps of a hold. `gateway` runs the whole route (middleware, credentials, body,
 * router, a stub Inventory's RPC, signals, tally, response) in this isolate; the no-op RPC is the
 * floor under it; `refused before the object` is the same request without an Idempotency-Key
 * (routing, credentials and the error answer, no body read, no object call).
 */
export async function edgeHoldSteps(
  n: number,
  input: EdgeHoldInput,
  run: {
    gateway: (req: Request) => Promise<Response>;
    ping: () => Promise<unknown>;
    stubHold: (seatIds: string[]) => Promise<unknown>;
    env: Env;
  },
): Promise<StepTimes> {
  const { eventId, cookie, seatIds } = input;
  const url = `http://127.0.0.1/_wr/events/${eventId}/holds`;
  const body = (i: number) =>
    JSON.stringify({ seatIds: seatIds.slice((i * 4) % (seatIds.length - 4), ((i * 4) % (seatIds.length - 4)) + 4) });
  const request = (i: number, key: boolean, length = false) =>
    new Request(url, {
      method: 'POST',
      headers: {
        cookie,
        'content-type': 'application/json',
        ...(key ? { 'idempotency-key': `m-${i}-${Math.random()}` } : {}),
        // As over HTTP; a body given as a string here carries no length of its own.
        ...(length ? { 'content-length': String(new TextEncoder().encode(body(i)).byteLength) } : {}),
      },
      body: body(i),
    });
  const settings = tokenSettings(run.env);
  const [aName, tName] = [admissionCookie(eventId, false), ticketCookie(eventId, false)];
  const admission = readCookie(cookie, aName) as string;
  const ticket = readCookie(cookie, tName) as string;
  const hold: HoldView = {
    holdId: crypto.randomUUID(),
    account: 'v-1',
    status: 'HELD',
    seatIds: ['A-1-1', 'A-1-2', 'A-1-3', 'A-1-4'],
    tier: null,
    quantity: 4,
    priceMinor: 20_000,
    currency: 'EUR',
    expiresAtMs: Date.now() + 600_000,
    orderId: null,
  };
  // Warm: the JIT, the room settings, the token cache and the session cache.
  for (let i = 0; i < 20; i++) await (await run.gateway(request(i, true, true))).arrayBuffer();
  const out: StepTimes = {};
  out['gateway hold, whole route (stub Inventory)'] = await timed(n, async (i) =>
    (await run.gateway(request(i, true, true))).arrayBuffer(),
  );
  out['  of it: no-op Durable Object RPC (floor)'] = await timed(n, () => run.ping());
  out['  of it: refused before the object (no key)'] = await timed(n, async (i) => (await run.gateway(request(i, false))).arrayBuffer());
  out['  the stub Inventory hold RPC alone'] = await timed(n, () => run.stubHold(hold.seatIds));
  out['  Request object + body text (platform)'] = await timed(n, (i) => request(i, true, true).text());
  out['  Request object + body read, chunked (readBodyText)'] = await timed(n, (i) => readBodyText(request(i, true)));
  out['  Request object + body read, Content-Length (readBodyText)'] = await timed(n, (i) => readBodyText(request(i, true, true)));
  out['  cookie parsing (2 cookies)'] = await timed(n, () => [readCookie(cookie, aName), readCookie(cookie, tName)]);
  out['  token checks, cached (admission + ticket)'] = await timed(n, async () => {
    await verifyToken(settings, 'admission', admission, eventId, Date.now());
    await verifyToken(settings, 'ticket', ticket, eventId, Date.now());
  });
  const raw = body(1);
  out['  body validation (JSON.parse + zod/mini)'] = await timed(n, () => parseJsonBody(raw, holdRequest));
  out['  body JSON.parse alone'] = await timed(n, () => JSON.parse(raw));
  out['  router inventoryFor (name + stub)'] = await timed(n, () =>
    inventoryFor(run.env, eventId, { kind: 'seats', seatIds: hold.seatIds }),
  );
  out['  hold signals (recordHold)'] = await timed(n, (i) => recordHold(`micro-${eventId}`, `v-${i % 200}`, 3, false, Date.now()));
  out['  decision tally (recordDecision)'] = await timed(n, () => recordDecision(`micro-${eventId}`, 'hold.granted', { ms: 3 }));
  out['  response body (holdBody + JSON)'] = await timed(n, () => JSON.stringify(holdBody(hold)));
  return out;
}

/** What `inObjectHoldSteps` needs of a BenchInventory: its stores and its object's SQL. */
export interface InObjectParts {
  store: InventoryStore;
  plans: PlanStore;
  transactionSync: <T>(fn: () => T) => T;
  sql: SqlStorage;
  /** A whole `Inventory.hold` (sweep, decisions, writes, after-write). */
  hold: (account: string, seatIds: string[], key: string) => Promise<unknown>;
  /** The after-write work of the object (alarm, sell-out check). */
  afterWrite: () => Promise<void>;
}

/**
 * The Inventory's steps of a hold of 4 seats, on a configured, empty event of `seatCount` seats.
 * Each write loop takes seats no earlier loop took. `writes without the seat feed trigger` drops
 * the trigger in this (throwaway) object for that loop only and puts it back.
 */
export async function inObjectHoldSteps(n: number, seatCount: number, perRow: number, p: InObjectParts): Promise<StepTimes> {
  const ids = seatIdsFor(seatCount, perRow);
  let next = 0;
  const four = () => {
    const at = next;
    next += 4;
    if (next > ids.length) throw new Error('hold-micro: ran out of seats');
    return ids.slice(at, at + 4);
  };
  const now = Date.now();
  const view = (seatIds: string[]): HoldView => ({
    holdId: crypto.randomUUID(),
    account: `acct-${next}`,
    status: 'HELD',
    seatIds,
    tier: null,
    quantity: 4,
    priceMinor: 20_000,
    currency: 'EUR',
    expiresAtMs: now + 600_000,
    orderId: null,
  });
  const writeOne = () => {
    const seatIds = four();
    p.transactionSync(() => p.store.insertHold(view(seatIds), { kind: 'seats', seatIds }, `k-${next}`, now));
  };
  for (let i = 0; i < 10; i++) await p.hold(`warm-${i}`, four(), `warm-${i}`);
  const out: StepTimes = {};
  out['Inventory.hold, whole (one caller, 4 free seats)'] = await timed(n, (i) => p.hold(`acct-${i}`, four(), `whole-${i}`));
  out['  plan read (SELECT + JSON.parse)'] = await timed(n, () => p.plans.plan());
  out['  plan head read'] = await timed(n, () => p.plans.head());
  out['  sweep (nothing due)'] = await timed(n, () => p.store.sweep(now));
  out['  idempotency lookup (miss)'] = await timed(n, (i) => p.store.holdByKey(`acct-${i}`, `none-${i}`));
  out['  availability of 4 seats'] = await timed(n, () => p.store.availability({ kind: 'seats', seatIds: ids.slice(0, 4) }));
  out['  account limit (ownedBy)'] = await timed(n, (i) => p.store.ownedBy(`acct-${i}`, now, null));
  out['  writes: hold, 4 seats, audit, feed entries'] = await timed(n, writeOne);
  p.sql.exec('DROP TRIGGER inv_feed_seat_status');
  try {
    out['  the same writes without the seat feed trigger'] = await timed(n, writeOne);
  } finally {
    p.sql.exec(SEAT_FEED_TRIGGER);
  }
  out['  after-write (alarm check, sell-out check)'] = await timed(n, () => p.afterWrite());
  return out;
}

/** The seat feed trigger as migration 5 wrote it (put back after the loop above). */
const SEAT_FEED_TRIGGER = `CREATE TRIGGER inv_feed_seat_status AFTER UPDATE OF status ON inv_seats WHEN OLD.status IS NOT NEW.status
      BEGIN
        INSERT INTO inv_feed (version, item, name, status, allocation_id, channel_id)
          SELECT (SELECT version FROM inv_plan WHERE id = 1), 'seat', seat_id, status, allocation_id, channel_id
          FROM inv_seat_feed_state WHERE seat_id = NEW.seat_id;
      END;`;
