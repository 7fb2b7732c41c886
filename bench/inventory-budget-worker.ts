// Benchmark build for the Inventory's call budget: the real Inventory with methods that run one
// kind of call many times back to back inside the object, plus a no-op object RPC as the floor.
import { DurableObject } from 'cloudflare:workers';
import { Inventory } from '../durable-objects/inventory/inventory';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';

/** The Inventory with loops over each call kind (the object's own work, no network per call). */
export class BudgetInventory extends Inventory {
  private holdIds: string[] = [];
  private soldIds: string[] = [];

  /** `n` holds of 2 adjacent seats each from seat `2 * offset`, by distinct accounts; keeps their ids. */
  async runHolds(n: number, offset: number, seats: number, perRow: number): Promise<number> {
    const ids = seatIdsFor(seats, perRow);
    this.holdIds = [];
    for (let i = 0; i < n; i++) {
      const k = 2 * (offset + i);
      const r = await this.hold(`acct-${offset + i}`, { seatIds: [ids[k]!, ids[k + 1]!] }, `k-${offset + i}`);
      if (r.kind === 'held') this.holdIds.push(r.hold.holdId);
    }
    return this.holdIds.length;
  }

  /** One action on every hold of the last `runHolds`. */
  async runOnHolds(action: 'payment_pending' | 'confirm' | 'release' | 'get'): Promise<number> {
    let ok = 0;
    for (const [i, id] of this.holdIds.entries()) {
      const r =
        action === 'payment_pending'
          ? await this.startPayment(id, null)
          : action === 'confirm'
            ? await this.confirm(id, `order-${id}-${i}`, 2 * 5000, null)
            : action === 'release'
              ? await this.release(id, null, true)
              : await this.getHold(id, null);
      if (r.kind === 'ok') ok++;
    }
    return ok;
  }

  /** The alarm after every live hold's TTL passed: expires them all in one run. */
  async runExpiry(): Promise<number> {
    const real = this.clock;
    this.clock = () => Date.now() + 3_600_000;
    try {
      await this.alarm();
    } finally {
      this.clock = real;
    }
    return this.holdIds.length;
  }

  /** Sells all of a resale event's seats (`n` holds of 2) and puts `n` accounts wanting 2 seats on its waitlist (`prefix` names them). */
  async runSellOut(n: number, seats: number, perRow: number): Promise<number> {
    await this.runHolds(n, 0, seats, perRow);
    const sold = await this.runOnHolds('confirm');
    this.soldIds = [...this.holdIds];
    return sold;
  }

  /** `n` waitlist joins of distinct accounts wanting 2 seats each. */
  async runJoins(n: number, prefix: string): Promise<number> {
    let ok = 0;
    for (let i = 0; i < n; i++) if ((await this.joinWaitlist(`${prefix}-${i}`, 2)).kind === 'ok') ok++;
    return ok;
  }

  /** Returns every order sold by `runSellOut` (each return offers its seats to the next waiting account). */
  async runReturns(): Promise<number> {
    let ok = 0;
    for (const id of this.soldIds) if ((await this.returnSeats(id, null, `r-${id}`)).kind === 'ok') ok++;
    return ok;
  }

  /** Every live offer accepted by its account, then (`confirm`) paid: the resale and the refund. */
  async runOffers(action: 'accept' | 'confirm'): Promise<number> {
    const w = await this.resaleRead('waitlist', 0, 1_000_000);
    if (w.kind !== 'ok') return 0;
    let ok = 0;
    for (const e of w.entries.filter((x) => x.state === 'OFFERED')) {
      const r =
        action === 'accept'
          ? await this.acceptOffer(e.offerHoldId!, e.account)
          : await this.confirm(e.offerHoldId!, `resale-${e.entryId}`, 10_500, null);
      if (r.kind === 'ok') ok++;
    }
    return ok;
  }

  /** `n` seat-map reads, snapshots (`since` undefined) or deltas, inside the object; `cold` drops the kept answers first. */
  async runMaps(n: number, since: number | undefined, cold: boolean): Promise<number> {
    let size = 0;
    for (let i = 0; i < n; i++) {
      if (cold) (this as unknown as { maps: { forget(): void } }).maps.forget();
      const m = await this.seatMap(since);
      if (m.kind === 'map') size += m.json.length;
    }
    return size;
  }
}

/** The floor: an object RPC that does nothing. */
export class Noop extends DurableObject {
  async ping(): Promise<number> {
    return 1;
  }
}

interface BudgetEnv {
  INVENTORY: DurableObjectNamespace<BudgetInventory>;
  NOOP: DurableObjectNamespace<Noop>;
  WAITING_ROOM: DurableObjectNamespace;
}

export default {
  async fetch(request: Request, env: BudgetEnv): Promise<Response> {
    const url = new URL(request.url);
    const q = (k: string) => url.searchParams.get(k) ?? '';
    const n = Number(q('n'));
    const inv = env.INVENTORY.getByName(q('event'));
    switch (url.pathname) {
      case '/configure':
        return Response.json(await inv.configure(JSON.parse(q('config')) as Parameters<BudgetInventory['configure']>[0]));
      case '/holds':
        return Response.json(await inv.runHolds(n, Number(q('offset')), Number(q('seats')), Number(q('perRow'))));
      case '/on-holds':
        return Response.json(await inv.runOnHolds(q('action') as 'payment_pending'));
      case '/sell-out':
        return Response.json(await inv.runSellOut(n, Number(q('seats')), Number(q('perRow'))));
      case '/joins':
        return Response.json(await inv.runJoins(n, q('prefix')));
      case '/returns':
        return Response.json(await inv.runReturns());
      case '/offers':
        return Response.json(await inv.runOffers(q('action') as 'accept'));
      case '/expiry':
        return Response.json(await inv.runExpiry());
      case '/maps':
        return Response.json(await inv.runMaps(n, q('since') === '' ? undefined : Number(q('since')), q('cold') === '1'));
      case '/map-rpc': {
        // Through RPC: the answer (one string) is copied out of the object each time, as the edge gets it.
        let size = 0;
        for (let i = 0; i < n; i++) {
          const m = await inv.seatMap(q('since') === '' ? undefined : Number(q('since')));
          if (m.kind === 'map') size += m.json.length;
        }
        return Response.json(size / Math.max(1, n));
      }
      case '/version': {
        const s = await inv.stats();
        return Response.json(s.kind === 'stats' ? s.stats.version : 0);
      }
      case '/noop-rpc': {
        const stub = env.NOOP.getByName('noop');
        for (let i = 0; i < n; i++) await stub.ping();
        return Response.json(n);
      }
      default:
        return new Response('not found', { status: 404 });
    }
  },
};
