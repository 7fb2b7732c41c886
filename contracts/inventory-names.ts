// Which Inventory object serves what: the pure naming rules of a sectioned Inventory (docs/explanation/scaling.md,
// "One Inventory per venue section"), shared by the edge (routing) and the objects (who am I).
import { SECTION_PATTERN } from './names';

/**
 * What a caller wants from an event's Inventory, in the terms that decide the object:
 * - `seats`: a seat hold (every seat id must name the same section, or none);
 * - `tier`: a general-admission hold (tiers live in the event's own object);
 * - `hold`: a hold by id (the id names its section: `<section>.<uuid>`, or a bare uuid);
 * - `section`: one section's object (seat map, stats, configuration);
 * - `event`: the event's own object (plan, tiers, sections without one, sold-out flag).
 */
export type InventoryRoute =
  | { kind: 'seats'; seatIds: readonly string[] }
  | { kind: 'tier'; tier: string }
  | { kind: 'hold'; holdId: string }
  | { kind: 'section'; section: string }
  | { kind: 'event' };

/** `inventoryObjectName` outcome: the Durable Object name, or why the request cannot go to one object. */
export type InventoryObjectName = { ok: true; name: string; section: string | null } | { ok: false; code: 'SECTION_MIX'; detail: string };

/** Separator between a section and the rest of a seat id (`S2-A14`). */
const SECTION_SEAT_SEPARATOR = '-';
/** Separator between a section and the uuid of a hold id (`S2.3f0c...`). */
const SECTION_HOLD_SEPARATOR = '.';

/** The section a seat id names (`S2-A14` -> `S2`), or null for a seat of an event without sections (`A14`). */
export function sectionOfSeat(seatId: string): string | null {
  const at = seatId.indexOf(SECTION_SEAT_SEPARATOR);
  return at > 0 ? seatId.slice(0, at) : null;
}

/** The section a hold id names (`S2.3f0c...` -> `S2`), or null for a hold of the event's own object. */
export function sectionOfHold(holdId: string): string | null {
  const at = holdId.indexOf(SECTION_HOLD_SEPARATOR);
  if (at <= 0) return null;
  const section = holdId.slice(0, at);
  return SECTION_PATTERN.test(section) ? section : null;
}

/** A new hold id for a hold made by the object of `section` (null: the event's own object): `<section>.<uuid>`. */
export function holdIdFor(section: string | null, uuid: string): string {
  return section === null ? uuid : `${section}${SECTION_HOLD_SEPARATOR}${uuid}`;
}

/** The Inventory object name of one section of an event: `<eventId>/section/<section>`. */
export function sectionObjectName(eventId: string, section: string): string {
  return `${eventId}/section/${section}`;
}

/**
 * Who an Inventory object is, from its name: the event's own object (`<eventId>`) or the object
 * of one section (`<eventId>/section/<section>`). Null for a name of neither shape.
 */
export function parseInventoryName(name: string): { eventId: string; section: string | null } | null {
  const parts = name.split('/');
  if (parts.length === 1) return { eventId: name, section: null };
  if (parts.length === 3 && parts[1] === 'section' && SECTION_PATTERN.test(parts[2]!)) return { eventId: parts[0]!, section: parts[2]! };
  return null;
}

/**
 * The Inventory object that serves `route` for event `eventId`. A hold's seats must all be in one
 * section (a hold is one transaction of one object, and real seat maps group a party's seats
 * within a section): a mix is refused with `SECTION_MIX`. Seats without a section, tiers and the
 * event itself go to the event's own object, named `eventId` as before sections existed, so events
 * configured with a single block of seats keep their object and their holds.
 *
 * @param eventId a validated event id (EVENT_ID_PATTERN: no `/`, so names never collide)
 */
export function inventoryObjectName(eventId: string, route: InventoryRoute): InventoryObjectName {
  let section: string | null;
  switch (route.kind) {
    case 'seats': {
      const sections = new Set(route.seatIds.map(sectionOfSeat));
      if (sections.size > 1) {
        const named = [...sections].map((s) => s ?? '(none)').join(', ');
        return { ok: false, code: 'SECTION_MIX', detail: `a hold takes seats of one section only; got seats of ${named}` };
      }
      section = sections.values().next().value ?? null;
      // A malformed prefix goes to the event's object, which refuses the seat id as malformed: no
      // object is ever made for a name the organizer did not configure the shape of.
      if (section !== null && !SECTION_PATTERN.test(section)) section = null;
      break;
    }
    case 'hold':
      section = sectionOfHold(route.holdId);
      break;
    case 'section':
      if (!SECTION_PATTERN.test(route.section))
        throw new Error(`invariant: section ${JSON.stringify(route.section)} is not a section name`);
      section = route.section;
      break;
    case 'tier':
    case 'event':
      section = null;
      break;
  }
  return { ok: true, name: section === null ? eventId : sectionObjectName(eventId, section), section };
}

/** Account-ledger shards per event: each account's entries live in one, so no shard sees every hold. */
const LEDGER_SHARDS = 8;

/** The AccountLedger object name of the shard that keeps `account`'s entries for an event: `<eventId>/ledger/<n>`. */
export function ledgerObjectName(eventId: string, account: string): string {
  return `${eventId}/ledger/${ledgerShard(account, LEDGER_SHARDS)}`;
}

/** The ledger shard (0-based) of an account: FNV-1a (32 bit) of the account id, modulo `shards`. */
export function ledgerShard(account: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < account.length; i++) {
    h ^= account.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}
