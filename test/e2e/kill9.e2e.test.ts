// `kill -9` of `wrangler dev` mid-sale, then a restart on the same local storage: nobody loses a
// queue place, the room goes on releasing, a hold retried with its idempotency key returns the first
// hold, a sold seat stays sold to its one order, and the inventory's consistency counters stay 0.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../origin-sdk/src/index.ts';
import { CONSISTENT } from '../../contracts/inventory-answers';
import { ensureDevVars, parseDevVars } from '../../scripts/lib/dev-secrets.ts';
import { freePort, putEvent, ROOT, startDevServer, type DevServer } from '../../scripts/lib/dev-server.ts';
import { admitted, hold, joinQueue, json, killHard, poll, type Visitor } from './crash.ts';

const EVENT = `crash-${Date.now().toString(36)}`;
const VISITORS = 12;

let gateway: DevServer;
let port: number;
let state: string;
let secret: string;

async function inventory() {
  const res = await fetch(`${gateway.url}/_wr/admin/events/${EVENT}`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
  const d = await json<{
    queue: { admittedTotal: number };
    inventory: { seats: { sold: number; held: number }; consistency: Record<string, number> };
  }>(res);
  return d;
}

beforeAll(async () => {
  ensureDevVars(ROOT);
  secret = parseDevVars(readFileSync(join(ROOT, '.dev.vars'), 'utf8')).ORIGIN_HMAC_SECRET!;
  port = await freePort();
  state = mkdtempSync(join(tmpdir(), 'wr-kill9-'));
  gateway = await startDevServer({ port, persistTo: state, quiet: true });
  await putEvent(gateway, EVENT, {
    name: 'Crash test',
    policy: 'fifo',
    releaseRatePerMinute: 60,
    minReleaseRatePerMinute: 60,
    maxActiveVisitors: 50,
    seats: 20,
    seatsPerRow: 10,
    holdTtlSeconds: 300,
    admissionTtlSeconds: 900,
    idleTimeoutSeconds: 600,
  });
});

afterAll(async () => {
  await gateway?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('kill -9 of wrangler dev mid-sale', () => {
  it(
    'keeps every queue place, hold, sale and idempotent answer across the crash, and the room goes on releasing',
    { timeout: 300_000 },
    async () => {
      const visitors: Visitor[] = [];
      for (let i = 0; i < VISITORS; i++) visitors.push(await joinQueue(gateway.url, EVENT));
      // At the minimum rate (1 a second: no health report yet) the first few are released.
      const [a, b, c] = await admitted(gateway.url, EVENT, visitors, 3, 60_000);
      expect(c, 'three visitors admitted before the crash').toBeDefined();

      const first = await hold(gateway.url, EVENT, a!, ['A1', 'A2'], 'crash-key-1');
      expect(first.status).toBe(201);
      const held = await json<{ holdId: string; priceMinor: number }>(first);
      const sold = await json<{ holdId: string; priceMinor: number }>(await hold(gateway.url, EVENT, b!, ['A3'], 'crash-key-2'));
      const origin = new GatewayClient({ gatewayUrl: gateway.url, secret, eventId: EVENT });
      const confirmed = await origin.confirm(sold.holdId, { orderId: 'order-crash-1', amountMinor: sold.priceMinor });
      expect(confirmed.kind === 'ok' && confirmed.hold.status).toBe('SOLD');

      const waiting = visitors.filter((v) => !v.admission);
      const before = new Map<Visitor, number>();
      for (const v of waiting) before.set(v, (await poll(gateway.url, EVENT, v)).position ?? Infinity);
      const admittedBefore = (await inventory()).queue.admittedTotal;

      await killHard(gateway);
      gateway = await startDevServer({ port, persistTo: state, quiet: true });

      // The inventory: the held seats, the sale and its order survived; nothing counts twice.
      const after = await inventory();
      expect(after.inventory.consistency).toEqual(CONSISTENT);
      expect(after.inventory.seats).toMatchObject({ sold: 1, held: 2 });
      expect(after.queue.admittedTotal).toBeGreaterThanOrEqual(admittedBefore);

      // The same hold retried with its key: the first hold, not a second one.
      const replay = await hold(gateway.url, EVENT, a!, ['A1', 'A2'], 'crash-key-1');
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await json<{ holdId: string }>(replay)).holdId).toBe(held.holdId);
      // The sold seat stays sold; the confirm repeated with its order id answers the same sale.
      const taken = await hold(gateway.url, EVENT, c!, ['A3'], 'crash-key-3');
      expect(taken.status).toBe(409);
      expect((await json<{ code: string }>(taken)).code).toBe('SEATS_UNAVAILABLE');
      const again = await origin.confirm(sold.holdId, { orderId: 'order-crash-1', amountMinor: sold.priceMinor });
      expect(again.kind === 'ok' && again.hold.status).toBe('SOLD');

      // Every waiting visitor keeps a place at least as good as before (or has been let in), and a
      // visitor who joins after the restart queues behind all of them.
      const now = new Map<Visitor, number>();
      for (const v of waiting) {
        const t = await poll(gateway.url, EVENT, v);
        if (t.state === 'admitted') continue;
        expect(t.state).toBe('waiting');
        expect(t.position!).toBeLessThanOrEqual(before.get(v)!);
        now.set(v, t.position!);
      }
      // The late visitor's position first, then each waiter's: the room keeps releasing meanwhile,
      // and positions only fall, so a waiter read later must still be ahead of it. (Comparing with
      // the positions read before the join failed under load when a release fell in between.)
      // A join answers "counting" (no position) until the shards' counts include it: poll until
      // the late visitor has its place in numbers.
      const late = await joinQueue(gateway.url, EVENT);
      let lateTurn = await poll(gateway.url, EVENT, late);
      await expect
        .poll(
          async () => {
            lateTurn = await poll(gateway.url, EVENT, late);
            return lateTurn.state !== 'waiting' || lateTurn.position !== null;
          },
          { timeout: 30_000 },
        )
        .toBe(true);
      // Admitted already: every waiter ahead of it was let in before it.
      for (const v of now.keys()) {
        const t = await poll(gateway.url, EVENT, v);
        if (t.state === 'waiting') expect(t.position!).toBeLessThan(lateTurn.state === 'waiting' ? lateTurn.position! : 0);
      }

      // The room's alarm resumed: more of the waiting visitors are let in.
      const letIn = await admitted(gateway.url, EVENT, waiting, Math.min(2, waiting.length), 60_000);
      expect(letIn.length).toBeGreaterThanOrEqual(Math.min(2, waiting.length));
      expect((await inventory()).inventory.consistency).toEqual(CONSISTENT);
    },
  );
});
