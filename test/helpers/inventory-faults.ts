// Fault seams of an Inventory in workerd tests: a crash right after a commit, a reset, a call's failure.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { expect } from 'vitest';
import type { Inventory } from '../../durable-objects/inventory/inventory';

type Stub = DurableObjectStub<Inventory>;

/**
 * Makes the next write crash right after its transaction committed, before it answers: the
 * object's alarm bookkeeping (the first step after the commit) waits for the commit to reach disk
 * and resets the object (`ctx.abort`), as the runtime does after a crash at that point. (A plain throw there is not a crash: the write is
 * answered as committed and the failure logged; test/unit/write-run.test.ts.)
 */
export async function crashAfterNextCommit(inv: Stub): Promise<void> {
  await runInDurableObject(inv, (obj: Inventory, state) => {
    (obj as unknown as { followUps: { armAlarm: () => Promise<void> } }).followUps.armAlarm = async () => {
      // The commit reaches disk first (`storage.sync`), then the instance ends before its answer.
      await state.storage.sync();
      state.abort('injected reset after commit');
    };
  });
}

/**
 * Resets the object the way the runtime does after a crash: `ctx.abort()` ends the instance (its
 * memory is gone, its committed storage stays); the next request builds a fresh one. A stub that
 * saw the abort is broken, so callers continue with the fresh stub this returns.
 */
export async function reset(inv: Stub): Promise<Stub> {
  const aborted = await runInDurableObject(inv, (_obj, state) => state.abort('injected reset')).then(
    () => false,
    () => true,
  );
  expect(aborted).toBe(true);
  return env.INVENTORY.get(inv.id);
}

/** The error a call fails with (an RPC promise is awaited here, so nothing is left unhandled). */
export async function failure(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the call to fail');
}
