// An Inventory that already stores a release time past what an alarm can hold (written before such
// times were refused) keeps answering its writes: the alarm is clamped, nothing answers 500, and
// every committed write is answered as committed.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { LATEST_ALARM_MS } from '../../durable-objects/inventory/after-write';
import { freshEventId } from '../helpers/client';
import { INVENTORY_CONFIG, SEAT_PRICE } from '../helpers/schedules';

describe('an Inventory holding a release time past the alarm range', () => {
  it('answers holds, releases and confirms as they commit, with its alarm clamped', async () => {
    const inv = env.INVENTORY.getByName(freshEventId('far'));
    const config = INVENTORY_CONFIG;
    expect(await inv.configure(config)).toEqual({ kind: 'ok', created: true });
    expect(await inv.putChannel('box', 'Box office')).toMatchObject({ kind: 'created' });
    // The row an older gateway stored for releaseAt 2300-01-01 (its own PUT answered 500).
    await runInDurableObject(inv, (_o: Inventory, state) => {
      state.storage.sql.exec(
        `INSERT INTO inv_allocations (allocation_id, channel_id, kind, tier, quantity, release_at, created_at) VALUES ('far', 'box', 'tier', 'floor', 1, ?, ?)`,
        Date.UTC(2300, 0, 1),
        Date.now(),
      );
    });
    // A write with no earlier deadline re-arms for the far release time.
    const ended = await inv.endAllocation('no-such');
    expect(ended).toMatchObject({ kind: 'allocation_not_found' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const held = await inv.hold(`a${i}`, { seatIds: [`${'AB'[i >> 2]}${(i % 4) + 1}`] }, `k${i}`);
        if (held.kind !== 'held') return held.kind;
        const done =
          i % 2 ? await inv.release(held.hold.holdId, null, true) : await inv.confirm(held.hold.holdId, `o${i}`, SEAT_PRICE, null);
        return done.kind;
      }),
    );
    expect(answers).toEqual(Array(8).fill('ok'));
    // Every hold ended: the earliest deadline left is the far release time, clamped.
    expect(await runInDurableObject(inv, (_o: Inventory, state) => state.storage.getAlarm())).toBe(LATEST_ALARM_MS);
  });
});
