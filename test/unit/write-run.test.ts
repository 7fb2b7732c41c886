// The Inventory's write run and alarm keeper: a committed write is answered as committed, whatever
// happens after it; no alarm is asked for past what the runtime can keep.
import { describe, expect, it, vi } from 'vitest';
import { AlarmKeeper, LATEST_ALARM_MS } from '../../durable-objects/inventory/after-write';
import { WriteRun } from '../../durable-objects/inventory/write-run';

function runWith(afterWrite: () => Promise<void>) {
  const committed: string[] = [];
  const run = new WriteRun({ transactionSync: (fn) => fn(), clock: () => 1_000, sweep: () => {}, settle: () => {}, afterWrite });
  return { run, committed };
}

describe('WriteRun', () => {
  it('answers a committed write even when the after-write throws', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { run, committed } = runWith(async () => Promise.reject(new Error('setAlarm refused')));
    await expect(run.one(() => (committed.push('a'), 'written'))).resolves.toBe('written');
    await expect(run.each([() => (committed.push('b'), 1), () => (committed.push('c'), 2)])).resolves.toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 2 },
    ]);
    expect(committed).toEqual(['a', 'b', 'c']);
    expect(error).toHaveBeenCalledTimes(2);
    error.mockRestore();
  });
});

describe('AlarmKeeper', () => {
  function storage() {
    let alarm: number | null = null;
    return {
      set: [] as number[],
      async getAlarm() {
        return alarm;
      },
      async setAlarm(at: number | Date) {
        const ms = typeof at === 'number' ? at : at.getTime();
        // What workerd does with a time whose nanoseconds overflow a signed 64-bit integer.
        if (ms * 1e6 > 2 ** 63) throw new RangeError('alarm time out of range');
        this.set.push(ms);
        alarm = ms;
      },
      async deleteAlarm() {
        alarm = null;
      },
    };
  }

  it('never asks for an alarm past LATEST_ALARM_MS', async () => {
    const s = storage();
    const keeper = new AlarmKeeper(s);
    await keeper.arm(Date.UTC(2300, 0, 1));
    await keeper.arm(Date.UTC(9999, 0, 1));
    expect(s.set).toEqual([LATEST_ALARM_MS]);
    await keeper.arm(Date.UTC(2030, 0, 1));
    expect(s.set).toEqual([LATEST_ALARM_MS, Date.UTC(2030, 0, 1)]);
  });
});
