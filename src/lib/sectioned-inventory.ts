// An event's Inventory when its seats span section objects: the seat map, the organizer's stats
// and the sale switch over every object, merged here (pure merges, tested without objects).
import { MAX_MAP_SEATS, type InventoryStats, type SeatMap, type SeatMapAnswer, type StatsAnswer } from '../../contracts/inventory-answers';

/**
 * One seat-map snapshot of an event with sections: the event's own map (tiers, prices, sale
 * state) and every section's seats, in the event's section order. `version` is the sum of the
 * objects' versions (it grows whenever any of them changes); `sections` gives each section's own
 * version, which a reader sends back as `since` for that section's deltas.
 *
 * @param event the event's own object's map (a snapshot)
 * @param sections each section's snapshot, in the event's section order
 */
function mergeSeatMaps(event: SeatMap, sections: { section: string; map: SeatMap }[]): SeatMap {
  const seats = event.kind === 'snapshot' ? [...event.seats] : [];
  let version = event.version;
  for (const s of sections) {
    if (s.map.kind !== 'snapshot') throw new Error('invariant: merging needs section snapshots');
    seats.push(...s.map.seats);
    version += s.map.version;
  }
  return {
    kind: 'snapshot',
    version,
    seats,
    tiers: event.tiers,
    seatPriceMinor: event.seatPriceMinor,
    currency: event.currency,
    salesClosed: event.salesClosed,
    sections: sections.map((s) => ({
      section: s.section,
      version: s.map.version,
      seatPriceMinor: s.map.seatPriceMinor,
      seats: s.map.kind === 'snapshot' ? s.map.seats.length : 0,
    })),
  };
}

/**
 * The seat map of an event through `read`: the event's own object's answer for an event without
 * sections (snapshot or delta, as `since` asks, passed on as the object serialized it), else the
 * snapshot merged across its sections (the event's own map names them), or, when the sections
 * hold more than MAX_MAP_SEATS seats in all, a summary (`sectionsOnly`: no seats, no section read),
 * so no answer lists more. Only a merge parses and serializes maps here.
 * @param read reads one object's map: `section` null = the event's own object
 * @returns the event's map; `event_not_found` when the event's object or a section's has no plan
 */
export async function eventSeatMap(
  read: (section: string | null, since: number | undefined) => Promise<SeatMapAnswer>,
  since: number | undefined,
): Promise<SeatMapAnswer> {
  const first = await read(null, since);
  if (first.kind !== 'map' || first.sections.length === 0) return first;
  // The merged map is always a snapshot (deltas are per section); `since` only chose the event's own part.
  let own: SeatMapAnswer = first;
  let event = JSON.parse(first.json) as SeatMap;
  if (event.kind !== 'snapshot') {
    own = await read(null, undefined);
    if (own.kind !== 'map') return own;
    event = JSON.parse(own.json) as SeatMap;
  }
  // Too many seats to merge into one answer: a summary, and no section is asked. Events stored
  // before sections listed their size count as too large (each section is read on its own then).
  const total = (event.sections ?? []).reduce((n, s) => n + (s.seats ?? Infinity), 0);
  if (total > MAX_MAP_SEATS) return answerOf({ ...event, kind: 'snapshot', seats: [], sectionsOnly: true }, own.sections);
  const parts = await Promise.all(own.sections.map(async (section) => ({ section, answer: await read(section, undefined) })));
  const maps: { section: string; map: SeatMap }[] = [];
  for (const p of parts) {
    if (p.answer.kind !== 'map') return p.answer;
    maps.push({ section: p.section, map: JSON.parse(p.answer.json) as SeatMap });
  }
  return answerOf(mergeSeatMaps(event, maps), own.sections);
}

function answerOf(map: SeatMap, sections: string[]): SeatMapAnswer {
  return { kind: 'map', json: JSON.stringify(map), version: map.version, sections };
}

/**
 * The organizer's numbers of an event with sections: seat and hold counts and the consistency
 * counters summed over the event's own object and every section's; the configuration, tiers and
 * sale state are the event's own object's; a change in flight on any object is reported.
 */
export function mergeStats(event: StatsAnswer, sections: StatsAnswer[]): StatsAnswer {
  if (event.kind !== 'stats') return event;
  const total: InventoryStats = structuredClone(event.stats);
  if (sections.length > 0) total.sections = { count: sections.length, missing: 0 };
  for (const answer of sections) {
    if (answer.kind !== 'stats') {
      // A section without its plan (a creation cut short): shown, so no total passes for complete.
      total.sections!.missing++;
      continue;
    }
    const s = answer.stats;
    total.version += s.version;
    for (const k of Object.keys(total.seats) as (keyof InventoryStats['seats'])[]) total.seats[k] += s.seats[k];
    for (const k of Object.keys(total.holds) as (keyof InventoryStats['holds'])[]) total.holds[k] += s.holds[k];
    for (const k of Object.keys(total.consistency) as (keyof InventoryStats['consistency'])[]) total.consistency[k] += s.consistency[k];
    total.pendingChange ??= s.pendingChange;
  }
  return { kind: 'stats', stats: total };
}
