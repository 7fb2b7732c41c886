// Extending a hold in the Inventory object: idempotent by key, bounded by the event's rules, never
// for an ended or expired hold, atomic under a crash after the commit, and the alarm follows the
// new deadline so a late timer never frees an extended hold early.
import { env } from 'cloudflare:workers';
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { HoldExtensionRules } from '../../contracts/event-config';
import type { Inventory } from '../../durable-objects/inventory/inventory';
import { freshEventId } from '../helpers/client';
import { checkInvariants } from '../helpers/inventory-invariants';
import { crashAfterNextCommit, failure, reset } from '../helpers/inventory-faults';
import { INVENTORY_CONFIG, TTL_MS } from '../helpers/schedules';
import { seatMapOf } from '../helpers/inventory';

type Stub = DurableObjectStub<Inventory>;

const EXTENSION_MS = 30_000;
const RULES: HoldExtensionRules = { maxExtensions: 3, extensionMs: EXTENSION_MS, maxTotalMs: TTL_MS + 75_000 };

/** A fresh Inventory with extensions allowed (or not, `rules` null), its clock at `t0`, and alice's hold of A1-A2. */
async function heldAt(t0: number, rules: HoldExtensionRules | null = RULES): Promise<{ inv: Stub; holdId: string }> {
  const inv = env.INVENTORY.getByName(freshEventId('extend'));
  expect(await inv.configure({ ...INVENTORY_CONFIG, ...(rules ? { holdExtension: rules } : {}) })).toEqual({ kind: 'ok', created: true });
  await setClock(inv, t0);
  const held = await inv.hold('alice', { seatIds: ['A1', 'A2'] }, 'hold-1');
  if (held.kind !== 'held') throw new Error('setup: the hold was refused');
  return { inv, holdId: held.hold.holdId };
}

async function setClock(inv: Stub, nowMs: number): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory) => (obj.clock = () => nowMs));
}

const alarmAt = (inv: Stub) => runInDurableObject(inv, (_obj, state) => state.storage.getAlarm());
const extensionAudits = async (inv: Stub, holdId: string) =>
  (await inv.auditLog(0, 1000)).filter((e) => e.holdId === holdId && e.from === 'HELD' && e.to === 'HELD');

describe('Inventory.extendHold', () => {
  it('moves the deadline, the seats and the alarm, writes one audit line, and a replay changes nothing', async () => {
    const t0 = Date.now();
    const { inv, holdId } = await heldAt(t0);
    await setClock(inv, t0 + 10_000);
    const first = await inv.extendHold(holdId, 'alice', 'ext-1', false);
    expect(first).toMatchObject({
      kind: 'extended',
      replayed: false,
      hold: { status: 'HELD', expiresAtMs: t0 + TTL_MS + EXTENSION_MS },
      extension: { used: 1, max: 3, latestExpiresAtMs: t0 + RULES.maxTotalMs },
    });
    expect(await alarmAt(inv)).toBe(t0 + TTL_MS + EXTENSION_MS);
    const seats = await runInDurableObject(inv, (_obj, state) =>
      state.storage.sql.exec(`SELECT DISTINCT hold_expires_at AS at FROM inv_seats WHERE hold_id = ?`, holdId).toArray(),
    );
    expect(seats).toEqual([{ at: t0 + TTL_MS + EXTENSION_MS }]);

    await setClock(inv, t0 + 20_000);
    const again = await inv.extendHold(holdId, 'alice', 'ext-1', false);
    expect(again).toMatchObject({
      kind: 'extended',
      replayed: true,
      hold: { expiresAtMs: t0 + TTL_MS + EXTENSION_MS },
      extension: { used: 1 },
    });
    expect(await extensionAudits(inv, holdId)).toHaveLength(1);
    expect((await extensionAudits(inv, holdId))[0]).toMatchObject({
      actor: 'visitor',
      reason: expect.stringMatching(/^extended to .* \(1 of 3\)$/),
    });
    await checkInvariants(inv);
  });

  it('stops at the total cap and at the count, refusing with the hold unchanged', async () => {
    const t0 = Date.now();
    const { inv, holdId } = await heldAt(t0);
    const deadlines = [];
    for (const key of ['a', 'b', 'c']) {
      const answer = await inv.extendHold(holdId, null, key, true);
      if (answer.kind !== 'extended') throw new Error(`extension ${key} refused`);
      deadlines.push(answer.hold.expiresAtMs);
    }
    // 30 s, 30 s, then only the 15 s left under the cap of TTL + 75 s.
    expect(deadlines).toEqual([t0 + TTL_MS + 30_000, t0 + TTL_MS + 60_000, t0 + TTL_MS + 75_000]);
    expect(await inv.extendHold(holdId, null, 'd', true)).toMatchObject({
      kind: 'refused',
      code: 'HOLD_EXTENSION_LIMIT',
      hold: { expiresAtMs: t0 + TTL_MS + 75_000 },
    });

    const capped = await heldAt(t0, { maxExtensions: 5, extensionMs: 60_000, maxTotalMs: TTL_MS + 60_000 });
    expect(await capped.inv.extendHold(capped.holdId, 'alice', 'a', false)).toMatchObject({ kind: 'extended' });
    expect(await capped.inv.extendHold(capped.holdId, 'alice', 'b', false)).toMatchObject({ kind: 'refused', code: 'HOLD_AT_LONGEST' });
    expect(await extensionAudits(capped.inv, capped.holdId)).toHaveLength(1);
  });

  it('never extends an expired, released, paying or foreign hold, nor in an event without extensions', async () => {
    const t0 = Date.now();
    const off = await heldAt(t0, null);
    expect(await off.inv.extendHold(off.holdId, 'alice', 'k', false)).toMatchObject({
      kind: 'refused',
      code: 'HOLD_EXTENSIONS_OFF',
      extension: { used: 0, max: 0, latestExpiresAtMs: null },
    });

    const { inv, holdId } = await heldAt(t0);
    expect(await inv.extendHold(holdId, 'bob', 'k', false)).toMatchObject({ kind: 'refused', code: 'NOT_HOLD_OWNER' });
    expect(await inv.extendHold('no-such-hold', 'alice', 'k', false)).toEqual({ kind: 'not_found' });
    // Past the deadline, before any timer ran: expired by the write's sweep, never brought back.
    await setClock(inv, t0 + TTL_MS);
    expect(await inv.extendHold(holdId, 'alice', 'k', false)).toMatchObject({
      kind: 'refused',
      code: 'HOLD_EXPIRED',
      hold: { status: 'EXPIRED' },
    });
    expect((await seatMapOf(inv)).kind).toBe('snapshot');
    expect(await inv.hold('bob', { seatIds: ['A1'] }, 'bob-1')).toMatchObject({ kind: 'held' });

    const paying = await heldAt(t0);
    await paying.inv.startPayment(paying.holdId, 'alice');
    expect(await paying.inv.extendHold(paying.holdId, 'alice', 'k', false)).toMatchObject({ kind: 'refused', code: 'PAYMENT_IN_PROGRESS' });
    const released = await heldAt(t0);
    await released.inv.release(released.holdId, 'alice', false);
    expect(await released.inv.extendHold(released.holdId, 'alice', 'k', false)).toMatchObject({ kind: 'refused', code: 'HOLD_NOT_ACTIVE' });
    expect(await extensionAudits(released.inv, released.holdId)).toHaveLength(0);
  });

  it('a late alarm for the old deadline leaves the extended hold held; the new one expires it', async () => {
    const t0 = Date.now();
    const { inv, holdId } = await heldAt(t0);
    await inv.extendHold(holdId, 'alice', 'k', false);
    // The alarm set for the first deadline fires late, after the extension moved it.
    await setClock(inv, t0 + TTL_MS + 1);
    await runInDurableObject(inv, (_obj, state) => state.storage.setAlarm(t0 + TTL_MS));
    await runDurableObjectAlarm(inv);
    expect(await inv.getHold(holdId, null)).toMatchObject({ kind: 'ok', hold: { status: 'HELD' } });
    expect(await alarmAt(inv)).toBe(t0 + TTL_MS + EXTENSION_MS);

    await setClock(inv, t0 + TTL_MS + EXTENSION_MS);
    await runDurableObjectAlarm(inv);
    expect(await inv.getHold(holdId, null)).toMatchObject({ kind: 'ok', hold: { status: 'EXPIRED' } });
    expect(await inv.extendHold(holdId, 'alice', 'k2', false)).toMatchObject({ kind: 'refused', code: 'HOLD_EXPIRED' });
    await checkInvariants(inv);
  });

  it('concurrent extensions of one hold under distinct keys: each counted once, never past the count or the cap', async () => {
    const t0 = Date.now();
    const { inv, holdId } = await heldAt(t0);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => inv.extendHold(holdId, 'alice', `k${i % 5}`, false)));
    const fresh = answers.filter((a) => a.kind === 'extended' && !a.replayed);
    expect(fresh).toHaveLength(3);
    expect(answers.filter((a) => a.kind === 'refused').every((a) => a.kind === 'refused' && a.code === 'HOLD_EXTENSION_LIMIT')).toBe(true);
    const now = await inv.getHold(holdId, null);
    expect(now).toMatchObject({ kind: 'ok', hold: { expiresAtMs: t0 + RULES.maxTotalMs } });
    expect(await extensionAudits(inv, holdId)).toHaveLength(3);
  });

  it('a crash after the extension commits and before its answer: the retry replays it, extended once, alarm re-armed', async () => {
    const t0 = Date.now();
    const placed = await heldAt(t0);
    const holdId = placed.holdId;
    let inv = placed.inv;
    await crashAfterNextCommit(inv);
    expect(await failure(inv.extendHold(holdId, 'alice', 'ext-1', false))).toMatch(/injected reset/);
    inv = await reset(inv);
    await setClock(inv, t0 + 1_000);
    expect(await alarmAt(inv)).toBe(t0 + TTL_MS + EXTENSION_MS);
    expect(await inv.extendHold(holdId, 'alice', 'ext-1', false)).toMatchObject({
      kind: 'extended',
      replayed: true,
      hold: { expiresAtMs: t0 + TTL_MS + EXTENSION_MS },
      extension: { used: 1 },
    });
    expect(await extensionAudits(inv, holdId)).toHaveLength(1);
    await checkInvariants(inv);
  });
});
