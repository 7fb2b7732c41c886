// After every committed Inventory write: the object's one alarm follows the earliest deadline (a
// hold's, or an allocation's release time), then a sell-out is announced: a section's object tells
// its event's object, the event's object tells the WaitingRoom.
import type { ChannelDesk } from './channel-desk';
import type { InventoryStore } from './store';
import type { ResaleStore } from './resale-store';
import type { PlanStore } from './plan-store';
import { sectionsSoldOut } from './sections-sold-out';

/** Who this Inventory object is: its event, and its section (null: the event's own object). */
export interface InventoryIdentity {
  eventId: string;
  section: string | null;
}

/** The bindings a sell-out is announced through (the object's own `env`, read at each call). */
type SoldOutBindings = Pick<Env, 'WAITING_ROOM' | 'INVENTORY'>;

/** What the after-write reads and calls. */
export interface AfterWriteParts {
  plans: PlanStore;
  store: InventoryStore;
  /** The allocations' release times (channel-desk.ts `nextRelease`). */
  channels: ChannelDesk;
  /** The resale's webhooks waiting for delivery (resale-store.ts `nextDelivery`). */
  resale: Pick<ResaleStore, 'nextDelivery'>;
  identity: InventoryIdentity | null;
  /** The object's storage: its one alarm. */
  storage: Pick<DurableObjectStorage, 'getAlarm' | 'setAlarm' | 'deleteAlarm'>;
}

/** The after-write of one Inventory object (see the file comment). */
export class AfterWrite {
  private readonly alarm: AlarmKeeper;

  constructor(private readonly p: AfterWriteParts) {
    this.alarm = new AlarmKeeper(p.storage);
  }

  /**
   * After every committed write: the alarm, then the sell-out. A throw is the caller's to log
   * (write-run.ts): the write committed, and the next write or start re-arms.
   */
  async run(env: SoldOutBindings): Promise<void> {
    await this.armAlarm();
    await this.announceSoldOut(env);
  }

  /** Keeps the one alarm at the earliest live deadline, release time or webhook delivery, or none (`AlarmKeeper`). */
  async armAlarm(): Promise<void> {
    const deadlines = [this.p.store.nextDeadline(), this.p.channels.nextRelease(), this.p.resale.nextDelivery()].filter((t) => t !== null);
    await this.alarm.arm(deadlines.length ? Math.min(...deadlines) : null);
  }

  /** The alarm is firing: the next `armAlarm` reads it from storage (`AlarmKeeper.forget`). */
  alarmFiring(): void {
    this.alarm.forget();
  }

  /**
   * Sold out = no seat or tier place is available and none is held by a hold that may still
   * expire (places whose payment is pending count as gone); for the event's own object, also every
   * section's object said it is sold out. When that flips, a section tells its event's object, the
   * event's object tells the WaitingRoom so waiting visitors learn it at once; the flag is stored
   * once the other side has it (a failed call is retried by the next change).
   */
  async announceSoldOut(env: SoldOutBindings): Promise<void> {
    const { plans, store, identity } = this.p;
    const head = plans.head();
    const config = plans.plan();
    if (!head || !config || !identity) return;
    const { eventId, section } = identity;
    const soldOut = !store.anythingLeft() && (section !== null || sectionsSoldOut(config.sections ?? [], plans.sectionFlags()));
    if (soldOut === head.soldOut) return;
    try {
      if (section === null) await env.WAITING_ROOM.getByName(eventId).setSoldOut(soldOut);
      else await env.INVENTORY.getByName(eventId).sectionSoldOut(section, soldOut);
      plans.setSoldOutDelivered(soldOut);
    } catch (err) {
      console.warn('sold-out signal not delivered; retried on the next change:', err instanceof Error ? err.message : err);
    }
  }
}

/**
 * Latest alarm time the keeper sets, epoch ms (2100-01-01): `setAlarm` throws for times past what
 * workerd can keep (signed 64-bit nanoseconds overflow in 2262; starts past 2189 were seen to throw). A deadline stored
 * later than this (none can be now: client-sent times are bounded) wakes the object early, which
 * finds nothing due and re-arms: harmless, where a throw would fail every write after it.
 */
export const LATEST_ALARM_MS = Date.UTC(2100, 0, 1);

/**
 * Keeps the object's one alarm at the earliest live deadline (or none), remembering what it set:
 * a write that leaves the earliest deadline where it was (most holds: a new hold ends after the
 * ones before it) costs no alarm call. The platform changes the alarm behind the object's back in
 * two ways only: it fires (`forget` at the start of `alarm()`, so the handler's re-arm reads the
 * stored alarm again), or the object resets (memory gone: a new keeper reads it on start). A call
 * that throws leaves the keeper not knowing, so the next write reads the alarm again.
 * (Cloudflare docs, Durable Objects "Alarms": one alarm per object, at-least-once, deleted once
 * its handler succeeds unless the handler set a new one.)
 */
export class AlarmKeeper {
  /** The alarm as this instance last read or set it (epoch ms, null: none); undefined: read it first. */
  private known: number | null | undefined = undefined;

  constructor(private readonly storage: Pick<DurableObjectStorage, 'getAlarm' | 'setAlarm' | 'deleteAlarm'>) {}

  /**
   * Sets the alarm to `next` (epoch ms; clamped to LATEST_ALARM_MS), or deletes it (null), unless
   * it already is.
   */
  async arm(wanted: number | null): Promise<void> {
    const next = wanted === null ? null : Math.min(wanted, LATEST_ALARM_MS);
    const current = this.known === undefined ? await this.storage.getAlarm() : this.known;
    this.known = undefined;
    if (next === null) {
      if (current !== null) await this.storage.deleteAlarm();
    } else if (current !== next) {
      await this.storage.setAlarm(next);
    }
    this.known = next;
  }

  /** The alarm is firing (or changed elsewhere): the next `arm` reads it from storage. */
  forget(): void {
    this.known = undefined;
  }
}
