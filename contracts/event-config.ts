// Organizer settings of one event: the schema, its defaults and the split between the two objects.
import * as z from 'zod/mini';
import { MAX_BYPASS_ENTRIES, MAX_PATTERNS, MAX_PATTERN_LENGTH } from './room-patterns';
import { isoInstant, plainText, wholeNumber } from './zod';

/** A client-sent instant, bounded (`isoInstant`): sale starts, scheduled windows. */
export const isoDateTime = isoInstant();
import { SECTION_PATTERN, TIER_PATTERN } from './names';
import { DEFAULT_ENTRY_ISSUER, JWKS_PATH_PATTERN, LANE_PATTERN, MAX_LANES, MAX_SIGN_IN_URL_LENGTH, type EntryRule } from './entry';
import { MAX_DIFFICULTY_BITS, MIN_DIFFICULTY_BITS, type ProofOfWorkConfig } from './proof-of-work';

/** Default hold TTL: 5 minutes, in seconds. */
const DEFAULT_HOLD_TTL_S = 300;
/** Default admission TTL (how long an admitted visitor stays active), in seconds. */
const DEFAULT_ADMISSION_TTL_S = 600;
/** Default idle timeout: a released visitor who has not come back this long loses the place, in seconds. */
const DEFAULT_IDLE_TIMEOUT_S = 300;
/** Default cap on seats one account may hold plus own per event. */
const DEFAULT_MAX_SEATS_PER_ACCOUNT = 6;
/** Default origin p99 latency target for the release controller, in ms. */
const DEFAULT_TARGET_P99_MS = 800;
/** Default highest origin error rate (0..1) the release controller tolerates. */
const DEFAULT_MAX_ERROR_RATE = 0.02;
/** Default seat-hold p99 (through the gateway) above which the inventory counts as overloaded, ms. */
export const DEFAULT_HOLD_TARGET_P99_MS = 300;
/** Default payment grace: how long a PAYMENT_PENDING hold waits for the origin's answer, in seconds. */
export const DEFAULT_PAYMENT_GRACE_S = 120;
/** Default price of one numbered seat, in minor units of `currency` (EUR 50.00). */
export const DEFAULT_SEAT_PRICE_MINOR = 5000;

/** Most venue sections one event may have (each is one Inventory object). */
const MAX_SECTIONS = 64;

/**
 * The waiting page's look as the organizer API takes it (an event's `page`, a scheduled change's
 * `page`): colour, HTTPS logo, a short message. Built on each call, like the event schema.
 */
export function pageTemplateInput() {
  return z.strictObject({
    accentColor: z.optional(z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/))),
    logoUrl: z.optional(z.url({ protocol: /^https$/ }).check(z.maxLength(500))),
    message: z.optional(plainText(0, 500, { newlines: true })),
  });
}

/**
 * Body of `PUT /_wr/admin/events/{eventId}`. Rates are *new visitors per minute*; durations are
 * seconds; `saleStartsAt` is an ISO 8601 instant (absent = on sale now). Built on its first use
 * (`z.lazy`), not when the module loads: it is the largest schema, and every cold isolate loads this
 * module while only organizer calls parse it (docs/explanation/scaling.md "The gateway's bundle and start-up").
 */
export const eventConfigInput = z.lazy(() =>
  z
    .strictObject({
      name: z.optional(plainText(1, 200)),
      policy: z._default(z.enum(['fifo', 'random']), 'fifo'),
      method: z._default(z.enum(QUEUE_METHODS), 'queue'),
      saleStartsAt: z.optional(isoDateTime),
      releaseRatePerMinute: wholeNumber(1, 1_000_000),
      minReleaseRatePerMinute: z.optional(wholeNumber(0, 1_000_000)),
      maxActiveVisitors: wholeNumber(1, 10_000_000),
      seats: z._default(wholeNumber(0, 100_000), 0),
      seatsPerRow: z._default(wholeNumber(1, 1_000), 25),
      seatPriceMinor: z._default(wholeNumber(0, 100_000_000), DEFAULT_SEAT_PRICE_MINOR),
      currency: z._default(z.string().check(z.regex(/^[A-Z]{3}$/)), 'EUR'),
      tiers: z._default(
        z
          .array(
            z.strictObject({
              tier: z.string().check(z.regex(TIER_PATTERN)),
              capacity: wholeNumber(1, 10_000_000),
              priceMinor: wholeNumber(0, 100_000_000),
            }),
          )
          .check(z.maxLength(20)),
        [],
      ),
      // Numbered seats as venue sections, each its own Inventory object (docs/explanation/scaling.md): seat ids
      // carry the section (`S2-A14`). Instead of `seats`/`seatsPerRow`/`seatPriceMinor`, not beside them.
      sections: z.optional(
        z
          .array(
            z.strictObject({
              section: z.string().check(z.regex(SECTION_PATTERN)),
              seats: wholeNumber(1, 100_000),
              seatsPerRow: z._default(wholeNumber(1, 1_000), 25),
              priceMinor: wholeNumber(0, 100_000_000),
            }),
          )
          .check(z.minLength(1), z.maxLength(MAX_SECTIONS)),
      ),
      paymentGraceSeconds: z._default(wholeNumber(10, 900), DEFAULT_PAYMENT_GRACE_S),
      holdTtlSeconds: z._default(wholeNumber(10, 3_600), DEFAULT_HOLD_TTL_S),
      admissionTtlSeconds: z._default(wholeNumber(30, 7_200), DEFAULT_ADMISSION_TTL_S),
      idleTimeoutSeconds: z._default(wholeNumber(30, 3_600), DEFAULT_IDLE_TIMEOUT_S),
      maxSeatsPerAccount: z._default(wholeNumber(1, 100), DEFAULT_MAX_SEATS_PER_ACCOUNT),
      targetP99Ms: z._default(wholeNumber(1, 60_000), DEFAULT_TARGET_P99_MS),
      maxErrorRate: z._default(z.number().check(z.minimum(0), z.maximum(1)), DEFAULT_MAX_ERROR_RATE),
      holdTargetP99Ms: z._default(wholeNumber(1, 60_000), DEFAULT_HOLD_TARGET_P99_MS),
      onOriginDown: z._default(z.enum(['minimum', 'pause']), 'minimum'),
      queueShards: z._default(wholeNumber(1, 64), 1),
      waitingPageStatus: z._default(z.union([z.literal(200), z.literal(202), z.literal(429)]), 200),
      // URL patterns the event's room covers (grammar: contracts/room-patterns.ts, checked by the
      // organizer API with its own ROUTE_* codes); absent = `/events/{eventId}/*`.
      patterns: z.optional(z.array(z.string().check(z.maxLength(MAX_PATTERN_LENGTH))).check(z.maxLength(MAX_PATTERNS))),
      // Requests of the room that go to the origin untouched and uncounted.
      bypass: z._default(
        z.strictObject({
          pathPrefixes: z._default(z.array(z.string().check(z.maxLength(MAX_PATTERN_LENGTH))).check(z.maxLength(MAX_BYPASS_ENTRIES)), []),
          extensions: z._default(z.array(z.string().check(z.maxLength(16))).check(z.maxLength(MAX_BYPASS_ENTRIES)), []),
          methods: z._default(z.array(z.string().check(z.maxLength(16))).check(z.maxLength(MAX_BYPASS_ENTRIES)), []),
        }),
        { pathPrefixes: [], extensions: [], methods: [] },
      ),
      page: z._default(pageTemplateInput(), {}),
      // Entry tokens (contracts/entry.ts, docs/reference/api.md "Entry tokens"): absent = an open event. The
      // sign-in URL's site is checked by the organizer API against the room's patterns (SIGN_IN_URL_INVALID).
      entry: z.optional(
        z.strictObject({
          require: z.literal('account'),
          signInUrl: z.string().check(z.minLength(1), z.maxLength(MAX_SIGN_IN_URL_LENGTH)),
          issuer: z._default(z.string().check(z.minLength(1), z.maxLength(200)), DEFAULT_ENTRY_ISSUER),
          jwksPath: z.optional(z.string().check(z.regex(JWKS_PATH_PATTERN))),
          lanes: z._default(
            z
              .array(
                z.strictObject({
                  lane: z.string().check(z.regex(LANE_PATTERN)),
                  saleStartsAt: z.optional(isoDateTime),
                  releaseSharePercent: wholeNumber(0, 100),
                }),
              )
              .check(z.maxLength(MAX_LANES)),
            [],
          ),
        }),
      ),
      // A proof of work on join (contracts/proof-of-work.ts); absent = none.
      proofOfWork: z.optional(z.strictObject({ difficultyBits: wholeNumber(MIN_DIFFICULTY_BITS, MAX_DIFFICULTY_BITS) })),
    })
    .check(
      z.refine((c) => c.policy !== 'random' || c.saleStartsAt !== undefined, {
        message: 'a lottery (policy "random") needs saleStartsAt: visitors who arrive before it are drawn in random order then',
        path: ['saleStartsAt'],
      }),
      z.refine((c) => c.method !== 'passthrough' || c.policy === 'fifo', {
        message: 'passthrough lets newcomers straight in, so it needs policy "fifo" (a lottery draws its pre-queue)',
        path: ['method'],
      }),
      z.refine((c) => (c.minReleaseRatePerMinute ?? 0) <= c.releaseRatePerMinute, {
        message: 'minReleaseRatePerMinute must not exceed releaseRatePerMinute',
        path: ['minReleaseRatePerMinute'],
      }),
      z.refine((c) => c.seats > 0 || c.tiers.length > 0 || c.sections !== undefined, {
        message: 'an event needs numbered seats or at least one tier',
        path: ['seats'],
      }),
      z.refine((c) => c.sections === undefined || c.seats === 0, {
        message: 'numbered seats come as sections or as one block of seats, not both',
        path: ['sections'],
      }),
      z.refine((c) => c.sections === undefined || new Set(c.sections.map((s) => s.section)).size === c.sections.length, {
        message: 'section names must be distinct',
        path: ['sections'],
      }),
      z.refine((c) => new Set(c.tiers.map((t) => t.tier)).size === c.tiers.length, {
        message: 'tier names must be distinct',
        path: ['tiers'],
      }),
      z.refine((c) => !c.entry || new Set(c.entry.lanes.map((l) => l.lane)).size === c.entry.lanes.length, {
        message: 'lane names must be distinct',
        path: ['entry', 'lanes'],
      }),
      z.refine((c) => !c.entry || c.entry.lanes.reduce((sum, l) => sum + l.releaseSharePercent, 0) <= 100, {
        message: 'the release shares of the lanes must add up to at most 100 percent',
        path: ['entry', 'lanes'],
      }),
    ),
);

/** A validated event configuration as the organizer sent it (defaults applied). */
export type EventConfigInput = z.infer<typeof eventConfigInput>;

/**
 * How the room treats visitors without an admission: `queue` (they wait, released in the order of
 * the `policy`), `passthrough` (counted and admitted straight while nobody waits and a slot is
 * free, else queued), `reject` (a maintenance page with `Retry-After`; no place taken, releases
 * stopped, places kept).
 */
export const QUEUE_METHODS = ['queue', 'passthrough', 'reject'] as const;
export type QueueMethod = (typeof QUEUE_METHODS)[number];

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
