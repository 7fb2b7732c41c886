// After every committed Inventory write, a sell-out is announced: a section's object tells its
// event's object, the event's object tells the WaitingRoom.
import type { InventoryStore } from './store';
import type { PlanStore } from './plan-store';
import { sectionsSoldOut } from './sections-sold-out';

/** Who this Inventory object is: its event, and its section (null: the event's own object). */
export interface InventoryIdentity {
  eventId: string;
  section: string | null;
}

/** The sell-out announcement of one Inventory object, run after each of its writes. */
export class AfterWrite {
  constructor(
    private readonly plans: PlanStore,
    private readonly store: InventoryStore,
    private readonly identity: InventoryIdentity | null,
  ) {}

  /**
   * Sold out = no seat or tier place is available and none is held by a hold that may still
   * expire (places whose payment is pending count as gone); for the event's own object, also every
   * section's object said it is sold out. When that flips, a section tells its event's object, the
   * event's object tells the WaitingRoom so waiting visitors learn it at once; the flag is stored
   * once the other side has it (a failed call is retried by the next change).
   */
  async announceSoldOut(env: Pick<Env, 'WAITING_ROOM' | 'INVENTORY'>): Promise<void> {
    const head = this.plans.head();
    const config = this.plans.plan();
    if (!head || !config || !this.identity) return;
    const { eventId, section } = this.identity;
    const soldOut = !this.store.anythingLeft() && (section !== null || sectionsSoldOut(config.sections ?? [], this.plans.sectionFlags()));
    if (soldOut === head.soldOut) return;
    try {
      if (section === null) await env.WAITING_ROOM.getByName(eventId).setSoldOut(soldOut);
      else await env.INVENTORY.getByName(eventId).sectionSoldOut(section, soldOut);
      this.plans.setSoldOutDelivered(soldOut);
    } catch (err) {
      console.warn('sold-out signal not delivered; retried on the next change:', err instanceof Error ? err.message : err);
    }
  }
}
