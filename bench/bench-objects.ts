// The bench Worker's Durable Object classes beside the product's (bench/bench-worker.ts exports
// them to Miniflare): the Inventory with in-object hold loops and step timings, the no-op and
// one-write floors, and stub Inventory and queue shard objects that store nothing (the gateway's
// own share of a hold or a join).
import { DurableObject } from 'cloudflare:workers';
import { Inventory } from '../durable-objects/inventory/inventory';
import { seatIdsFor } from '../durable-objects/inventory/hold-policy';
import { pickSeatIndexes, prng } from './hotspot';
import type { HoldAnswer, HoldBatchItem, HoldRequest } from '../contracts/inventory-answers';
import { BUCKET_MS, type Place } from '../contracts/queue/cursor';
import type { ShardJoin, ShardJoinAnswer, ShardJoinItem } from '../contracts/queue/shard-join';
import type { BatchOutcome } from '../contracts/batch';
import { inObjectHoldSteps, type StepTimes } from './hold-micro';
import { PlanStore } from '../durable-objects/inventory/plan-store';
import { Sql } from '../durable-objects/shared/sql';

/** The Inventory with one extra method that runs many holds inside the object. */
export class BenchInventory extends Inventory {
  /**
   * Runs `n` hot-spot holds of 1-6 seats back to back inside the object, one `hold` each (`batch`
   * 1) or `batch` at a time through `holdMany`, as the edge coalesces them; returns how they ended.
   */
  async benchHolds(n: number, seatCount: number, perRow: number, seed: number, batch = 1): Promise<{ granted: number; refused: number }> {
    const random = prng(seed);
    const ids = seatIdsFor(seatCount, perRow);
    let granted = 0;
    for (let i = 0; i < n; i += batch) {
      const items = Array.from({ length: Math.min(batch, n - i) }, (_, j) => ({
        account: `acct-${(i + j) % 5000}`,
        request: { seatIds: pickSeatIndexes(random, seatCount, perRow).map((k) => ids[k]!) },
        idempotencyKey: `k-${seed}-${i + j}`,
      }));
      const answers =
        batch === 1
          ? [await this.hold(items[0]!.account, items[0]!.request, items[0]!.idempotencyKey)]
          : (await this.holdMany(items)).map((o) => (o.ok ? o.value : null));
      granted += answers.filter((a) => a?.kind === 'held').length;
    }
    return { granted, refused: n - granted };
  }

  /** `holdMany` calls this instance served and the holds they carried (the holds row's mean batch size). */
  async batchCounts(): Promise<{ calls: number; holds: number }> {
    return { ...this.holdBatches };
  }

  /** The in-object steps of a hold, each timed alone (hold-micro.ts); call on a fresh configured event. */
  async microHold(n: number, seatCount: number, perRow: number): Promise<StepTimes> {
    // The object's after-write (after-write.ts AfterWrite.run), as every committed write runs it.
    const self = this as unknown as { followUps: { run: (env: Env) => Promise<void> } };
    return inObjectHoldSteps(n, seatCount, perRow, {
      store: this.store,
      plans: new PlanStore(new Sql(this.ctx.storage.sql)),
      transactionSync: (fn) => this.ctx.storage.transactionSync(fn),
      sql: this.ctx.storage.sql,
      hold: (account, seatIds, key) => this.hold(account, { seatIds }, key),
      afterWrite: () => self.followUps.run(this.env),
    });
  }
}

/** The platform's floors: a Durable Object RPC that does nothing, and one that makes one durable write. */
export class Noop extends DurableObject {
  async ping(): Promise<number> {
    return 1;
  }

  /** One SQLite upsert: what any durable answer costs (the response waits for the write to commit). */
  async write(key: string): Promise<number> {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    this.ctx.storage.sql.exec('INSERT INTO t (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1', key);
    return 1;
  }
}

/**
 * An Inventory that grants every hold without storing anything: the gateway's own share of a
 * hold is the end-to-end path with this object behind it, against the no-op RPC.
 */
export class StubInventory extends DurableObject {
  private n = 0;

  async hold(account: string, request: HoldRequest, _key: string): Promise<HoldAnswer> {
    const seatIds = 'seatIds' in request ? request.seatIds : [];
    const hold = { holdId: `h-${this.n++}`, account, status: 'HELD' as const, seatIds, tier: null, quantity: seatIds.length };
    return {
      kind: 'held',
      replayed: false,
      hold: { ...hold, priceMinor: 0, currency: 'EUR', expiresAtMs: Date.now() + 600_000, orderId: null },
    };
  }

  /** The coalesced form the edge sends (`Inventory.holdMany`): every item granted. */
  async holdMany(items: HoldBatchItem[]): Promise<BatchOutcome<HoldAnswer>[]> {
    return Promise.all(items.map(async (i) => ({ ok: true as const, value: await this.hold(i.account, i.request, i.idempotencyKey) })));
  }
}

/** A queue shard that hands out places without storing them: the gateway's own share of a join. */
export class StubShard extends DurableObject {
  private n = 0;

  async join(req: ShardJoin): Promise<Place> {
    return { bucket: Math.floor(Date.now() / BUCKET_MS), idx: this.n++, shard: req.shard };
  }

  /** `QueueShard.joinOnce` without its check: every proof-of-work join gets a place. */
  async joinOnce(req: ShardJoin): Promise<{ kind: 'joined'; place: Place }> {
    return { kind: 'joined', place: await this.join(req) };
  }

  /** `QueueShard.joinMany` without storage: every item gets a place (no single-use checks). */
  async joinMany(items: ShardJoinItem[]): Promise<BatchOutcome<ShardJoinAnswer>[]> {
    const bucket = Math.floor(Date.now() / BUCKET_MS);
    return items.map(({ req }) => ({ ok: true, value: { kind: 'place', place: { bucket, idx: this.n++, shard: req.shard } } }));
  }
}
