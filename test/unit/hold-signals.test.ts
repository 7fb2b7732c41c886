// The per-isolate hold tally counts accounts, not requests: one client hammering looks like one.
import { describe, expect, it } from 'vitest';
import { FLUSH_EVERY_MS, recordHold } from '../../src/lib/hold-signals';

describe('recordHold', () => {
  it('reports distinct accounts every few seconds (was: one client retrying faked a 99 % conflict rate)', () => {
    const t0 = 1_800_000_000_000;
    const ev = `ev-${Math.random()}`;
    for (let i = 0; i < 50; i++) expect(recordHold(ev, 'attacker', 5, true, t0 + i)).toBeNull();
    for (let i = 0; i < 9; i++) recordHold(ev, `buyer-${i}`, 10, false, t0 + 100 + i);
    expect(recordHold(ev, 'buyer-9', 400, false, t0 + FLUSH_EVERY_MS)).toEqual({ holds: 11, conflicts: 1, p99Ms: 400 });
  });
});
