// zod's small build for every request-body schema: zod/mini (plain functions the bundler can drop
// when unused, instead of methods on classes) with English messages only. Schema files import
// `* as z from 'zod/mini'` themselves: re-exporting the namespace from here would keep all of it
// (every locale) in the bundle. Importing any helper below also installs the English messages. The full `zod` build was
// about 807 KiB of a 1,068 KiB gateway bundle (#16); zod/mini keeps the same parser, the same issue
// shape (`path`, `message`) and the same English messages.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** A whole number (a safe integer) from `min` to `max` inclusive. */
export function wholeNumber(min: number, max: number) {
  return z.int().check(z.minimum(min), z.maximum(max));
}

/** A number from `min` to `max` inclusive (finite: zod refuses Infinity and NaN). */
export function boundedNumber(min: number, max: number) {
  return z.number().check(z.minimum(min), z.maximum(max));
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
const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
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
