// Organizer settings of one event as each object keeps them, and the split of a validated input
// (event-input.ts) between the WaitingRoom and the Inventory.
import type { EventConfigInput, QueueMethod } from './event-input';
import type { EntryRule } from './entry';
import type { PageTexts } from './page-words';
import type { ProofOfWorkConfig } from './proof-of-work';

/** Retry-After of the maintenance page when no scheduled change says when it ends, seconds. */
export const MAINTENANCE_RETRY_AFTER_S = 600;

/** What the WaitingRoom object keeps: queue policy, controller bounds and timeouts. */
export interface QueueConfig {
  eventId: string;
  name: string;
  policy: 'fifo' | 'random';
  /** The queueing method (QUEUE_METHODS); absent in configs stored before it existed = `queue`. */
  method?: QueueMethod;
  /** Sale start, epoch ms; 0 = on sale since creation. */
  saleStartsAtMs: number;
  /** Organizer's upper bound on new visitors per minute. */
  maxReleaseRatePerMinute: number;
  /** Organizer's lower bound on new visitors per minute (what an unhealthy origin still gets). */
  minReleaseRatePerMinute: number;
  maxActiveVisitors: number;
  admissionTtlMs: number;
  idleTimeoutMs: number;
  targetP99Ms: number;
  maxErrorRate: number;
  /** The Inventory's hold TTL and payment grace, ms, copied for the admission cover of a hold (durable-objects/waiting-room/admission-cover.ts); absent in older rooms. */
  holdTtlMs?: number;
  paymentGraceMs?: number;
  /** The longest a hold may last with its extensions (the Inventory's `holdExtension.maxTotalMs`), ms; absent = no extensions. */
  holdLongestMs?: number;
  /** Seat-hold p99 target, ms. */
  holdTargetP99Ms: number;
  /** A silent or failing origin gets the minimum rate, or no releases at all. */
  onOriginDown: 'minimum' | 'pause';
  /** Queue shards K that take the joins (1-64; absent in configs stored before it existed = 1). */
  shards?: number;
  /** HTTP status of the waiting page (some clients and CDNs need 202 or 429). */
  waitingPageStatus: 200 | 202 | 429;
  /** Organizer's look of the waiting page: colour, HTTPS logo, a short message (all escaped). */
  page: PageTemplate;
  /** Entry tokens required (one place per account, presale lanes); absent = an open event. */
  entry?: EntryRule;
  /** A proof of work every new visitor solves before a place is handed out; null or absent = none. */
  proofOfWork?: ProofOfWorkConfig | null;
}

/** The organizer's customisation of the waiting page. */
export interface PageTemplate {
  accentColor?: string;
  logoUrl?: string;
  message?: string;
  /** Show waiting visitors what is left to sell against the people ahead (default true). */
  showStock?: boolean;
  /** The organizer's own words for the waiting, draw and maintenance pages, per language and key (contracts/page-words.ts). */
  texts?: PageTexts;
  /** The organizer's own waiting page: an HTML body fragment with `{{placeholders}}` (contracts/page-template.ts); absent = the default page. */
  template?: string;
}

/** The organizer's bounds on extending a hold, ms (the input's `holdExtension`, in seconds there). */
export interface HoldExtensionRules {
  /** How many times one hold may be extended (at least 1). */
  maxExtensions: number;
  /** Time one extension adds to the hold's deadline, ms. */
  extensionMs: number;
  /** No extension moves a deadline past the hold's placement time plus this, ms. */
  maxTotalMs: number;
}

/**
 * The organizer's rules for returns, the waitlist and face-value resale (the input's `resale`, in
 * seconds and an ISO time there). Absent on an event: no returns, no waitlist.
 */
export interface ResaleRules {
  /** Returns are accepted before this instant, epoch ms; at it and after they are refused. */
  returnDeadlineMs: number;
  /** How long an offer to a waitlisted account stays open, ms. */
  offerTtlMs: number;
  /** The organizer's fee per resold seat, minor units of the event's currency (0: none). */
  feeMinor: number;
  /**
   * When the original order is refunded for a returned seat: `on_resale` when the seat's new
   * buyer's purchase confirms (no refund for a seat nobody buys), `at_once` when the return is
   * accepted (the seat then belongs to no order until it is resold).
   */
  refund: 'on_resale' | 'at_once';
  /** Path on the origin that gets a signed webhook for each offer (resale-webhook.ts); absent = the feed only. */
  webhookPath?: string;
  /** Path on the origin where a waitlisted buyer takes an offer (the waiting page links to it with `?hold=`); absent = no link. */
  offerPath?: string;
}

/** A general-admission tier: places without numbers, sold by quantity. Prices in minor units. */
interface TierConfig {
  tier: string;
  capacity: number;
  priceMinor: number;
}

/** A venue section: numbered seats served by an Inventory object of their own. Price in minor units. */
export interface SectionConfig {
  /** Upper-case letters and digits (SECTION_PATTERN); the prefix of its seat ids (`S2-A14`). */
  section: string;
  seats: number;
  seatsPerRow: number;
  /** Price of one seat of the section, minor units of the event's `currency`. */
  priceMinor: number;
}

/**
 * What an Inventory object keeps: the seat plan, prices and the hold rules. The event's own object
 * keeps the whole plan (`sections` lists the event's sections, if any); a section's object keeps
 * `section` and the seats of that section only (docs/explanation/scaling.md, "One Inventory per venue section").
 */
export interface InventoryConfig {
  /** Numbered seats of this object (0 for a general-admission-only event, and for the event's own object when it has sections). */
  seats: number;
  seatsPerRow: number;
  /** Price of one numbered seat, minor units of `currency`. */
  seatPriceMinor: number;
  /** ISO 4217 code. */
  currency: string;
  tiers: TierConfig[];
  holdTtlMs: number;
  /** How long a PAYMENT_PENDING hold waits for the origin before it NEEDS_RECONCILIATION, ms. */
  paymentGraceMs: number;
  maxSeatsPerAccount: number;
  /** How a buyer may extend a HELD hold (hold-extension.ts); absent = no extensions. */
  holdExtension?: HoldExtensionRules;
  /** Returns, the waitlist and resale (resale-policy.ts); absent = none. Events without sections only. */
  resale?: ResaleRules;
  /** The event's sections (event's own object only; absent: the event has one block of `seats`). */
  sections?: SectionConfig[];
  /** The section this object serves (a section's object only): seat ids are `<section>-<row><n>`. */
  section?: string;
}

/**
 * The configuration of each section's Inventory object, from the event's (empty without sections):
 * the section's seats, seats per row and price; no tiers (they stay in the event's own object);
 * the event's currency, hold TTL, payment grace and per-account limit.
 */
export function sectionConfigs(event: InventoryConfig): { section: string; config: InventoryConfig }[] {
  const { sections, ...rules } = event;
  return (sections ?? []).map((s) => ({
    section: s.section,
    config: { ...rules, seats: s.seats, seatsPerRow: s.seatsPerRow, seatPriceMinor: s.priceMinor, tiers: [], section: s.section },
  }));
}

/** The per-account limit of this object's event spans several objects: it is kept by the account ledger. */
export function usesAccountLedger(config: InventoryConfig): boolean {
  return config.section !== undefined || (config.sections?.length ?? 0) > 0;
}

/**
 * Splits an organizer's input into the two objects' configurations.
 * The minimum release rate defaults to a tenth of the maximum, at least 1 per minute.
 */
export function splitConfig(eventId: string, input: EventConfigInput): { queue: QueueConfig; inventory: InventoryConfig } {
  return {
    queue: {
      eventId,
      name: input.name ?? eventId,
      policy: input.policy,
      method: input.method,
      saleStartsAtMs: input.saleStartsAt ? Date.parse(input.saleStartsAt) : 0,
      maxReleaseRatePerMinute: input.releaseRatePerMinute,
      minReleaseRatePerMinute: input.minReleaseRatePerMinute ?? Math.max(1, Math.floor(input.releaseRatePerMinute / 10)),
      maxActiveVisitors: input.maxActiveVisitors,
      admissionTtlMs: input.admissionTtlSeconds * 1000,
      idleTimeoutMs: input.idleTimeoutSeconds * 1000,
      holdTtlMs: input.holdTtlSeconds * 1000,
      paymentGraceMs: input.paymentGraceSeconds * 1000,
      ...(input.holdExtension ? { holdLongestMs: input.holdExtension.maxTotalSeconds * 1000 } : {}),
      targetP99Ms: input.targetP99Ms,
      maxErrorRate: input.maxErrorRate,
      holdTargetP99Ms: input.holdTargetP99Ms,
      onOriginDown: input.onOriginDown,
      shards: input.queueShards,
      waitingPageStatus: input.waitingPageStatus,
      page: input.page,
      ...(input.entry ? { entry: entryRule(input.entry) } : {}),
      proofOfWork: input.proofOfWork ?? null,
    },
    inventory: {
      seats: input.seats,
      seatsPerRow: input.seatsPerRow,
      seatPriceMinor: input.seatPriceMinor,
      currency: input.currency,
      tiers: input.tiers,
      holdTtlMs: input.holdTtlSeconds * 1000,
      paymentGraceMs: input.paymentGraceSeconds * 1000,
      maxSeatsPerAccount: input.maxSeatsPerAccount,
      ...(input.holdExtension
        ? {
            holdExtension: {
              maxExtensions: input.holdExtension.maxExtensions,
              extensionMs: input.holdExtension.extensionSeconds * 1000,
              maxTotalMs: input.holdExtension.maxTotalSeconds * 1000,
            },
          }
        : {}),
      ...(input.resale
        ? {
            resale: {
              returnDeadlineMs: Date.parse(input.resale.returnDeadline),
              offerTtlMs: input.resale.offerSeconds * 1000,
              feeMinor: input.resale.feeMinor,
              refund: input.resale.refund,
              ...(input.resale.webhookPath ? { webhookPath: input.resale.webhookPath } : {}),
              ...(input.resale.offerPath ? { offerPath: input.resale.offerPath } : {}),
            },
          }
        : {}),
      ...(input.sections ? { sections: input.sections } : {}),
    },
  };
}

/**
 * The organizer's view of a stored configuration: the inverse of `splitConfig`, in the shape and
 * units of the PUT body, so what `GET /_wr/admin/events/{eventId}` shows can be sent back as is.
 * The room's `patterns` and `bypass` are not in either object: the EventDirectory keeps them.
 */
export function joinConfig(queue: QueueConfig, inventory: InventoryConfig): Omit<EventConfigInput, 'patterns' | 'bypass'> {
  return {
    name: queue.name,
    policy: queue.policy,
    ...(queue.saleStartsAtMs > 0 ? { saleStartsAt: new Date(queue.saleStartsAtMs).toISOString() } : {}),
    method: queue.method ?? 'queue',
    releaseRatePerMinute: queue.maxReleaseRatePerMinute,
    minReleaseRatePerMinute: queue.minReleaseRatePerMinute,
    maxActiveVisitors: queue.maxActiveVisitors,
    seats: inventory.seats,
    seatsPerRow: inventory.seatsPerRow,
    seatPriceMinor: inventory.seatPriceMinor,
    currency: inventory.currency,
    tiers: inventory.tiers,
    ...(inventory.sections ? { sections: inventory.sections } : {}),
    holdTtlSeconds: inventory.holdTtlMs / 1000,
    paymentGraceSeconds: inventory.paymentGraceMs / 1000,
    ...(inventory.holdExtension
      ? {
          holdExtension: {
            maxExtensions: inventory.holdExtension.maxExtensions,
            extensionSeconds: inventory.holdExtension.extensionMs / 1000,
            maxTotalSeconds: inventory.holdExtension.maxTotalMs / 1000,
          },
        }
      : {}),
    ...(inventory.resale
      ? {
          resale: {
            returnDeadline: new Date(inventory.resale.returnDeadlineMs).toISOString(),
            offerSeconds: inventory.resale.offerTtlMs / 1000,
            feeMinor: inventory.resale.feeMinor,
            refund: inventory.resale.refund,
            ...(inventory.resale.webhookPath ? { webhookPath: inventory.resale.webhookPath } : {}),
            ...(inventory.resale.offerPath ? { offerPath: inventory.resale.offerPath } : {}),
          },
        }
      : {}),
    admissionTtlSeconds: queue.admissionTtlMs / 1000,
    idleTimeoutSeconds: queue.idleTimeoutMs / 1000,
    maxSeatsPerAccount: inventory.maxSeatsPerAccount,
    targetP99Ms: queue.targetP99Ms,
    maxErrorRate: queue.maxErrorRate,
    holdTargetP99Ms: queue.holdTargetP99Ms,
    onOriginDown: queue.onOriginDown,
    queueShards: queue.shards ?? 1,
    waitingPageStatus: queue.waitingPageStatus ?? 200,
    page: queue.page ?? {},
    ...(queue.proofOfWork ? { proofOfWork: queue.proofOfWork } : {}),
    ...(queue.entry ? { entry: entryInput(queue.entry) } : {}),
  };
}

/** The room's entry rule from the organizer's `entry` (instants as epoch ms; the account key is pinned by the organizer API). */
function entryRule(entry: NonNullable<EventConfigInput['entry']>): EntryRule {
  return {
    require: entry.require,
    signInUrl: entry.signInUrl,
    issuer: entry.issuer,
    ...(entry.jwksPath ? { jwksPath: entry.jwksPath } : {}),
    lanes: entry.lanes.map((l) => ({
      lane: l.lane,
      saleStartsAtMs: l.saleStartsAt ? Date.parse(l.saleStartsAt) : 0,
      releaseSharePercent: l.releaseSharePercent,
    })),
  };
}

/** The organizer's `entry` from the room's rule (the inverse of `entryRule`; the pinned key id is not part of it). */
function entryInput(rule: EntryRule): NonNullable<EventConfigInput['entry']> {
  return {
    require: rule.require,
    signInUrl: rule.signInUrl,
    issuer: rule.issuer,
    ...(rule.jwksPath ? { jwksPath: rule.jwksPath } : {}),
    lanes: rule.lanes.map((l) => ({
      lane: l.lane,
      ...(l.saleStartsAtMs > 0 ? { saleStartsAt: new Date(l.saleStartsAtMs).toISOString() } : {}),
      releaseSharePercent: l.releaseSharePercent,
    })),
  };
}

/** The part of a plan fixed once created: seat count, seats per row, tier names and capacities, sections (names, seats, rows). */
export function planShape(config: InventoryConfig): string {
  const sections = (config.sections ?? []).map((s) => [s.section, s.seats, s.seatsPerRow]);
  return JSON.stringify([
    config.seats,
    config.seatsPerRow,
    config.tiers.map((t) => [t.tier, t.capacity]),
    sections,
    config.section ?? null,
  ]);
}
