// The one way the edge reaches an event's Inventory: from what a request names (seats, a tier, a
// hold id, a section) to the Durable Object stub that serves it (contracts/inventory-names.ts).
import { inventoryObjectName, sectionOfHold, type InventoryRoute } from '../../contracts/inventory-names';
import type { HoldAnswer, HoldRequest, HoldView, StatsAnswer } from '../../contracts/inventory-answers';
import { GatewayError } from './errors';
import { mergeStats } from './sectioned-inventory';

/** The stub of one Inventory object (the RPC methods of durable-objects/inventory/inventory.ts). */
export type InventoryStub = ReturnType<Env['INVENTORY']['getByName']>;

/**
 * The Inventory object of event `eventId` that serves `route`. Every caller at the edge (holds,
 * hold reads and releases, the origin API, the seat map, event setup, admin) gets its stub here, so
 * a hold id, a seat and a section always reach the same object. Names: the event's own object is
 * `<eventId>` (events without sections: every seat and tier), a section's is
 * `<eventId>/section/<section>`.
 *
 * @param env the gateway's bindings (only INVENTORY is used)
 * @param eventId a validated event id
 * @throws GatewayError SECTION_MIX (400) when a hold names seats of more than one section; nothing
 *   was called
 */
export function inventoryFor(env: Pick<Env, 'INVENTORY'>, eventId: string, route: InventoryRoute): InventoryStub {
  return env.INVENTORY.getByName(inventoryNameFor(eventId, route));
}

/**
 * The name of the Inventory object that serves `route` (as `inventoryFor`), for callers that
 * address it through a per-isolate batcher (src/lib/hold-batch.ts).
 * @throws GatewayError SECTION_MIX (400), as `inventoryFor`
 */
export function inventoryNameFor(eventId: string, route: InventoryRoute): string {
  const target = inventoryObjectName(eventId, route);
  if (!target.ok) throw new GatewayError(target.code, { detail: target.detail });
  return target.name;
}

/**
 * A hold's answer as the event sees it: seats that name a section the event does not have reach a
 * section object with no plan, which answers `event_not_found`; the event exists (its own object
 * says so), so the seats are unknown (`unknown_seats`, 422 SEAT_NOT_FOUND), not the event
 * (failing input: `{"seatIds":["S9-A1"]}` on the demo event answered 404 "no event demo").
 * Any other answer passes unchanged; the extra call is made only for that refusal.
 */
export async function holdAnswerOfEvent<A extends { kind: string }>(
  env: Pick<Env, 'INVENTORY'>,
  eventId: string,
  request: HoldRequest,
  answer: A,
): Promise<A | Extract<HoldAnswer, { kind: 'unknown_seats' }>> {
  if (answer.kind !== 'event_not_found' || !('seatIds' in request)) return answer;
  const target = inventoryObjectName(eventId, { kind: 'seats', seatIds: request.seatIds });
  if (!target.ok || target.section === null || (await eventSections(env, eventId)) === null) return answer;
  return { kind: 'unknown_seats', seatIds: request.seatIds };
}

/** How long an isolate trusts an event's section list: a plan's sections are fixed once created. */
const SECTIONS_TRUST_MS = 60_000;
const knownSections = new Map<string, { sections: readonly string[]; untilMs: number }>();

/**
 * Refuses, before any object call, a request that names a section the event does not have
 * (`seats?section=S9` answered 404 EVENT_NOT_FOUND, and every made-up section name started a
 * Durable Object of its own). The event's section list comes from its own object once per isolate
 * per `SECTIONS_TRUST_MS` (60 s); an event's sections never change after its plan is created
 * (PUT refuses another plan), so a cached list cannot wrongly refuse. Routes that name no section
 * (the event's own object, a tier, flat seats and hold ids) pass at once.
 *
 * @param nowMs the time now, in ms
 * @throws GatewayError SEAT_NOT_FOUND (422, with `seatIds`) for a hold of seats, HOLD_NOT_FOUND
 *   (404) for a hold id, INVALID_REQUEST (400) for a seat map or audit log of a section;
 *   EVENT_NOT_FOUND (404) when the event has no plan
 */
export async function refuseUnknownSection(
  env: Pick<Env, 'INVENTORY'>,
  eventId: string,
  route: InventoryRoute,
  nowMs: number,
): Promise<void> {
  const section =
    route.kind === 'section'
      ? route.section
      : route.kind === 'hold'
        ? sectionOfHold(route.holdId)
        : route.kind === 'seats'
          ? (() => {
              const target = inventoryObjectName(eventId, route);
              return target.ok ? target.section : null;
            })()
          : null;
  if (section === null) return;
  let known = knownSections.get(eventId);
  if (!known || known.untilMs <= nowMs) {
    const sections = await eventSections(env, eventId);
    if (sections === null) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
    if (knownSections.size >= 1000) knownSections.clear();
    knownSections.set(eventId, (known = { sections, untilMs: nowMs + SECTIONS_TRUST_MS }));
  }
  if (known.sections.includes(section)) return;
  if (route.kind === 'seats') {
    throw new GatewayError('SEAT_NOT_FOUND', { detail: `no such seats: ${route.seatIds.join(', ')}`, extra: { seatIds: route.seatIds } });
  }
  if (route.kind === 'hold') throw new GatewayError('HOLD_NOT_FOUND');
  throw new GatewayError('INVALID_REQUEST', { detail: `event "${eventId}" has no section "${section}"` });
}

/** The sections of an event (names, plan order; [] without sections), or null when there is no event. */
export async function eventSections(env: Pick<Env, 'INVENTORY'>, eventId: string): Promise<string[] | null> {
  return inventoryFor(env, eventId, { kind: 'event' }).sections();
}

/** The organizer's numbers of an event, summed over its sections' objects (`mergeStats`). */
export async function eventStats(env: Pick<Env, 'INVENTORY'>, eventId: string): Promise<StatsAnswer> {
  const [own, sections] = await Promise.all([inventoryFor(env, eventId, { kind: 'event' }).stats(), eventSections(env, eventId)]);
  const parts = await Promise.all((sections ?? []).map((section) => inventoryFor(env, eventId, { kind: 'section', section }).stats()));
  return mergeStats(own, parts);
}

/**
 * Closes or opens an event's sale on every object of it (sections first, the event's own object
 * last, whose answer is the event's). Each call is idempotent: after a crash the same request
 * completes it.
 * @returns false when the event does not exist
 */
export async function setEventSales(env: Pick<Env, 'INVENTORY'>, eventId: string, state: 'open' | 'closed'): Promise<boolean> {
  const sections = await eventSections(env, eventId);
  if (sections === null) return false;
  await Promise.all(sections.map((section) => inventoryFor(env, eventId, { kind: 'section', section }).setSales(state)));
  return inventoryFor(env, eventId, { kind: 'event' }).setSales(state);
}

/**
 * Holds whose payment started or ended in a sale, across the event's objects, in one order: the
 * event's own object's holds (bare uuids) first, then each section's (`<section>.<uuid>`) in plan
 * order; `afterHoldId` (the last hold of the previous page) says which object to resume, so
 * paging visits every object once.
 * @throws GatewayError EVENT_NOT_FOUND (404) when the event has no plan
 */
export async function eventPaymentHolds(
  env: Pick<Env, 'INVENTORY'>,
  eventId: string,
  afterHoldId: string,
  limit: number,
): Promise<HoldView[]> {
  const sections = await eventSections(env, eventId);
  // No plan: no event (a typo in the event id read as "nothing to reconcile").
  if (sections === null) throw new GatewayError('EVENT_NOT_FOUND', { detail: `no event "${eventId}"` });
  const parts: (string | null)[] = [null, ...sections];
  const after = inventoryObjectName(eventId, { kind: 'hold', holdId: afterHoldId });
  const startAt = afterHoldId === '' || !after.ok ? 0 : Math.max(0, parts.indexOf(after.section));
  const out: HoldView[] = [];
  for (let i = startAt; i < parts.length && out.length < limit; i++) {
    const part = parts[i]!;
    const stub = inventoryFor(env, eventId, part === null ? { kind: 'event' } : { kind: 'section', section: part });
    out.push(...(await stub.paymentHolds(i === startAt ? afterHoldId : '', limit - out.length)));
  }
  return out;
}
