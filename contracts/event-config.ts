// Organizer settings of one event: the schema, its defaults and the split between the two objects.
import { z } from 'zod';
import { TIER_PATTERN } from './names';

/** Default hold TTL: 5 minutes, in seconds. */
export const DEFAULT_HOLD_TTL_S = 300;
/** Default admission TTL (how long an admitted visitor stays active), in seconds. */
export const DEFAULT_ADMISSION_TTL_S = 600;
/** Default idle timeout: a released visitor who has not come back this long loses the place, in seconds. */
export const DEFAULT_IDLE_TIMEOUT_S = 300;
/** Default cap on seats one account may hold plus own per event. */
export const DEFAULT_MAX_SEATS_PER_ACCOUNT = 6;
/** Default origin p99 latency target for the release controller, in ms. */
export const DEFAULT_TARGET_P99_MS = 800;
/** Default highest origin error rate (0..1) the release controller tolerates. */
export const DEFAULT_MAX_ERROR_RATE = 0.02;
/** Default seat-hold p99 (through the gateway) above which the inventory counts as overloaded, ms. */
export const DEFAULT_HOLD_TARGET_P99_MS = 300;
/** Default payment grace: how long a PAYMENT_PENDING hold waits for the origin's answer, in seconds. */
export const DEFAULT_PAYMENT_GRACE_S = 120;
/** Default price of one numbered seat, in minor units of `currency` (EUR 50.00). */
export const DEFAULT_SEAT_PRICE_MINOR = 5000;

/** How far ahead a sale may start, ms (alarms cannot be set past 2189; five years is plenty). */
export const MAX_SALE_START_AHEAD_MS = 5 * 365 * 24 * 60 * 60 * 1000;

/**
 * Body of `PUT /_wr/admin/events/{eventId}`. Rates are *new visitors per minute*; durations are
 * seconds; `saleStartsAt` is an ISO 8601 instant (absent = on sale now).
 */
export const eventConfigInput = z
  .object({
    name: z.string().min(1).max(200).optional(),
    policy: z.enum(['fifo', 'random']).default('fifo'),
    saleStartsAt: z.iso.datetime({ offset: true }).optional(),
    releaseRatePerMinute: z.number().int().min(1).max(1_000_000),
    minReleaseRatePerMinute: z.number().int().min(0).max(1_000_000).optional(),
    maxActiveVisitors: z.number().int().min(1).max(10_000_000),
    seats: z.number().int().min(0).max(100_000).default(0),
    seatsPerRow: z.number().int().min(1).max(1_000).default(25),
    seatPriceMinor: z.number().int().min(0).max(100_000_000).default(DEFAULT_SEAT_PRICE_MINOR),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .default('EUR'),
    tiers: z
      .array(
        z
          .object({
            tier: z.string().regex(TIER_PATTERN),
            capacity: z.number().int().min(1).max(10_000_000),
            priceMinor: z.number().int().min(0).max(100_000_000),
          })
          .strict(),
      )
      .max(20)
      .default([]),
    paymentGraceSeconds: z.number().int().min(10).max(900).default(DEFAULT_PAYMENT_GRACE_S),
    holdTtlSeconds: z.number().int().min(10).max(3_600).default(DEFAULT_HOLD_TTL_S),
    admissionTtlSeconds: z.number().int().min(30).max(7_200).default(DEFAULT_ADMISSION_TTL_S),
    idleTimeoutSeconds: z.number().int().min(30).max(3_600).default(DEFAULT_IDLE_TIMEOUT_S),
    maxSeatsPerAccount: z.number().int().min(1).max(100).default(DEFAULT_MAX_SEATS_PER_ACCOUNT),
    targetP99Ms: z.number().int().min(1).max(60_000).default(DEFAULT_TARGET_P99_MS),
    maxErrorRate: z.number().min(0).max(1).default(DEFAULT_MAX_ERROR_RATE),
    holdTargetP99Ms: z.number().int().min(1).max(60_000).default(DEFAULT_HOLD_TARGET_P99_MS),
    onOriginDown: z.enum(['minimum', 'pause']).default('minimum'),
    queueShards: z.number().int().min(1).max(64).default(1),
    waitingPageStatus: z.union([z.literal(200), z.literal(202), z.literal(429)]).default(200),
    page: z
      .object({
        accentColor: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .optional(),
        logoUrl: z
          .url({ protocol: /^https$/ })
          .max(500)
          .optional(),
        message: z.string().max(500).optional(),
      })
      .strict()
      .default({}),
  })
  .strict()
  .refine((c) => (c.minReleaseRatePerMinute ?? 0) <= c.releaseRatePerMinute, {
    message: 'minReleaseRatePerMinute must not exceed releaseRatePerMinute',
    path: ['minReleaseRatePerMinute'],
  })
  .refine((c) => !c.saleStartsAt || Date.parse(c.saleStartsAt) < Date.now() + MAX_SALE_START_AHEAD_MS, {
    message: 'saleStartsAt must be within 5 years',
    path: ['saleStartsAt'],
  })
  .refine((c) => c.seats > 0 || c.tiers.length > 0, { message: 'an event needs numbered seats or at least one tier', path: ['seats'] })
  .refine((c) => new Set(c.tiers.map((t) => t.tier)).size === c.tiers.length, { message: 'tier names must be distinct', path: ['tiers'] });

/** A validated event configuration as the organizer sent it (defaults applied). */
export type EventConfigInput = z.infer<typeof eventConfigInput>;

/** What the WaitingRoom object keeps: queue policy, controller bounds and timeouts. */
export interface QueueConfig {
  eventId: string;
  name: string;
  policy: 'fifo' | 'random';
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
}

/** The organizer's customisation of the waiting page. */
export interface PageTemplate {
  accentColor?: string;
  logoUrl?: string;
  message?: string;
}

/** A general-admission tier: places without numbers, sold by quantity. Prices in minor units. */
export interface TierConfig {
  tier: string;
  capacity: number;
  priceMinor: number;
}

/** What the Inventory object keeps: the seat plan, prices and the hold rules. */
export interface InventoryConfig {
  /** Numbered seats (0 for a general-admission-only event). */
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
      saleStartsAtMs: input.saleStartsAt ? Date.parse(input.saleStartsAt) : 0,
      maxReleaseRatePerMinute: input.releaseRatePerMinute,
      minReleaseRatePerMinute: input.minReleaseRatePerMinute ?? Math.max(1, Math.floor(input.releaseRatePerMinute / 10)),
      maxActiveVisitors: input.maxActiveVisitors,
      admissionTtlMs: input.admissionTtlSeconds * 1000,
      idleTimeoutMs: input.idleTimeoutSeconds * 1000,
      targetP99Ms: input.targetP99Ms,
      maxErrorRate: input.maxErrorRate,
      holdTargetP99Ms: input.holdTargetP99Ms,
      onOriginDown: input.onOriginDown,
      shards: input.queueShards,
      waitingPageStatus: input.waitingPageStatus,
      page: input.page,
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
    },
  };
}

/**
 * The organizer's view of a stored configuration: the inverse of `splitConfig`, in the shape and
 * units of the PUT body, so what `GET /_wr/admin/events/{eventId}` shows can be sent back as is.
 */
export function joinConfig(queue: QueueConfig, inventory: InventoryConfig): EventConfigInput {
  return {
    name: queue.name,
    policy: queue.policy,
    ...(queue.saleStartsAtMs > 0 ? { saleStartsAt: new Date(queue.saleStartsAtMs).toISOString() } : {}),
    releaseRatePerMinute: queue.maxReleaseRatePerMinute,
    minReleaseRatePerMinute: queue.minReleaseRatePerMinute,
    maxActiveVisitors: queue.maxActiveVisitors,
    seats: inventory.seats,
    seatsPerRow: inventory.seatsPerRow,
    seatPriceMinor: inventory.seatPriceMinor,
    currency: inventory.currency,
    tiers: inventory.tiers,
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
  };
}
