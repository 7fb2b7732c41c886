// zod's small build for every request-body schema: zod/mini (plain functions the bundler can drop
// when unused, instead of methods on classes) with zod's English messages. Schema files import
// `* as z from 'zod/mini'` themselves. zod/mini loads no locale of its own (every message would be
// "Invalid input"): importing any helper below installs the English one.
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

/** A whole number (a safe integer) from `min` to `max` inclusive. */
export function wholeNumber(min: number, max: number) {
  return z.int().check(z.minimum(min), z.maximum(max));
}

/** A number from `min` to `max` inclusive (finite: zod refuses Infinity and NaN). */
export function boundedNumber(min: number, max: number) {
  return z.number().check(z.minimum(min), z.maximum(max));
}

/** Earliest instant a client may send, epoch ms (2000-01-01T00:00:00Z): older ones are typos. */
const EARLIEST_INSTANT_MS = Date.UTC(2000, 0, 1);
/**
 * How far ahead of the gateway's clock a client-sent instant may lie, ms (five years): every such
 * instant ends up as a Durable Object alarm or a deadline, and `setAlarm` throws for times past
 * what workerd can keep (signed 64-bit nanoseconds overflow in 2262).
 */
export const MAX_INSTANT_AHEAD_MS = 5 * 365 * 24 * 60 * 60 * 1000;

/**
 * An ISO 8601 date-time with a zone (`Z` or `+hh:mm`), e.g. `2027-03-01T18:00:00Z`, from
 * EARLIEST_INSTANT_MS to MAX_INSTANT_AHEAD_MS after `Date.now()` (checked at parse time, so the
 * window moves with the clock). Read it with `Date.parse`.
 */
export function isoInstant() {
  return z.iso.datetime({ offset: true }).check(
    z.refine(
      (s) => {
        const ms = Date.parse(s);
        return ms >= EARLIEST_INSTANT_MS && ms <= Date.now() + MAX_INSTANT_AHEAD_MS;
      },
      { message: 'must lie between 2000-01-01 and five years from now' },
    ),
  );
}

/** A string of `min` to `max` characters. */
export function boundedString(min: number, max: number) {
  return z.string().check(z.minLength(min), z.maxLength(max));
}

/**
 * C0 and C1 control characters (NUL, CR, LF, ESC...) and the Unicode bidirectional overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069), which reorder what a page or a log line shows
 * ("Trojan Source", CVE-2021-42574). None belongs in an organizer's text or an id.
 */
// oxlint-disable-next-line no-control-regex -- control characters are what these refuse
const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// oxlint-disable-next-line no-control-regex -- as above
const CONTROL_BUT_NEWLINE_OR_BIDI = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * Text an organizer writes and pages show (an event name, a message): `min` to `max` characters,
 * none of them control characters or bidi overrides.
 * @param opts.newlines allow `\n` (a multi-line message)
 */
export function plainText(min: number, max: number, opts: { newlines?: boolean } = {}) {
  const bad = opts.newlines ? CONTROL_BUT_NEWLINE_OR_BIDI : CONTROL_OR_BIDI;
  return z.string().check(
    z.minLength(min),
    z.maxLength(max),
    z.refine((s) => !bad.test(s), { message: 'control characters and bidi overrides are not allowed' }),
  );
}

/** An id another system chose (an order id, an account, a paging cursor): `min` to `max` visible ASCII characters (0x21-0x7E). */
export function visibleId(min: number, max: number) {
  return z
    .string()
    .check(
      z.minLength(min),
      z.maxLength(max),
      z.regex(/^[\x21-\x7e]*$/, { message: 'only visible ASCII characters (no spaces or controls)' }),
    );
}
