// The offer webhook: signed as origin API calls are (the SDK's verifyResaleWebhook accepts it, a
// wrong secret does not), retried from the alarm with doubling backoff until the origin answers
// 2xx, then never again; the alarm follows the next attempt.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { InventoryConfig } from '../../contracts/event-config';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { originSender } from '../../durable-objects/inventory/resale-webhook';
import { verifyResaleWebhook } from '../../origin-sdk/src/resale-client';
import { freshEventId } from '../helpers/client';

const T0 = Date.UTC(2027, 0, 1);
const CONFIG: InventoryConfig = {
  seats: 2,
  seatsPerRow: 2,
  seatPriceMinor: 5000,
  currency: 'EUR',
  tiers: [],
  holdTtlMs: 60_000,
  paymentGraceMs: 30_000,
  maxSeatsPerAccount: 6,
  resale: { returnDeadlineMs: T0 + 86_400_000, offerTtlMs: 600_000, feeMinor: 0, refund: 'on_resale', webhookPath: '/hooks/resale' },
};

/** Replaces the object's webhook sender with `send` (test seam: the origin is not reachable here). */
async function withSender(inv: DurableObjectStub<Inventory>, nowMs: number, send: (body: string) => boolean): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory) => {
    obj.clock = () => nowMs;
    const desk = (obj as unknown as { resale: { deliver: (env: Env, clock: () => number) => Promise<void> } }).resale;
    const real = Object.getPrototypeOf(desk).deliver as typeof desk.deliver;
    desk.deliver = (e, clock) =>
      real.call(
        desk,
        {
          ...e,
          ORIGIN_URL: '',
          ORIGIN: { fetch: async (r: Request) => new Response(null, { status: send(await r.text()) ? 200 : 503 }) },
        } as unknown as Env,
        clock,
      );
  });
}

describe('offer webhooks', () => {
  it('signs with the origin secret: the SDK accepts it, another secret does not', async () => {
    let captured: Request | null = null;
    const send = originSender({
      ORIGIN_URL: '',
      ORIGIN_HMAC_SECRET: 'origin-secret',
      ORIGIN: { fetch: async (r: Request) => ((captured = r.clone()), new Response(null, { status: 204 })) } as unknown as Fetcher,
    });
    const body = JSON.stringify({ id: 7, at: new Date(T0).toISOString(), kind: 'offer', ref: 'h1', data: { account: 'cid' } });
    expect(await send('/hooks/resale', body, 7)).toBe(true);
    expect(captured!.headers.get('idempotency-key')).toBe('resale-7');
    expect(await verifyResaleWebhook(captured!.clone(), 'origin-secret', Date.now())).toMatchObject({ id: 7, kind: 'offer', ref: 'h1' });
    expect(await verifyResaleWebhook(captured!.clone(), 'another-secret', Date.now())).toBeNull();
    expect(await originSender({ ORIGIN_URL: '', ORIGIN_HMAC_SECRET: '' })('/x', body, 1)).toBe(false);
  });

  it('retries from the alarm with doubling backoff until delivered, then stops', async () => {
    const inv = env.INVENTORY.getByName(freshEventId('hook'));
    await inv.configure(CONFIG);
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => T0));
    const a = await inv.hold('ann', { seatIds: ['A1', 'A2'] }, 'k');
    if (a.kind !== 'held') throw new Error('setup');
    await inv.confirm(a.hold.holdId, 'o-ann', 10_000, null);
    await inv.joinWaitlist('cid', 1);
    await inv.returnSeats(a.hold.holdId, ['A1'], 'r');
    const due = () =>
      runInDurableObject(inv, (_o, s) =>
        s.storage.sql.exec(`SELECT attempts, next_attempt_at FROM inv_resale_events WHERE kind = 'offer'`).one(),
      );
    expect(await due()).toEqual({ attempts: 0, next_attempt_at: T0 });
    expect(await runInDurableObject(inv, (_o, s) => s.storage.getAlarm())).toBe(T0);

    const bodies: string[] = [];
    await withSender(inv, T0, (b) => (bodies.push(b), false));
    await runDurableObjectAlarm(inv);
    expect(await due()).toEqual({ attempts: 1, next_attempt_at: T0 + 2_000 });
    await withSender(inv, T0 + 2_000, (b) => (bodies.push(b), false));
    await runDurableObjectAlarm(inv);
    expect(await due()).toEqual({ attempts: 2, next_attempt_at: T0 + 2_000 + 4_000 });
    expect(await runInDurableObject(inv, (_o, s) => s.storage.getAlarm())).toBe(T0 + 6_000);
    await withSender(inv, T0 + 6_000, (b) => (bodies.push(b), true));
    await runDurableObjectAlarm(inv);
    expect(await due()).toEqual({ attempts: 3, next_attempt_at: null });
    expect(new Set(bodies).size).toBe(1);

    // A path removed with a delivery still due: the delivery is dropped (the feed keeps the entry), no alarm loops on it.
    await inv.joinWaitlist('dee', 1);
    await inv.returnSeats(a.hold.holdId, ['A2'], 'r2');
    await inv.configure({ ...CONFIG, resale: { ...CONFIG.resale!, webhookPath: undefined } });
    await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => T0 + 7_000));
    await runDurableObjectAlarm(inv);
    const pending = await runInDurableObject(inv, (_o, s) =>
      s.storage.sql.exec(`SELECT COUNT(*) AS n FROM inv_resale_events WHERE next_attempt_at IS NOT NULL`).one(),
    );
    expect(pending).toEqual({ n: 0 });
    expect(JSON.parse(bodies[0]!)).toMatchObject({ kind: 'offer', data: { account: 'cid', seatIds: ['A1'], priceMinor: 5000 } });
  });
});
