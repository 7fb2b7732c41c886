// Decision tallies: counted per event and written as one summary line per decision and code per window.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TALLY_EVERY_MS, flushTallies, recordDecision } from '../../src/lib/decision-tally';

function capture(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>));
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe('recordDecision', () => {
  it('writes nothing within a window, then one line per decision and code with counts and latencies', () => {
    const lines = capture();
    const ev = `ev-${crypto.randomUUID()}`;
    const t0 = 5_000_000;
    for (let i = 1; i <= 100; i++) recordDecision(ev, 'hold.granted', { ms: i, nowMs: t0 + i });
    recordDecision(ev, 'hold.refused', { code: 'SEATS_UNAVAILABLE', ms: 7, nowMs: t0 + 200 });
    recordDecision(ev, 'hold.refused', { code: 'ACCOUNT_LIMIT', nowMs: t0 + 300 });
    recordDecision(ev, 'joined', { nowMs: t0 + 400 });
    expect(lines).toHaveLength(0);
    recordDecision(ev, 'joined', { nowMs: t0 + 1 + TALLY_EVERY_MS }); // opens the next window
    const of = (d: string, code: string | null = null) => lines.find((l) => l.of === d && l.code === code);
    expect(lines).toHaveLength(4);
    expect(of('hold.granted')).toMatchObject({ decision: 'tally', eventId: ev, count: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
    expect(of('hold.granted')!.windowMs).toBe(TALLY_EVERY_MS);
    expect(of('hold.refused', 'SEATS_UNAVAILABLE')).toMatchObject({ count: 1, p50Ms: 7 });
    // The code is a value, not a field name, so the log's redaction of `account`-like names keeps it.
    expect(of('hold.refused', 'ACCOUNT_LIMIT')).toMatchObject({ count: 1, p50Ms: null });
    expect(of('joined')).toMatchObject({ count: 1 });
    flushTallies(t0 + 2 + TALLY_EVERY_MS);
    expect(lines.filter((l) => l.eventId === ev && l.of === 'joined').map((l) => l.count)).toEqual([1, 1]);
  });

  it('keeps events apart, and a clock that goes backwards starts a new window', () => {
    const lines = capture();
    const [a, b] = [`ev-${crypto.randomUUID()}`, `ev-${crypto.randomUUID()}`];
    recordDecision(a, 'admitted', { nowMs: 10_000 });
    recordDecision(b, 'admitted', { nowMs: 10_000 });
    recordDecision(a, 'admitted', { nowMs: 9_000 });
    expect(lines).toEqual([expect.objectContaining({ eventId: a, of: 'admitted', count: 1 })]);
    flushTallies(10_001);
    expect(lines.filter((l) => l.eventId === b)).toEqual([expect.objectContaining({ count: 1 })]);
  });
});
