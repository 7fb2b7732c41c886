// Creating or changing an event: one flow over the Inventory, the WaitingRoom and the directory,
// serialized by the Inventory's change record and resumable after a crash at every step.
import type { BeginChangeAnswer, ChangeRequest, EndChangeAnswer } from '../../contracts/inventory-answers';
import { joinConfig, sectionConfigs, splitConfig, type EventConfigInput, type QueueConfig } from '../../contracts/event-config';
import { GatewayError } from './errors';

/** The objects an event's configuration spans (Durable Object stubs, or fakes in tests). */
export interface EventObjects {
  room: {
    configure(config: QueueConfig, dryRun?: boolean): Promise<{ kind: 'ok'; created: boolean } | { kind: 'conflict'; detail: string }>;
  };
  /** The event's own Inventory object (the whole plan, tiers; every seat of an event without sections). */
  inventory: InventoryPart;
  /** The Inventory object of one section (events with sections; src/lib/inventory-router.ts names it). */
  section?: (section: string) => InventoryPart;
  directory: { register(eventId: string, name: string): Promise<void> };
  /**
   * The event's room in the room table (src/lib/room-claims.ts): `claim` writes the room's
   * patterns (or refuses with ROUTE_TAKEN, writing nothing) and returns how to put the previous
   * ones back.
   */
  routes?: { claim(): Promise<{ undo(): Promise<void> }> };
}

/** The configuration-change calls of one Inventory object. */
interface InventoryPart {
  beginChange(request: ChangeRequest): Promise<BeginChangeAnswer>;
  finishChange(changeId: string): Promise<EndChangeAnswer>;
  abortChange(changeId: string): Promise<EndChangeAnswer>;
}

/** `configureEvent` outcome: `created` = this request (or the crashed one it resumed) made the event. */
export interface ConfiguredEvent {
  created: boolean;
  /** The stored configuration, in the shape of the PUT body. */
  config: ReturnType<typeof joinConfig>;
}

/**
 * Applies an organizer's configuration to every object of the event, whole or not at all:
 * 1. the WaitingRoom checks its rules without writing (a refusal changes nothing);
 * 2. the Inventory starts the change: it refuses while another change with a different body is in
 *    flight (CHANGE_LEASE_MS), or when the seat plan is fixed; else it writes the plan or the new
 *    prices and records the change as in flight;
 * 3. the WaitingRoom writes its part (refused now, because visitors joined since step 1: the
 *    Inventory undoes step 2);
 * 4. the directory lists the event; 5. the Inventory marks the change finished.
 * An event with sections has one Inventory object per section besides its own: each starts the
 * same change (same id and fingerprint) after the event's own object, and finishes it before; a
 * refusal by any of them undoes it on all that started it.
 * With `routes`, the room's URL patterns are claimed between steps 2 and 3 (undone with the
 * Inventory's part when step 3 refuses).
 * A crash after any step leaves the change recorded: sending the same body again resumes it
 * (every step is idempotent), and once its lease ran out any other body takes it over, replacing a
 * seat plan no hold uses yet. So an event is never left half made with a plan nobody can change.
 *
 * @param eventId a validated event id
 * @param input the validated PUT body
 * @throws GatewayError CONFIG_CONFLICT (409; with Retry-After when another change is in flight),
 *   having changed nothing (or, for a takeover after a crash, the last finished configuration)
 */
export async function configureEvent(objects: EventObjects, eventId: string, input: EventConfigInput): Promise<ConfiguredEvent> {
  const { queue, inventory } = splitConfig(eventId, input);
  const changeId = crypto.randomUUID();
  const fingerprint = await digest(JSON.stringify({ queue, inventory }));
  const check = await objects.room.configure(queue, true);
  if (check.kind === 'conflict') throw new GatewayError('CONFIG_CONFLICT', { detail: check.detail });

  const begun = await objects.inventory.beginChange({ changeId, fingerprint, config: inventory });
  if (begun.kind === 'busy') {
    throw new GatewayError('CONFIG_CONFLICT', {
      detail: 'another change to this event is in progress; retry after it',
      retryAfterS: begun.retryAfterS,
    });
  }
  if (begun.kind === 'conflict') throw new GatewayError('CONFIG_CONFLICT', { detail: begun.detail });
  const sections = sectionConfigs(inventory).map((s) => {
    if (!objects.section) throw new Error('invariant: an event with sections needs the section objects');
    return { part: objects.section(s.section), config: s.config };
  });
  await beginSections(sections, objects.inventory, { changeId, fingerprint });

  // The URLs are claimed while this change holds the event (a pattern another event holds: the
  // Inventory's part is undone, nothing else was written). A crash from here on leaves them
  // claimed, and a new event's URLs answer 404 until the change is resumed: closed, never open.
  let claimed: { undo(): Promise<void> } | undefined;
  try {
    claimed = await objects.routes?.claim();
  } catch (err) {
    await Promise.all(sections.map((s) => s.part.abortChange(changeId)));
    await objects.inventory.abortChange(changeId);
    throw err;
  }
  const written = await objects.room.configure(queue);
  if (written.kind === 'conflict') {
    // Visitors joined between the check and the write: undo the Inventory's and the room table's part too.
    await claimed?.undo();
    await Promise.all(sections.map((s) => s.part.abortChange(changeId)));
    await objects.inventory.abortChange(changeId);
    throw new GatewayError('CONFIG_CONFLICT', { detail: written.detail });
  }
  await objects.directory.register(eventId, queue.name);
  const sectionsFinished = await Promise.all(sections.map((s) => s.part.finishChange(changeId)));
  const finished = await objects.inventory.finishChange(changeId);
  if (finished.kind === 'superseded' || sectionsFinished.some((f) => f.kind === 'superseded')) {
    throw new GatewayError('CONFIG_CONFLICT', {
      detail: 'this change stalled past its lease and another change took over; read the event and retry',
    });
  }
  return { created: begun.created, config: joinConfig(queue, inventory) };
}

/**
 * Starts the change on every section's object (in parallel). If any is busy or refuses, the change
 * is undone on those that started it and on the event's own object, and CONFIG_CONFLICT is thrown.
 */
async function beginSections(
  sections: { part: InventoryPart; config: ChangeRequest['config'] }[],
  event: InventoryPart,
  change: { changeId: string; fingerprint: string },
): Promise<void> {
  const answers = await Promise.allSettled(sections.map((s) => s.part.beginChange({ ...change, config: s.config })));
  const refusal = answers.find((a) => a.status === 'rejected' || a.value.kind !== 'ok');
  if (!refusal) return;
  await Promise.all(sections.map((s, i) => (answers[i]!.status === 'fulfilled' ? s.part.abortChange(change.changeId) : undefined)));
  await event.abortChange(change.changeId);
  if (refusal.status === 'rejected') throw refusal.reason;
  const answer = refusal.value;
  if (answer.kind === 'busy') {
    throw new GatewayError('CONFIG_CONFLICT', {
      detail: 'another change to this event is in progress; retry after it',
      retryAfterS: answer.retryAfterS,
    });
  }
  throw new GatewayError('CONFIG_CONFLICT', { detail: answer.kind === 'conflict' ? answer.detail : 'a section refused the change' });
}

async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
