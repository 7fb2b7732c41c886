// zod's small build for every request-body schema: zod/mini (plain functions the bundler can drop
// when unused, instead of methods on classes) with English messages only. Schema files import
// `* as z from 'zod/mini'` themselves: re-exporting the namespace from here would keep all of it
// (every locale) in the bundle. Importing any helper below also installs the English messages
// (`zodMessage`, below). The full `zod` build was
// about 807 KiB of a 1,068 KiB gateway bundle; zod/mini keeps the same parser, the same issue
// shape (`path`, `message`) and the same English messages.
import * as z from 'zod/mini';
import { _isoDateTime } from 'zod/v4/core';

/** A value as zod's messages print it: strings quoted, bigints with `n`. */
const shown = (v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? `"${v}"` : String(v));
/** The input's type as zod's messages name it. */
const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isFinite(v) ? 'number' : String(v)) : typeof v;

const SIZED: Record<string, string> = { string: 'characters', array: 'items', set: 'items', map: 'entries', file: 'bytes' };

/**
 * zod's English messages for the issues our schemas raise, word for word as its own locale
 * (zod/v4/locales/en.js) says them, without that locale's tables of string formats (email, UUID,
 * IP ranges...) no schema here uses: 0.6 KiB gzip of the gateway bundle.
 */
export function zodMessage(issue: z.core.$ZodRawIssue): string {
  const i = issue as z.core.$ZodRawIssue & Record<string, unknown>;
  switch (issue.code) {
    case 'invalid_type': {
      return `Invalid input: expected ${String(i.expected)}, received ${typeName(issue.input)}`;
    }
    case 'invalid_value': {
      const values = i.values as unknown[];
      return values.length === 1
        ? `Invalid input: expected ${shown(values[0])}`
        : `Invalid option: expected one of ${values.map(shown).join('|')}`;
    }
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const adj = i.exact ? 'exactly ' : i.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const unit = SIZED[String(i.origin)];
      const bound = String(big ? i.maximum : i.minimum);
      const what = big ? (i.origin ?? 'value') : i.origin;
      return `${big ? 'Too big' : 'Too small'}: expected ${what} to ${unit ? 'have' : 'be'} ${adj}${bound}${unit ? ' ' + unit : ''}`;
    }
    case 'invalid_format':
      return i.format === 'regex' ? `Invalid string: must match pattern ${i.pattern}` : `Invalid ${i.format}`;
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${i.divisor}`;
    case 'unrecognized_keys': {
      const keys = i.keys as string[];
      return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map(shown).join(', ')}`;
    }
    case 'invalid_key':
      return `Invalid key in ${i.origin}`;
    case 'invalid_element':
      return `Invalid value in ${i.origin}`;
    default:
      return 'Invalid input';
  }
}

z.config({ localeError: zodMessage });

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
 * An ISO 8601 date-time with a zone (`z.iso.datetime({ offset: true })`, built from its parts:
 * `z.iso` is a namespace object the bundler keeps whole), e.g. `2027-03-01T18:00:00Z`, from
 * EARLIEST_INSTANT_MS to MAX_INSTANT_AHEAD_MS after `Date.now()` (checked at parse time, so the
 * window moves with the clock). Read it with `Date.parse`.
 */
export function isoInstant() {
  return _isoDateTime(z.ZodMiniISODateTime, { offset: true }).check(
    z.refine(
      (s) => {
        const ms = Date.parse(s);
        return ms >= EARLIEST_INSTANT_MS && ms <= Date.now() + MAX_INSTANT_AHEAD_MS;
      },
      { message: 'must be 2000 to 5 years ahead' },
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
