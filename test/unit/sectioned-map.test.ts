// The seat map of an event with sections at the edge: merged over the sections while the merged
// answer stays within MAX_MAP_SEATS, else a summary that asks no section, whatever the organizer set.
import { describe, expect, it } from 'vitest';
import { MAX_MAP_SEATS, type SeatMap, type SeatMapAnswer } from '../../contracts/inventory-answers';
import { eventSeatMap } from '../../src/lib/sectioned-inventory';

/** A fake Inventory: the event's own object names `sizes.length` sections of those sizes. */
function venue(sizes: number[]) {
  const names = sizes.map((_, i) => `S${i}`);
  const reads: (string | null)[] = [];
  const base = { tiers: [], seatPriceMinor: 5000, currency: 'EUR', salesClosed: false };
  const answer = (map: SeatMap, sections: string[]): SeatMapAnswer => ({
    kind: 'map',
    json: JSON.stringify(map),
    version: map.version,
    sections,
  });
  const read = async (section: string | null): Promise<SeatMapAnswer> => {
    reads.push(section);
    if (section === null) {
      const sections = names.map((section, i) => ({ section, version: 0, seatPriceMinor: 5000, seats: sizes[i]! }));
      return answer({ kind: 'snapshot', version: 1, seats: [], ...base, sections }, names);
    }
    const n = sizes[names.indexOf(section)]!;
    const seats = Array.from({ length: n }, (_, k) => ({ id: `${section}-A${k + 1}`, status: 'AVAILABLE' as const }));
    return answer({ kind: 'snapshot', version: 2, seats, ...base }, []);
  };
  return { read, reads };
}

const seatsOf = (a: SeatMapAnswer): SeatMap & { kind: 'snapshot' } => {
  const map = a.kind === 'map' ? (JSON.parse(a.json) as SeatMap) : null;
  if (map?.kind !== 'snapshot') throw new Error('expected a snapshot');
  expect(a.kind === 'map' && a.version).toBe(map.version);
  return map;
};

describe('eventSeatMap', () => {
  it('merges the sections while they hold at most MAX_MAP_SEATS seats in all', async () => {
    const { read, reads } = venue([MAX_MAP_SEATS / 2, MAX_MAP_SEATS / 2]);
    const map = seatsOf(await eventSeatMap(read, undefined));
    expect(map.seats).toHaveLength(MAX_MAP_SEATS);
    expect(map.sectionsOnly).toBeUndefined();
    expect(map.sections).toEqual([
      { section: 'S0', version: 2, seatPriceMinor: 5000, seats: MAX_MAP_SEATS / 2 },
      { section: 'S1', version: 2, seatPriceMinor: 5000, seats: MAX_MAP_SEATS / 2 },
    ]);
    expect(reads).toEqual([null, 'S0', 'S1']);
  });

  it('answers a summary without reading any section when the sections hold more (64 sections of 100,000 seats)', async () => {
    const { read, reads } = venue(Array(64).fill(MAX_MAP_SEATS));
    const map = seatsOf(await eventSeatMap(read, undefined));
    expect(map.seats).toEqual([]);
    expect(map.sectionsOnly).toBe(true);
    expect(map.sections).toHaveLength(64);
    expect(reads).toEqual([null]);
    expect(JSON.stringify(map).length).toBeLessThan(8_000);
  });

  it('answers a summary when one seat more than MAX_MAP_SEATS is configured', async () => {
    const { read, reads } = venue([MAX_MAP_SEATS, 1]);
    expect(seatsOf(await eventSeatMap(read, undefined)).sectionsOnly).toBe(true);
    expect(reads).toEqual([null]);
  });
});
