// The organizer's settings of one event as sent (PUT /_wr/admin/events/{eventId}): the schema and
// its defaults. event-config.ts splits a validated input between the two objects.
import * as z from 'zod/mini';
import { MAX_BYPASS_ENTRIES, MAX_PATTERNS, MAX_PATTERN_LENGTH } from './room-patterns';
import { pageTextsInput } from './page-words';
import { templateProblem } from './page-template';
import { isoInstant, plainText, wholeNumber } from './zod';

/** A client-sent instant, bounded (`isoInstant`): sale starts, scheduled windows. */
export const isoDateTime = isoInstant();
import { SECTION_PATTERN, TIER_PATTERN } from './names';
import { DEFAULT_ENTRY_ISSUER, JWKS_PATH_PATTERN, LANE_PATTERN, MAX_LANES, MAX_SIGN_IN_URL_LENGTH } from './entry';
import { MAX_DIFFICULTY_BITS, MIN_DIFFICULTY_BITS } from './proof-of-work';

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
/** A path on the origin: absolute, no query, at most 200 characters (`resale.webhookPath`, `resale.offerPath`). */
const WEBHOOK_PATH_PATTERN = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,199}$/;
/** How long an offer to a waitlisted account stays open by default (`resale.offerSeconds`), in seconds. */
const DEFAULT_OFFER_S = 900;
/** Most extensions an organizer may allow one hold (`holdExtension.maxExtensions`). */
const MAX_HOLD_EXTENSIONS = 10;
/** Longest a hold may last with its extensions (`holdExtension.maxTotalSeconds`), in seconds: 2 hours. */
export const LONGEST_HOLD_TOTAL_S = 7_200;

/** Default price of one numbered seat, in minor units of `currency` (EUR 50.00). */
export const DEFAULT_SEAT_PRICE_MINOR = 5000;

/** Most venue sections one event may have (each is one Inventory object). */
const MAX_SECTIONS = 64;

/**
 * How the room treats visitors without an admission: `queue` (they wait, released in the order of
 * the `policy`), `passthrough` (counted and admitted straight while nobody waits and a slot is
 * free, else queued), `reject` (a maintenance page with `Retry-After`; no place taken, releases
 * stopped, places kept).
 */
export const QUEUE_METHODS = ['queue', 'passthrough', 'reject'] as const;
export type QueueMethod = (typeof QUEUE_METHODS)[number];

/**
 * The waiting page's look as the organizer API takes it (an event's `page`, a scheduled change's
 * `page`): colour, HTTPS logo, a short message, the organizer's own words per language
 * (`texts`, contracts/page-words.ts) and own page (`template`, contracts/page-template.ts). Built
 * on each call, like the event schema.
 */
export function pageTemplateInput() {
  return z.strictObject({
    accentColor: z.optional(z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/))),
    logoUrl: z.optional(z.url({ protocol: /^https$/ }).check(z.maxLength(500))),
    message: z.optional(plainText(0, 500, { newlines: true })),
    showStock: z.optional(z.boolean()),
    texts: z.optional(pageTextsInput()),
    template: z.optional(pageTemplateText()),
  });
}

/**
 * An event's `page.template`: a string `templateProblem` accepts. A problem is one issue whose
 * `params` carry the gateway's code and the rule, line and column, so the API answers
 * PAGE_TEMPLATE_INVALID with them (src/lib/validate.ts issueError).
 */
function pageTemplateText() {
  return z.string().check(
    z.superRefine((template, ctx) => {
      const p = templateProblem(template);
      if (!p) return;
      ctx.issues.push({
        code: 'custom',
        input: template,
        message: `line ${p.line}, column ${p.column}: ${p.message} (rule ${p.rule})`,
        params: { gatewayCode: 'PAGE_TEMPLATE_INVALID', rule: p.rule, line: p.line, column: p.column },
      });
    }),
  );
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
      // A buyer may ask for more time on a HELD hold (WCAG 2.2 SC 2.2.1 Timing Adjustable): how many
      // times, by how much, and never past `maxTotalSeconds` after the hold was placed. Absent = no
      // extensions, so a hold keeps seats out of sale no longer than the organizer already chose.
      holdExtension: z.optional(
        z.strictObject({
          maxExtensions: wholeNumber(1, MAX_HOLD_EXTENSIONS),
          extensionSeconds: wholeNumber(10, 3_600),
          maxTotalSeconds: wholeNumber(10, LONGEST_HOLD_TOTAL_S),
        }),
      ),
      // Returns, a waitlist and face-value resale (docs/how-to/returns-and-waitlist.md): returns before
      // `returnDeadline`, offers open `offerSeconds`, a resold seat costs its face value plus `feeMinor`.
      resale: z.optional(
        z.strictObject({
          returnDeadline: isoDateTime,
          offerSeconds: z._default(wholeNumber(60, 86_400), DEFAULT_OFFER_S),
          feeMinor: z._default(wholeNumber(0, 100_000_000), 0),
          refund: z._default(z.enum(['on_resale', 'at_once']), 'on_resale'),
          webhookPath: z.optional(z.string().check(z.regex(WEBHOOK_PATH_PATTERN))),
          offerPath: z.optional(z.string().check(z.regex(WEBHOOK_PATH_PATTERN))),
        }),
      ),
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
      z.refine((c) => !c.holdExtension || c.holdExtension.maxTotalSeconds > c.holdTtlSeconds, {
        message: 'holdExtension.maxTotalSeconds must be longer than holdTtlSeconds, or no extension could add any time',
        path: ['holdExtension', 'maxTotalSeconds'],
      }),
      z.refine((c) => !c.resale || c.sections === undefined, {
        message: 'resale works on events without sections (one Inventory decides every returned seat)',
        path: ['resale'],
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
